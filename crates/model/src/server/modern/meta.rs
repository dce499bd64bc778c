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

/// Reads `params._meta`; a missing or mistyped required field is -32602.
pub fn read_meta(params: &Value) -> Result<RequestMeta<'_>, ModernRejection> {
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
