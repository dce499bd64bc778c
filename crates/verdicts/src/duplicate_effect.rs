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
