//! `foreign_event`: events of another session applied on a stream of the client's own.
//!
//! The simulator knows which session each applied event belongs to. For a real client,
//! the rule below reads the ledger and the report.
//!
//! An event store shared by sessions and keyed by stream (the SDKs name every standalone
//! stream `_GET_stream`, and a store keyed by that replays every session's standalone
//! events to whoever resumes: <https://github.com/PrefectHQ/fastmcp/pull/4402> fixed such
//! a store) hands one session another's notifications. The ledger says which events the server sent on a
//! connection and which session the connection's request named; a real client's report
//! says only how many notifications its application was handed. An application cannot be
//! handed a notification nobody sent, so a report with more notifications than the
//! client's own sessions were sent proves that at least that many were another session's:
//! a lower bound, never a guess.

use std::collections::BTreeMap;

use faultline_model::{ConnId, Ledger, Payload};
use serde::Serialize;

use crate::VerdictKind;
use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::spell::{short_id, vtime};
use crate::verdict::{AppliedNote, Evidence, Verdict};
use crate::words::Words;

/// The evidence for a real client: what the server sent on its streams, its own and
/// another session's, and how many of the other's its report proves were handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandedForeign {
    pub sent_foreign: usize,
    pub sent_own: usize,
    pub handed: usize,
    pub handed_foreign_at_least: usize,
    pub foreign_sessions: Vec<String>,
    pub foreign_seq: Vec<u64>,
    pub first_at_ms: u64,
}

/// A real client's foreign events, a lower bound from its report.
pub(crate) fn real(
    ledger: &Ledger,
    report: &ClientReport,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let named: BTreeMap<ConnId, &str> = ledger
        .answers
        .iter()
        .filter_map(|a| Some((a.conn, a.session_sent.as_deref()?)))
        .collect();
    let mut own = 0usize;
    let mut foreign: Vec<(u64, u64, &str)> = Vec::new();
    for send in &ledger.sends {
        let Some(&session) = named.get(&send.conn) else {
            continue;
        };
        if send.event.0 < ledger.events_base {
            continue;
        }
        let event = ledger.event(send.event);
        let Payload::Notification { seq } = event.payload else {
            continue;
        };
        if event.session.0 < ledger.sessions_base {
            continue;
        }
        let owner = ledger.session(event.session).wire_id.as_str();
        if owner == session {
            own += 1;
        } else {
            foreign.push((send.at_ms, seq, owner));
        }
    }
    let handed_foreign = report.notifications.len().saturating_sub(own);
    if foreign.is_empty() || handed_foreign == 0 {
        return;
    }
    let mut sessions: Vec<&str> = foreign.iter().map(|&(_, _, s)| s).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let evidence = HandedForeign {
        sent_foreign: foreign.len(),
        sent_own: own,
        handed: report.notifications.len(),
        handed_foreign_at_least: handed_foreign,
        foreign_sessions: sessions.iter().map(|s| s.to_string()).collect(),
        foreign_seq: foreign.iter().map(|&(_, seq, _)| seq).collect(),
        first_at_ms: foreign[0].0,
    };
    verdicts.push(Verdict {
        kind: VerdictKind::ForeignEvent,
        at_ms: evidence.first_at_ms,
        summary: words.say(|| {
            format!(
                "the server sent {} notification(s) of another session on the client's streams (the first at {}), and the application was handed at least {} of them: {} notifications for {} of its own",
                evidence.sent_foreign,
                vtime(evidence.first_at_ms),
                evidence.handed_foreign_at_least,
                evidence.handed,
                evidence.sent_own
            )
        }),
        evidence: Evidence::HandedForeign(evidence),
    });
}

/// A modelled client's foreign events: each applied event whose session is not the one
/// its connection's request named.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // Each connection's session as its request asked for it (the last request on it),
    // by connection id: the modelled client numbers its connections 1, 2, 3...
    let mut asked_on: Vec<Option<&str>> = Vec::new();
    for q in &record.requests {
        if let Some(session) = q.session.as_deref() {
            let conn = q.conn.0 as usize;
            if asked_on.len() <= conn {
                asked_on.resize(conn + 1, None);
            }
            asked_on[conn] = Some(session);
        }
    }
    let mut foreign: BTreeMap<String, Vec<AppliedNote>> = BTreeMap::new();
    // Applied events come in runs from one connection, nearly all of its own session:
    // once an event's session is found to be the one asked for, the run's next events of
    // that session compare as numbers (connection and session key), not wire ids.
    let mut own: Option<(u64, u32)> = None;
    for a in &record.applied {
        let e = ledger.event(a.event);
        if own == Some((a.conn.0, e.session.0)) {
            continue;
        }
        let Some(asked) = asked_on.get(a.conn.0 as usize).copied().flatten() else {
            continue;
        };
        let owner = ledger.session(e.session);
        let wire = &owner.wire_id;
        if asked == wire {
            own = Some((a.conn.0, e.session.0));
            continue;
        }
        // A server that serves 2025 without sessions (`DualStatelessLegacy`, after a roll
        // into it too) answers whatever session header a request carries on a stream of
        // its stateless scope: the request's own answer, nobody else's events.
        if owner.stateless {
            continue;
        }
        foreign
            .entry(asked.to_string())
            .or_default()
            .push(AppliedNote {
                id: e.id,
                stream: e.stream.0,
                at_ms: a.at_ms,
                detail: format!("belongs to session {}", short_id(wire)),
            });
    }
    for (session, events) in foreign {
        verdicts.push(Verdict {
            kind: VerdictKind::ForeignEvent,
            at_ms: events[0].at_ms,
            summary: words.say(|| {
                format!(
                    "{} event(s) from another session were applied on a stream of session {}",
                    events.len(),
                    short_id(&session)
                )
            }),
            evidence: Evidence::Applied { session, events },
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{ConnId, EventRef, Ledger, SessionEntry};

    use crate::client_record::{AppliedRecord, ClientRecord};
    use crate::verdict::{Evidence, VerdictKind};
    use crate::words::Words;

    fn session(wire: &str, stateless: bool) -> SessionEntry {
        SessionEntry {
            wire_id: wire.into(),
            created_ms: 0,
            generations: vec![0],
            died: None,
            held_by: None,
            stateless,
        }
    }

    /// Sessions `a` and `b` (`b` stateless if asked); events 0 and 2 are `a`'s, event 1
    /// is `b`'s; the client's GET on connection 3 named `a` and applied all three there.
    fn judged(b_stateless: bool) -> Vec<crate::verdict::Verdict> {
        let mut ledger = Ledger {
            sessions: vec![session("a", false), session("b", b_stateless)],
            ..Ledger::default()
        };
        for (id, owner) in [(1, 0), (2, 1), (3, 0)] {
            ledger
                .events
                .push(crate::test_records::notification(id, owner, id * 1_000));
        }
        let mut record = ClientRecord::default();
        record.requests.push(crate::test_records::get(3, "a"));
        for (event, at_ms) in [(0, 1_000), (1, 2_000), (2, 3_000)] {
            record.applied.push(AppliedRecord {
                event: EventRef(event),
                at_ms,
                conn: ConnId(3),
            });
        }
        let mut verdicts = Vec::new();
        super::modelled(&ledger, &record, Words::Skipped, &mut verdicts);
        verdicts
    }

    /// Once a connection's own session is recognized, the run's later events are compared
    /// by key: an event of another session between two of its own is still foreign, and
    /// one of a stateless scope is not.
    #[test]
    fn another_session_s_event_amid_the_own_ones_is_foreign() {
        let verdicts = judged(false);
        assert_eq!(verdicts.len(), 1);
        assert_eq!(verdicts[0].kind, VerdictKind::ForeignEvent);
        let Evidence::Applied { session, events } = &verdicts[0].evidence else {
            panic!("applied events as evidence");
        };
        assert_eq!(session, "a");
        assert_eq!(events.iter().map(|e| e.id).collect::<Vec<_>>(), [2]);
        assert!(judged(true).is_empty());
    }
}
