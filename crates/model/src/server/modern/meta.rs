//! The request `_meta` every 2026-07-28 request carries in place of a session: the
//! protocol version and the client's capabilities (required), who the client is
//! (optional), and the log level it wants (optional: without it the server sends no
//! `notifications/message`).
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/index> (request `_meta`);
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>.

use serde_json::Value;

use super::super::era::META_PROTOCOL_VERSION;
use super::errors::ModernRejection;
use crate::rpc_params::{ClientMeta, RpcParams};

pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What a request's `_meta` says about its client, borrowed from the request's params
/// (read once per request and not kept: copying it was a few percent of a 2026-07-28 run).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta<'p> {
    pub protocol_version: &'p str,
    /// An object (checked).
    pub client_capabilities: &'p Value,
    pub client_info: Option<&'p Value>,
    /// `None`: the client wants no `notifications/message` for this request.
    pub log_level: Option<&'p str>,
}

impl RequestMeta<'_> {
    /// Whether the client declared `capability` (a key of `clientCapabilities`).
    pub fn declares(&self, capability: &str) -> bool {
        self.client_capabilities.get(capability).is_some()
    }
}

/// Reads `params._meta`; a missing or mistyped required field is -32602. A modelled
/// 2026-07-28 client's typed `_meta` is lent as it is (valid by construction; a test holds
/// it to what its JSON reads as).
pub fn read_meta(params: &RpcParams) -> Result<RequestMeta<'_>, ModernRejection> {
    match params {
        RpcParams::Modern(modern) => Ok(lent(&modern.meta)),
        RpcParams::Json(params) => read_json_meta(params),
        // A 2025 client's typed params name no protocol version in `_meta` (an
        // `initialize` has no `_meta`): refused as their JSON is.
        typed @ (RpcParams::ToolCall(_) | RpcParams::Initialize(_)) => {
            match read_json_meta(&typed.to_value()) {
                Ok(_) => unreachable!("a 2025 client's _meta names no protocol version"),
                Err(why) => Err(why),
            }
        }
    }
}

/// What a typed `_meta` says, borrowed: a modelled client asks for no log level.
fn lent(meta: &ClientMeta) -> RequestMeta<'_> {
    RequestMeta {
        protocol_version: meta.protocol_version,
        client_capabilities: meta.client_capabilities,
        client_info: Some(meta.client_info),
        log_level: None,
    }
}

/// [`read_meta`] of params that are JSON.
fn read_json_meta(params: &Value) -> Result<RequestMeta<'_>, ModernRejection> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(ModernRejection::InvalidMeta(
            "params._meta is required in MCP 2026-07-28".into(),
        ));
    };
    let protocol_version = match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.as_str(),
        Some(_) => {
            return Err(ModernRejection::InvalidMeta(format!(
                "_meta[\"{META_PROTOCOL_VERSION}\"] must be a string"
            )));
        }
        None => {
            return Err(ModernRejection::InvalidMeta(format!(
                "_meta[\"{META_PROTOCOL_VERSION}\"] is required"
            )));
        }
    };
    let client_capabilities = match meta.get(META_CLIENT_CAPABILITIES) {
        Some(caps @ Value::Object(_)) => caps,
        Some(_) => {
            return Err(ModernRejection::InvalidMeta(format!(
                "_meta[\"{META_CLIENT_CAPABILITIES}\"] must be an object"
            )));
        }
        None => {
            return Err(ModernRejection::InvalidMeta(format!(
                "_meta[\"{META_CLIENT_CAPABILITIES}\"] is required"
            )));
        }
    };
    Ok(RequestMeta {
        protocol_version,
        client_capabilities,
        client_info: meta.get(META_CLIENT_INFO),
        log_level: meta.get(META_LOG_LEVEL).and_then(Value::as_str),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc_params::{InitializeParams, ModernParams, ToolCallParams};
    use serde_json::json;

    fn lend(value: Value) -> &'static Value {
        Box::leak(Box::new(value))
    }

    /// A modelled client's typed `_meta` reads as its JSON does, for each capability set
    /// and with or without a progress token.
    #[test]
    fn a_typed_meta_reads_as_its_json() {
        for (capabilities, token) in [
            (json!({}), None),
            (
                json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
                Some("call-0".to_string()),
            ),
        ] {
            let typed = RpcParams::Modern(ModernParams {
                members: json!({"name": "echo", "arguments": {"text": "x"}}),
                meta: ClientMeta {
                    protocol_version: "2026-07-28",
                    client_capabilities: lend(capabilities),
                    client_info: lend(json!({"name": "faultline-modelled-client", "version": "0"})),
                    progress_token: token,
                },
            });
            let json = RpcParams::Json(typed.to_value());
            assert_eq!(read_meta(&typed), read_meta(&json));
            assert!(read_meta(&typed).is_ok());
        }
    }

    /// A 2025 client's typed params reaching the 2026-07-28 path are refused as their JSON
    /// is: no `_meta` names a protocol version.
    #[test]
    fn a_2025_clients_typed_params_are_refused_as_their_json() {
        let call = RpcParams::ToolCall(ToolCallParams {
            name: "echo",
            arguments: json!({"text": "x"}),
            idempotency_key: "call-0".to_string(),
            progress: true,
        });
        let init = RpcParams::Initialize(InitializeParams {
            protocol_version: "2026-07-28".into(),
        });
        for typed in [call, init] {
            let json = RpcParams::Json(typed.to_value());
            assert!(read_meta(&typed).is_err());
            assert_eq!(read_meta(&typed), read_meta(&json));
        }
    }
}
