//! `silent_gap` and `surfaced_loss`: something produced for the client never reached its
//! application, and no error said so (or only an untyped one did).
//!
//! For a modelled client the rule is per event: each event owed to the client and never
//! applied is covered by the strongest error the client raised in its scope (its call,
//! its session, its session's standalone stream): none is a silent loss, an untyped error
//! a surfaced one, a typed resumption error no loss at all (`detected`). A real client's
//! report names values and one error, not events and scopes: the rule compares the values
//! owed with those handed over, and takes the report's error, if any, as covering all.
//! The guard that prevents it: check that progress steps and event ids are contiguous
//! after every resumption, and raise when they are not.

use std::collections::{BTreeMap, BTreeSet};

use faultline_model::{EventRef, Ledger, Payload, SessionKey, StreamKind};

use crate::client_context::ClientContext;
use crate::client_record::{ClientRecord, ErrorScope, call_key, call_of_key};
use crate::client_report::ClientReport;
use crate::owed::{Owed, ValuesLost};
use crate::spell::short_id;
use crate::verdict::{Evidence, IdRanges, Verdict, VerdictKind};
use crate::words::Words;

/// How an unapplied event is accounted for, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cover {
    /// No error said anything about it.
    Silent,
    /// An untyped error covered it: the application knew something failed.
    Surfaced,
    /// A typed resumption error covered it: the client knew and rebuilt.
    Typed,
}

fn call_of_event(ledger: &Ledger, payload: Payload) -> Option<usize> {
    let job = match payload {
        Payload::Progress { job, .. } | Payload::ToolResult { job } => job,
        _ => return None,
    };
    call_of_key(ledger.jobs[job.0 as usize].idempotency_key.as_deref()?)
}

/// The strongest cover the client's errors give each scope: an event is covered by the
/// strongest error of its session, of its call, and (on a standalone stream) of its
/// session's standalone stream. Built once per judgment, so that each unapplied event asks
/// three maps instead of every error.
struct Coverage<'a> {
    session: BTreeMap<&'a str, Cover>,
    call: BTreeMap<usize, Cover>,
    standalone: BTreeMap<&'a str, Cover>,
}

impl<'a> Coverage<'a> {
    fn new(record: &'a ClientRecord) -> Self {
        let mut coverage = Coverage {
            session: BTreeMap::new(),
            call: BTreeMap::new(),
            standalone: BTreeMap::new(),
        };
        for e in &record.errors {
            let cover = if e.error.is_typed() {
                Cover::Typed
            } else {
                Cover::Surfaced
            };
            let strongest = match &e.scope {
                ErrorScope::Session(s) => coverage.session.entry(s.as_str()),
                ErrorScope::Standalone(s) => coverage.standalone.entry(s.as_str()),
                ErrorScope::Call(c) => {
                    let slot = coverage.call.entry(*c).or_insert(cover);
                    *slot = (*slot).max(cover);
                    continue;
                }
            }
            .or_insert(cover);
            *strongest = (*strongest).max(cover);
        }
        coverage
    }

    fn of(&self, ledger: &Ledger, event: EventRef) -> Cover {
        let produced = ledger.event(event);
        let wire = ledger.session(produced.session).wire_id.as_str();
        let mut cover = self.session.get(wire).copied().unwrap_or(Cover::Silent);
        if let Some(call) = call_of_event(ledger, produced.payload)
            && let Some(&c) = self.call.get(&call)
        {
            cover = cover.max(c);
        }
        if ledger.stream(produced.stream).kind == StreamKind::Standalone
            && let Some(&c) = self.standalone.get(wire)
        {
            cover = cover.max(c);
        }
        cover
    }
}

/// The sessions whose standalone GET stream the client opened at least once.
fn listening_sessions(record: &ClientRecord) -> BTreeSet<&str> {
    record
        .requests
        .iter()
        .filter(|q| q.http == "GET")
        .filter_map(|q| q.session.as_deref())
        .collect()
}

/// Judges every unapplied event (silent or surfaced loss); returns how many events were
/// owed no longer because a later attempt of their call completed it.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    applied: &[u32],
    words: Words,
    verdicts: &mut Vec<Verdict>,
) -> usize {
    // Most runs apply every event produced for them: then nothing is lost or superseded,
    // and none of what follows is built.
    let all_applied = ledger
        .events
        .iter()
        .zip(applied)
        .all(|(produced, &times)| times > 0 || !produced.payload.carries_data());
    if all_applied {
        return 0;
    }
    let mut coverage: Option<Coverage> = None;
    // (session, generation, stream) -> lost events, for silent and surfaced losses apart.
    let mut silent: BTreeMap<(u32, u32, u32), Vec<EventRef>> = BTreeMap::new();
    let mut surfaced: BTreeMap<(u32, u32, u32), Vec<EventRef>> = BTreeMap::new();
    // Server notifications are owed only to a client that listens for them: one that opened
    // the standalone GET stream of that session at least once. Job output is always owed.
    // Read from the requests when the first unapplied notification asks.
    let mut listening: Option<BTreeSet<&str>> = None;
    // A call re-issued under its idempotency key and completed by a later attempt owes
    // nothing more from its abandoned attempts. So does a call the client completed with no
    // keyed attempt's result: an era probe that found the server moved to 2026-07-28 re-ran
    // it through the stateless client, which sends no idempotency key (`era_probe.rs`).
    let mut completing_job: BTreeMap<&str, u32> = BTreeMap::new();
    for a in &record.applied {
        if let Payload::ToolResult { job } = ledger.event(a.event).payload
            && let Some(key) = ledger.jobs[job.0 as usize].idempotency_key.as_deref()
        {
            completing_job.insert(key, job.0);
        }
    }
    let completed_unkeyed = |key: &str| {
        call_of_key(key)
            .and_then(|call| record.calls.get(call))
            .is_some_and(|c| c.completed_at_ms.is_some())
    };
    let superseded = |payload: Payload| match payload {
        Payload::Progress { job, .. } | Payload::ToolResult { job } => ledger.jobs[job.0 as usize]
            .idempotency_key
            .as_deref()
            .is_some_and(|key| match completing_job.get(key) {
                Some(&done) => done != job.0,
                None => completed_unkeyed(key),
            }),
        _ => false,
    };
    let mut superseded_events = 0;
    for (i, produced) in ledger.events.iter().enumerate() {
        if applied[i] > 0 || !produced.payload.carries_data() {
            continue;
        }
        if superseded(produced.payload) {
            superseded_events += 1;
            continue;
        }
        // Nor to a client that had left: its application exited, its calls done.
        if matches!(
            produced.payload,
            Payload::Notification { .. } | Payload::SessionListChanged { .. }
        ) && (record.left_at_ms.is_some_and(|left| produced.at_ms >= left)
            || !listening
                .get_or_insert_with(|| listening_sessions(record))
                .contains(ledger.session(produced.session).wire_id.as_str()))
        {
            continue;
        }
        let event = EventRef(i as u32);
        let key = (produced.session.0, produced.generation, produced.stream.0);
        match coverage
            .get_or_insert_with(|| Coverage::new(record))
            .of(ledger, event)
        {
            Cover::Silent => silent.entry(key).or_default().push(event),
            Cover::Surfaced => surfaced.entry(key).or_default().push(event),
            Cover::Typed => {}
        }
    }
    if silent.is_empty() && surfaced.is_empty() {
        return superseded_events;
    }
    // Per event, indexed by its ledger position: a flag per event rather than a tree of
    // thousands (every send of a long run), since these are asked only by index.
    let mut skipped = vec![false; ledger.events.len()];
    for (e, _) in &record.skipped {
        skipped[e.0 as usize] = true;
    }
    let mut delivered = vec![false; ledger.events.len()];
    for s in &ledger.sends {
        delivered[s.event.0 as usize] = true;
    }
    for (kind, groups) in [
        (VerdictKind::SilentGap, silent),
        (VerdictKind::SurfacedLoss, surfaced),
    ] {
        for ((session, generation, stream), events) in groups {
            let mut ids: Vec<u64> = events.iter().map(|e| ledger.event(*e).id).collect();
            ids.sort_unstable();
            let mut skipped_ids: Vec<u64> = events
                .iter()
                .filter(|e| skipped[e.0 as usize])
                .map(|e| ledger.event(*e).id)
                .collect();
            skipped_ids.sort_unstable();
            let mut never: Vec<u64> = events
                .iter()
                .filter(|e| !delivered[e.0 as usize])
                .map(|e| ledger.event(*e).id)
                .collect();
            never.sort_unstable();
            let lost_results: Vec<String> = events
                .iter()
                .filter_map(|e| match ledger.event(*e).payload {
                    Payload::ToolResult { .. } => Some(
                        call_of_event(ledger, ledger.event(*e).payload)
                            .map_or("a tool call".to_string(), call_key),
                    ),
                    _ => None,
                })
                .collect();
            let wire = ledger.session(SessionKey(session)).wire_id.clone();
            let ids = IdRanges::from_sorted(ids);
            let count = ids.count();
            let at_ms = events
                .iter()
                .map(|e| ledger.event(*e).at_ms)
                .min()
                .unwrap_or(0);
            let summary = words.say(|| {
                let mut summary = format!(
                    "{count} event(s) of stream #{stream} (session {}, generation {generation}), ids {ids}, were never applied",
                    short_id(&wire)
                );
                if !skipped_ids.is_empty() {
                    summary.push_str(&format!(
                        "; {} delivered but discarded as already seen",
                        skipped_ids.len()
                    ));
                }
                if !never.is_empty() {
                    summary.push_str(&format!("; {} never delivered", never.len()));
                }
                if !lost_results.is_empty() {
                    summary.push_str(&format!(
                        "; includes the final result of {}",
                        lost_results.join(", ")
                    ));
                }
                summary.push_str(if kind == VerdictKind::SilentGap {
                    "; no error told the application of them"
                } else {
                    "; an untyped error was surfaced"
                });
                summary
            });
            verdicts.push(Verdict {
                kind,
                at_ms,
                summary,
                evidence: Evidence::Gap {
                    session: wire,
                    generation,
                    stream,
                    ids,
                    count,
                    skipped_as_seen: IdRanges::from_sorted(skipped_ids),
                    never_delivered: IdRanges::from_sorted(never),
                    lost_results,
                },
            });
        }
    }
    superseded_events
}

/// Calls the modelled client failed loudly (with an untyped error, or none scoped to the
/// call) whose result it will never hand over though the server made or sent it: the
/// server was still at work on the call when the run ended (the result was on its way), or
/// the result had come as a JSON answer and the client failed the call with it in hand
/// (`CallRecord::result_dropped`; a result that came as an event is in the ledger, and
/// [`modelled`] reads its loss). A real client that leaves at such a failure stops the
/// grading clock with it, so its ledger holds the job unfinished, and a real client's
/// report without the result its call was answered with lost it: this is the same loss
/// read the same way (a typed error that covers the call is `detected`). Asked only when
/// no event loss was found: a call whose produced events were lost is already named.
pub(crate) fn given_up_while_pending(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    for (key, error) in record.calls_failed_loudly() {
        if error.is_some_and(|e| e.is_typed()) {
            continue;
        }
        let call = call_of_key(key).and_then(|i| record.calls.get(i));
        let dropped = call.is_some_and(|c| c.result_dropped);
        let named = |job: &faultline_model::JobEntry| {
            job.idempotency_key.as_deref() == Some(key)
                || job.progress_token.as_ref().and_then(|t| t.as_str()) == Some(key)
        };
        let pending = ledger
            .jobs
            .iter()
            .rev()
            .find(|j| named(j))
            .is_some_and(|job| job.ended.is_none());
        if !dropped && !pending {
            continue;
        }
        let failed_at = call.and_then(|c| c.failed_at_ms).unwrap_or(0);
        let lost = ValuesLost {
            missing_progress: Vec::new(),
            missing_notifications: Vec::new(),
            result_missing: true,
            result_pending: !dropped,
            outcome_unreported: false,
            result_not_sent: false,
            produced_progress: 0,
            produced_notifications: 0,
            result_produced: dropped,
        };
        verdicts.push(Verdict {
            kind: VerdictKind::SurfacedLoss,
            at_ms: failed_at,
            summary: words.say(|| {
                let told = match error {
                    Some(error) => format!("; the client said: {error}"),
                    None => String::new(),
                };
                format!("{key} lost {}{told}", lost.what())
            }),
            evidence: Evidence::Values(lost),
        });
    }
}

/// A real client's losses: the values owed that its report lacks; `None` when nothing
/// owed is missing (the evidence then backs a `clean`).
pub(crate) fn real(
    ledger: &Ledger,
    owed: &Owed,
    context: &ClientContext,
    report: &ClientReport,
    words: Words,
) -> Result<Verdict, ValuesLost> {
    let lost = ValuesLost::of(owed, report);
    if lost.is_empty() {
        return Err(lost);
    }
    let (kind, summary) = match &report.error {
        None => (
            VerdictKind::SilentGap,
            words.say(|| format!("lost {}, and no error said so", lost.what())),
        ),
        Some(error) => (
            VerdictKind::SurfacedLoss,
            words.say(|| format!("lost {}; the client said: {error}", lost.what())),
        ),
    };
    Ok(Verdict {
        kind,
        at_ms: first_missing_at(ledger, context, owed, &lost),
        summary,
        evidence: Evidence::Values(lost),
    })
}

/// When the first value the report lacks was produced; a result still on its way was
/// lost when the client left, after the last answer it had.
fn first_missing_at(
    ledger: &Ledger,
    context: &ClientContext,
    owed: &Owed,
    lost: &ValuesLost,
) -> u64 {
    let tool = context.call.tool.as_str();
    let left_at = owed.last_answer_ms.filter(|_| lost.result_pending);
    ledger
        .events
        .iter()
        .filter(|e| match e.payload {
            Payload::Progress { job, step, .. } => {
                ledger.job(job).tool == tool && lost.missing_progress.contains(&step)
            }
            Payload::ToolResult { job } => lost.result_missing && ledger.job(job).tool == tool,
            Payload::Notification { seq } => lost.missing_notifications.contains(&seq),
            _ => false,
        })
        .map(|e| e.at_ms)
        .chain(left_at)
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use faultline_model::{
        ConnId, EventRef, Ledger, SessionEntry, SessionKey, StreamEntry, StreamKind,
    };

    use crate::client_record::{AppliedRecord, ClientRecord};
    use crate::verdict::{Evidence, VerdictKind};
    use crate::words::Words;

    /// Session `a`'s standalone stream with notifications 1..=3 (ids 1..=3); the client
    /// opened it with a GET and applied the events `applied` (by id).
    fn run(applied: &[u64]) -> (Ledger, ClientRecord) {
        let mut ledger = Ledger {
            sessions: vec![SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0],
                died: None,
                held_by: None,
                stateless: false,
            }],
            streams: vec![StreamEntry {
                session: SessionKey(0),
                generation: 0,
                kind: StreamKind::Standalone,
                opened_ms: 0,
                modern: false,
                closed_ms: None,
            }],
            ..Ledger::default()
        };
        for id in 1..=3 {
            ledger
                .events
                .push(crate::test_records::notification(id, 0, id * 1_000));
        }
        let mut record = ClientRecord::default();
        record.requests.push(crate::test_records::get(1, "a"));
        for &id in applied {
            record.applied.push(AppliedRecord {
                event: EventRef(id as u32 - 1),
                at_ms: id * 1_000,
                conn: ConnId(1),
            });
        }
        (ledger, record)
    }

    fn judged(applied: &[u64]) -> Vec<crate::verdict::Verdict> {
        let (ledger, record) = run(applied);
        let mut counts = vec![0; ledger.events.len()];
        for a in &record.applied {
            counts[a.event.0 as usize] += 1;
        }
        let mut verdicts = Vec::new();
        super::modelled(&ledger, &record, &counts, Words::Skipped, &mut verdicts);
        verdicts
    }

    /// The rule returns at once when every event was applied; one unapplied event, the
    /// last as well as the first, is still a silent gap.
    #[test]
    fn one_unapplied_event_is_a_gap_and_none_is_nothing() {
        assert!(judged(&[1, 2, 3]).is_empty());
        for (applied, lost) in [(&[1, 2][..], 3), (&[2, 3][..], 1)] {
            let verdicts = judged(applied);
            assert_eq!(verdicts.len(), 1);
            assert_eq!(verdicts[0].kind, VerdictKind::SilentGap);
            let Evidence::Gap { count, .. } = &verdicts[0].evidence else {
                panic!("a gap's evidence");
            };
            assert_eq!(*count, 1, "event {lost} lost");
        }
    }

    /// A ledger trimmed by a long-lived server (`sessions_base` past 0) names its sessions
    /// by key, not by position: the gap's session is the one its events name.
    #[test]
    fn a_trimmed_ledgers_gap_names_the_session_by_key() {
        let (mut ledger, record) = run(&[1, 2]);
        ledger.sessions_base = 4;
        ledger.streams[0].session = SessionKey(4);
        for e in &mut ledger.events {
            e.session = SessionKey(4);
        }
        let counts = [1, 1, 0];
        let mut verdicts = Vec::new();
        super::modelled(&ledger, &record, &counts, Words::Skipped, &mut verdicts);
        assert_eq!(verdicts.len(), 1);
        let Evidence::Gap { session, .. } = &verdicts[0].evidence else {
            panic!("a gap's evidence");
        };
        assert_eq!(session, "a");
    }

    /// A modelled call failed loudly while its job was still running when the run ended
    /// is the result lost and told (`surfaced_loss`, the result pending), as a real
    /// client's report with an error is when it left the job unfinished; a typed error
    /// that covers the call, a job that ended, or a call that did not fail is nothing.
    #[test]
    fn a_call_failed_loudly_while_its_job_ran_on_lost_its_result() {
        use crate::client_error::{CallCutError, ClientError};
        use crate::client_record::{CallRecord, ErrorRecord, ErrorScope};
        use faultline_model::{JobEnd, JobEntry};

        let ledger = |ended: Option<(u64, JobEnd)>| Ledger {
            jobs: vec![JobEntry {
                session: SessionKey(0),
                generation: 0,
                tool: "long_job".into(),
                request_id: serde_json::json!(2),
                progress_token: Some(serde_json::json!("call-0")),
                idempotency_key: None,
                steps: 20,
                started_ms: 0,
                ended,
            }],
            ..Ledger::default()
        };
        let record = |error: ClientError, failed: bool| ClientRecord {
            calls: vec![CallRecord {
                key: "call-0".into(),
                asked_at_ms: Some(0),
                attempts: 1,
                completed_at_ms: None,
                failed_at_ms: failed.then_some(7_000),
                result_dropped: false,
            }],
            errors: vec![ErrorRecord {
                at_ms: 7_000,
                error,
                scope: ErrorScope::Call(0),
            }],
            ..ClientRecord::default()
        };
        let surfaced = ClientError::Surfaced {
            message: "gave up".into(),
        };
        let judged = |ledger: &Ledger, record: &ClientRecord| {
            let mut verdicts = Vec::new();
            super::given_up_while_pending(ledger, record, Words::Written, &mut verdicts);
            verdicts
        };
        let verdicts = judged(&ledger(None), &record(surfaced.clone(), true));
        assert_eq!(verdicts.len(), 1, "{verdicts:?}");
        assert_eq!(verdicts[0].kind, VerdictKind::SurfacedLoss);
        assert_eq!(verdicts[0].at_ms, 7_000);
        let Evidence::Values(lost) = &verdicts[0].evidence else {
            panic!("the values lost: {verdicts:?}");
        };
        assert!(lost.result_missing && lost.result_pending, "{lost:?}");
        assert!(
            verdicts[0]
                .summary
                .contains("call-0 lost the result (the server was still at work"),
            "{}",
            verdicts[0].summary
        );
        let typed = ClientError::CallCut(CallCutError {
            call: "call-0".into(),
            tool: "long_job".into(),
            message: "cut".into(),
        });
        assert!(judged(&ledger(None), &record(typed, true)).is_empty());
        let finished = ledger(Some((9_000, JobEnd::Finished)));
        assert!(judged(&finished, &record(surfaced.clone(), true)).is_empty());
        assert!(judged(&ledger(None), &record(surfaced, false)).is_empty());
    }
}
