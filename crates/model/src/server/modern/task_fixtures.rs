//! The tasks extension's conformance fixtures (SEP-2663): tools whose work runs as a task
//! when the client declared `io.modelcontextprotocol/tasks`, each ending a different way.
//!
//! | tool | without the extension | as a task |
//! |---|---|---|
//! | `slow_compute {seconds, label}` | `seconds: 0` at once, else a request stream | `seconds` one-second steps, then `completed` (`seconds: 0`: answered at once, the shortcut SEP-2663 allows) |
//! | `failing_job` | -32021 (task support `required`) | `completed` with `result.isError: true` (a tool error is not `failed`) |
//! | `protocol_error_job` | -32603 | `failed` with an inlined JSON-RPC `error`, no `result` |
//! | `confirm_delete {filename}` | -32021 | `input_required` with one `elicitation/create` until `tasks/update` answers it, then `completed` |
//! | `multi_input` | -32021 | `input_required` with two elicitations at once, answerable one at a time |
//!
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>

use std::collections::BTreeMap;

use serde_json::{Value, json};

pub const SLOW_COMPUTE: &str = "slow_compute";
pub const FAILING_JOB: &str = "failing_job";
pub const PROTOCOL_ERROR_JOB: &str = "protocol_error_job";
pub const CONFIRM_DELETE: &str = "confirm_delete";
pub const MULTI_INPUT: &str = "multi_input";

/// The longest `slow_compute` (so a call cannot hold a task for days).
pub const MAX_SLOW_COMPUTE_SECONDS: u64 = 3_600;
/// How long `failing_job` and `protocol_error_job` work before they end (virtual ms).
pub const FAILING_JOB_MS: u64 = 200;

/// How a fixture task ends, and what it waits for first.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFixture {
    pub outcome: TaskOutcome,
    /// Input requests still unanswered, by key: while any is, the task is
    /// `input_required` and its work has not started.
    pub pending: BTreeMap<String, Value>,
}

/// What a finished fixture task reports.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// `completed`, `result` a text.
    Text(String),
    /// `completed`, `result` a tool error (`isError: true`).
    ToolError(String),
    /// `failed`, `error` a JSON-RPC internal error with this message.
    ProtocolError(String),
}

impl TaskOutcome {
    /// The `result` of a `completed` task (`None` for a protocol error).
    pub fn result(&self) -> Option<Value> {
        match self {
            TaskOutcome::Text(text) => Some(crate::tools::text_result(text)),
            TaskOutcome::ToolError(text) => Some(json!({
                "content": [{"type": "text", "text": text}],
                "isError": true
            })),
            TaskOutcome::ProtocolError(_) => None,
        }
    }
}

/// What a fixture tool call is.
#[derive(Debug, Clone, PartialEq)]
pub struct FixtureCall {
    /// The work, in one-step-per-interval form: `(steps, interval_ms)`; `(0, 0)` when the
    /// task has no work after its input.
    pub work: (u32, u64),
    pub fixture: TaskFixture,
    /// Without the extension the call is refused (-32021) rather than run synchronously.
    pub task_required: bool,
}

fn elicit_request(message: &str, field: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    }})
}

/// The fixture call `name` with `args`, or `None` when `name` is not a task fixture;
/// `Err` with the message of a -32602 when the arguments are wrong.
pub fn fixture_call(name: &str, args: &Value) -> Option<Result<FixtureCall, String>> {
    let done = |outcome| TaskFixture {
        outcome,
        pending: BTreeMap::new(),
    };
    Some(Ok(match name {
        SLOW_COMPUTE => {
            let seconds = match args.get("seconds") {
                None => 1,
                Some(v) => match v.as_u64() {
                    Some(s) if s <= MAX_SLOW_COMPUTE_SECONDS => s,
                    _ => {
                        return Some(Err(format!(
                            "slow_compute: \"seconds\" must be an integer from 0 to {MAX_SLOW_COMPUTE_SECONDS}"
                        )));
                    }
                },
            };
            let label = args.get("label").and_then(Value::as_str).unwrap_or("");
            FixtureCall {
                work: (seconds as u32, 1_000),
                fixture: done(TaskOutcome::Text(format!(
                    "slow_compute {label} done after {seconds}s"
                ))),
                task_required: false,
            }
        }
        FAILING_JOB => FixtureCall {
            work: (1, FAILING_JOB_MS),
            fixture: done(TaskOutcome::ToolError(
                "failing_job failed, as it always does".into(),
            )),
            task_required: true,
        },
        PROTOCOL_ERROR_JOB => FixtureCall {
            work: (1, FAILING_JOB_MS),
            fixture: done(TaskOutcome::ProtocolError(
                "protocol_error_job: internal error".into(),
            )),
            task_required: false,
        },
        CONFIRM_DELETE => {
            let filename = args.get("filename").and_then(Value::as_str).unwrap_or("");
            FixtureCall {
                work: (0, 0),
                fixture: TaskFixture {
                    outcome: TaskOutcome::Text(format!("Deleted {filename}")),
                    pending: BTreeMap::from([(
                        "confirm".to_string(),
                        elicit_request(&format!("Delete {filename}?"), "confirm", "boolean"),
                    )]),
                },
                task_required: true,
            }
        }
        MULTI_INPUT => FixtureCall {
            work: (0, 0),
            fixture: TaskFixture {
                outcome: TaskOutcome::Text("multi_input: both answered".into()),
                pending: BTreeMap::from([
                    (
                        "name".to_string(),
                        elicit_request("What is your name?", "name", "string"),
                    ),
                    (
                        "confirm".to_string(),
                        elicit_request("Go ahead?", "confirm", "boolean"),
                    ),
                ]),
            },
            task_required: true,
        },
        _ => return None,
    }))
}

/// The task fixtures' `tools/list` entries (`execution.taskSupport` as SEP-2663 names it).
pub fn task_fixture_tools() -> Vec<Value> {
    vec![
        json!({
            "name": SLOW_COMPUTE,
            "description": "Conformance (tasks): works `seconds` seconds, then answers; a task when the client declared the tasks extension.",
            "inputSchema": {"type": "object", "properties": {
                "seconds": {"type": "integer", "minimum": 0},
                "label": {"type": "string"}
            }},
            "execution": {"taskSupport": "optional"}
        }),
        json!({
            "name": FAILING_JOB,
            "description": "Conformance (tasks): always ends with a tool error; needs the tasks extension.",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "required"}
        }),
        json!({
            "name": PROTOCOL_ERROR_JOB,
            "description": "Conformance (tasks): always ends with a protocol error (the task fails).",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "optional"}
        }),
        json!({
            "name": CONFIRM_DELETE,
            "description": "Conformance (tasks): asks for confirmation (elicitation) through tasks/get, resumed by tasks/update.",
            "inputSchema": {"type": "object", "properties": {"filename": {"type": "string"}}},
            "execution": {"taskSupport": "required"}
        }),
        json!({
            "name": MULTI_INPUT,
            "description": "Conformance (tasks): asks two questions at once; each can be answered by its own tasks/update.",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "required"}
        }),
    ]
}
