//! The HTTP surface of the model: what a request carries and what the server answers.
//!
//! The model speaks HTTP semantics (methods, the headers Streamable HTTP defines, status
//! codes) but no HTTP bytes: the simulator builds these values directly and the live
//! server converts axum requests into them, so both drivers share one protocol core.

use std::borrow::Cow;
use std::net::IpAddr;

use serde::Serialize;
use serde_json::Value;

use crate::ids::{ConnId, EventRef, StreamId};
use crate::rpc_answer::RpcAnswer;
use crate::rpc_message::RpcMessage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum HttpMethod {
    Post,
    Get,
    Delete,
    Other,
}

/// The body of a POST: raw bytes from the wire, an already-built JSON value, or one
/// typed JSON-RPC message (a modelled client's; see [`RpcMessage`]).
#[derive(Debug, Clone)]
pub enum RequestBody {
    Empty,
    Bytes(Vec<u8>),
    Json(Value),
    Rpc(RpcMessage),
}

impl RequestBody {
    /// The JSON-RPC method of a body that is one message (a batch, bytes that were not
    /// parsed and an empty body have none).
    pub fn rpc_method(&self) -> Option<&str> {
        match self {
            RequestBody::Rpc(m) => Some(&m.method),
            RequestBody::Json(v) => v.get("method").and_then(Value::as_str),
            RequestBody::Empty | RequestBody::Bytes(_) => None,
        }
    }
}

/// One HTTP request, reduced to what the Streamable HTTP transport looks at.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: HttpMethod,
    pub session_id: Option<String>,
    /// `MCP-Protocol-Version`, `Accept` and `Content-Type`: borrowed when a modelled
    /// client sends its fixed values (three allocations a request spared), owned when
    /// read off the wire.
    pub protocol_version: Option<Cow<'static, str>>,
    pub accept: Option<Cow<'static, str>>,
    pub content_type: Option<Cow<'static, str>>,
    pub last_event_id: Option<String>,
    pub origin: Option<String>,
    /// `Mcp-Method` (2026-07-28: the JSON-RPC method, repeated as a header).
    pub mcp_method: Option<String>,
    /// `Mcp-Name` (2026-07-28: the tool, resource or prompt a request names).
    pub mcp_name: Option<String>,
    /// The `Mcp-Param-<name>` headers (2026-07-28, SEP-2243: a tool argument its schema
    /// marks `x-mcp-header`), as `(<name>, value)` in the order sent.
    pub mcp_params: Vec<(String, String)>,
    /// `Cookie`, as sent (only a fleet's balancer reads it: `StickyCookie`).
    pub cookie: Option<String>,
    /// The address the request came from (only a fleet's balancer reads it:
    /// `ClientAddress`). The simulator says 127.0.0.1, where a live run connects from.
    pub peer: Option<IpAddr>,
    pub body: RequestBody,
}

impl HttpRequest {
    /// A POST as a spec-following client sends it.
    pub fn post(session_id: Option<String>, body: Value) -> Self {
        HttpRequest {
            method: HttpMethod::Post,
            session_id,
            protocol_version: None,
            accept: Some("application/json, text/event-stream".into()),
            content_type: Some("application/json".into()),
            last_event_id: None,
            origin: None,
            mcp_method: None,
            mcp_name: None,
            mcp_params: Vec::new(),
            cookie: None,
            peer: None,
            body: RequestBody::Json(body),
        }
    }

    /// A POST of one typed JSON-RPC message, as a spec-following client sends it.
    pub fn rpc(session_id: Option<String>, message: RpcMessage) -> Self {
        let mut request = HttpRequest::post(session_id, Value::Null);
        request.body = RequestBody::Rpc(message);
        request
    }

    /// A GET for the standalone stream, optionally resuming after `last_event_id`.
    pub fn get(session_id: Option<String>, last_event_id: Option<String>) -> Self {
        HttpRequest {
            method: HttpMethod::Get,
            session_id,
            protocol_version: None,
            accept: Some("text/event-stream".into()),
            content_type: None,
            last_event_id,
            origin: None,
            mcp_method: None,
            mcp_name: None,
            mcp_params: Vec::new(),
            cookie: None,
            peer: None,
            body: RequestBody::Empty,
        }
    }

    pub fn delete(session_id: Option<String>) -> Self {
        HttpRequest {
            method: HttpMethod::Delete,
            session_id,
            protocol_version: None,
            accept: None,
            content_type: None,
            last_event_id: None,
            origin: None,
            mcp_method: None,
            mcp_name: None,
            mcp_params: Vec::new(),
            cookie: None,
            peer: None,
            body: RequestBody::Empty,
        }
    }
}

/// What follows the status line.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseBody {
    Empty,
    Json(Value),
    /// The answer to one JSON-RPC request, typed ([`RpcAnswer`]): JSON only when asked
    /// for ([`ResponseBody::json`]) and at the live edge.
    Answer(RpcAnswer),
    /// The transport's refusal as a JSON-RPC error without an id,
    /// `{"jsonrpc": "2.0", "id": null, "error": {"code": ..., "message": ...}}`, typed: the
    /// modelled clients read a refusal's status, seldom its body, so the JSON is built
    /// only when asked for ([`ResponseBody::json`]) and at the live edge, the very value
    /// [`crate::jsonrpc::error_without_id`] builds.
    Refusal {
        code: i64,
        message: Cow<'static, str>,
    },
    /// An SSE stream; its events follow as [`Output::Event`] and it ends with [`Output::End`].
    Sse(StreamId),
    /// A `text/plain` body (the Go SDK's answer to a request it does not understand).
    Text(String),
}

impl ResponseBody {
    /// The body as JSON, when it is JSON: borrowed, or built for a typed refusal.
    pub fn json(&self) -> Option<Cow<'_, Value>> {
        match self {
            ResponseBody::Json(value) => Some(Cow::Borrowed(value)),
            ResponseBody::Answer(answer) => Some(Cow::Owned(answer.to_value())),
            ResponseBody::Refusal { code, message } => {
                Some(Cow::Owned(crate::jsonrpc::error_without_id(*code, message)))
            }
            ResponseBody::Empty | ResponseBody::Sse(_) | ResponseBody::Text(_) => None,
        }
    }

    /// The body as JSON, moving what it owns (the live edge's).
    pub fn into_json(self) -> Option<Value> {
        match self {
            ResponseBody::Json(value) => Some(value),
            ResponseBody::Answer(answer) => Some(answer.into_value()),
            refusal @ ResponseBody::Refusal { .. } => refusal.json().map(Cow::into_owned),
            ResponseBody::Empty | ResponseBody::Sse(_) | ResponseBody::Text(_) => None,
        }
    }

    /// The `result` member of a JSON body that is one JSON-RPC response: borrowed, or
    /// built for a typed text result.
    pub fn rpc_result(&self) -> Option<Cow<'_, Value>> {
        match self {
            ResponseBody::Json(value) => value.get("result").map(Cow::Borrowed),
            ResponseBody::Answer(answer) => answer.result_json(),
            ResponseBody::Refusal { .. }
            | ResponseBody::Empty
            | ResponseBody::Sse(_)
            | ResponseBody::Text(_) => None,
        }
    }

    /// The member `name` of the `result` of a JSON body that is one JSON-RPC response:
    /// `rpc_result()?.get(name)`, built only where it must be (a member of a typed answer
    /// is borrowed or built alone).
    pub fn rpc_result_member(&self, name: &str) -> Option<Cow<'_, Value>> {
        match self {
            ResponseBody::Json(value) => value.get("result")?.get(name).map(Cow::Borrowed),
            ResponseBody::Answer(answer) => answer.result_member(name),
            ResponseBody::Refusal { .. }
            | ResponseBody::Empty
            | ResponseBody::Sse(_)
            | ResponseBody::Text(_) => None,
        }
    }

    /// Whether the body is one JSON-RPC response carrying a `result` (nothing built).
    pub fn has_rpc_result(&self) -> bool {
        match self {
            ResponseBody::Json(value) => value.get("result").is_some(),
            ResponseBody::Answer(answer) => answer.is_result(),
            ResponseBody::Refusal { .. }
            | ResponseBody::Empty
            | ResponseBody::Sse(_)
            | ResponseBody::Text(_) => false,
        }
    }

    /// The `error` member of a JSON body that is one JSON-RPC response (a refusal's too):
    /// borrowed, or built for a typed one.
    pub fn rpc_error(&self) -> Option<Cow<'_, Value>> {
        match self {
            ResponseBody::Json(value) => value.get("error").map(Cow::Borrowed),
            ResponseBody::Answer(answer) => answer.error_json().map(Cow::Owned),
            ResponseBody::Refusal { code, message } => {
                let mut error = serde_json::Map::new();
                error.insert("code".to_string(), Value::from(*code));
                error.insert("message".to_string(), Value::from(message.as_ref()));
                Some(Cow::Owned(Value::Object(error)))
            }
            ResponseBody::Empty | ResponseBody::Sse(_) | ResponseBody::Text(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    /// `Mcp-Session-Id` on the response (set by `initialize`).
    pub session_id: Option<String>,
    /// `Allow` header for 405 answers.
    pub allow: Option<&'static str>,
    /// `Set-Cookie`, written by a fleet's `StickyCookie` balancer (never by the model).
    pub set_cookie: Option<String>,
    pub body: ResponseBody,
}

impl HttpResponse {
    pub fn json(status: u16, body: Value) -> Self {
        HttpResponse {
            status,
            session_id: None,
            allow: None,
            set_cookie: None,
            body: ResponseBody::Json(body),
        }
    }

    /// `status` and a typed JSON-RPC answer.
    pub(crate) fn answer(status: u16, answer: RpcAnswer) -> Self {
        HttpResponse {
            status,
            session_id: None,
            allow: None,
            set_cookie: None,
            body: ResponseBody::Answer(answer),
        }
    }

    pub fn empty(status: u16) -> Self {
        HttpResponse {
            status,
            session_id: None,
            allow: None,
            set_cookie: None,
            body: ResponseBody::Empty,
        }
    }

    /// 200 and an SSE stream.
    pub(crate) fn sse(stream: StreamId) -> Self {
        HttpResponse {
            status: 200,
            session_id: None,
            allow: None,
            set_cookie: None,
            body: ResponseBody::Sse(stream),
        }
    }
}

/// How an SSE response ends.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum EndMode {
    /// The stream ends cleanly (the body is finished): the client sees end-of-stream.
    Close,
    /// The connection is torn down mid-stream (TCP reset): the client sees an error.
    Reset,
}

/// Everything the model asks its driver to put on the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// An HTTP answer. Boxed: it is the largest variant by far, and outputs are moved
    /// several times on their way to the client, most of them small SSE events.
    Respond {
        conn: ConnId,
        response: Box<HttpResponse>,
    },
    /// One SSE event on an open stream. `id` is the `id:` field (absent when the scheme
    /// gives none), `retry_ms` the `retry:` field.
    Event {
        conn: ConnId,
        event: EventRef,
        id: Option<u64>,
        retry_ms: Option<u64>,
    },
    End {
        conn: ConnId,
        how: EndMode,
    },
    /// An SSE comment on an open stream (`: keep-alive` and the blank line): bytes that
    /// carry no event, which a client's SSE parser skips and a proxy counts as traffic. A
    /// 2026-07-28 listen stream's keep-alive (the `listen_keepalive` knob).
    Comment {
        conn: ConnId,
    },
}
