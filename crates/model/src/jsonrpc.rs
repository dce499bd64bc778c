//! JSON-RPC 2.0 framing for MCP messages: classify what arrived, build what goes back.

use serde_json::{Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
/// Used by the SDKs for "session not found".
pub const SESSION_NOT_FOUND: i64 = -32001;

/// One message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// A response to a server-to-client request; accepted and ignored.
    Response,
}

impl Incoming {
    pub fn method(&self) -> Option<&str> {
        match self {
            Incoming::Request { method, .. } | Incoming::Notification { method, .. } => {
                Some(method)
            }
            Incoming::Response => None,
        }
    }
}

/// Classifies one JSON value; `Err` carries the reason for a -32600 Invalid Request. Takes
/// the value, so the id, method and params move into the message rather than being copied.
pub fn classify(message: Value) -> Result<Incoming, &'static str> {
    let Value::Object(mut object) = message else {
        return Err("a JSON-RPC message must be an object");
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("\"jsonrpc\" must be \"2.0\"");
    }
    match (object.remove("method"), object.remove("id")) {
        (Some(Value::String(method)), Some(id)) => {
            if !(id.is_string() || id.is_i64() || id.is_u64()) {
                return Err("\"id\" must be a string or an integer");
            }
            let params = object.remove("params").unwrap_or(Value::Null);
            Ok(Incoming::Request { id, method, params })
        }
        (Some(Value::String(method)), None) => Ok(Incoming::Notification {
            method,
            params: object.remove("params").unwrap_or(Value::Null),
        }),
        (Some(_), _) => Err("\"method\" must be a string"),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
            Ok(Incoming::Response)
        }
        (None, _) => Err("a message needs \"method\", or \"result\"/\"error\" with \"id\""),
    }
}

pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// An error with no request id (the request could not be read, or had none).
pub fn error_without_id(code: i64, message: &str) -> Value {
    error(&Value::Null, code, message)
}
