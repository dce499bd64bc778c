//! A JSON-RPC message as a modelled client builds it: typed, so that the simulator hands
//! it to the model without building a JSON object for the envelope and the model without
//! taking one apart again.
//!
//! A POST carried every message as a `serde_json::Value` map (`jsonrpc`, `id`, `method`,
//! `params`), built by the client, then read back field by field by the engine (which
//! workload call is it?) and classified by the model (which took the map apart again);
//! that envelope was a few percent of every explored seed. The typed message keeps the
//! fields the model reads as fields, and is turned into the JSON text only where bytes
//! are needed: at the live edge (`run --live`) and wherever a `Value` is asked for
//! ([`RpcMessage::to_value`]: the very value the client built before, so the bytes on the
//! wire, the ledger and the trace are the same).
//!
//! The `params` are typed where a modelled client builds the same shape every run
//! ([`RpcParams`]: a `tools/call`, an `initialize`), and JSON otherwise.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::jsonrpc::Incoming;
use crate::rpc_params::RpcParams;

/// One JSON-RPC request (with an id) or notification (without), `"jsonrpc": "2.0"`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcMessage {
    /// The request id; `None` for a notification.
    pub id: Option<u64>,
    pub method: Cow<'static, str>,
    /// The `params` member, absent when `None`.
    pub params: Option<RpcParams>,
}

impl RpcMessage {
    /// A request with `params`.
    pub fn request(
        id: u64,
        method: impl Into<Cow<'static, str>>,
        params: impl Into<RpcParams>,
    ) -> Self {
        RpcMessage {
            id: Some(id),
            method: method.into(),
            params: Some(params.into()),
        }
    }

    /// A request without `params`.
    pub fn bare_request(id: u64, method: impl Into<Cow<'static, str>>) -> Self {
        RpcMessage {
            id: Some(id),
            method: method.into(),
            params: None,
        }
    }

    /// A notification without `params`.
    pub fn notification(method: impl Into<Cow<'static, str>>) -> Self {
        RpcMessage {
            id: None,
            method: method.into(),
            params: None,
        }
    }

    /// The message as JSON: the object a client writing it as a map builds, member for
    /// member (so its text is the same bytes).
    pub fn to_value(&self) -> Value {
        let mut message = Map::new();
        message.insert("jsonrpc".to_string(), Value::from("2.0"));
        if let Some(id) = self.id {
            message.insert("id".to_string(), Value::from(id));
        }
        message.insert("method".to_string(), Value::from(self.method.as_ref()));
        if let Some(params) = &self.params {
            message.insert("params".to_string(), params.to_value());
        }
        Value::Object(message)
    }

    /// What [`crate::jsonrpc::classify`] makes of [`to_value`](Self::to_value), without
    /// building it: the fields moved (a request's params kept typed), `params` `null` when
    /// absent.
    pub fn into_incoming(self) -> Incoming {
        let method = self.method.into_owned();
        let params = self.params.unwrap_or(RpcParams::Json(Value::Null));
        match self.id {
            Some(id) => Incoming::Request {
                id: Value::from(id),
                method,
                params,
            },
            None => Incoming::Notification {
                method,
                params: params.into_value(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::classify;
    use serde_json::json;

    /// Each shape reads as the map it stands for, and the model classifies it as it
    /// classifies that map.
    #[test]
    fn a_typed_message_is_the_map_it_stands_for() {
        let cases = [
            (
                RpcMessage::request(
                    7,
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": "hi"}}),
                ),
                json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "hi"}}}),
            ),
            (
                RpcMessage::bare_request(3, "tools/list"),
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
            ),
            (
                RpcMessage::notification("notifications/initialized"),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
        ];
        for (typed, map) in cases {
            assert_eq!(typed.to_value(), map);
            assert_eq!(typed.to_value().to_string(), map.to_string());
            assert_eq!(Ok(typed.into_incoming()), classify(map));
        }
    }
}
