//! `cursor_reuse`: a `Last-Event-ID` honoured against a numbering other than the one that
//! minted it, so the server replays events "after" a position that means something else
//! there: Behavior B of the incident reports (a restart bumped the session's generation, the
//! new numbering started again at 1 and reached the old cursor's value), or a cursor of one
//! stream honoured on another stream numbered by its own counter.
//!
//! This is the rule both judges apply: the simulator knows which event minted each cursor
//! (it kept the ground truth); grade finds it among the events the server sent the client
//! before the resumption. Whether the client was harmed (it applied what came on the
//! resumed stream) is for each judge to say from what it can see.
//!
//! Guard: a client compares the generation or stream of the id it resumes from, which the
//! wire does not carry; the guarded client instead refuses a replay whose first id is not
//! the next one it expects (`crates/sim/src/client.rs`).

use std::collections::BTreeMap;

use crate::client_record::ClientRecord;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{ConnId, ResumeEntry};
use faultline_model::{CursorResolution, EventRef, Ledger, SessionKey, StreamId, UnknownCursor};

/// One resumption in which the cursor was read in another numbering than its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReusedCursor {
    /// The generation of the event that minted the cursor.
    pub minted_in_generation: u32,
    /// The session's generation when the server honoured it.
    pub honoured_in_generation: u32,
    pub minted_on: StreamId,
    pub honoured_on: StreamId,
    /// True when the session's generation changed and the new numbering re-used the value;
    /// false when another stream's numbering was the reason.
    pub renumbered: bool,
    /// Events the server replayed after the cursor.
    pub replayed: u32,
}

/// Checks resumptions of one ledger, sharing the work each needs (the generations'
/// lowest ids over time) across them.
pub struct CursorReuse<'a> {
    ledger: &'a Ledger,
    numbering: Option<LowestIds>,
}

impl<'a> CursorReuse<'a> {
    pub fn new(ledger: &'a Ledger) -> Self {
        CursorReuse {
            ledger,
            numbering: None,
        }
    }

    /// The resumption on `conn` answered `resolution` at `at_ms` with cursor value
    /// `cursor`, minted by `cursor_event`: `Some` when the cursor was honoured in another
    /// numbering.
    pub fn check(
        &mut self,
        conn: ConnId,
        cursor: u64,
        cursor_event: EventRef,
        resolution: &CursorResolution,
        at_ms: u64,
    ) -> Option<ReusedCursor> {
        let ledger = self.ledger;
        if resumed_right_after(ledger, conn, cursor_event) {
            // The log matched the cursor's own event (a restart that kept the stream keeps
            // the events of the generation that minted it) and replayed what came next:
            // the cursor was read in its own numbering, whatever the generation now.
            return None;
        }
        let (stream, generation, replayed) = match *resolution {
            CursorResolution::Honoured {
                stream,
                generation,
                replayed,
            } => (stream, generation, replayed),
            // The numbering in force is the session's generation when the server answered:
            // a stream that a restart kept (`Everything`) goes on in later generations, so
            // the generation it opened in can be long gone.
            CursorResolution::Stale {
                stream,
                answer: UnknownCursor::ReplayRemaining,
                replayed,
            } => (
                stream,
                generation_at(ledger, ledger.stream(stream).session, at_ms),
                replayed,
            ),
            _ => return None,
        };
        let minted = ledger.event(cursor_event);
        // A generation bump only matters if the new numbering re-used the cursor's value:
        // some event of the honouring generation has an id at or below the cursor.
        let renumbered = minted.generation != generation
            && self
                .numbering
                .get_or_insert_with(|| LowestIds::new(ledger))
                .reached(ledger, (minted.session, generation), cursor, at_ms);
        // Another stream's numbering is the cursor's own when one counter numbers both
        // (session-monotonic ids): an id then names one event, whichever stream carries
        // it, and honouring the cursor there re-uses nothing.
        if !renumbered
            && (minted.stream == stream || numbered_together(ledger, minted.stream, stream))
        {
            return None;
        }
        Some(ReusedCursor {
            minted_in_generation: minted.generation,
            honoured_in_generation: generation,
            minted_on: minted.stream,
            honoured_on: stream,
            renumbered,
            replayed,
        })
    }
}

impl ReusedCursor {
    /// Why the cursor was read in another numbering, for a verdict's sentence.
    pub fn reason(&self) -> String {
        if self.renumbered {
            format!(
                "minted in generation {} and honoured against generation {}'s numbering",
                self.minted_in_generation, self.honoured_in_generation
            )
        } else {
            format!(
                "minted on stream #{} and honoured against stream #{}'s numbering",
                self.minted_on.0, self.honoured_on.0
            )
        }
    }
}

/// True when the first event replayed on `conn` is the one that came right after
/// `cursor_event` on its stream: the server resumed exactly where the cursor's event was.
fn resumed_right_after(ledger: &Ledger, conn: ConnId, cursor_event: EventRef) -> bool {
    let Some(first) = ledger.sends.iter().find(|s| s.conn == conn && s.replay) else {
        return false;
    };
    let (minted, replayed) = (ledger.event(cursor_event), ledger.event(first.event));
    replayed.stream == minted.stream && replayed.ordinal == minted.ordinal + 1
}

/// True when no id names an event on both streams: one counter numbered them (streams
/// numbered each from its own counter both start at the same first id).
fn numbered_together(ledger: &Ledger, a: StreamId, b: StreamId) -> bool {
    let mut ids_of_a: Vec<u64> = ledger
        .events
        .iter()
        .filter(|e| e.stream == a)
        .map(|e| e.id)
        .collect();
    ids_of_a.sort_unstable();
    !ledger
        .events
        .iter()
        .any(|e| e.stream == b && ids_of_a.binary_search(&e.id).is_ok())
}

/// The generation (1-based) `session` was in at `at_ms`: how many of its generations had
/// started by then.
fn generation_at(ledger: &Ledger, session: SessionKey, at_ms: u64) -> u32 {
    let started = &ledger.session(session).generations;
    started.partition_point(|&t| t <= at_ms).max(1) as u32
}

/// For each session's generation, the lowest event id it had produced by each of its
/// events' times: whether a generation's numbering had reached down to a cursor by some
/// moment is then one search, not a pass over every event (once per resumption, for a
/// client that resumed across a restart a thousand times).
struct LowestIds {
    /// (session, generation) -> (event time, lowest id so far), in time order.
    by_generation: BTreeMap<(SessionKey, u32), Vec<(u64, u64)>>,
    /// The ledger lists events in time order (it does: they are recorded as produced).
    in_time_order: bool,
}

impl LowestIds {
    fn new(ledger: &Ledger) -> Self {
        let mut by_generation: BTreeMap<(SessionKey, u32), Vec<(u64, u64)>> = BTreeMap::new();
        for e in &ledger.events {
            let lows = by_generation.entry((e.session, e.generation)).or_default();
            let low = lows.last().map_or(e.id, |&(_, low)| low.min(e.id));
            lows.push((e.at_ms, low));
        }
        LowestIds {
            by_generation,
            in_time_order: ledger.events.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
        }
    }

    /// Whether some event of `generation`, produced by `at_ms`, has an id at or below
    /// `cursor`.
    fn reached(
        &self,
        ledger: &Ledger,
        generation: (SessionKey, u32),
        cursor: u64,
        at_ms: u64,
    ) -> bool {
        if !self.in_time_order {
            return ledger.events.iter().any(|e| {
                (e.session, e.generation) == generation && e.id <= cursor && e.at_ms <= at_ms
            });
        }
        let Some(lows) = self.by_generation.get(&generation) else {
            return false;
        };
        let produced = lows.partition_point(|&(t, _)| t <= at_ms);
        produced > 0 && lows[produced - 1].1 <= cursor
    }
}

/// A modelled client's resumptions, each against the event that minted its cursor, and
/// harm only when it applied something from the resumed stream.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    resumed: &BTreeMap<ConnId, &ResumeEntry>,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // How many events the client applied from each connection, worked out on first need.
    let mut applied_by_conn: Option<BTreeMap<ConnId, usize>> = None;
    let mut rule = CursorReuse::new(ledger);
    for r in &record.resumptions {
        let Some(cursor_event) = r.cursor_event else {
            continue;
        };
        let Some(entry) = resumed.get(&r.conn) else {
            continue;
        };
        let Some(reused) = rule.check(r.conn, r.cursor, cursor_event, &entry.resolution, r.at_ms)
        else {
            continue;
        };
        if reused.replayed == 0 {
            // Nothing was replayed as if it came next: what the misread position skipped
            // is a gap (`silent_gap` names it), and what came after arrived live. The real
            // judge, which cannot tell live from replayed in a report, asks the same.
            continue;
        }
        // The harm is applying events read in the wrong numbering; a client that refused
        // them all (a guard fired) was not harmed.
        let applied_here = applied_by_conn
            .get_or_insert_with(|| {
                let mut counts = BTreeMap::new();
                for a in &record.applied {
                    *counts.entry(a.conn).or_insert(0) += 1;
                }
                counts
            })
            .get(&r.conn)
            .copied()
            .unwrap_or(0);
        if applied_here == 0 {
            continue;
        }
        let summary = words.say(|| {
            format!("Last-Event-ID {} was {}; the server replayed {} event(s) from its log as if they came next, and the client applied {applied_here} event(s) from that resumed stream (the replay and what followed it live)", r.cursor, reused.reason(), reused.replayed)
        });
        verdicts.push(Verdict {
            kind: VerdictKind::CursorReuse,
            at_ms: r.at_ms,
            summary,
            evidence: Evidence::CursorReuse {
                session: r.session.clone(),
                cursor: r.cursor.to_string(),
                minted_in_generation: reused.minted_in_generation,
                honoured_in_generation: reused.honoured_in_generation,
                resumed_at_ms: r.at_ms,
                replayed: reused.replayed,
            },
        });
    }
}

/// A real client's resumptions: the cursor's event is the last one the server sent the
/// client with that id before the resumption, and a reuse is claimed only when every event
/// the server had sent with that id reads as one. A report does not say which stream an
/// applied value came from, so a resumption counts when the server replayed something
/// after the cursor.
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let mut rule = CursorReuse::new(ledger);
    for r in &ledger.resumptions {
        let Ok(cursor) = r.cursor.parse::<u64>() else {
            continue;
        };
        // Every event the server had sent the client with that id in that session: under
        // per-stream numbering several streams share ids, and a report does not say which
        // stream the client resumed. The latest is the one reported; a reuse is claimed
        // only when every one of them reads as one (if any explains the replay as coming
        // right after it, the resumption may have been correct).
        let mut candidates = ledger.sends.iter().rev().filter(|s| {
            let e = ledger.event(s.event);
            s.conn < r.conn
                && s.at_ms <= r.at_ms
                && e.id == cursor
                && Some(ledger.session(e.session).wire_id.as_str()) == r.session_sent.as_deref()
        });
        let Some(minted) = candidates.next() else {
            continue;
        };
        let Some(reused) = rule.check(r.conn, cursor, minted.event, &r.resolution, r.at_ms) else {
            continue;
        };
        if reused.replayed == 0 {
            continue;
        }
        let mut others = candidates.filter(|s| s.event != minted.event);
        if others.any(|s| {
            rule.check(r.conn, cursor, s.event, &r.resolution, r.at_ms)
                .is_none()
        }) {
            continue;
        }
        verdicts.push(Verdict {
            kind: VerdictKind::CursorReuse,
            at_ms: r.at_ms,
            summary: words.say(|| {
                format!(
                    "Last-Event-ID {cursor} was {} at {}; {} event(s) replayed after it as if contiguous",
                    reused.reason(),
                    vtime(r.at_ms),
                    reused.replayed
                )
            }),
            evidence: Evidence::CursorReuse {
                session: r.session_sent.clone().unwrap_or_default(),
                cursor: r.cursor.clone(),
                minted_in_generation: reused.minted_in_generation,
                honoured_in_generation: reused.honoured_in_generation,
                resumed_at_ms: r.at_ms,
                replayed: reused.replayed,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use faultline_model::{
        ConnId, CursorResolution, EventRef, Ledger, ProducedEvent, ResumeEntry, SessionEntry,
        StreamEntry, StreamId, StreamKind,
    };

    use crate::client_record::{AppliedRecord, ClientRecord, ResumeRecord};
    use crate::verdict::{Verdict, VerdictKind};
    use crate::words::Words;

    /// Behavior B on one stream: generation 1 numbered ids 1 and 2, a restart at 10 s
    /// started generation 2 again at 1; at 13 s the client resumed with cursor 2 (minted
    /// in generation 1), honoured against generation 2's numbering with `replayed` events
    /// replayed (the first, generation 2's id 3), and then applied one event on that
    /// connection.
    fn judged(replayed: u32) -> Vec<Verdict> {
        judged_replaying(replayed, 4)
    }

    /// [`judged`], the first event replayed being the stream's event at index `first`.
    fn judged_replaying(replayed: u32, first: u32) -> Vec<Verdict> {
        let mut ordinal = 0;
        let mut event = |id: u64, generation: u32, at_ms: u64| {
            ordinal += 1;
            ProducedEvent {
                generation,
                ordinal,
                ..crate::test_records::notification(id, 0, at_ms)
            }
        };
        let mut ledger = Ledger {
            sessions: vec![SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0, 10_000],
                died: None,
                held_by: None,
                stateless: false,
            }],
            streams: vec![StreamEntry {
                session: faultline_model::SessionKey(0),
                generation: 1,
                kind: StreamKind::Standalone,
                opened_ms: 0,
                modern: false,
                closed_ms: None,
            }],
            events: vec![
                event(1, 1, 1_000),
                event(2, 1, 2_000),
                event(1, 2, 11_000),
                event(2, 2, 12_000),
                event(3, 2, 14_000),
            ],
            ..Ledger::default()
        };
        ledger.resumptions.push(ResumeEntry {
            conn: ConnId(2),
            at_ms: 13_000,
            session_sent: Some("a".into()),
            cursor: "2".into(),
            resolution: CursorResolution::Honoured {
                stream: StreamId(0),
                generation: 2,
                replayed,
            },
            attached_to: Some(StreamId(0)),
            session_sent_len: None,
            cursor_len: None,
            session_unchecked: false,
        });
        let mut record = ClientRecord::default();
        record.resumptions.push(ResumeRecord {
            at_ms: 13_000,
            conn: ConnId(2),
            session: "a".into(),
            cursor: 2,
            cursor_event: Some(EventRef(1)),
        });
        record.applied.push(AppliedRecord {
            event: EventRef(4),
            at_ms: 14_000,
            conn: ConnId(2),
        });
        if replayed > 0 {
            ledger.sends.push(faultline_model::SendEntry {
                event: EventRef(first),
                conn: ConnId(2),
                at_ms: 13_000,
                replay: true,
            });
        }
        let resumed: BTreeMap<ConnId, &ResumeEntry> =
            ledger.resumptions.iter().map(|r| (r.conn, r)).collect();
        let mut verdicts = Vec::new();
        super::modelled(&ledger, &record, &resumed, Words::Skipped, &mut verdicts);
        verdicts
    }

    /// A cursor honoured in another numbering with something replayed after it, applied,
    /// is a reuse; with nothing replayed the skipped events are a gap, not a reuse (as the
    /// real-client judge reads it).
    #[test]
    fn a_reused_cursor_needs_a_replay() {
        let verdicts = judged(1);
        assert_eq!(verdicts.len(), 1);
        assert_eq!(verdicts[0].kind, VerdictKind::CursorReuse);
        assert!(judged(0).is_empty());
    }

    /// A log that kept the cursor's own event (generation 1's id 2, the stream's second)
    /// and replayed the event right after it (generation 2's id 1, the third) read the
    /// cursor in its own numbering: no reuse, whatever the generation now.
    #[test]
    fn a_replay_right_after_the_cursors_own_event_is_no_reuse() {
        assert!(judged_replaying(1, 2).is_empty());
        assert_eq!(judged_replaying(1, 4).len(), 1);
    }
}
