//! Folding runs of alike SSE events into one band, so a 4,473-event incident fits on a page.
//!
//! Between two other trace entries (a request, a fault, a state line), every event is
//! grouped by what a reader would call "the same thing happening again": same connection,
//! stream, generation, payload kind, replay flag and fate. Groups keep the order in which
//! they first appeared, so interleaved streams (progress on a call's stream while
//! notifications flow on the standalone one) fold into two bands instead of thousands of
//! alternating rows. Within a group, ids are kept as ranges.

use faultline_model::Payload;
use faultline_sim::{Fate, IdRanges};

/// One event as folding sees it.
#[derive(Debug, Clone, Copy)]
pub struct EventFacts {
    pub at_ms: u64,
    pub conn: u64,
    pub id: Option<u64>,
    pub stream: u32,
    pub session: u32,
    pub generation: u32,
    pub payload: Payload,
    pub replay: bool,
    pub fate: Fate,
}

/// A folded run of alike events.
#[derive(Debug, Clone)]
pub struct EventRun {
    pub first_at: u64,
    pub last_at: u64,
    pub conn: u64,
    pub stream: u32,
    pub session: u32,
    pub generation: u32,
    pub label: &'static str,
    pub replay: bool,
    pub fate: Fate,
    /// Sorted, deduplicated ids (events without an id are only counted).
    pub ids: Vec<u64>,
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

/// The kind of payload, as a label.
fn payload_label(p: &Payload) -> &'static str {
    match p {
        Payload::Priming => "priming",
        Payload::Progress { .. } => "progress",
        Payload::ToolResult { .. } => "tool result",
        Payload::Notification { .. } => "notification",
        Payload::Response { .. } => "response",
    }
}

/// What the client did with the events, as a label.
pub fn fate_label(fate: Fate) -> &'static str {
    match fate {
        Fate::Applied => "applied",
        Fate::SkippedAsSeen => "SKIPPED as already seen",
        Fate::Buffered => "buffered until the probe answers",
        Fate::Quarantined => "quarantined",
        Fate::Ignored => "lost in flight",
        Fate::Primed => "cursor primed",
    }
}

type Key = (u64, u32, u32, u32, &'static str, bool, Fate);

fn key(e: &EventFacts) -> Key {
    (
        e.conn,
        e.stream,
        e.session,
        e.generation,
        payload_label(&e.payload),
        e.replay,
        e.fate,
    )
}

/// Folds consecutive events into runs, in order of first appearance.
pub fn fold(events: &[EventFacts]) -> Vec<EventRun> {
    let mut runs: Vec<EventRun> = Vec::new();
    let mut keys: Vec<Key> = Vec::new();
    for e in events {
        let k = key(e);
        let slot = keys.iter().position(|x| *x == k);
        let step = match e.payload {
            Payload::Progress { step, total, .. } => Some((step, step, total)),
            _ => None,
        };
        match slot {
            Some(i) => {
                let run = &mut runs[i];
                run.last_at = e.at_ms;
                run.count += 1;
                if let Some(id) = e.id {
                    run.ids.push(id);
                }
                if let (Some((lo, hi, _)), Some((s, _, _))) = (&mut run.steps, step) {
                    *lo = (*lo).min(s);
                    *hi = (*hi).max(s);
                }
            }
            None => {
                keys.push(k);
                runs.push(EventRun {
                    first_at: e.at_ms,
                    last_at: e.at_ms,
                    conn: e.conn,
                    stream: e.stream,
                    session: e.session,
                    generation: e.generation,
                    label: payload_label(&e.payload),
                    replay: e.replay,
                    fate: e.fate,
                    ids: e.id.into_iter().collect(),
                    count: 1,
                    steps: step,
                });
            }
        }
    }
    for run in &mut runs {
        run.ids.sort_unstable();
        run.ids.dedup();
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(at: u64, conn: u64, id: u64, fate: Fate) -> EventFacts {
        EventFacts {
            at_ms: at,
            conn,
            id: Some(id),
            stream: conn as u32,
            session: 0,
            generation: 1,
            payload: Payload::Notification { seq: id },
            replay: false,
            fate,
        }
    }

    #[test]
    fn interleaved_streams_fold_into_one_run_each() {
        let mut events = Vec::new();
        for i in 1..=100 {
            events.push(ev(i, 3, i, Fate::Applied));
            events.push(ev(i, 4, i, Fate::Applied));
        }
        let runs = fold(&events);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].count, 100);
        assert_eq!(runs[1].ids_text(), "ids 1..=100");
    }

    #[test]
    fn a_different_fate_starts_a_new_run() {
        let events = [ev(1, 3, 1, Fate::Applied), ev(2, 3, 2, Fate::SkippedAsSeen)];
        assert_eq!(fold(&events).len(), 2);
    }
}
