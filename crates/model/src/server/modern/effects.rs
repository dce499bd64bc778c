//! `place_order`: a non-idempotent tool. It runs like `long_job` (`steps` steps,
//! `interval_ms` apart, progress for each when asked) and at step `commit_step` commits
//! its order into [`Ledger::effects`](crate::ledger::Ledger), *before* that step's progress
//! is produced: a fault that fires right after progress `commit_step − 1` cuts before the
//! commit, one right after progress `commit_step` cuts after it.
//!
//! Calling it twice with the same `order` places two orders: that is what a client that
//! re-issues a cut call does, and what the `duplicate_effect` verdict finds
//! (SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).

use serde_json::{Value, json};

use crate::ids::{JobId, StreamId};
use crate::ledger::EffectEntry;
use crate::tools::{MAX_JOB_INTERVAL_MS, MAX_JOB_STEPS};

use super::super::Server;

pub const PLACE_ORDER: &str = "place_order";

/// A validated `place_order` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceOrder {
    pub order: String,
    pub steps: u32,
    pub interval_ms: u64,
    /// 1-based, at most `steps`.
    pub commit_step: u32,
}

/// `None` when `params` calls another tool; else the call or why its arguments are refused.
pub fn parse_place_order(params: &Value, max_job_steps: u32) -> Option<Result<PlaceOrder, String>> {
    if params.get("name").and_then(Value::as_str) != Some(PLACE_ORDER) {
        return None;
    }
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    let max_steps = u64::from(max_job_steps.min(MAX_JOB_STEPS));
    Some((|| {
        let order = args
            .get("order")
            .and_then(Value::as_str)
            .filter(|o| !o.is_empty())
            .ok_or("place_order needs a non-empty string argument \"order\"")?
            .to_string();
        // The ledger keeps every commit's key whole (duplicates are found by it), so a key
        // is short: a megabyte key per call must not become a megabyte of ledger.
        if order.len() > crate::KEPT_TEXT_BYTES {
            return Err(format!(
                "place_order: \"order\" is at most {} bytes",
                crate::KEPT_TEXT_BYTES
            ));
        }
        let steps = match args.get("steps").map(Value::as_u64) {
            None => 3,
            Some(Some(n)) if (1..=max_steps).contains(&n) => n as u32,
            Some(_) => {
                return Err(format!(
                    "place_order: \"steps\" must be an integer from 1 to {max_steps}"
                ));
            }
        };
        let interval_ms = match args.get("interval_ms").map(Value::as_u64) {
            None => 100,
            Some(Some(n)) if n <= MAX_JOB_INTERVAL_MS => n,
            Some(_) => {
                return Err(
                    "place_order: \"interval_ms\" must be an integer from 0 to 86400000".into(),
                );
            }
        };
        let commit_step = match args.get("commit_step").map(Value::as_u64) {
            None => steps,
            Some(Some(n)) if (1..=u64::from(steps)).contains(&n) => n as u32,
            Some(_) => {
                return Err(format!(
                    "place_order: \"commit_step\" must be an integer from 1 to steps ({steps})"
                ));
            }
        };
        Ok(PlaceOrder {
            order,
            steps,
            interval_ms,
            commit_step,
        })
    })())
}

/// The `tools/list` entry.
pub fn place_order_tool() -> Value {
    json!({
        "name": PLACE_ORDER,
        "description": "Places an order: runs `steps` steps `interval_ms` apart and commits the order at `commit_step`. Not idempotent: calling it again places the order again.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "order": {"type": "string"},
                "steps": {"type": "integer", "minimum": 1},
                "interval_ms": {"type": "integer", "minimum": 0},
                "commit_step": {"type": "integer", "minimum": 1}
            },
            "required": ["order"]
        },
        "annotations": {"idempotentHint": false, "destructiveHint": false}
    })
}

impl Server {
    /// Commits `order` for `job` now: one entry in the ledger's effects.
    pub(in crate::server) fn commit_effect(&mut self, job: JobId, order: String, stream: StreamId) {
        let request_id = self.ledger.job(job).request_id.clone();
        self.ledger.effects.push(EffectEntry {
            order,
            job,
            request_id,
            stream,
            at_ms: self.now_ms,
        });
    }
}
