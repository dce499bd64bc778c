//! Every refusal a 2026-07-28 request can get, and the one table of what each looks like
//! on the wire: HTTP status, JSON-RPC code, `error.data`. Unlike the 2025 table
//! ([`super::super::admission`]), every answer keeps the request's JSON-RPC id: the
//! message was readable, so the client can match the error to its request.
//!
//! Codes: <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>
//! and <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>.

use serde_json::{Value, json};

use crate::http::HttpResponse;
use crate::jsonrpc::{self, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND};

use super::super::era::MODERN_PROTOCOL_VERSIONS;
use super::super::request_budget::StepBudget;

/// A header is missing, malformed, or does not match the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// Serving the request needs a client capability the request's `_meta` did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// The request names a protocol version this server does not speak.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The `Allow` header of a modern 405.
pub const MODERN_ALLOWED_METHODS: &str = "POST";

/// Every reason a 2026-07-28 request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModernRejection {
    /// 400 -32020: a header is missing or differs from the body; says which.
    HeaderMismatch(String),
    /// 400 -32021 with `data.requiredCapabilities: {<capability>: {}}`.
    MissingCapability(&'static str),
    /// 400 -32021 with `data.requiredCapabilities: {"extensions": {<extension>: {}}}`: a
    /// method of an extension the request's client capabilities did not declare.
    MissingExtension(&'static str),
    /// 400 -32022 with `data.supported` and `data.requested`.
    UnsupportedVersion { requested: String },
    /// 400 -32602: a required `_meta` field is missing or of the wrong type; says which.
    InvalidMeta(String),
    /// 404 -32601: a method 2026-07-28 does not have (also the removed `initialize`,
    /// `ping`, `logging/setLevel`, `tasks/result`, `resources/(un)subscribe`).
    MethodNotFound(String),
    /// 400 -32600: JSON-RPC batches are not part of 2026-07-28.
    Batch,
    /// 405 `Allow: POST`: GET and DELETE have no meaning without sessions.
    PostOnly,
    /// 429 -32600: a task call when the task store holds `max_tasks` tasks and every one
    /// is still working ([`super::task_bounds`]), like the 2025 path's stream limit.
    TaskStoreFull { max_tasks: u32 },
    /// 400, 429 or 503, as on the 2025 path: the call's job would pass a step budget
    /// ([`super::super::request_budget`]).
    StepBudget(StepBudget),
}

impl ModernRejection {
    /// HTTP status, JSON-RPC code, message and `error.data`.
    pub fn parts(&self) -> (u16, i64, String, Option<Value>) {
        use ModernRejection::*;
        match self {
            HeaderMismatch(why) => (
                400,
                HEADER_MISMATCH,
                format!("Header mismatch: {why}"),
                None,
            ),
            MissingCapability(cap) => (
                400,
                MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("Missing required client capability: {cap}"),
                Some(json!({"requiredCapabilities": {*cap: {}}})),
            ),
            MissingExtension(ext) => (
                400,
                MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!("Missing required client capability: extension {ext}"),
                Some(json!({"requiredCapabilities": {"extensions": {*ext: {}}}})),
            ),
            UnsupportedVersion { requested } => (
                400,
                UNSUPPORTED_PROTOCOL_VERSION,
                format!("Unsupported protocol version: {requested}"),
                Some(json!({"supported": MODERN_PROTOCOL_VERSIONS, "requested": requested})),
            ),
            InvalidMeta(why) => (400, INVALID_PARAMS, format!("Invalid params: {why}"), None),
            MethodNotFound(method) => (
                404,
                METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
                None,
            ),
            Batch => (
                400,
                INVALID_REQUEST,
                "Invalid Request: JSON-RPC batches are not part of MCP 2026-07-28".into(),
                None,
            ),
            PostOnly => (
                405,
                INVALID_REQUEST,
                "Method Not Allowed: MCP 2026-07-28 is served over POST only".into(),
                None,
            ),
            // RFC 6585 §4, as for the 2025 stream limit: the client may retry once a task
            // ends (or cancel one).
            TaskStoreFull { max_tasks } => (
                429,
                INVALID_REQUEST,
                format!(
                    "Too Many Requests: the task store is full: this server holds at most {max_tasks} tasks (max_tasks) and every one is still working; wait for a task to finish, or cancel one"
                ),
                None,
            ),
            StepBudget(over) => {
                let (status, code, message) = over.parts();
                (status, code, message, None)
            }
        }
    }

    /// The answer to a request whose JSON-RPC id is `id` (null when it had none).
    pub fn response(&self, id: &Value) -> HttpResponse {
        let (status, code, message, data) = self.parts();
        let mut response = HttpResponse::json(status, error_with_data(id, code, &message, data));
        if *self == ModernRejection::PostOnly {
            response.allow = Some(MODERN_ALLOWED_METHODS);
        }
        response
    }
}

/// A JSON-RPC error response, with `error.data` when there is one.
pub fn error_with_data(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut response = jsonrpc::error(id, code, message);
    if let (Some(data), Some(error)) = (
        data,
        response.get_mut("error").and_then(Value::as_object_mut),
    ) {
        error.insert("data".to_string(), data);
    }
    response
}
