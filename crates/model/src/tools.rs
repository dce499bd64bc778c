//! The tools the simulated server offers. `echo` answers at once; `long_job` is the
//! long-running call whose progress stream is what resumption has to protect.

use serde_json::{Value, json};

/// What a `tools/call` turns into.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// Answered at once with this result (or a tool-level error result).
    Immediate(Value),
    /// A job of `steps` steps, one every `interval_ms`, then a text result.
    Job { steps: u32, interval_ms: u64 },
    /// JSON-RPC error (unknown tool, bad arguments).
    Error { code: i64, message: String },
}

/// Upper bounds that keep one request from exhausting the server (TigerStyle: limits on
/// everything).
pub const MAX_JOB_STEPS: u32 = 1_000_000;
pub const MAX_JOB_INTERVAL_MS: u64 = 24 * 3_600_000;

pub fn list() -> Value {
    json!({
        "tools": [
            {
                "name": "echo",
                "description": "Returns its text argument.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"]
                }
            },
            {
                "name": "long_job",
                "description": "Runs `steps` steps, one every `interval_ms`, sending notifications/progress for each when the request has a progress token, then returns a text result.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "steps": {"type": "integer", "minimum": 0},
                        "interval_ms": {"type": "integer", "minimum": 0}
                    }
                }
            }
        ]
    })
}

pub fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

pub fn job_result(steps: u32) -> Value {
    text_result(&format!("long_job finished {steps} steps"))
}

pub fn call(params: &Value) -> ToolCall {
    let invalid = |message: &str| ToolCall::Error {
        code: crate::jsonrpc::INVALID_PARAMS,
        message: message.to_string(),
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return invalid("tools/call needs params.name");
    };
    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
    match name {
        "echo" => match args.get("text").and_then(Value::as_str) {
            Some(text) => ToolCall::Immediate(text_result(text)),
            None => invalid("echo needs a string argument \"text\""),
        },
        "long_job" => {
            let steps = match args.get("steps") {
                None => 10,
                Some(v) => match v.as_u64() {
                    Some(n) if n <= MAX_JOB_STEPS as u64 => n as u32,
                    _ => {
                        return invalid("long_job: \"steps\" must be an integer from 0 to 1000000");
                    }
                },
            };
            let interval_ms = match args.get("interval_ms") {
                None => 100,
                Some(v) => match v.as_u64() {
                    Some(n) if n <= MAX_JOB_INTERVAL_MS => n,
                    _ => {
                        return invalid(
                            "long_job: \"interval_ms\" must be an integer from 0 to 86400000",
                        );
                    }
                },
            };
            ToolCall::Job { steps, interval_ms }
        }
        other => ToolCall::Error {
            code: crate::jsonrpc::INVALID_PARAMS,
            message: format!("unknown tool {other:?}"),
        },
    }
}
