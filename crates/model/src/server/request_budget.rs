//! What one POST may make the server repeat and run, on a long-lived server
//! ([`crate::Limits`]; the simulator sets none of these).
//!
//! Why: the per-job step bound says nothing of a batch of 5,000 jobs, nor of jobs that go
//! on after their client left, and the body-size bound says nothing of how often the
//! server repeats what the body held: a 200 KB `progressToken` is copied into each of a
//! job's 100,000 progress notifications. So the strings a server repeats are bounded
//! where they come in, and job steps are budgeted per request, per session and per
//! server, counting what the running jobs still have to run. A POST over a budget is
//! refused whole, before any of its messages acts.
//!
//! The 2026-07-28 path (request streams, tasks, and 2025 requests served without sessions)
//! has no session: there, every sessionless job counts against one budget, the stateless
//! scope's (the ledger's one `stateless` session entry), so that clients of either era
//! leave at most the same work behind. A listen stream runs no job steps.

use serde_json::Value;

use crate::jsonrpc::Incoming;
use crate::rpc_params::ParamMembers;

use crate::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST};

use super::Server;
use super::admission::Rejection;
use super::post::Dispatch;
use crate::ids::SessionKey;

/// The bytes a repeated value costs: a string's UTF-8 length, else its compact JSON.
pub(super) fn echo_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Null | Value::Bool(_) | Value::Number(_) => value.to_string().len(),
        other => serde_json::to_vec(other).map_or(usize::MAX, |v| v.len()),
    }
}

impl Server {
    /// Every request id and `_meta.progressToken` within [`crate::Limits::max_echo_bytes`].
    pub(super) fn check_echoes(&self, items: &[Incoming]) -> Result<(), Rejection> {
        let Some(limit) = self.limits.max_echo_bytes else {
            return Ok(());
        };
        let over = |v: &Value| echo_bytes(v) > limit as usize;
        for item in items {
            if let Incoming::Request { id, params, .. } = item {
                if over(id) {
                    return Err(Rejection::IdTooLong(limit));
                }
                if let Some(token) = params.progress_token()
                    && over(&token)
                {
                    return Err(Rejection::ProgressTokenTooLong(limit));
                }
            }
        }
        Ok(())
    }

    /// The steps the POST's jobs ask for, against the request, session and server budgets.
    pub(super) fn check_step_budgets(
        &self,
        key: SessionKey,
        dispatched: &[Option<Dispatch>],
    ) -> Result<(), Rejection> {
        let asked: u64 = dispatched
            .iter()
            .flatten()
            .map(|d| match d {
                Dispatch::Job(spec) => u64::from(spec.steps),
                Dispatch::Now(_) => 0,
            })
            .sum();
        self.step_budget(Some(key), asked)
            .map_err(Rejection::StepBudget)
    }

    /// `asked` more steps, for the session `key` (the stateless scope for a sessionless
    /// request, `None` before its first job), against the request, session and server
    /// budgets.
    pub(super) fn step_budget(
        &self,
        key: Option<SessionKey>,
        asked: u64,
    ) -> Result<(), StepBudget> {
        let limits = &self.limits;
        if asked == 0
            || (limits.max_steps_per_request.is_none()
                && limits.max_steps_per_session.is_none()
                && limits.max_steps_per_server.is_none())
        {
            return Ok(());
        }
        if let Some(limit) = limits.max_steps_per_request
            && asked > limit
        {
            return Err(StepBudget::Request(limit));
        }
        let (mut session_left, mut server_left) = (0u64, 0u64);
        for job in self.jobs.values() {
            let left = job.steps_left();
            server_left += left;
            if Some(job.session) == key {
                session_left += left;
            }
        }
        if let Some(limit) = limits.max_steps_per_session
            && session_left + asked > limit
        {
            return Err(StepBudget::Session(limit));
        }
        if let Some(limit) = limits.max_steps_per_server
            && server_left + asked > limit
        {
            return Err(StepBudget::Server(limit));
        }
        Ok(())
    }
}

/// A step budget a request would pass, and its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepBudget {
    /// The request's jobs ask for more than `max_steps_per_request` steps.
    Request(u64),
    /// The session's running jobs plus the request's would pass `max_steps_per_session`
    /// (on the sessionless path: the stateless scope's).
    Session(u64),
    /// Every running job plus the request's would pass `max_steps_per_server`.
    Server(u64),
}

impl StepBudget {
    /// HTTP status, JSON-RPC code and message: the one table for both eras.
    pub fn parts(self) -> (u16, i64, String) {
        match self {
            StepBudget::Request(limit) => (
                400,
                INVALID_PARAMS,
                format!(
                    "Invalid params: the jobs of this request ask for more than {limit} steps in all"
                ),
            ),
            // RFC 6585 §4: the client may retry once its jobs end.
            StepBudget::Session(limit) => (
                429,
                INVALID_REQUEST,
                format!(
                    "Too Many Requests: this session's running jobs (without a session: every sessionless request's) and these would pass {limit} steps still to run; wait for its jobs to end"
                ),
            ),
            StepBudget::Server(limit) => (
                503,
                INVALID_REQUEST,
                format!(
                    "Service Unavailable: the running jobs and these would pass the server's {limit} steps still to run; retry later"
                ),
            ),
        }
    }
}
