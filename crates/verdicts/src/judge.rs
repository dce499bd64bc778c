//! The oracle: joins the server's ledger (ground truth) with the client's record and names
//! what was lost or misapplied, and why.
//!
//! Every verdict is derived from evidence the reader can check in the trace: which event
//! ids of which stream and generation, which requests at which times. Nothing here trusts
//! the client's own opinion of whether it lost something.

use std::collections::BTreeMap;

use faultline_model::{ConnId, EventRef, Ledger, Payload, ResumeEntry, StreamKind};

use crate::client_record::{ClientRecord, ErrorScope, Task, call_key, call_of_key};
use crate::cursor_reuse::CursorReuse;
use crate::dead_session::Misrouted;
use crate::request_index::LazyRequestIndex;
use crate::session_requests::SessionRequests;
use crate::spell::{short_id, vtime};
use crate::verdict::{AppliedNote, Evidence, IdRanges, RequestNote, Verdict, VerdictKind};
use crate::words::Words;
use crate::zombie_session::{Rejected, Resumed, Zombie};

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

/// Derives the verdicts of one run.
pub fn judge(ledger: &Ledger, record: &ClientRecord) -> Vec<Verdict> {
    judge_with(ledger, record, Words::Written)
}

/// [`judge`], with each verdict's sentence written or skipped as `words` says (the
/// kinds, times and evidence are the same either way).
pub fn judge_with(ledger: &Ledger, record: &ClientRecord, words: Words) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    let applied_times = applied_counts(ledger, record);
    let superseded = gaps(ledger, record, &applied_times, words, &mut verdicts);
    duplicates(ledger, record, &applied_times, words, &mut verdicts);
    let requests = LazyRequestIndex::new(record);
    let resumed = resumptions_by_conn(ledger, record);
    cursor_reuse(ledger, record, &resumed, words, &mut verdicts);
    zombies(
        ledger,
        record,
        &requests,
        &resumed,
        &Misrouted::of(ledger),
        words,
        &mut verdicts,
    );
    let misrouted = Misrouted::of(ledger);
    retry_amplification(record, &requests, &misrouted, words, &mut verdicts);
    reinit_collisions(record, &requests, words, &mut verdicts);
    quarantine_violations(ledger, record, words, &mut verdicts);
    foreign_events(ledger, record, words, &mut verdicts);
    misrouted_sessions(ledger, record, words, &mut verdicts);
    crate::duplicate_effect::verdicts(ledger, words, &mut verdicts);
    crate::missed_change::verdicts(ledger, words, &mut verdicts);
    crate::lost_task::verdicts(ledger, record, words, &mut verdicts);
    crate::era_mismatch::verdicts(ledger, words, &mut verdicts);
    reconnect_loops(ledger, words, &mut verdicts);
    hung(record, words, &mut verdicts);
    let harmed = verdicts
        .iter()
        .any(|v| v.kind.is_loss() || v.kind == VerdictKind::SurfacedLoss);
    if !harmed && record.errors.iter().any(|e| e.error.is_typed()) {
        let typed: Vec<String> = record
            .errors
            .iter()
            .filter(|e| e.error.is_typed())
            .map(|e| e.error.to_string())
            .collect();
        let at_ms = record
            .errors
            .iter()
            .find(|e| e.error.is_typed())
            .map_or(0, |e| e.at_ms);
        let recovered_calls: Vec<String> = record
            .calls
            .iter()
            .filter(|c| c.attempts > 1 && c.completed_at_ms.is_some())
            .map(|c| c.key.clone())
            .collect();
        let summary = words.say(|| {
            // 2026-07-28 calls cut and deliberately not re-issued (not idempotent).
            let left: Vec<&str> = record
                .errors
                .iter()
                .filter_map(|e| match &e.error {
                    crate::client_error::ClientError::CallCut(cut) => Some(cut.call.as_str()),
                    _ => None,
                })
                .collect();
            // 2026-07-28 tasks the server forgot, flagged rather than taken for done.
            let vanished: Vec<String> = record
                .errors
                .iter()
                .filter_map(|e| match &e.error {
                    crate::client_error::ClientError::TaskLost(lost) => {
                        Some(format!("{} (task {})", lost.call, lost.task_id))
                    }
                    _ => None,
                })
                .collect();
            let (noun, outcome) = if !vanished.is_empty() {
                (
                    "typed error(s)",
                    format!(
                        "task ids the server no longer knew, their outcome left to the application: {}",
                        vanished.join(", ")
                    ),
                )
            } else if !left.is_empty() {
                (
                    "typed error(s)",
                    format!(
                        "cut and not re-issued, their outcome left to the application: {}",
                        left.join(", ")
                    ),
                )
            } else if recovered_calls.is_empty() {
                (
                    "typed resumption error(s)",
                    "re-issued and completed: none needed".to_string(),
                )
            } else {
                (
                    "typed resumption error(s)",
                    format!("re-issued and completed: {}", recovered_calls.join(", ")),
                )
            };
            format!(
                "the client raised {} {noun} and lost nothing silently; {outcome}",
                typed.len(),
            )
        });
        verdicts.push(Verdict {
            kind: VerdictKind::Detected,
            at_ms,
            summary,
            evidence: Evidence::Detected {
                errors: typed,
                recovered_calls,
            },
        });
    }
    if verdicts.is_empty()
        && let Some(untested) = crate::untested::untested(ledger, record.exercise)
    {
        verdicts.push(Verdict {
            kind: VerdictKind::Untested,
            at_ms: 0,
            summary: words.say(|| untested.sentence()),
            evidence: Evidence::Untested(untested),
        });
    }
    if verdicts.is_empty() {
        verdicts.push(Verdict {
            kind: VerdictKind::Clean,
            at_ms: 0,
            summary: words.say(|| {
                let produced = ledger
                    .events
                    .iter()
                    .filter(|e| e.payload.carries_data())
                    .count();
                if superseded == 0 {
                    format!(
                        "every one of the {produced} events produced for the client was applied exactly once"
                    )
                } else {
                    format!(
                        "every one of the {} events owed to the client was applied exactly once; \
                         {superseded} more belonged to attempts of calls that a later attempt completed",
                        produced - superseded
                    )
                }
            }),
            evidence: Evidence::None,
        });
    }
    verdicts.sort_by_key(|v| (v.kind, v.at_ms));
    verdicts
}

/// Loops of fruitless reconnects or retries, by the ledger-only rule real clients are
/// graded by too ([`crate::reconnect_loop`]).
fn reconnect_loops(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    for found in crate::reconnect_loop::reconnect_loops(ledger) {
        verdicts.push(Verdict {
            kind: VerdictKind::ReconnectLoop,
            at_ms: found.first_at_ms,
            summary: words.say(|| found.sentence(vtime)),
            evidence: Evidence::ReconnectLoop(found),
        });
    }
}

/// The horizon came while calls were neither completed nor failed: the application is
/// still waiting. (A real client that gives no report before the grader's timeout is the
/// same verdict.)
fn hung(record: &ClientRecord, words: Words, verdicts: &mut Vec<Verdict>) {
    let Some(horizon_ms) = record.horizon_cut_ms else {
        return;
    };
    let pending_calls: Vec<String> = record
        .calls
        .iter()
        .filter(|c| c.completed_at_ms.is_none() && c.failed_at_ms.is_none())
        .map(|c| c.key.clone())
        .collect();
    if pending_calls.is_empty() {
        return;
    }
    verdicts.push(Verdict {
        kind: VerdictKind::Hung,
        at_ms: horizon_ms,
        summary: words.say(|| {
            format!(
                "the scenario's horizon came at {} with {} neither completed nor failed: the application is still waiting",
                vtime(horizon_ms),
                pending_calls.join(", ")
            )
        }),
        evidence: Evidence::Hung {
            horizon_ms,
            pending_calls,
        },
    });
}

/// The ledger's entry for each connection the client resumed on (its first, as the checks
/// below always read it); empty for a client that never resumed.
fn resumptions_by_conn<'a>(
    ledger: &'a Ledger,
    record: &ClientRecord,
) -> BTreeMap<ConnId, &'a ResumeEntry> {
    let mut by_conn = BTreeMap::new();
    if !record.resumptions.is_empty() {
        for e in &ledger.resumptions {
            by_conn.entry(e.conn).or_insert(e);
        }
    }
    by_conn
}

fn applied_counts(ledger: &Ledger, record: &ClientRecord) -> Vec<u32> {
    let mut counts = vec![0u32; ledger.events.len()];
    for a in &record.applied {
        counts[a.event.0 as usize] += 1;
    }
    counts
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

/// Judges every unapplied event (silent or surfaced loss); returns how many events were
/// owed no longer because a later attempt of their call completed it.
fn gaps(
    ledger: &Ledger,
    record: &ClientRecord,
    applied: &[u32],
    words: Words,
    verdicts: &mut Vec<Verdict>,
) -> usize {
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
    let mut coverage: Option<Coverage> = None;
    // (session, generation, stream) -> lost events, for silent and surfaced losses apart.
    let mut silent: BTreeMap<(u32, u32, u32), Vec<EventRef>> = BTreeMap::new();
    let mut surfaced: BTreeMap<(u32, u32, u32), Vec<EventRef>> = BTreeMap::new();
    // Server notifications are owed only to a client that listens for them: one that opened
    // the standalone GET stream of that session at least once. Job output is always owed.
    let listening: std::collections::BTreeSet<&str> = record
        .requests
        .iter()
        .filter(|q| q.http == "GET")
        .filter_map(|q| q.session.as_deref())
        .collect();
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
        if matches!(
            produced.payload,
            Payload::Notification { .. } | Payload::SessionListChanged { .. }
        ) && !listening.contains(ledger.session(produced.session).wire_id.as_str())
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
            let wire = ledger.sessions[session as usize].wire_id.clone();
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
                    "; no error anywhere"
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

fn duplicates(
    ledger: &Ledger,
    record: &ClientRecord,
    applied: &[u32],
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let dups: Vec<usize> = applied
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 1)
        .map(|(i, _)| i)
        .collect();
    if dups.is_empty() {
        return;
    }
    let first = ledger.events[dups[0]].session;
    let events: Vec<AppliedNote> = dups
        .iter()
        .map(|&i| {
            let e = &ledger.events[i];
            let at = record
                .applied
                .iter()
                .filter(|a| a.event.0 as usize == i)
                .nth(1)
                .map_or(0, |a| a.at_ms);
            AppliedNote {
                id: e.id,
                stream: e.stream.0,
                at_ms: at,
                detail: format!("applied {} times", applied[i]),
            }
        })
        .collect();
    verdicts.push(Verdict {
        kind: VerdictKind::Duplicate,
        at_ms: events.iter().map(|e| e.at_ms).min().unwrap_or(0),
        summary: words.say(|| format!("{} event(s) were applied more than once", events.len())),
        evidence: Evidence::Applied {
            session: ledger.session(first).wire_id.clone(),
            events,
        },
    });
}

fn cursor_reuse(
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
        let Some(reused) = rule.check(r.cursor, cursor_event, &entry.resolution, r.at_ms) else {
            continue;
        };
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

fn zombies(
    ledger: &Ledger,
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    resumed: &BTreeMap<ConnId, &ResumeEntry>,
    misrouted: &Misrouted,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let mut reported = std::collections::BTreeSet::new();
    for r in &record.resumptions {
        // The moment the client read the 200: what it sends after that, it sends believing
        // the session is alive.
        let believed_at = requests
            .get()
            .first_200(r.conn)
            .and_then(|q| q.answered_seq);
        let Some(believed_at) = believed_at else {
            continue;
        };
        if reported.contains(&r.session) {
            continue;
        }
        let next = requests.get().first_own_post_after(&r.session, believed_at);
        let Some(next) = next else {
            continue;
        };
        if next.task == Task::Probe {
            // The liveness probe asked before anything else: the guard did its job,
            // whatever it found.
            continue;
        }
        let Some(status @ (404 | 410)) = next.status else {
            continue;
        };
        if misrouted.contains(next.conn.0) {
            // The session lived on another replica: the 200 was right, the 404 a misroute.
            continue;
        }
        reported.insert(r.session.clone());
        let cursor = r.cursor.to_string();
        let zombie = Zombie::new(
            ledger,
            Resumed {
                session: &r.session,
                conn: resumed.contains_key(&r.conn).then_some(r.conn),
                at_ms: r.at_ms,
                cursor: &cursor,
            },
            Rejected {
                at_ms: next.at_ms,
                method: next.describe(),
                status,
            },
        );
        verdicts.push(Verdict {
            kind: VerdictKind::ZombieSession,
            at_ms: next.at_ms,
            summary: words.say(|| zombie.sentence()),
            evidence: Evidence::Zombie(zombie),
        });
    }
}

fn retry_amplification(
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    misrouted: &Misrouted,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // When the client *read* the first 404/410 for each session (a misroute of a live
    // session is no death notice: that is `misrouted_session`).
    let mut learned: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for q in &record.requests {
        if let (Some(s), Some(404 | 410), Some(seq)) =
            (q.session.as_deref(), q.status, q.answered_seq)
            && !misrouted.contains(q.conn.0)
        {
            let e = learned.entry(s).or_insert((seq, q.at_ms));
            if seq < e.0 {
                *e = (seq, q.at_ms);
            }
        }
    }
    for (session, (seq, since)) in learned {
        let later: Vec<RequestNote> = requests
            .get()
            .of_session_after(session, seq)
            .map(|q| RequestNote {
                at_ms: q.at_ms,
                task: q.task.label(),
                method: q.describe(),
                status: q.status,
            })
            .collect();
        if later.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: session.to_string(),
            since_ms: since,
            requests: later,
        };
        verdicts.push(Verdict {
            kind: VerdictKind::RetryAmplification,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.retries_sentence()),
            evidence: Evidence::Requests(evidence),
        });
    }
}

fn reinit_collisions(
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let inits: Vec<&crate::client_record::RequestRecord> = record
        .requests
        .iter()
        .filter(|q| q.rpc.as_deref() == Some("initialize") && q.status == Some(200))
        .collect();
    for pair in record.sessions.windows(2).zip(inits.iter().skip(1)) {
        let ([(_, old), (t_new, new)], init) = pair else {
            continue;
        };
        let Some(reinit_seq) = init.answered_seq else {
            continue;
        };
        let stale: Vec<RequestNote> = requests
            .get()
            .of_session_after(old, reinit_seq)
            .map(|q| RequestNote {
                at_ms: q.at_ms,
                task: q.task.label(),
                method: q.describe(),
                status: q.status,
            })
            .collect();
        if stale.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: old.clone(),
            since_ms: *t_new,
            requests: stale,
        };
        verdicts.push(Verdict {
            kind: VerdictKind::ReinitCollision,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.collision_sentence(new)),
            evidence: Evidence::Requests(evidence),
        });
    }
}

fn quarantine_violations(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
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
    for (session, events) in by_session {
        let wire = ledger.sessions[session as usize].wire_id.clone();
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

/// The session a connection asked for: its wire id, and the ledger's key for it (if the
/// server ever minted it).
type AskedSession<'a> = (&'a str, Option<u32>);

fn foreign_events(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // Each connection's session as asked for, with the ledger's key for that wire id, so
    // that the check per applied event compares numbers (the strings only if they differ).
    let key_of_wire: BTreeMap<&str, u32> = ledger
        .sessions
        .iter()
        .enumerate()
        .map(|(k, s)| (s.wire_id.as_str(), k as u32))
        .collect();
    let session_of_conn: BTreeMap<u64, AskedSession> = record
        .requests
        .iter()
        .filter_map(|q| {
            q.session
                .as_deref()
                .map(|s| (q.conn.0, (s, key_of_wire.get(s).copied())))
        })
        .collect();
    let mut foreign: BTreeMap<String, Vec<AppliedNote>> = BTreeMap::new();
    // Applied events come in runs from one connection: look each run's connection up once.
    let mut last: Option<(u64, Option<AskedSession>)> = None;
    for a in &record.applied {
        let e = ledger.event(a.event);
        let asked = match last {
            Some((conn, asked)) if conn == a.conn.0 => asked,
            _ => {
                let asked = session_of_conn.get(&a.conn.0).copied();
                last = Some((a.conn.0, asked));
                asked
            }
        };
        let Some((asked, asked_key)) = asked else {
            continue;
        };
        if asked_key == Some(e.session.0) {
            continue;
        }
        let owner = ledger.session(e.session);
        // A server that serves 2025 without sessions (`DualStatelessLegacy`, after a roll
        // into it too) answers whatever session header a request carries on a stream of
        // its stateless scope: the request's own answer, nobody else's events.
        if owner.stateless {
            continue;
        }
        let wire = &owner.wire_id;
        if asked != wire {
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

/// A fleet's misroutes of the client's own requests: one verdict per session, naming each
/// request, the replica that answered it and the replica that held the session.
fn misrouted_sessions(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    if ledger.misroutes.is_empty() {
        return;
    }
    let requests: BTreeMap<ConnId, &crate::client_record::RequestRecord> =
        record.requests.iter().map(|q| (q.conn, q)).collect();
    let found = crate::misrouted_session::misrouted_sessions(ledger, |conn| {
        requests.get(&conn).map(|q| RequestNote {
            at_ms: q.at_ms,
            task: q.task.label(),
            method: q.describe(),
            status: q.status,
        })
    });
    for misrouted in found {
        verdicts.push(Verdict {
            kind: VerdictKind::MisroutedSession,
            at_ms: misrouted.at_ms(),
            summary: words.say(|| misrouted.sentence()),
            evidence: Evidence::Misrouted(misrouted),
        });
    }
}
