//! `quarantine_violation`: events of one of the client's sessions applied after the
//! session was dead on the server.
//!
//! The simulator knows each event its client applied and when. For a real client, the
//! rule below reads the ledger and the report.
//!
//! A replay from an event log that outlived its session (the 404-after-replay cascade) is
//! the usual way: the log answers `200` on the SSE GET without asking the session store.
//! A client that applies what it replays before it knows the session lives applies a dead
//! session's events. The ledger says when each session died and when each event was put
//! on one of the client's connections; a real client's report says only which values its
//! application was handed. A value handed more often than events carrying it reached the
//! client while their sessions were alive proves that at least the difference came from
//! a dead session: a lower bound, never a guess (the simulator's judge, which knows each
//! applied event, names them exactly).

use std::collections::BTreeMap;

use faultline_model::{Ledger, Payload, SessionKey};
use serde::Serialize;

use crate::VerdictKind;
use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::spell::{short_id, vtime};
use crate::verdict::{AppliedNote, Evidence, Verdict};
use crate::words::Words;

/// What an event hands the application, as a report spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Progress(u32),
    Notification(u64),
}

/// The evidence for a real client: the dead session, when and why it died, and the events
/// that reached the client only after, as many as the report proves were handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandedAfterDeath {
    pub session: String,
    pub died_at_ms: u64,
    pub cause: Option<String>,
    pub ids: Vec<u64>,
    pub sent_at_ms: Vec<u64>,
}

/// A real client's violations, a lower bound from its report.
pub(crate) fn real(
    ledger: &Ledger,
    report: &ClientReport,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let own = crate::owed::client_sessions(ledger);
    let died = |key: SessionKey| {
        if key.0 < ledger.sessions_base {
            return None;
        }
        ledger.session(key).died.map(|(at, _)| at)
    };
    // Per value: the distinct events that reached the client while their session lived,
    // and those that reached it only after it died (with the first such send).
    let mut alive: BTreeMap<Value, Vec<u32>> = BTreeMap::new();
    let mut dead_only: BTreeMap<u32, (Value, u64, SessionKey, u64)> = BTreeMap::new();
    for send in &ledger.sends {
        let Some(index) = send.event.0.checked_sub(ledger.events_base) else {
            continue;
        };
        let event = &ledger.events[index as usize];
        if !own.contains(&event.session) {
            continue;
        }
        let value = match event.payload {
            Payload::Progress { step, .. } => Value::Progress(step),
            Payload::Notification { seq } => Value::Notification(seq),
            _ => continue,
        };
        match died(event.session) {
            Some(at) if send.at_ms > at => {
                dead_only.entry(send.event.0).or_insert((
                    value,
                    send.at_ms,
                    event.session,
                    event.id,
                ));
            }
            _ => {
                let events = alive.entry(value).or_default();
                if !events.contains(&send.event.0) {
                    events.push(send.event.0);
                }
            }
        }
    }
    dead_only.retain(|event, _| !alive.values().any(|events| events.contains(event)));
    if dead_only.is_empty() {
        return;
    }
    let mut handed: BTreeMap<Value, usize> = BTreeMap::new();
    for p in &report.progress {
        *handed.entry(Value::Progress(p.round() as u32)).or_default() += 1;
    }
    for &seq in &report.notifications {
        *handed.entry(Value::Notification(seq)).or_default() += 1;
    }
    // Per dead session: the events whose value the application was handed more often than
    // live sends can account for.
    let mut by_session: BTreeMap<SessionKey, Vec<(u64, u64)>> = BTreeMap::new();
    let mut spare: BTreeMap<Value, usize> = handed
        .iter()
        .map(|(v, &n)| (*v, n.saturating_sub(alive.get(v).map_or(0, Vec::len))))
        .collect();
    for (value, at_ms, session, id) in dead_only.values() {
        let Some(left) = spare.get_mut(value).filter(|n| **n > 0) else {
            continue;
        };
        *left -= 1;
        by_session.entry(*session).or_default().push((*id, *at_ms));
    }
    for (session, events) in by_session {
        let entry = ledger.session(session);
        let died_at = entry.died.map_or(0, |(at, _)| at);
        let evidence = HandedAfterDeath {
            session: entry.wire_id.clone(),
            died_at_ms: died_at,
            cause: entry.died.map(|(_, cause)| format!("{cause:?}")),
            ids: events.iter().map(|&(id, _)| id).collect(),
            sent_at_ms: events.iter().map(|&(_, at)| at).collect(),
        };
        verdicts.push(Verdict {
            kind: VerdictKind::QuarantineViolation,
            at_ms: evidence.sent_at_ms[0],
            summary: words.say(|| {
                format!(
                    "{} event(s) of session {} reached the client only after the session died at {}, and the application was handed them",
                    evidence.ids.len(),
                    short_id(&evidence.session),
                    vtime(died_at)
                )
            }),
            evidence: Evidence::HandedAfterDeath(evidence),
        });
    }
}

/// A modelled client's violations: each event it applied after its session died.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // Only a dead session's events can be applied after its death: a run whose sessions
    // all lived (most runs) has no violation, and its applied events are not read.
    if ledger.sessions.iter().all(|s| s.died.is_none()) {
        return;
    }
    let mut by_session: BTreeMap<u32, Vec<AppliedNote>> = BTreeMap::new();
    for a in &record.applied {
        let e = ledger.event(a.event);
        if let Some((died, cause)) = ledger.death(e.session)
            && died < a.at_ms
        {
            by_session
                .entry(e.session.0)
                .or_default()
                .push(AppliedNote {
                    id: e.id,
                    stream: e.stream.0,
                    at_ms: a.at_ms,
                    detail: format!("session died at {} ({cause:?})", vtime(died)),
                });
        }
    }
    if by_session.is_empty() {
        return;
    }
    // A session no request of the client named is another client's (a fleet's tenant):
    // its events reached this client through a store shared by stream, which
    // `foreign_event` reports; they are not this client's session's.
    let own = crate::owed::client_sessions(ledger);
    by_session.retain(|&session, _| own.contains(&SessionKey(session)));
    for (session, events) in by_session {
        let wire = ledger.session(SessionKey(session)).wire_id.clone();
        verdicts.push(Verdict {
            kind: VerdictKind::QuarantineViolation,
            at_ms: events[0].at_ms,
            summary: words.say(|| {
                format!(
                    "{} event(s) of session {} were applied after the session was dead on the server",
                    events.len(),
                    short_id(&wire)
                )
            }),
            evidence: Evidence::Applied {
                session: wire,
                events,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{ConnId, DeathCause, EventRef, Ledger, SessionEntry};

    use crate::client_record::{AppliedRecord, ClientRecord};
    use crate::verdict::{Evidence, VerdictKind};
    use crate::words::Words;

    /// Session `a` (dead at 5 s if `died`) produced events 1 and 2, applied at 4 s and 6 s.
    fn judged(died: bool) -> Vec<crate::verdict::Verdict> {
        judged_at_key(died, 0)
    }

    /// [`judged`] with session `a` under `key`, the sessions before it trimmed (what a
    /// long-lived server's bounded ledger holds: `sessions_base` is `key`).
    fn judged_at_key(died: bool, key: u32) -> Vec<crate::verdict::Verdict> {
        judged_as(died, key, true)
    }

    /// [`judged_at_key`]; `named`: whether a request of the client named session `a`
    /// (else it is a fleet's tenant, someone else's).
    fn judged_as(died: bool, key: u32, named: bool) -> Vec<crate::verdict::Verdict> {
        let mut ledger = Ledger {
            sessions: vec![SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0],
                died: died.then_some((5_000, DeathCause::IdleTtl)),
                held_by: None,
                stateless: false,
            }],
            sessions_base: key,
            ..Ledger::default()
        };
        if named {
            ledger.answers.push(faultline_model::AnswerEntry {
                session_sent: Some("a".into()),
                ..crate::test_answer::answer(1, 0, 200)
            });
        }
        let mut record = ClientRecord::default();
        for id in 1..=2 {
            ledger
                .events
                .push(crate::test_records::notification(id, key, 1_000));
            record.applied.push(AppliedRecord {
                event: EventRef(id as u32 - 1),
                at_ms: 2_000 + id * 2_000,
                conn: ConnId(1),
            });
        }
        let mut verdicts = Vec::new();
        super::modelled(&ledger, &record, Words::Skipped, &mut verdicts);
        verdicts
    }

    /// The rule returns at once when no session died; when one did, the event applied
    /// after its death is still a violation, and the one before is not.
    #[test]
    fn an_event_applied_after_its_session_died_is_a_violation() {
        assert!(judged(false).is_empty());
        let verdicts = judged(true);
        assert_eq!(verdicts.len(), 1);
        assert_eq!(verdicts[0].kind, VerdictKind::QuarantineViolation);
        let Evidence::Applied { events, .. } = &verdicts[0].evidence else {
            panic!("applied events as evidence");
        };
        assert_eq!(events.iter().map(|e| e.id).collect::<Vec<_>>(), [2]);
    }

    /// A trimmed ledger's dead session is found by its key, not its position.
    #[test]
    fn a_trimmed_ledgers_violation_names_the_session_by_key() {
        let verdicts = judged_at_key(true, 3);
        assert_eq!(verdicts.len(), 1);
        let Evidence::Applied { session, .. } = &verdicts[0].evidence else {
            panic!("applied events as evidence");
        };
        assert_eq!(session, "a");
    }

    /// A tenant's session (no request of the client named it) is not the client's: its
    /// events applied after its death are `foreign_event`'s, not a violation.
    #[test]
    fn a_tenants_session_is_not_the_clients() {
        assert!(judged_as(true, 0, false).is_empty());
        assert_eq!(judged_as(true, 0, true).len(), 1);
    }
}
