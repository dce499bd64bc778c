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
