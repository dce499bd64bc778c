//! Folding runs of alike SSE events, so a 4,473-event incident reads in a screenful.
//!
//! One folding for every reader of a trace: the text report's timeline and the diagrams
//! of `faultline-teach` both walk [`fold_trace`], so a run of events is one line in the one
//! exactly when it is one band in the other.
//!
//! Between two other trace entries (a request, a response, a fault, a state line), every
//! event is grouped by what a reader would call "the same thing happening again": same
//! connection, stream, session, generation, payload kind, replay flag and fate. Groups keep
//! the order in which they first appeared, so interleaved streams (progress on a call's
//! stream while notifications flow on the standalone one) fold into two runs instead of
//! thousands of alternating lines. Within a run, ids are kept as ranges.

use faultline_model::Payload;

use crate::client::Fate;
use crate::trace::{TraceEntry, TraceWhat};
use crate::verdict::IdRanges;

/// A folded run of alike events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRun {
    pub first_at: u64,
    pub last_at: u64,
    pub conn: u64,
    pub stream: u32,
    /// Session index (sessions numbered in the order the run created them).
    pub session: u32,
    pub generation: u32,
    /// The payload kind, see [`payload_label`].
    pub label: &'static str,
    pub replay: bool,
    pub fate: Fate,
    /// Sorted, deduplicated ids (events without an id are only counted).
    pub ids: Vec<u64>,
    /// How many events the run folds (ids repeated or missing still count).
    pub count: u32,
    /// Progress steps `(first, last, total)` when the run carries tool progress.
    pub steps: Option<(u32, u32, u32)>,
}

impl EventRun {
    pub fn id_ranges(&self) -> IdRanges {
        IdRanges::from_sorted(self.ids.iter().copied())
    }

    /// `id 7`, `ids 1..=41`, `ids 1..=3, 9` or `no id`.
    pub fn ids_text(&self) -> String {
        match self.ids.as_slice() {
            [] => "no id".into(),
            [one] => format!("id {one}"),
            _ => format!("ids {}", self.id_ranges()),
        }
    }
}

/// One step of a folded trace: an entry that is not an event, or a run of alike events.
#[derive(Debug, Clone, PartialEq)]
pub enum Folded<'a> {
    Entry(&'a TraceEntry),
    Events(EventRun),
}

/// The kind of an event's payload, as the report and the diagrams print it.
pub fn payload_label(payload: &Payload) -> &'static str {
    match payload {
        Payload::Priming => "priming",
        Payload::Progress { .. } => "progress",
        Payload::ToolResult { .. } => "tool result",
        Payload::Notification { .. } => "notification",
        Payload::Response { .. } => "response",
        Payload::ListenAck { .. } => "listen ack",
        Payload::ListChanged { .. } | Payload::SessionListChanged { .. } => "list changed",
        Payload::ListenEnded {
            end: faultline_model::ListenEnd::Cancelled,
            ..
        } => "listen cancelled",
        Payload::ListenEnded { .. } => "listen complete",
    }
}

type Key = (u64, u32, u32, u32, &'static str, bool, Fate);

/// Walks the trace in order, folding the events between two other entries into runs (in
/// order of first appearance); every other entry is passed through as it is.
pub fn fold_trace(trace: &[TraceEntry]) -> Vec<Folded<'_>> {
    let mut out: Vec<Folded<'_>> = Vec::new();
    let mut runs: Vec<(Key, EventRun)> = Vec::new();
    for entry in trace {
        let TraceWhat::Event {
            conn,
            id,
            stream,
            session,
            generation,
            payload,
            replay,
            fate,
        } = &entry.what
        else {
            out.extend(runs.drain(..).map(|(_, run)| Folded::Events(finish(run))));
            out.push(Folded::Entry(entry));
            continue;
        };
        let label = payload_label(payload);
        let key: Key = (*conn, *stream, *session, *generation, label, *replay, *fate);
        let step = match payload {
            Payload::Progress { step, total, .. } => Some((*step, *step, *total)),
            _ => None,
        };
        match runs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, run)) => {
                run.last_at = entry.at_ms;
                run.count += 1;
                run.ids.extend(*id);
                if let (Some((lo, hi, _)), Some((s, _, _))) = (&mut run.steps, step) {
                    *lo = (*lo).min(s);
                    *hi = (*hi).max(s);
                }
            }
            None => runs.push((
                key,
                EventRun {
                    first_at: entry.at_ms,
                    last_at: entry.at_ms,
                    conn: *conn,
                    stream: *stream,
                    session: *session,
                    generation: *generation,
                    label,
                    replay: *replay,
                    fate: *fate,
                    ids: id.iter().copied().collect(),
                    count: 1,
                    steps: step,
                },
            )),
        }
    }
    out.extend(runs.drain(..).map(|(_, run)| Folded::Events(finish(run))));
    out
}

fn finish(mut run: EventRun) -> EventRun {
    run.ids.sort_unstable();
    run.ids.dedup();
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(at: u64, conn: u64, id: u64, fate: Fate) -> TraceEntry {
        TraceEntry {
            at_ms: at,
            what: TraceWhat::Event {
                conn,
                id: Some(id),
                stream: conn as u32,
                session: 0,
                generation: 1,
                payload: Payload::Notification { seq: id },
                replay: false,
                fate,
            },
        }
    }

    fn runs(trace: &[TraceEntry]) -> Vec<EventRun> {
        fold_trace(trace)
            .into_iter()
            .filter_map(|f| match f {
                Folded::Events(run) => Some(run),
                Folded::Entry(_) => None,
            })
            .collect()
    }

    #[test]
    fn interleaved_streams_fold_into_one_run_each() {
        let mut trace = Vec::new();
        for i in 1..=100 {
            trace.push(ev(i, 3, i, Fate::Applied));
            trace.push(ev(i, 4, i, Fate::Applied));
        }
        let runs = runs(&trace);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].count, 100);
        assert_eq!((runs[0].first_at, runs[0].last_at), (1, 100));
        assert_eq!(runs[1].ids_text(), "ids 1..=100");
    }

    #[test]
    fn a_different_fate_starts_a_new_run() {
        let trace = [ev(1, 3, 1, Fate::Applied), ev(2, 3, 2, Fate::SkippedAsSeen)];
        assert_eq!(runs(&trace).len(), 2);
    }

    #[test]
    fn another_entry_ends_every_run_and_keeps_its_place() {
        let fault = TraceEntry {
            at_ms: 2,
            what: TraceWhat::Fault {
                fault: "drop".into(),
            },
        };
        let trace = [
            ev(1, 3, 1, Fate::Applied),
            fault.clone(),
            ev(3, 3, 2, Fate::Applied),
            ev(4, 3, 7, Fate::Applied),
        ];
        let folded = fold_trace(&trace);
        assert_eq!(folded.len(), 3);
        assert_eq!(folded[1], Folded::Entry(&fault));
        let Folded::Events(last) = &folded[2] else {
            panic!("{folded:?}")
        };
        assert_eq!((last.count, last.ids_text().as_str()), (2, "ids 2, 7"));
    }
}
