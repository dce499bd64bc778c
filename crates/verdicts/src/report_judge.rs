//! The judge of a real client: verdicts from the ground truth (the ledger: what the
//! server produced for the client, every answer and resumption) against what the client
//! reported its application was handed. The ledger-only rules are the ones the
//! simulator's judge reads ([`crate::reconnect_loop`], [`crate::dead_session`], the
//! 2026-07-28 rules); the rest conclude from the report what a report can show.

use std::collections::BTreeMap;

use faultline_model::{CursorResolution, HttpMethod, JobEnd, JobId, Ledger, Payload};
use serde_json::json;

use crate::VerdictKind;
use crate::client_context::ClientContext;
use crate::client_report::{ClientReport, Supports};
use crate::missing_report::MissingReport;
use crate::report_foreign_event::foreign_events;
use crate::report_quarantine::quarantine_violations;
use crate::report_verdict::ReportVerdict;
use crate::session_requests::{RequestNote, SessionRequests};
use crate::spell::vtime;

/// Judges one run of a real client from the ledger and its report. `report` is why there
/// is none when the client gave none that reads (it hung, crashed, or printed no report).
pub fn judge_report(
    ledger: &Ledger,
    context: &ClientContext,
    report: Result<&ClientReport, &MissingReport>,
    exercise: crate::untested::Exercise,
) -> Vec<ReportVerdict> {
    let mut verdicts = Vec::new();
    match report {
        Err(missing) => verdicts.push(missing.verdict(ledger.answers.len())),
        Ok(report) => {
            losses(ledger, context, report, &mut verdicts);
            out_of_order(report, &mut verdicts);
        }
    }
    let report = report.ok();
    let fine = verdicts
        .iter()
        .position(|v| v.kind == VerdictKind::Clean)
        .map(|i| verdicts.remove(i));
    retry_amplification(ledger, &mut verdicts);
    reinit_collisions(ledger, &mut verdicts);
    zombies(ledger, &mut verdicts);
    cursor_reuse(ledger, &mut verdicts);
    misrouted_sessions(ledger, &mut verdicts);
    duplicate_effects(ledger, &mut verdicts);
    missed_changes(ledger, &mut verdicts);
    lost_tasks(ledger, report, &mut verdicts);
    foreign_events(ledger, report, &mut verdicts);
    quarantine_violations(ledger, report, &mut verdicts);
    era_mismatches(ledger, &mut verdicts);
    reconnect_loops(ledger, &mut verdicts);
    // `clean` is a claim that nothing went wrong: it stands alone, as in the simulator's
    // judge, never beside a loss, a duplicate or any other harm.
    if verdicts.is_empty()
        && let Some(clean) = fine
    {
        // Unless the scenario needs what the client declared it cannot do (then
        // `not_applicable`), or nothing the scenario tests happened (then `untested`).
        let not_applicable =
            report.and_then(|r| crate::not_applicable::not_applicable(exercise.needs, r.supports));
        match (not_applicable, crate::untested::untested(ledger, exercise)) {
            (Some(not_applicable), _) => verdicts.push(ReportVerdict {
                kind: VerdictKind::NotApplicable,
                why: not_applicable.sentence(),
                evidence: json!(not_applicable),
            }),
            (None, Some(untested)) => verdicts.push(ReportVerdict {
                kind: VerdictKind::Untested,
                why: untested.sentence(),
                evidence: json!(untested),
            }),
            (None, None) => verdicts.push(clean),
        }
    }
    // A client of the other era met none of the scenario's faults as meant: the run says
    // so in place of everything it found (kept as evidence).
    let kinds = verdicts.iter().map(|v| v.kind).collect();
    if let Some(other) = crate::other_era::other_era(ledger, exercise.era, kinds) {
        let mut evidence = json!(other);
        evidence["judged"] = json!(verdicts);
        verdicts = vec![ReportVerdict {
            kind: VerdictKind::OtherEra,
            why: other.sentence(),
            evidence,
        }];
    }
    verdicts
}

/// Progress handed over in another order than produced ([`crate::out_of_order`]).
fn out_of_order(report: &ClientReport, verdicts: &mut Vec<ReportVerdict>) {
    if let Some(found) = crate::out_of_order::out_of_order(&report.progress) {
        verdicts.push(ReportVerdict {
            kind: VerdictKind::OutOfOrder,
            why: found.sentence(),
            evidence: json!(found),
        });
    }
}

/// The same resumption or failing request repeated without end, by the rule the simulator
/// judges its modelled clients by ([`crate::reconnect_loop`]).
fn reconnect_loops(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    for found in crate::reconnect_loop::reconnect_loops(ledger) {
        verdicts.push(ReportVerdict {
            kind: VerdictKind::ReconnectLoop,
            why: found.sentence(vtime),
            evidence: json!(found),
        });
    }
}

/// A client and server that never met in one protocol era, from the ledger alone (the
/// simulator's oracle reads the same function).
fn era_mismatches(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    for m in crate::era_mismatch::era_mismatches(ledger) {
        let first = &m.failed[0];
        let why = if m.sessionless {
            "server speaks sessionless 2025; client required a session (nothing after initialize)"
                .to_string()
        } else {
            format!(
                "the client spoke {:?} to a server speaking {}: {} request(s) failed from {}{}",
                m.client_era,
                m.server_era,
                m.failed.len(),
                vtime(first.at_ms),
                if m.reprobed {
                    ", probed again"
                } else {
                    ", never probed again"
                }
            )
        };
        verdicts.push(ReportVerdict {
            kind: VerdictKind::EraMismatch,
            why,
            evidence: json!(m),
        });
    }
}

/// Tools-list changes a client missed while its 2026-07-28 listen stream was down and the
/// calls that used the stale list, from the ledger alone (the simulator's oracle reads the
/// same function).
fn missed_changes(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    for m in crate::missed_change::missed_changes(ledger) {
        verdicts.push(ReportVerdict {
            kind: VerdictKind::MissedChange,
            why: format!(
                "the {} list changed to version {} at {} while the listen stream was down (since {}); a tool was called at {} from version {}",
                m.list.word(),
                m.changed_to,
                vtime(m.changed_at_ms),
                vtime(m.listen_down_from_ms),
                vtime(m.used_at_ms),
                m.version_used
            ),
            evidence: json!(m),
        });
    }
}

/// Task ids that vanished while the client still asked about them, from the ledger alone
/// (the simulator's oracle reads the same function). A real client's report carries no
/// typed errors; a task is excused when the error the application saw names its id (what
/// a server's "task not found" answer says), as a `TaskLostError` excuses it in the
/// simulator.
fn lost_tasks(ledger: &Ledger, report: Option<&ClientReport>, verdicts: &mut Vec<ReportVerdict>) {
    let told = |task_id: &str| {
        report
            .and_then(|r| r.error.as_deref())
            .is_some_and(|error| error.contains(task_id))
    };
    for task in crate::lost_task::lost_tasks(ledger) {
        if told(&task.task_id) {
            // The application's error names the task: it was told its work is lost (the
            // simulator's judge excuses a `TaskLostError` for the task alike).
            continue;
        }
        verdicts.push(ReportVerdict {
            kind: VerdictKind::LostTask,
            why: format!(
                "task {} ({}) was {} at {}; {} at {} got -32602",
                task.task_id,
                task.tool,
                crate::lost_task::loss_words(task.how),
                vtime(task.lost_at_ms),
                task.misses[0].method,
                vtime(task.misses[0].at_ms)
            ),
            evidence: json!(task),
        });
    }
}

/// Orders committed more than once (`place_order` on 2026-07-28), from the ledger alone:
/// the simulator's oracle reads the same function, so a real client is judged alike.
fn duplicate_effects(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    for dup in crate::duplicate_effect::duplicate_effects(ledger) {
        let first = &dup.commits[0];
        verdicts.push(ReportVerdict {
            kind: VerdictKind::DuplicateEffect,
            why: format!(
                "order {} was committed {} times (first at {}{}; again at {})",
                dup.order,
                dup.commits.len(),
                vtime(first.at_ms),
                first
                    .stream_cut_ms
                    .map(|t| format!(", its request stream cut at {}", vtime(t)))
                    .unwrap_or_default(),
                dup.commits[1..]
                    .iter()
                    .map(|c| vtime(c.at_ms))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            evidence: json!({
                "order": dup.order,
                "cut_at_ms": first.stream_cut_ms,
                // A task the server ran again after a restart is no re-issue.
                "reissued_at_ms": dup.commits[1..]
                    .iter()
                    .filter(|c| c.rerun_of_task.is_none())
                    .filter_map(|c| c.started_ms)
                    .collect::<Vec<_>>(),
                "commits": dup.commits,
            }),
        });
    }
}

/// A fleet's misroutes (see `faultline_model::MisrouteEntry`): one verdict per session,
/// by the rule the simulator's judge applies ([`crate::misrouted_session`]); each request
/// as the ledger answered it.
fn misrouted_sessions(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    let found = crate::misrouted_session::misrouted_sessions(ledger, |conn| {
        ledger
            .answers
            .iter()
            .find(|a| a.conn == conn)
            .map(request_note)
    });
    for misrouted in found {
        verdicts.push(ReportVerdict {
            kind: VerdictKind::MisroutedSession,
            why: misrouted.sentence(),
            evidence: json!(misrouted),
        });
    }
}

/// What the server produced for the application: the judged call's progress steps and
/// result, and the notifications of its sessions produced before its last request was
/// answered (then it was still at work, its report still to come). A
/// session no request of the client named is someone else's (a fleet's tenant, played
/// without HTTP): its notifications are not owed to the graded client.
#[derive(Debug, Default)]
struct Owed {
    /// Steps of the judged (last) job of the call's tool.
    steps: Vec<u32>,
    /// How many of the call's jobs produced each step (a re-issued call produces again).
    step_counts: BTreeMap<u32, usize>,
    result: bool,
    /// seq -> how many times produced (per-session numbering: a re-initialized client
    /// meets each value again).
    notifications: BTreeMap<u64, usize>,
}

/// The sessions that are the graded client's own: those some request of its named (a
/// session no request named is someone else's, a fleet's tenant played without HTTP).
pub fn client_sessions(ledger: &Ledger) -> std::collections::BTreeSet<faultline_model::SessionKey> {
    let named: std::collections::BTreeSet<&str> = ledger
        .answers
        .iter()
        .filter_map(|a| a.session_sent.as_deref())
        .collect();
    ledger
        .sessions
        .iter()
        .enumerate()
        .filter(|(_, s)| named.contains(s.wire_id.as_str()))
        .map(|(i, _)| faultline_model::SessionKey(ledger.sessions_base + i as u32))
        .collect()
}

/// What was owed to a client that can do what `supports` says: progress only to one with a
/// progress handler, notifications only to one with a notification handler.
fn owed(ledger: &Ledger, context: &ClientContext, supports: Supports) -> Owed {
    let tool = context.call.tool.as_str();
    let jobs: Vec<JobId> = ledger
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.tool == tool)
        .map(|(i, _)| JobId(ledger.jobs_base + i as u32))
        .collect();
    let judged = jobs.last().copied();
    // A notification produced before the client's last request was answered (any
    // request: a follow-up, a retry, a reconnect) was owed to it: the client was still at
    // work after it. One produced later may have reached a client that had already
    // reported: its report says nothing of it either way.
    let client_there_until = ledger.answers.iter().map(|a| a.at_ms).max().unwrap_or(0);
    let own = client_sessions(ledger);
    let clients_session =
        |key: faultline_model::SessionKey| key.0 < ledger.sessions_base || own.contains(&key);
    let mut owed = Owed::default();
    for event in &ledger.events {
        match event.payload {
            Payload::Progress { job, step, .. } if jobs.contains(&job) => {
                *owed.step_counts.entry(step).or_default() += 1;
                if Some(job) == judged && context.call.progress && supports.progress {
                    owed.steps.push(step);
                }
            }
            Payload::Notification { seq }
                if supports.notifications
                    && event.at_ms <= client_there_until
                    && clients_session(event.session) =>
            {
                *owed.notifications.entry(seq).or_default() += 1;
            }
            _ => {}
        }
    }
    owed.result = match judged {
        // A job's result is produced when it finishes.
        Some(job) => matches!(ledger.job(job).ended, Some((_, JobEnd::Finished))),
        // An immediate tool's result is the answer to the first call.
        None => ledger
            .answers
            .iter()
            .find(|a| a.rpc_method.as_deref() == Some("tools/call"))
            .is_some_and(|a| a.status == 200),
    };
    owed
}

fn losses(
    ledger: &Ledger,
    context: &ClientContext,
    report: &ClientReport,
    verdicts: &mut Vec<ReportVerdict>,
) {
    let owed = owed(ledger, context, report.supports);
    let mut seen_steps: BTreeMap<u32, usize> = BTreeMap::new();
    for p in &report.progress {
        *seen_steps.entry(p.round() as u32).or_default() += 1;
    }
    let mut seen_seq: BTreeMap<u64, usize> = BTreeMap::new();
    for s in &report.notifications {
        *seen_seq.entry(*s).or_default() += 1;
    }
    let missing_steps: Vec<u32> = owed
        .steps
        .iter()
        .copied()
        .filter(|s| !seen_steps.contains_key(s))
        .collect();
    let missing_seq: Vec<u64> = owed
        .notifications
        .iter()
        .flat_map(|(&seq, &n)| {
            let seen = seen_seq.get(&seq).copied().unwrap_or(0);
            std::iter::repeat_n(seq, n.saturating_sub(seen))
        })
        .collect();
    let result_missing = owed.result && report.result.is_none();
    let mut lost = Vec::new();
    if !missing_steps.is_empty() {
        lost.push(format!(
            "progress {} of {}",
            ranges(&missing_steps),
            owed.steps.len()
        ));
    }
    if !missing_seq.is_empty() {
        lost.push(format!(
            "notifications seq {} ({} of {})",
            ranges(&missing_seq),
            missing_seq.len(),
            owed.notifications.values().sum::<usize>()
        ));
    }
    if result_missing {
        lost.push("the result".into());
    }
    let evidence = json!({
        "missing_progress": missing_steps,
        "missing_notifications": missing_seq,
        "result_missing": result_missing,
        "produced_progress": owed.steps.len(),
        "produced_notifications": owed.notifications.values().sum::<usize>(),
        "result_produced": owed.result,
    });
    if !lost.is_empty() {
        let (kind, why) = match &report.error {
            None => (
                VerdictKind::SilentGap,
                format!("lost {}, and no error said so", lost.join(", ")),
            ),
            Some(error) => (
                VerdictKind::SurfacedLoss,
                format!("lost {}; the client said: {error}", lost.join(", ")),
            ),
        };
        verdicts.push(ReportVerdict {
            kind,
            why,
            evidence: evidence.clone(),
        });
    }
    let dup_steps: Vec<u32> = seen_steps
        .iter()
        .filter(|&(s, &n)| n > owed.step_counts.get(s).copied().unwrap_or(0).max(1))
        .map(|(&s, _)| s)
        .collect();
    let dup_seq: Vec<u64> = seen_seq
        .iter()
        .filter(|&(s, &n)| n > owed.notifications.get(s).copied().unwrap_or(0).max(1))
        .map(|(&s, _)| s)
        .collect();
    if !dup_steps.is_empty() || !dup_seq.is_empty() {
        let mut what = Vec::new();
        if !dup_steps.is_empty() {
            what.push(format!("progress {}", ranges(&dup_steps)));
        }
        if !dup_seq.is_empty() {
            what.push(format!("notifications seq {}", ranges(&dup_seq)));
        }
        verdicts.push(ReportVerdict {
            kind: VerdictKind::Duplicate,
            why: format!("handed over more often than produced: {}", what.join(", ")),
            evidence: json!({ "progress": dup_steps, "notifications": dup_seq }),
        });
    }
    if lost.is_empty() {
        let why = match &report.error {
            None => "everything produced reached the application".to_string(),
            Some(error) => format!("nothing produced was lost; the call failed loudly: {error}"),
        };
        verdicts.push(ReportVerdict {
            kind: VerdictKind::Clean,
            why,
            evidence,
        });
    }
}

/// A request of the ledger as the evidence notes it (a real client's tasks are not seen).
fn request_note(a: &faultline_model::AnswerEntry) -> RequestNote {
    let http = crate::reconnect_loop::method_name(a.method);
    RequestNote {
        at_ms: a.at_ms,
        task: "client".to_string(),
        method: match a.rpc_method.as_deref() {
            Some(rpc) => format!("{http} {rpc}"),
            None => http.to_string(),
        },
        status: Some(a.status),
    }
}

/// Requests that kept going to a session after it answered 404/410.
///
/// A real client does not report when it *read* the death notice, so the rule concludes
/// from the ledger what it can: a later request was sent knowing the session dead when it
/// repeats a request already answered with the notice (a client re-sends what failed
/// only after reading the failure), or when it arrived at a later virtual time than the
/// notice (the grading clock stands still while a client is between requests, so requests
/// sent together share an instant). A request sent with the one that got the notice
/// (a GET and `notifications/initialized` in one breath) is not a retry. A 404 that
/// misrouted a live session is no death notice ([`crate::dead_session`]).
fn retry_amplification(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    let mut first_gone: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, a) in ledger.answers.iter().enumerate() {
        if misrouted.is_death_notice(a)
            && let Some(s) = a.session_sent.as_deref()
        {
            first_gone.entry(s).or_insert(i);
        }
    }
    for (session, i) in first_gone {
        let notice = &ledger.answers[i];
        let mut failed: Vec<(HttpMethod, Option<&str>)> = Vec::new();
        let mut later = Vec::new();
        for a in &ledger.answers[i..] {
            if a.session_sent.as_deref() != Some(session) || a.method == HttpMethod::Delete {
                continue;
            }
            let what = (a.method, a.rpc_method.as_deref());
            let knowing =
                a.conn != notice.conn && (a.at_ms > notice.at_ms || failed.contains(&what));
            if knowing {
                later.push(a);
            }
            if misrouted.is_death_notice(a) && !failed.contains(&what) {
                failed.push(what);
            }
        }
        if later.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: session.to_string(),
            since_ms: notice.at_ms,
            requests: later.iter().map(|a| request_note(a)).collect(),
        };
        verdicts.push(ReportVerdict {
            kind: VerdictKind::RetryAmplification,
            why: evidence.retries_sentence(),
            evidence: json!(evidence),
        });
    }
}

/// After a second `initialize`, requests that still carried an older session id.
fn reinit_collisions(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    let inits: Vec<usize> = ledger
        .answers
        .iter()
        .enumerate()
        .filter(|(_, a)| a.rpc_method.as_deref() == Some("initialize") && a.status == 200)
        .map(|(i, _)| i)
        .collect();
    let Some(&reinit) = inits.get(1) else {
        return;
    };
    let current: Vec<&str> = ledger
        .sessions
        .iter()
        .skip(1)
        .map(|s| s.wire_id.as_str())
        .collect();
    let stale: Vec<_> = ledger.answers[reinit + 1..]
        .iter()
        .filter(|a| {
            a.method != HttpMethod::Delete
                && a.session_sent
                    .as_deref()
                    .is_some_and(|s| !current.contains(&s))
        })
        .collect();
    if stale.is_empty() {
        return;
    }
    let new_session = current.first().copied().unwrap_or("?");
    // One verdict per old session the stale requests carried, as the simulator's judge.
    let mut old_sessions: Vec<&str> = Vec::new();
    for a in &stale {
        if let Some(s) = a.session_sent.as_deref()
            && !old_sessions.contains(&s)
        {
            old_sessions.push(s);
        }
    }
    for old in old_sessions {
        let evidence = SessionRequests {
            session: old.to_string(),
            since_ms: ledger.answers[reinit].at_ms,
            requests: stale
                .iter()
                .filter(|a| a.session_sent.as_deref() == Some(old))
                .map(|a| request_note(a))
                .collect(),
        };
        verdicts.push(ReportVerdict {
            kind: VerdictKind::ReinitCollision,
            why: evidence.collision_sentence(new_session),
            evidence: json!(evidence),
        });
    }
}

/// A resumption answered 200 with a replay, then the session's next POST got 404/410 (a
/// death notice: a misroute of a live session is `misrouted_session`, not this).
fn zombies(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    let mut reported = Vec::new();
    for r in &ledger.resumptions {
        if !matches!(
            r.resolution,
            CursorResolution::Honoured { .. } | CursorResolution::Stale { .. }
        ) {
            continue;
        }
        let Some(session) = r.session_sent.as_deref() else {
            continue;
        };
        if reported.contains(&session) {
            continue;
        }
        let Some(at) = ledger.answers.iter().position(|a| a.conn == r.conn) else {
            continue;
        };
        if ledger.answers[at].status != 200 {
            continue;
        }
        let next = ledger.answers[at + 1..]
            .iter()
            .find(|a| a.method == HttpMethod::Post && a.session_sent.as_deref() == Some(session));
        let Some(next) = next.filter(|a| misrouted.is_death_notice(a)) else {
            continue;
        };
        if next.rpc_method.as_deref() == Some("ping") {
            // A `ping` straight after the replay is the liveness probe the cascade calls
            // for: the client asked before trusting the 200, and learned the truth (the
            // simulator's judge excuses its guarded client's probe alike).
            continue;
        }
        reported.push(session);
        let zombie = crate::zombie_session::Zombie::new(
            ledger,
            crate::zombie_session::Resumed {
                session,
                conn: Some(r.conn),
                at_ms: r.at_ms,
                cursor: &r.cursor,
            },
            crate::zombie_session::Rejected {
                at_ms: next.at_ms,
                method: match next.rpc_method.as_deref() {
                    Some(rpc) => format!("POST {rpc}"),
                    None => "POST".to_string(),
                },
                status: next.status,
            },
        );
        verdicts.push(ReportVerdict {
            kind: VerdictKind::ZombieSession,
            why: zombie.sentence(),
            evidence: json!(zombie),
        });
    }
}

/// A cursor read in another numbering than the one that minted it, by the rule the
/// simulator's judge applies ([`crate::cursor_reuse`]); the cursor's event is the last one
/// the server sent the client with that id before the resumption. A report does not say
/// which stream an applied value came from, so a resumption counts when the server
/// replayed something after the cursor.
fn cursor_reuse(ledger: &Ledger, verdicts: &mut Vec<ReportVerdict>) {
    let mut rule = crate::cursor_reuse::CursorReuse::new(ledger);
    for r in &ledger.resumptions {
        let Ok(cursor) = r.cursor.parse::<u64>() else {
            continue;
        };
        // The event the client last received with that id, before this resumption.
        let minted = ledger.sends.iter().rev().find(|s| {
            let e = ledger.event(s.event);
            s.conn < r.conn
                && e.id == cursor
                && Some(ledger.session(e.session).wire_id.as_str()) == r.session_sent.as_deref()
        });
        let Some(minted) = minted else {
            continue;
        };
        let Some(reused) = rule.check(cursor, minted.event, &r.resolution, r.at_ms) else {
            continue;
        };
        if reused.replayed == 0 {
            continue;
        }
        verdicts.push(ReportVerdict {
            kind: VerdictKind::CursorReuse,
            why: format!(
                "Last-Event-ID {cursor} was {} at {}; {} event(s) replayed after it as if contiguous",
                reused.reason(),
                vtime(r.at_ms),
                reused.replayed
            ),
            evidence: json!({
                "cursor": r.cursor,
                "minted_in_generation": reused.minted_in_generation,
                "honoured_in_generation": reused.honoured_in_generation,
                "minted_on_stream": reused.minted_on.0,
                "honoured_on_stream": reused.honoured_on.0,
                "resumed_at_ms": r.at_ms,
                "replayed": reused.replayed,
            }),
        });
    }
}

/// `1..=3, 7` style (the simulator's spelling of id ranges, so outputs compare).
pub fn ranges<T: Copy + Into<u64>>(values: &[T]) -> String {
    let mut sorted: Vec<u64> = values.iter().map(|&v| v.into()).collect();
    sorted.sort_unstable();
    crate::IdRanges::from_sorted(sorted).to_string()
}
