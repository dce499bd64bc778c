//! The tools the simulated server offers. `echo` answers at once; `long_job` is the
//! long-running call whose progress stream is what resumption has to protect.
//!
//! The `test_*` tools are the ones the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, server scenarios) calls by name; they are built
//! from the same two shapes (an immediate result, or a job):
//!
//! | tool | scenario | behaviour |
//! |---|---|---|
//! | `test_simple_text` | `tools-call-simple-text` | fixed text result |
//! | `test_error_handling` | `tools-call-error` | tool-level error result (`isError: true`) |
//! | `test_tool_with_progress` | `tools-call-with-progress` | a 3-step job, 50 ms apart: progress 1/3, 2/3, 3/3 |
//! | `test_reconnection` | `server-sse-polling` | a 1-step job (200 ms) whose POST stream the driver closes right after the priming event (SEP-1699), so that the result arrives on the `Last-Event-ID` resume |

use serde_json::{Value, json};

use crate::rpc_params::ParamMembers;

/// What a `tools/call` turns into.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// Answered at once with this result (or a tool-level error result).
    Immediate(Value),
    /// Answered at once with this text: the result [`text_result`] builds, kept as the
    /// text until JSON is needed (`echo`'s answer, sent to every workload call).
    Text(String),
    /// A job of `steps` steps, one every `interval_ms`, then a text result.
    Job { steps: u32, interval_ms: u64 },
    /// JSON-RPC error (unknown tool, bad arguments).
    Error { code: i64, message: String },
}

/// Upper bounds that keep one request from exhausting the server (TigerStyle: limits on
/// everything).
pub const MAX_JOB_STEPS: u32 = 1_000_000;
pub const MAX_JOB_INTERVAL_MS: u64 = 24 * 3_600_000;

/// The conformance suite's tools (see the module docs).
pub const TEST_SIMPLE_TEXT: &str = "test_simple_text";
pub const TEST_ERROR_HANDLING: &str = "test_error_handling";
pub const TEST_TOOL_WITH_PROGRESS: &str = "test_tool_with_progress";
pub const TEST_RECONNECTION: &str = "test_reconnection";

/// `test_simple_text`'s answer, word for word what the conformance suite expects.
pub const SIMPLE_TEXT: &str = "This is a simple text response for testing.";
/// `test_error_handling`'s error message.
pub const ERROR_TEXT: &str = "This tool intentionally returns an error for testing";
/// How long `test_reconnection` works before its result is produced (virtual ms).
pub const RECONNECTION_DELAY_MS: u64 = 200;

fn no_arguments(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {}}
    })
}

/// True for a `tools/call` whose POST stream should be closed by the server right after
/// its priming event, mid-call (SEP-1699 polling: the client resumes with
/// `Last-Event-ID` and gets the result there). The model never closes a stream on its
/// own; the live driver does it with `Server::drop_connection`.
///
/// Never for a 2026-07-28 call (its `_meta` names the protocol version): a modern request
/// stream cannot be resumed, so closing it would lose the call (the job ends by
/// `on_stream_cut`); it streams its result instead.
pub fn closes_stream_mid_call<P: ParamMembers + ?Sized>(params: &P) -> bool {
    let modern = params.meta_has("io.modelcontextprotocol/protocolVersion");
    params.tool_name() == Some(TEST_RECONNECTION) && !modern
}

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
            },
            no_arguments(TEST_SIMPLE_TEXT, "Conformance: returns a fixed text."),
            no_arguments(TEST_ERROR_HANDLING, "Conformance: always returns a tool error (isError: true)."),
            no_arguments(
                TEST_TOOL_WITH_PROGRESS,
                "Conformance: three steps 50 ms apart, with notifications/progress when the request has a progress token.",
            ),
            no_arguments(
                TEST_RECONNECTION,
                "Conformance (SEP-1699): the server closes the POST stream after the priming event; the result arrives on the Last-Event-ID resume.",
            )
        ]
    })
}

pub fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

pub fn job_result(steps: u32) -> Value {
    text_result(&format!("long_job finished {steps} steps"))
}

/// [`call_within`] with the model's widest bound on steps, [`MAX_JOB_STEPS`].
pub fn call<P: ParamMembers + ?Sized>(params: &P) -> ToolCall {
    call_within(params, MAX_JOB_STEPS)
}

/// What a `tools/call` with `params` turns into, on a server that runs at most
/// `max_job_steps` steps per job (a larger `steps` is refused with a message naming the
/// limit). `steps` is the only argument that sets how much work a call makes: `interval_ms`
/// only spaces it out (and is bounded too, so that a job's end stays in reach).
pub fn call_within<P: ParamMembers + ?Sized>(params: &P, max_job_steps: u32) -> ToolCall {
    let max_job_steps = max_job_steps.min(MAX_JOB_STEPS);
    let invalid = |message: &str| ToolCall::Error {
        code: crate::jsonrpc::INVALID_PARAMS,
        message: message.to_string(),
    };
    let Some(name) = params.tool_name() else {
        return invalid("tools/call needs params.name");
    };
    // Borrowed: the arguments are read, never kept.
    let args = params.arguments().unwrap_or(&Value::Null);
    match name {
        "echo" => match args.get("text").and_then(Value::as_str) {
            Some(text) => ToolCall::Text(text.to_string()),
            None => invalid("echo needs a string argument \"text\""),
        },
        "long_job" => {
            let steps = match args.get("steps") {
                None => 10,
                Some(v) => match v.as_u64() {
                    Some(n) if n <= u64::from(max_job_steps) => n as u32,
                    _ => {
                        return invalid(&format!(
                            "long_job: \"steps\" must be an integer from 0 to {max_job_steps} (this server's limit on the work of one call)"
                        ));
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
        TEST_SIMPLE_TEXT => ToolCall::Immediate(text_result(SIMPLE_TEXT)),
        TEST_ERROR_HANDLING => ToolCall::Immediate(
            json!({"content": [{"type": "text", "text": ERROR_TEXT}], "isError": true}),
        ),
        TEST_TOOL_WITH_PROGRESS => ToolCall::Job {
            steps: 3,
            interval_ms: 50,
        },
        TEST_RECONNECTION => ToolCall::Job {
            steps: 1,
            interval_ms: RECONNECTION_DELAY_MS,
        },
        other => ToolCall::Error {
            code: crate::jsonrpc::INVALID_PARAMS,
            message: format!("unknown tool {other:?}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_named(name: &str) -> ToolCall {
        call(&json!({"name": name, "arguments": {}}))
    }

    #[test]
    fn conformance_tools_are_listed_and_answer() {
        let listed = list();
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        for name in [
            "echo",
            "long_job",
            TEST_SIMPLE_TEXT,
            TEST_ERROR_HANDLING,
            TEST_TOOL_WITH_PROGRESS,
            TEST_RECONNECTION,
        ] {
            assert!(names.contains(&name), "{name} missing from tools/list");
        }
        assert_eq!(
            call_named(TEST_SIMPLE_TEXT),
            ToolCall::Immediate(text_result(SIMPLE_TEXT))
        );
        match call_named(TEST_ERROR_HANDLING) {
            ToolCall::Immediate(v) => {
                assert_eq!(v["isError"], json!(true));
                assert_eq!(v["content"][0]["text"], json!(ERROR_TEXT));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            call_named(TEST_TOOL_WITH_PROGRESS),
            ToolCall::Job {
                steps: 3,
                interval_ms: 50
            }
        );
        assert!(matches!(
            call_named(TEST_RECONNECTION),
            ToolCall::Job { steps: 1, .. }
        ));
        assert!(closes_stream_mid_call(&json!({"name": TEST_RECONNECTION})));
        assert!(!closes_stream_mid_call(&json!({"name": "long_job"})));
        assert!(!closes_stream_mid_call(&json!({
            "name": TEST_RECONNECTION,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        })));
    }

    #[test]
    fn echo_and_long_job_are_unchanged() {
        assert_eq!(
            call(&json!({"name": "echo", "arguments": {"text": "hi"}})),
            ToolCall::Text("hi".to_string())
        );
        assert_eq!(
            call(&json!({"name": "long_job", "arguments": {}})),
            ToolCall::Job {
                steps: 10,
                interval_ms: 100
            }
        );
    }

    #[test]
    fn steps_above_the_servers_limit_are_refused_with_the_limit_named() {
        let asked = json!({"name": "long_job", "arguments": {"steps": 5_001, "interval_ms": 0}});
        match call_within(&asked, 5_000) {
            ToolCall::Error { code, message } => {
                assert_eq!(code, crate::jsonrpc::INVALID_PARAMS);
                assert!(message.contains("from 0 to 5000"), "{message}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        let at_limit = json!({"name": "long_job", "arguments": {"steps": 5_000, "interval_ms": 0}});
        assert_eq!(
            call_within(&at_limit, 5_000),
            ToolCall::Job {
                steps: 5_000,
                interval_ms: 0
            }
        );
    }
}
