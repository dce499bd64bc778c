//! JSON-RPC 2.0 framing for MCP messages: classify what arrived, build what goes back.

use serde_json::{Map, Value};

use crate::rpc_params::RpcParams;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// Used by the SDKs for "session not found".
pub const SESSION_NOT_FOUND: i64 = -32001;

/// One message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        /// Typed when a modelled client built them so ([`RpcParams`]), JSON when parsed.
        params: RpcParams,
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
            let params = RpcParams::Json(object.remove("params").unwrap_or(Value::Null));
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

/// A JSON-RPC response carrying `result`. Built as a map directly: `json!` would
/// serialize `result` into a copy of itself (every tool answer passes here).
pub fn result(id: &Value, result: Value) -> Value {
    let mut message = Map::new();
    message.insert("jsonrpc".to_string(), Value::from("2.0"));
    message.insert("id".to_string(), id.clone());
    message.insert("result".to_string(), result);
    Value::Object(message)
}

/// A JSON-RPC error response. Built as maps directly, like [`result`]: `json!` would
/// serialize each field into a copy of itself (every rejection passes here).
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    let mut error = Map::new();
    error.insert("code".to_string(), Value::from(code));
    error.insert("message".to_string(), Value::from(message));
    let mut response = Map::new();
    response.insert("jsonrpc".to_string(), Value::from("2.0"));
    response.insert("id".to_string(), id.clone());
    response.insert("error".to_string(), Value::Object(error));
    Value::Object(response)
}

/// An error with no request id (the request could not be read, or had none).
pub fn error_without_id(code: i64, message: &str) -> Value {
    error(&Value::Null, code, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_is_the_message_json_would_build() {
        let id = json!(7);
        let payload = json!({"content": [{"type": "text", "text": "hi"}], "isError": false});
        assert_eq!(
            result(&id, payload.clone()),
            json!({"jsonrpc": "2.0", "id": id, "result": payload})
        );
        assert_eq!(
            result(&id, payload.clone()).to_string(),
            json!({"jsonrpc": "2.0", "id": id, "result": payload}).to_string()
        );
    }

    #[test]
    fn an_error_is_the_message_json_would_build() {
        for id in [json!(7), json!("a"), Value::Null] {
            let built =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": "m"}});
            assert_eq!(error(&id, -32600, "m"), built);
            assert_eq!(error(&id, -32600, "m").to_string(), built.to_string());
        }
    }

    #[test]
    fn classify_moves_the_fields_of_a_request_and_a_notification() {
        let request = classify(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
        assert!(matches!(
            request,
            Ok(Incoming::Request { ref method, params: RpcParams::Json(ref params), .. }) if method == "ping" && params.is_null()
        ));
        let note = classify(json!({"jsonrpc": "2.0", "method": "n", "params": {"a": 1}}));
        assert!(matches!(
            note,
            Ok(Incoming::Notification { ref params, .. }) if params == &json!({"a": 1})
        ));
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": 1.5, "method": "m"})).err(),
            Some("\"id\" must be a string or an integer")
        );
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": 1, "method": 5})).err(),
            Some("\"method\" must be a string")
        );
        assert!(matches!(
            classify(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            Ok(Incoming::Response)
        ));
    }
}
