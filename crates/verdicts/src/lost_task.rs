//! `lost_task`: a 2026-07-28 task id that vanished, and the work with it. A task is the
//! one durable handle a stateless client holds on long work (SEP-2663:
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>);
//! when the server forgets it (purged, expired past its purge delay, lost in a restart
//! with an in-memory store, <https://github.com/ecto/vcad/pull/745>, or evicted by a
//! long-lived server whose bounded task store was full), `tasks/get` answers -32602 and
//! nothing can say whether the work was done.
//!
//! The core ([`lost_tasks`]) reads the ledger alone: every task whose record vanished and
//! that someone then asked about (a `tasks/get` answered -32602), with when it was created,
//! its `ttlMs`, how and when it vanished, how its work ended, and each request that missed
//! it. The oracle reports the ones the client did not flag with a typed `TaskLostError`:
//! a client that raised one lost nothing silently.

use crate::client_error::ClientError;
use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{JobEnd, JobId, Ledger, TaskLoss, TaskMiss};
use serde::Serialize;
use serde_json::Value;

/// A task that vanished while a client still asked about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LostTask {
    pub task_id: String,
    pub tool: String,
    /// The `tools/call` that created it.
    pub request_id: Value,
    pub created_ms: u64,
    pub ttl_ms: Option<u64>,
    pub how: TaskLoss,
    pub lost_at_ms: u64,
    /// Its work: the last job doing it, and how that job ended (`None`: still running
    /// when the run ended).
    pub job: Option<JobId>,
    pub work_ended: Option<(u64, JobEnd)>,
    /// Each request for the id after it vanished (all answered -32602).
    pub misses: Vec<TaskMiss>,
}

/// Every task the ledger shows vanished and then asked about, in creation order.
pub fn lost_tasks(ledger: &Ledger) -> Vec<LostTask> {
    ledger
        .tasks
        .iter()
        .filter(|t| !t.misses.is_empty())
        .filter_map(|t| {
            let (lost_at_ms, how) = t.lost?;
            let job = t.jobs.last().copied();
            let work_ended = job
                .and_then(|j| j.0.checked_sub(ledger.jobs_base))
                .and_then(|i| ledger.jobs.get(i as usize))
                .and_then(|j| j.ended);
            Some(LostTask {
                task_id: t.task_id.clone(),
                tool: t.tool.clone(),
                request_id: t.request_id.clone(),
                created_ms: t.created_ms,
                ttl_ms: t.ttl_ms,
                how,
                lost_at_ms,
                job,
                work_ended,
                misses: t.misses.clone(),
            })
        })
        .collect()
}

/// How a task vanished, in words.
pub fn loss_words(how: TaskLoss) -> &'static str {
    match how {
        TaskLoss::Purged => "purged",
        TaskLoss::Expired => "expired and purged",
        TaskLoss::Restart => "lost in a restart",
        TaskLoss::Evicted => {
            "evicted after it finished, its room given to a new task because the server's task store was full (max_tasks)"
        }
    }
}

/// The `lost_task` verdicts of a run: one per vanished task the client did not flag with
/// a typed `TaskLostError`, at the time of the first request that missed it.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    out: &mut Vec<Verdict>,
) {
    let flagged: Vec<&str> = record
        .errors
        .iter()
        .filter_map(|e| match &e.error {
            ClientError::TaskLost(lost) => Some(lost.task_id.as_str()),
            _ => None,
        })
        .collect();
    verdicts(ledger, |task_id| flagged.contains(&task_id), words, out);
}

/// A real client's lost tasks. Its report carries no typed errors: a task is excused when
/// the error its application saw names the task's id (what a server's "task not found"
/// answer says), as a `TaskLostError` for the task excuses it in the simulator.
pub(crate) fn real(
    ledger: &Ledger,
    report: Option<&ClientReport>,
    words: Words,
    out: &mut Vec<Verdict>,
) {
    let error = report.and_then(|r| r.error.as_deref());
    verdicts(
        ledger,
        |task_id| error.is_some_and(|e| e.contains(task_id)),
        words,
        out,
    );
}

/// Every vanished task the client was not told of (`excused` says which it was).
fn verdicts(ledger: &Ledger, excused: impl Fn(&str) -> bool, words: Words, out: &mut Vec<Verdict>) {
    for task in lost_tasks(ledger) {
        if excused(&task.task_id) {
            continue;
        }
        let first = &task.misses[0];
        let summary = words.say(|| {
            let work = match task.work_ended {
                // Work that finished after the record was gone had no record to keep its
                // result in.
                Some((at, JobEnd::Finished)) if at > task.lost_at_ms => {
                    format!("its work finished afterwards, at {}, with no record left to hold the result", vtime(at))
                }
                Some((at, JobEnd::Finished)) => format!("its work had finished at {}", vtime(at)),
                Some((at, how)) => format!("its work ended {how:?} at {}", vtime(at)),
                None => "its work was still running".to_string(),
            };
            let ttl = match task.ttl_ms {
                Some(ms) => format!("ttlMs {ms}"),
                None => "no ttlMs".to_string(),
            };
            format!(
                    "task {} ({}, created at {} by tools/call {}, {ttl}) was {} at {}; {work}; {} at {} answered -32602 and the client did not flag the loss",
                    task.task_id,
                    task.tool,
                    vtime(task.created_ms),
                    task.request_id,
                    loss_words(task.how),
                    vtime(task.lost_at_ms),
                    first.method,
                    vtime(first.at_ms),
                )
        });
        out.push(Verdict {
            kind: VerdictKind::LostTask,
            at_ms: first.at_ms,
            summary,
            evidence: Evidence::LostTask(task),
        });
    }
}

#[cfg(test)]
mod judged_tests {
    use faultline_model::{ConnId, JobEntry, SessionKey, TaskEntry, TaskStatus};
    use serde_json::json;

    use super::*;
    use crate::client_error::TaskLostError;
    use crate::client_record::{ErrorRecord, ErrorScope};
    use faultline_model::{JobId, TaskLoss, TaskMiss};

    fn task(id: &str, lost: Option<(u64, TaskLoss)>, misses: usize) -> TaskEntry {
        TaskEntry {
            task_id: id.into(),
            tool: "long_job".into(),
            request_id: json!(1),
            created_ms: 0,
            ttl_ms: None,
            jobs: vec![JobId(0)],
            ended: Some((2_500, TaskStatus::Failed)),
            lost,
            misses: (0..misses)
                .map(|i| TaskMiss {
                    at_ms: 3_000 + i as u64 * 1_000,
                    conn: ConnId(4),
                    method: "tasks/get".into(),
                    request_id: json!(4),
                })
                .collect(),
        }
    }

    fn ledger(tasks: Vec<TaskEntry>) -> Ledger {
        Ledger {
            jobs: vec![JobEntry {
                session: SessionKey(0),
                generation: 1,
                tool: "long_job".into(),
                request_id: json!(1),
                progress_token: None,
                idempotency_key: None,
                steps: 5,
                started_ms: 0,
                ended: Some((2_500, JobEnd::Killed)),
            }],
            tasks,
            ..Ledger::default()
        }
    }

    #[test]
    fn a_vanished_task_asked_about_is_lost_with_its_evidence() {
        let l = ledger(vec![
            task("t-lost", Some((2_500, TaskLoss::Restart)), 1),
            // Vanished, but nobody asked: no verdict.
            task("t-unasked", Some((2_500, TaskLoss::Purged)), 0),
            // Asked about while it existed: not lost.
            task("t-kept", None, 0),
        ]);
        let lost = lost_tasks(&l);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].task_id, "t-lost");
        assert_eq!(lost[0].how, TaskLoss::Restart);
        assert_eq!(lost[0].lost_at_ms, 2_500);
        assert_eq!(lost[0].work_ended, Some((2_500, JobEnd::Killed)));
        assert_eq!(lost[0].misses[0].at_ms, 3_000);

        let mut out = Vec::new();
        modelled(&l, &ClientRecord::default(), Words::Written, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, VerdictKind::LostTask);
        assert_eq!(out[0].at_ms, 3_000);
        assert!(
            out[0].summary.contains("lost in a restart"),
            "{}",
            out[0].summary
        );
    }

    /// Work that finished after its task's record was purged is said to have finished
    /// afterwards, not before ("had finished") as work whose result went with the record.
    #[test]
    fn work_that_finished_after_the_purge_is_said_to() {
        let said = |finished_ms: u64| {
            let mut l = ledger(vec![task("t", Some((2_500, TaskLoss::Purged)), 1)]);
            l.jobs[0].ended = Some((finished_ms, JobEnd::Finished));
            let mut out = Vec::new();
            modelled(&l, &ClientRecord::default(), Words::Written, &mut out);
            out[0].summary.clone()
        };
        let after = said(2_800);
        assert!(after.contains("finished afterwards, at"), "{after}");
        assert!(!after.contains("had finished"), "{after}");
        assert!(said(2_000).contains("its work had finished at"));
    }

    #[test]
    fn an_evicted_task_asked_about_is_lost_and_says_the_store_was_full() {
        let l = ledger(vec![task("t-evicted", Some((2_500, TaskLoss::Evicted)), 1)]);
        let mut out = Vec::new();
        modelled(&l, &ClientRecord::default(), Words::Written, &mut out);
        assert_eq!(out.len(), 1);
        assert!(
            out[0].summary.contains("was evicted after it finished")
                && out[0].summary.contains("task store was full (max_tasks)"),
            "{}",
            out[0].summary
        );
    }

    #[test]
    fn a_loss_the_client_flagged_is_no_verdict() {
        let l = ledger(vec![task("t-lost", Some((2_500, TaskLoss::Restart)), 1)]);
        let mut record = ClientRecord::default();
        record.errors.push(ErrorRecord {
            at_ms: 3_000,
            error: ClientError::TaskLost(TaskLostError {
                call: "call-0".into(),
                task_id: "t-lost".into(),
                message: "gone".into(),
            }),
            scope: ErrorScope::Call(0),
        });
        let mut out = Vec::new();
        modelled(&l, &record, Words::Written, &mut out);
        assert!(out.is_empty());
    }
}
