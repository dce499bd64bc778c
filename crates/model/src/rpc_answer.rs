//! The model's answer to one JSON-RPC request, typed: built by the model, read by the
//! modelled client, and turned into JSON only where JSON is needed.
//!
//! Every answer the model gave was a `serde_json::Value` map (`jsonrpc`, `id`, `result` or
//! `error`, and the result's own maps), built per request and, in the simulator, dropped
//! as soon as the modelled client had looked at it: the clients read whether it carries a
//! `result` and, now and then, one field of it. Building and dropping those maps was a
//! few percent of every explored seed, and `initialize` copied its whole result. The typed
//! answer keeps what the model decided (the id, a result or an error) and lends the
//! results that are built once (`initialize`'s, the first tools list) instead of copying
//! them. The JSON is built only where bytes are needed ([`RpcAnswer::to_value`]): at the
//! live edge, in the ledger (an answer sent as an SSE event) and in a batch's array. It
//! is the very value the maps were, member for member, so the bytes on the wire, in the
//! ledger and in the trace are the same.
//!
//! A 2026-07-28 answer goes further: what every result carries (`resultType: "complete"`,
//! the server named in `_meta`) is added only when written, a task's fields are kept as
//! fields (its two timestamps were written per poll, and polls are most of a task's
//! requests) and a tools list as its version and cache hint. The modelled clients read
//! whether there is a result, and one member of it now and then
//! ([`crate::ResponseBody::rpc_result_member`]), each member borrowed or built alone.
//!
//! The transport's refusals, which answer no request, are typed apart
//! ([`crate::ResponseBody::Refusal`]); an answer the model writes into its ledger (one sent
//! as an SSE event) is JSON there, as the ledger's bytes must be.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::jsonrpc;
use crate::server::modern::discover::{CACHE_SCOPE, complete};
use crate::server::modern::dispatch::modern_tools_result;
use crate::server::modern::tasks::TaskFields;

/// One JSON-RPC response to a request: `{"jsonrpc": "2.0", "id": ..., "result" | "error"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcAnswer {
    /// The id of the request answered.
    pub id: Value,
    pub outcome: Outcome,
}

/// What an [`RpcAnswer`] carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A `result`: borrowed when built once for every answer (`initialize`'s, the tools
    /// list), owned otherwise.
    Result(Cow<'static, Value>),
    /// A tool's text result, `{"content": [{"type": "text", "text": ...}], "isError":
    /// false}` ([`crate::tools::text_result`]).
    Text(Cow<'static, str>),
    /// A 2026-07-28 result, written marked complete ([`complete`]: `resultType:
    /// "complete"` unless it says otherwise, the server named in its `_meta`): the marks
    /// are the same for every answer, and no modelled client reads them.
    Complete(Value),
    /// A 2026-07-28 task's fields (`tasks/get`, `CreateTaskResult`), marked complete when
    /// written as [`Outcome::Complete`] is.
    Task(Box<TaskFields>),
    /// The 2026-07-28 `tools/list` result of list version `version`, with the cache hint
    /// `ttlMs` (and `cacheScope: "private"`), marked complete: the list is the same for
    /// every answer of a version, and the clients read only the hint.
    ModernTools { version: u32, ttl_ms: u64 },
    /// An `error`, `{"code": ..., "message": ...}`, and `"data"` when there is some.
    Error {
        code: i64,
        message: Cow<'static, str>,
        data: Option<Box<Value>>,
    },
}

impl RpcAnswer {
    /// A `result` answer to the request `id`.
    pub(crate) fn result(id: &Value, result: Value) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Result(Cow::Owned(result)),
        }
    }

    /// A `result` built once and lent to every answer that gives it.
    pub(crate) fn lent(id: &Value, result: &'static Value) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Result(Cow::Borrowed(result)),
        }
    }

    /// The empty result, `{}` (`ping`, `logging/setLevel`).
    pub(crate) fn empty(id: &Value) -> Self {
        RpcAnswer::result(id, Value::Object(Map::new()))
    }

    /// A 2026-07-28 result, marked complete when written ([`Outcome::Complete`]).
    pub(crate) fn complete(id: &Value, result: Value) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Complete(result),
        }
    }

    /// A 2026-07-28 task's fields ([`Outcome::Task`]).
    pub(crate) fn task(id: &Value, fields: TaskFields) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Task(Box::new(fields)),
        }
    }

    /// A 2026-07-28 tools list ([`Outcome::ModernTools`]).
    pub(crate) fn modern_tools(id: &Value, version: u32, ttl_ms: u64) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::ModernTools { version, ttl_ms },
        }
    }

    /// A tool's text result.
    pub(crate) fn text(id: &Value, text: impl Into<Cow<'static, str>>) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Text(text.into()),
        }
    }

    /// An `error` answer to the request `id`.
    pub(crate) fn error(id: &Value, code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Error {
                code,
                message: message.into(),
                data: None,
            },
        }
    }

    /// An `error` answer with `data`.
    pub(crate) fn error_with_data(
        id: &Value,
        code: i64,
        message: impl Into<Cow<'static, str>>,
        data: Value,
    ) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Error {
                code,
                message: message.into(),
                data: Some(Box::new(data)),
            },
        }
    }

    /// The answer as JSON: the very value [`jsonrpc::result`] or [`jsonrpc::error`] builds
    /// (with `error.data` inserted last, as [`crate::modern::errors::error_with_data`]
    /// does).
    pub(crate) fn to_value(&self) -> Value {
        match &self.outcome {
            Outcome::Result(result) => jsonrpc::result(&self.id, result.as_ref().clone()),
            Outcome::Text(text) => jsonrpc::result(&self.id, crate::tools::text_result(text)),
            Outcome::Complete(result) => jsonrpc::result(&self.id, complete(result.clone())),
            Outcome::Task(_) | Outcome::ModernTools { .. } => {
                jsonrpc::result(&self.id, self.result_json().expect("a result").into_owned())
            }
            // The members in the order `jsonrpc::error` inserts them.
            Outcome::Error { .. } => {
                let mut answer = Map::new();
                answer.insert("jsonrpc".to_string(), Value::from("2.0"));
                answer.insert("id".to_string(), self.id.clone());
                answer.insert("error".to_string(), self.error_json().expect("an error"));
                Value::Object(answer)
            }
        }
    }

    /// The answer as JSON, moving what it owns.
    pub(crate) fn into_value(self) -> Value {
        match self.outcome {
            Outcome::Result(result) => jsonrpc::result(&self.id, result.into_owned()),
            Outcome::Text(text) => jsonrpc::result(&self.id, crate::tools::text_result(&text)),
            Outcome::Complete(result) => jsonrpc::result(&self.id, complete(result)),
            Outcome::Task(_) | Outcome::ModernTools { .. } | Outcome::Error { .. } => {
                self.to_value()
            }
        }
    }

    /// Whether the answer carries a `result` (rather than an `error`).
    pub(crate) fn is_result(&self) -> bool {
        !matches!(self.outcome, Outcome::Error { .. })
    }

    /// The `result` member: borrowed, or built for a text result; `None` for an error.
    pub(crate) fn result_json(&self) -> Option<Cow<'_, Value>> {
        match &self.outcome {
            Outcome::Result(result) => Some(Cow::Borrowed(result.as_ref())),
            Outcome::Text(text) => Some(Cow::Owned(crate::tools::text_result(text))),
            Outcome::Complete(result) => Some(Cow::Owned(complete(result.clone()))),
            Outcome::Task(fields) => Some(Cow::Owned(complete(fields.to_value()))),
            Outcome::ModernTools { version, ttl_ms } => {
                Some(Cow::Owned(modern_tools_result(*version, *ttl_ms)))
            }
            Outcome::Error { .. } => None,
        }
    }

    /// The member `name` of the `result`, what `result_json()?.get(name)` is, without
    /// building the result where it need not be: borrowed from a result held as JSON,
    /// the marks of a complete one written alone.
    pub(crate) fn result_member(&self, name: &str) -> Option<Cow<'_, Value>> {
        match &self.outcome {
            Outcome::Result(result) => result.get(name).map(Cow::Borrowed),
            Outcome::Complete(result) if result.is_object() => match name {
                "resultType" => Some(
                    result
                        .get(name)
                        .map_or_else(|| Cow::Owned(Value::from("complete")), Cow::Borrowed),
                ),
                "_meta" => complete(result.clone())
                    .get_mut(name)
                    .map(|meta| Cow::Owned(meta.take())),
                _ => result.get(name).map(Cow::Borrowed),
            },
            Outcome::Complete(_) => None,
            Outcome::Task(fields) => match (name, fields.member(name)) {
                (_, Some(member)) => Some(Cow::Owned(member)),
                ("resultType", None) => Some(Cow::Owned(Value::from("complete"))),
                ("_meta", None) => self.result_json()?.get(name).cloned().map(Cow::Owned),
                (_, None) => None,
            },
            Outcome::ModernTools { ttl_ms, .. } => match name {
                "ttlMs" => Some(Cow::Owned(Value::from(*ttl_ms))),
                "cacheScope" => Some(Cow::Owned(Value::from(CACHE_SCOPE))),
                "resultType" => Some(Cow::Owned(Value::from("complete"))),
                _ => self.result_json()?.get(name).cloned().map(Cow::Owned),
            },
            Outcome::Text(_) => self
                .result_json()
                .and_then(|r| r.get(name).cloned())
                .map(Cow::Owned),
            Outcome::Error { .. } => None,
        }
    }

    /// The `error` member, built; `None` for a result.
    pub(crate) fn error_json(&self) -> Option<Value> {
        match &self.outcome {
            Outcome::Error {
                code,
                message,
                data,
            } => {
                let mut error = Map::new();
                error.insert("code".to_string(), Value::from(*code));
                error.insert("message".to_string(), Value::from(message.as_ref()));
                if let Some(data) = data {
                    error.insert("data".to_string(), data.as_ref().clone());
                }
                Some(Value::Object(error))
            }
            Outcome::Result(_)
            | Outcome::Text(_)
            | Outcome::Complete(_)
            | Outcome::Task(_)
            | Outcome::ModernTools { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Each shape is the map it stands for, as a value and as text, and reads as that map.
    #[test]
    fn a_typed_answer_is_the_map_it_stands_for() {
        let list = json!({"tools": [{"name": "echo"}]});
        let cases = [
            (
                RpcAnswer::empty(&json!(3)),
                json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
            ),
            (
                RpcAnswer::result(&json!("a"), list.clone()),
                json!({"jsonrpc": "2.0", "id": "a", "result": list}),
            ),
            (
                RpcAnswer::text(&json!(7), "hi"),
                json!({"jsonrpc": "2.0", "id": 7,
                    "result": {"content": [{"type": "text", "text": "hi"}], "isError": false}}),
            ),
            (
                RpcAnswer::complete(&json!(4), json!({"ttlMs": 5})),
                json!({"jsonrpc": "2.0", "id": 4, "result": complete(json!({"ttlMs": 5}))}),
            ),
            (
                RpcAnswer::complete(&json!(5), json!({"resultType": "task", "taskId": "t"})),
                json!({"jsonrpc": "2.0", "id": 5,
                    "result": complete(json!({"resultType": "task", "taskId": "t"}))}),
            ),
            (
                RpcAnswer::task(
                    &json!(6),
                    TaskFields {
                        task_id: "task-1".to_string(),
                        status: "completed",
                        created_ms: 5,
                        updated_ms: 2_500,
                        ttl_ms: None,
                        poll_interval_ms: 1_000,
                        created: false,
                        result: Some(json!({"content": []})),
                        error: None,
                        input_requests: None,
                    },
                ),
                json!({"jsonrpc": "2.0", "id": 6, "result": complete(json!({
                    "taskId": "task-1", "status": "completed",
                    "createdAt": "1970-01-01T00:00:00.005Z",
                    "lastUpdatedAt": "1970-01-01T00:00:02.500Z",
                    "ttlMs": null, "pollIntervalMs": 1_000, "result": {"content": []},
                }))}),
            ),
            (
                RpcAnswer::task(
                    &json!(7),
                    TaskFields {
                        task_id: "task-2".to_string(),
                        status: "working",
                        created_ms: 0,
                        updated_ms: 0,
                        ttl_ms: Some(60_000),
                        poll_interval_ms: 50,
                        created: true,
                        result: None,
                        error: None,
                        input_requests: None,
                    },
                ),
                json!({"jsonrpc": "2.0", "id": 7, "result": complete(json!({
                    "taskId": "task-2", "status": "working", "resultType": "task",
                    "createdAt": "1970-01-01T00:00:00.000Z",
                    "lastUpdatedAt": "1970-01-01T00:00:00.000Z",
                    "ttlMs": 60_000, "pollIntervalMs": 50,
                }))}),
            ),
            (
                RpcAnswer::modern_tools(&json!(8), 1, 30_000),
                json!({"jsonrpc": "2.0", "id": 8, "result": modern_tools_result(1, 30_000)}),
            ),
            (
                RpcAnswer::error_with_data(
                    &json!(8),
                    -32602,
                    "Resource not found",
                    json!({"uri": "u"}),
                ),
                json!({"jsonrpc": "2.0", "id": 8,
                    "error": {"code": -32602, "message": "Resource not found", "data": {"uri": "u"}}}),
            ),
            (
                RpcAnswer::error(&json!(9), -32601, "Method not found: x"),
                json!({"jsonrpc": "2.0", "id": 9,
                    "error": {"code": -32601, "message": "Method not found: x"}}),
            ),
        ];
        for (typed, map) in cases {
            let result = map.get("result");
            for name in [
                "content",
                "isError",
                "tools",
                "resultType",
                "_meta",
                "nothing",
                "taskId",
                "status",
                "ttlMs",
                "cacheScope",
                "pollIntervalMs",
                "createdAt",
                "result",
            ] {
                let member = result.and_then(|r| r.get(name));
                assert_eq!(typed.result_member(name).as_deref(), member, "{name}");
            }
            assert_eq!(typed.to_value(), map);
            assert_eq!(typed.to_value().to_string(), map.to_string());
            assert_eq!(typed.clone().into_value().to_string(), map.to_string());
            assert_eq!(typed.result_json().as_deref(), map.get("result"));
            assert_eq!(typed.error_json().as_ref(), map.get("error"));
        }
    }
}
