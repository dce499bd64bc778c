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
//! The transport's refusals, which answer no request, are typed apart
//! ([`crate::ResponseBody::Refusal`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::jsonrpc;

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
    /// An `error`, `{"code": ..., "message": ...}`.
    Error {
        code: i64,
        message: Cow<'static, str>,
    },
}

impl RpcAnswer {
    /// A `result` answer to the request `id`.
    pub fn result(id: &Value, result: Value) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Result(Cow::Owned(result)),
        }
    }

    /// A `result` built once and lent to every answer that gives it.
    pub fn lent(id: &Value, result: &'static Value) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Result(Cow::Borrowed(result)),
        }
    }

    /// The empty result, `{}` (`ping`, `logging/setLevel`).
    pub fn empty(id: &Value) -> Self {
        RpcAnswer::result(id, Value::Object(Map::new()))
    }

    /// A tool's text result.
    pub fn text(id: &Value, text: impl Into<Cow<'static, str>>) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Text(text.into()),
        }
    }

    /// An `error` answer to the request `id`.
    pub fn error(id: &Value, code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        RpcAnswer {
            id: id.clone(),
            outcome: Outcome::Error {
                code,
                message: message.into(),
            },
        }
    }

    /// The answer as JSON: the very value [`jsonrpc::result`] or [`jsonrpc::error`] builds.
    pub fn to_value(&self) -> Value {
        match &self.outcome {
            Outcome::Result(result) => jsonrpc::result(&self.id, result.as_ref().clone()),
            Outcome::Text(text) => jsonrpc::result(&self.id, crate::tools::text_result(text)),
            Outcome::Error { code, message } => jsonrpc::error(&self.id, *code, message),
        }
    }

    /// The answer as JSON, moving what it owns.
    pub fn into_value(self) -> Value {
        match self.outcome {
            Outcome::Result(result) => jsonrpc::result(&self.id, result.into_owned()),
            Outcome::Text(text) => jsonrpc::result(&self.id, crate::tools::text_result(&text)),
            Outcome::Error { code, message } => jsonrpc::error(&self.id, code, &message),
        }
    }

    /// Whether the answer carries a `result` (rather than an `error`).
    pub fn is_result(&self) -> bool {
        !matches!(self.outcome, Outcome::Error { .. })
    }

    /// The `result` member: borrowed, or built for a text result; `None` for an error.
    pub fn result_json(&self) -> Option<Cow<'_, Value>> {
        match &self.outcome {
            Outcome::Result(result) => Some(Cow::Borrowed(result.as_ref())),
            Outcome::Text(text) => Some(Cow::Owned(crate::tools::text_result(text))),
            Outcome::Error { .. } => None,
        }
    }

    /// The `error` member, built; `None` for a result.
    pub fn error_json(&self) -> Option<Value> {
        match &self.outcome {
            Outcome::Error { code, message } => {
                let mut error = Map::new();
                error.insert("code".to_string(), Value::from(*code));
                error.insert("message".to_string(), Value::from(message.as_ref()));
                Some(Value::Object(error))
            }
            Outcome::Result(_) | Outcome::Text(_) => None,
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
                RpcAnswer::error(&json!(9), -32601, "Method not found: x"),
                json!({"jsonrpc": "2.0", "id": 9,
                    "error": {"code": -32601, "message": "Method not found: x"}}),
            ),
        ];
        for (typed, map) in cases {
            assert_eq!(typed.to_value(), map);
            assert_eq!(typed.to_value().to_string(), map.to_string());
            assert_eq!(typed.clone().into_value().to_string(), map.to_string());
            assert_eq!(typed.result_json().as_deref(), map.get("result"));
            assert_eq!(typed.error_json().as_ref(), map.get("error"));
        }
    }
}
