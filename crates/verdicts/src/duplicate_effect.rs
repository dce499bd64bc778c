//! `duplicate_effect`: one `order` committed more than once. On 2026-07-28 a cut request
//! stream cannot be resumed, so a client that re-issues a non-idempotent call whose
//! stream was cut after the server committed places the order twice
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).
//!
//! The server can also place an order twice with no client re-issuing anything: a task
//! store that survives a restart and runs an interrupted task's work again under the same
//! task id (`task_persistence: Everything`, at-least-once) commits the order again. The
//! spec leaves restart behaviour open and has no idempotency key, and nothing on the wire
//! tells the client (the same task id is `working` again), so no client can prevent or
//! see it: such a commit is marked [`Commit::rerun_of_task`], and the explorer files it
//! under the knob that causes it, not under `on_stream_cut`
//! (SEP-2663: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>).
//!
//! The evidence comes from the ledger alone: the order key, and for each commit the job,
//! the request id, when it committed, when that job started (a re-issue's start is when
//! the client re-issued; a re-run's, the restart) and when its stream was cut, if it was.

use std::collections::BTreeMap;

use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{JobId, Ledger};
use serde::Serialize;
use serde_json::Value;

/// One commit of a duplicated order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Commit {
    pub job: JobId,
    pub request_id: Value,
    pub at_ms: u64,
    /// When the job started (for every commit but the first: when the call was re-issued).
    pub started_ms: Option<u64>,
    /// When the request stream of this commit was cut, if it was.
    pub stream_cut_ms: Option<u64>,
    /// The task whose work the server ran again on its own after a restart
    /// (`task_persistence: Everything`), when this commit came from that re-run rather
    /// than from a call the client sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_of_task: Option<String>,
}

impl DuplicateEffect {
    /// Whether the server alone made the duplicate: every commit after the first is a task
    /// re-run after a restart, none a call the client re-issued.
    pub fn server_rerun_only(&self) -> bool {
        self.commits[1..].iter().all(|c| c.rerun_of_task.is_some())
    }
}

/// An order committed more than once, its commits in ledger order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuplicateEffect {
    pub order: String,
    pub commits: Vec<Commit>,
}

/// Every order the ledger shows committed more than once, by order key.
pub fn duplicate_effects(ledger: &Ledger) -> Vec<DuplicateEffect> {
    let mut by_order: BTreeMap<&str, Vec<Commit>> = BTreeMap::new();
    for effect in &ledger.effects {
        let started_ms = effect
            .job
            .0
            .checked_sub(ledger.jobs_base)
            .and_then(|i| ledger.jobs.get(i as usize))
            .map(|j| j.started_ms);
        let stream_cut_ms = effect
            .stream
            .0
            .checked_sub(ledger.streams_base)
            .and_then(|i| ledger.streams.get(i as usize))
            .and_then(|s| s.closed_ms);
        // A task's first job is the call; the jobs after it are the server's re-runs.
        let rerun_of_task = ledger
            .tasks
            .iter()
            .find(|t| t.jobs.iter().skip(1).any(|&j| j == effect.job))
            .map(|t| t.task_id.clone());
        by_order.entry(&effect.order).or_default().push(Commit {
            job: effect.job,
            request_id: effect.request_id.clone(),
            at_ms: effect.at_ms,
            started_ms,
            stream_cut_ms,
            rerun_of_task,
        });
    }
    by_order
        .into_iter()
        .filter(|(_, commits)| commits.len() > 1)
        .map(|(order, commits)| DuplicateEffect {
            order: order.to_string(),
            commits,
        })
        .collect()
}

/// The `duplicate_effect` verdicts of a run: one per order committed more than once, at
/// the time of its second commit (the harm).
pub(crate) fn verdicts(ledger: &Ledger, words: Words, out: &mut Vec<Verdict>) {
    for dup in duplicate_effects(ledger) {
        let first = &dup.commits[0];
        let later = &dup.commits[1..];
        let summary = words.say(|| {
            let request = |c: &Commit| match &c.request_id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let cut = match first.stream_cut_ms {
                Some(at) => format!(", whose request stream was cut at {}", vtime(at)),
                None => String::new(),
            };
            let again: Vec<String> = later
                .iter()
                .map(|c| match &c.rerun_of_task {
                    Some(task) => format!(
                        "the server ran task {task} (request {}) again as job #{}{}, which committed it again at {} (its task store keeps an interrupted task and runs it again: task_persistence: Everything); no client re-issued it",
                        request(c),
                        c.job.0,
                        c.started_ms
                            .map(|t| format!(" after its restart at {}", vtime(t)))
                            .unwrap_or_default(),
                        vtime(c.at_ms)
                    ),
                    None => format!(
                        "request {} (job #{}{}) committed it again at {}",
                        request(c),
                        c.job.0,
                        c.started_ms
                            .map(|t| format!(", sent at {}", vtime(t)))
                            .unwrap_or_default(),
                        vtime(c.at_ms)
                    ),
                })
                .collect();
            format!(
                    "order {} was committed {} times: request {} (job #{}) committed it at {}{cut}; {}",
                    dup.order,
                    dup.commits.len(),
                    request(first),
                    first.job.0,
                    vtime(first.at_ms),
                    again.join("; ")
                )
        });
        out.push(Verdict {
            kind: VerdictKind::DuplicateEffect,
            at_ms: later[0].at_ms,
            summary,
            evidence: Evidence::DuplicateEffect {
                order: dup.order.clone(),
                cut_at_ms: first.stream_cut_ms,
                reissued_at_ms: later
                    .iter()
                    .filter(|c| c.rerun_of_task.is_none())
                    .filter_map(|c| c.started_ms)
                    .collect(),
                commits: dup.commits,
            },
        });
    }
}

#[cfg(test)]
mod judged_tests {
    use faultline_model::{
        EffectEntry, JobEntry, SessionKey, StreamEntry, StreamId, StreamKind, TaskEntry,
    };
    use serde_json::json;

    use super::*;
    use faultline_model::JobId;

    fn job(request_id: u64, started_ms: u64) -> JobEntry {
        JobEntry {
            session: SessionKey(0),
            generation: 1,
            tool: "place_order".into(),
            request_id: json!(request_id),
            progress_token: None,
            idempotency_key: None,
            steps: 3,
            started_ms,
            ended: None,
        }
    }

    fn stream(closed_ms: Option<u64>) -> StreamEntry {
        StreamEntry {
            session: SessionKey(0),
            generation: 1,
            kind: StreamKind::Request,
            opened_ms: 0,
            modern: true,
            closed_ms,
        }
    }

    fn effect(order: &str, job: u32, at_ms: u64) -> EffectEntry {
        EffectEntry {
            order: order.into(),
            job: JobId(job),
            request_id: json!(job + 1),
            stream: StreamId(job),
            at_ms,
        }
    }

    #[test]
    fn an_order_committed_twice_is_reported_with_each_commit() {
        // call-0 committed at 20 ms; its stream was cut at 25 ms; the client re-issued it
        // at 40 ms and it committed again at 60 ms. call-1 committed once.
        let ledger = Ledger {
            jobs: vec![job(1, 0), job(2, 5), job(3, 40)],
            streams: vec![stream(Some(25)), stream(None), stream(None)],
            effects: vec![
                effect("call-0", 0, 20),
                effect("call-1", 1, 30),
                effect("call-0", 2, 60),
            ],
            ..Ledger::default()
        };
        assert_eq!(
            duplicate_effects(&ledger),
            vec![DuplicateEffect {
                order: "call-0".into(),
                commits: vec![
                    Commit {
                        job: JobId(0),
                        request_id: json!(1),
                        at_ms: 20,
                        started_ms: Some(0),
                        stream_cut_ms: Some(25),
                        rerun_of_task: None,
                    },
                    Commit {
                        job: JobId(2),
                        request_id: json!(3),
                        at_ms: 60,
                        started_ms: Some(40),
                        stream_cut_ms: None,
                        rerun_of_task: None,
                    },
                ],
            }]
        );
        assert!(!duplicate_effects(&ledger)[0].server_rerun_only());
    }

    #[test]
    fn a_commit_by_a_task_the_server_ran_again_is_a_rerun_not_a_reissue() {
        // Task t-1 (request 1) ran as job 0 and committed call-0 at 20 ms; a restart at
        // 30 ms interrupted it and the server ran it again as job 1, which committed again.
        let ledger = Ledger {
            jobs: vec![job(1, 0), job(1, 30)],
            streams: vec![stream(None), stream(None)],
            effects: vec![effect("call-0", 0, 20), effect("call-0", 1, 50)],
            tasks: vec![TaskEntry {
                task_id: "t-1".into(),
                tool: "place_order".into(),
                request_id: json!(1),
                created_ms: 0,
                ttl_ms: None,
                jobs: vec![JobId(0), JobId(1)],
                ended: None,
                lost: None,
                misses: vec![],
            }],
            ..Ledger::default()
        };
        let dups = duplicate_effects(&ledger);
        assert_eq!(dups.len(), 1);
        assert_eq!(dups[0].commits[0].rerun_of_task, None);
        assert_eq!(dups[0].commits[1].rerun_of_task.as_deref(), Some("t-1"));
        assert!(dups[0].server_rerun_only());
        let mut out = Vec::new();
        verdicts(&ledger, Words::Written, &mut out);
        let Evidence::DuplicateEffect { reissued_at_ms, .. } = &out[0].evidence else {
            panic!("duplicate_effect evidence");
        };
        assert!(reissued_at_ms.is_empty(), "a re-run is no re-issue");
        assert!(
            out[0].summary.contains("the server ran task t-1"),
            "{}",
            out[0].summary
        );
        assert!(
            out[0].summary.contains("no client re-issued it"),
            "{}",
            out[0].summary
        );
    }

    #[test]
    fn orders_committed_once_are_not_duplicates() {
        let ledger = Ledger {
            jobs: vec![job(1, 0), job(2, 5)],
            streams: vec![stream(Some(25)), stream(None)],
            effects: vec![effect("call-0", 0, 20), effect("call-1", 1, 30)],
            ..Ledger::default()
        };
        assert!(duplicate_effects(&ledger).is_empty());
        assert!(duplicate_effects(&Ledger::default()).is_empty());
    }
}
