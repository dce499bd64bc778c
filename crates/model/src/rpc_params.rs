//! The `params` of a JSON-RPC request as a modelled client builds it: typed for the
//! requests every run sends (`tools/call`, `initialize`), JSON for everything else.
//!
//! A modelled 2025 client built each `tools/call`'s params as maps (`name`, `arguments`,
//! `_meta` with its idempotency key and progress token) and each `initialize`'s with
//! `json!`, for the engine and the model to read four members back and drop the maps:
//! a few percent of every explored seed. The typed params keep those members as fields,
//! read by borrow through [`ParamMembers`], and become JSON only where a `Value` or bytes
//! are asked for ([`RpcParams::to_value`]: the live edge, the trace), the very value the
//! maps were, member for member.
//!
//! A modelled 2026-07-28 client sends the same `_meta` with every request (the protocol
//! version, its capabilities, who it is, and now and then a progress token), built as
//! three maps per request and read back by the model's `read_meta`: about a ninth of a
//! mixed-era seed with its drop. [`ModernParams`] keeps that `_meta` typed
//! ([`ClientMeta`], the capabilities and the client info built once and lent) next to the
//! request's own members, which stay JSON.
//!
//! [`ParamMembers`] is the one definition of each member a reader looks up: written
//! once for JSON (a real client's request, parsed) and answered from the fields for the
//! typed forms, which a test holds to the JSON they stand for.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::server::era::META_PROTOCOL_VERSION;
use crate::server::modern::meta::{META_CLIENT_CAPABILITIES, META_CLIENT_INFO};

/// The `_meta` members a `tools/call` names its idempotency key and progress token by.
const IDEMPOTENCY_KEY: &str = "idempotencyKey";
const PROGRESS_TOKEN: &str = "progressToken";

/// What a modelled client says of itself in `initialize` (`clientInfo`).
const CLIENT_NAME: &str = "faultline-modelled-client";
const CLIENT_VERSION: &str = "0";

/// The `params` of one JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum RpcParams {
    /// A modelled client's `tools/call`.
    ToolCall(ToolCallParams),
    /// A modelled client's `initialize`.
    Initialize(InitializeParams),
    /// A modelled 2026-07-28 client's request.
    Modern(ModernParams),
    /// Any other params, as JSON (and every params a real client sends).
    Json(Value),
}

/// `{"name": ..., "arguments": ..., "_meta": {"idempotencyKey": key, "progressToken": key}}`,
/// the progress token sent only when `progress`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallParams {
    pub name: &'static str,
    pub arguments: Value,
    pub idempotency_key: String,
    /// Whether `_meta.progressToken` is sent (equal to the idempotency key).
    pub progress: bool,
}

/// `{"protocolVersion": ..., "capabilities": {}, "clientInfo": {"name":
/// "faultline-modelled-client", "version": "0"}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct InitializeParams {
    /// Borrowed when the client speaks a version it knows (no allocation per request).
    pub protocol_version: Cow<'static, str>,
}

/// A 2026-07-28 request's params: its own members, and the `_meta` every request carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ModernParams {
    /// The members other than `_meta` (`name` and `arguments`, `taskId`, ...): an object
    /// (a `Value`, so that the readers of the members borrow it as the JSON they read).
    pub members: Value,
    pub meta: ClientMeta,
}

/// The request `_meta` of a modelled 2026-07-28 client: `io.modelcontextprotocol/`
/// `protocolVersion`, `clientCapabilities` and `clientInfo`, and `progressToken` when the
/// request asks for progress.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientMeta {
    pub protocol_version: &'static str,
    /// Built once and lent to every request (an object).
    pub client_capabilities: &'static Value,
    /// Built once and lent to every request.
    pub client_info: &'static Value,
    pub progress_token: Option<String>,
}

impl From<Value> for RpcParams {
    fn from(value: Value) -> Self {
        RpcParams::Json(value)
    }
}

impl From<ToolCallParams> for RpcParams {
    fn from(params: ToolCallParams) -> Self {
        RpcParams::ToolCall(params)
    }
}

impl From<ModernParams> for RpcParams {
    fn from(params: ModernParams) -> Self {
        RpcParams::Modern(params)
    }
}

impl From<InitializeParams> for RpcParams {
    fn from(params: InitializeParams) -> Self {
        RpcParams::Initialize(params)
    }
}

impl RpcParams {
    /// The params as JSON: the object the client built as maps before, member for member.
    pub fn to_value(&self) -> Value {
        match self {
            RpcParams::ToolCall(call) => call.to_value(),
            RpcParams::Initialize(init) => init.to_value(),
            RpcParams::Modern(modern) => modern.to_value(),
            RpcParams::Json(value) => value.clone(),
        }
    }

    /// The params as JSON, moving what they own.
    pub fn into_value(self) -> Value {
        match self {
            RpcParams::Json(value) => value,
            typed => typed.to_value(),
        }
    }

    /// The params as JSON, borrowed when they are JSON already: for the readers that
    /// look up members [`ParamMembers`] does not name (the typed forms never reach them
    /// from a modelled client).
    pub fn as_json(&self) -> Cow<'_, Value> {
        match self {
            RpcParams::Json(value) => Cow::Borrowed(value),
            typed => Cow::Owned(typed.to_value()),
        }
    }

    /// The params as JSON for a reader of the request's own members, never of `_meta`:
    /// borrowed for JSON and for a 2026-07-28 request's members (its `_meta` left out: it
    /// is read through [`ParamMembers`] and the model's `read_meta`).
    pub fn own_members(&self) -> Cow<'_, Value> {
        match self {
            RpcParams::Modern(modern) => Cow::Borrowed(&modern.members),
            other => other.as_json(),
        }
    }
}

impl ToolCallParams {
    fn to_value(&self) -> Value {
        let mut meta = Map::new();
        meta.insert(
            IDEMPOTENCY_KEY.to_string(),
            Value::from(self.idempotency_key.as_str()),
        );
        if self.progress {
            meta.insert(
                PROGRESS_TOKEN.to_string(),
                Value::from(self.idempotency_key.as_str()),
            );
        }
        let mut params = Map::new();
        params.insert("name".to_string(), Value::from(self.name));
        params.insert("arguments".to_string(), self.arguments.clone());
        params.insert("_meta".to_string(), Value::Object(meta));
        Value::Object(params)
    }
}

impl ModernParams {
    fn to_value(&self) -> Value {
        let mut params = match &self.members {
            Value::Object(members) => members.clone(),
            _ => Map::new(),
        };
        params.insert("_meta".to_string(), self.meta.to_value());
        Value::Object(params)
    }
}

impl ClientMeta {
    fn to_value(&self) -> Value {
        let mut meta = Map::new();
        meta.insert(
            META_PROTOCOL_VERSION.to_string(),
            Value::from(self.protocol_version),
        );
        meta.insert(
            META_CLIENT_CAPABILITIES.to_string(),
            self.client_capabilities.clone(),
        );
        meta.insert(META_CLIENT_INFO.to_string(), self.client_info.clone());
        if let Some(token) = &self.progress_token {
            meta.insert(PROGRESS_TOKEN.to_string(), Value::from(token.as_str()));
        }
        Value::Object(meta)
    }

    /// Whether the `_meta` holds `key`.
    fn has(&self, key: &str) -> bool {
        matches!(
            key,
            META_PROTOCOL_VERSION | META_CLIENT_CAPABILITIES | META_CLIENT_INFO
        ) || (key == PROGRESS_TOKEN && self.progress_token.is_some())
    }
}

impl InitializeParams {
    fn to_value(&self) -> Value {
        let mut client_info = Map::new();
        client_info.insert("name".to_string(), Value::from(CLIENT_NAME));
        client_info.insert("version".to_string(), Value::from(CLIENT_VERSION));
        let mut params = Map::new();
        params.insert(
            "protocolVersion".to_string(),
            Value::from(self.protocol_version.as_ref()),
        );
        params.insert("capabilities".to_string(), Value::Object(Map::new()));
        params.insert("clientInfo".to_string(), Value::Object(client_info));
        Value::Object(params)
    }
}

/// The members of a request's `params` that the model and the engine look up by name,
/// read from JSON or from the typed forms (which answer from their fields what their JSON
/// would).
pub trait ParamMembers {
    /// `name` (a `tools/call`'s tool), when a string.
    fn tool_name(&self) -> Option<&str>;
    /// `arguments` (a `tools/call`'s).
    fn arguments(&self) -> Option<&Value>;
    /// `_meta.idempotencyKey`, when a string.
    fn idempotency_key(&self) -> Option<&str>;
    /// `_meta.progressToken`, whatever its type.
    fn progress_token(&self) -> Option<Cow<'_, Value>>;
    /// Whether `_meta` holds `key`.
    fn meta_has(&self, key: &str) -> bool;
    /// `protocolVersion` (an `initialize`'s), when a string.
    fn protocol_version(&self) -> Option<&str>;
}

impl ParamMembers for Value {
    fn tool_name(&self) -> Option<&str> {
        self.get("name").and_then(Value::as_str)
    }

    fn arguments(&self) -> Option<&Value> {
        self.get("arguments")
    }

    // `get` per key rather than `pointer`, which allocates for every path segment.
    fn idempotency_key(&self) -> Option<&str> {
        self.get("_meta")
            .and_then(|meta| meta.get(IDEMPOTENCY_KEY))
            .and_then(Value::as_str)
    }

    fn progress_token(&self) -> Option<Cow<'_, Value>> {
        self.get("_meta")
            .and_then(|meta| meta.get(PROGRESS_TOKEN))
            .map(Cow::Borrowed)
    }

    fn meta_has(&self, key: &str) -> bool {
        self.get("_meta").and_then(|meta| meta.get(key)).is_some()
    }

    fn protocol_version(&self) -> Option<&str> {
        self.get("protocolVersion").and_then(Value::as_str)
    }
}

impl ParamMembers for RpcParams {
    fn tool_name(&self) -> Option<&str> {
        match self {
            RpcParams::ToolCall(call) => Some(call.name),
            RpcParams::Initialize(_) => None,
            RpcParams::Modern(modern) => modern.members.tool_name(),
            RpcParams::Json(value) => value.tool_name(),
        }
    }

    fn arguments(&self) -> Option<&Value> {
        match self {
            RpcParams::ToolCall(call) => Some(&call.arguments),
            RpcParams::Initialize(_) => None,
            RpcParams::Modern(modern) => modern.members.arguments(),
            RpcParams::Json(value) => value.arguments(),
        }
    }

    fn idempotency_key(&self) -> Option<&str> {
        match self {
            RpcParams::ToolCall(call) => Some(&call.idempotency_key),
            RpcParams::Initialize(_) | RpcParams::Modern(_) => None,
            RpcParams::Json(value) => value.idempotency_key(),
        }
    }

    fn progress_token(&self) -> Option<Cow<'_, Value>> {
        match self {
            RpcParams::ToolCall(call) => call
                .progress
                .then(|| Cow::Owned(Value::from(call.idempotency_key.as_str()))),
            RpcParams::Initialize(_) => None,
            RpcParams::Modern(modern) => modern
                .meta
                .progress_token
                .as_deref()
                .map(|token| Cow::Owned(Value::from(token))),
            RpcParams::Json(value) => value.progress_token(),
        }
    }

    fn meta_has(&self, key: &str) -> bool {
        match self {
            RpcParams::ToolCall(call) => {
                key == IDEMPOTENCY_KEY || (call.progress && key == PROGRESS_TOKEN)
            }
            RpcParams::Initialize(_) => false,
            RpcParams::Modern(modern) => modern.meta.has(key),
            RpcParams::Json(value) => value.meta_has(key),
        }
    }

    fn protocol_version(&self) -> Option<&str> {
        match self {
            RpcParams::Initialize(init) => Some(&init.protocol_version),
            RpcParams::ToolCall(_) => None,
            RpcParams::Modern(modern) => modern.members.protocol_version(),
            RpcParams::Json(value) => value.protocol_version(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn typed_shapes() -> Vec<(RpcParams, Value)> {
        let call = |name, arguments: Value, progress| ToolCallParams {
            name,
            arguments,
            idempotency_key: "call-3".to_string(),
            progress,
        };
        vec![
            (
                call("echo", json!({"text": "hi"}), false).into(),
                json!({"name": "echo", "arguments": {"text": "hi"},
                    "_meta": {"idempotencyKey": "call-3"}}),
            ),
            (
                call("long_job", json!({"steps": 5, "interval_ms": 1000}), true).into(),
                json!({"name": "long_job", "arguments": {"steps": 5, "interval_ms": 1000},
                    "_meta": {"idempotencyKey": "call-3", "progressToken": "call-3"}}),
            ),
            (
                InitializeParams {
                    protocol_version: "2025-11-25".into(),
                }
                .into(),
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "faultline-modelled-client", "version": "0"}}),
            ),
            (
                modern(
                    json!({"name": "long_job", "arguments": {"steps": 2, "interval_ms": 10}}),
                    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
                    Some("call-1"),
                ),
                json!({"name": "long_job", "arguments": {"steps": 2, "interval_ms": 10},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities":
                            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                        "io.modelcontextprotocol/clientInfo":
                            {"name": "faultline-modelled-client", "version": "0"},
                        "progressToken": "call-1"}}),
            ),
            (
                modern(json!({"taskId": "task-1"}), json!({}), None),
                json!({"taskId": "task-1", "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo":
                        {"name": "faultline-modelled-client", "version": "0"}}}),
            ),
        ]
    }

    fn modern(members: Value, capabilities: Value, token: Option<&str>) -> RpcParams {
        let lent = |value: Value| -> &'static Value { Box::leak(Box::new(value)) };
        ModernParams {
            members,
            meta: ClientMeta {
                protocol_version: "2026-07-28",
                client_capabilities: lent(capabilities),
                client_info: lent(json!({"name": "faultline-modelled-client", "version": "0"})),
                progress_token: token.map(str::to_string),
            },
        }
        .into()
    }

    /// Each typed shape is the JSON its client built as maps, to the byte.
    #[test]
    fn typed_params_are_the_json_they_stand_for() {
        for (typed, json) in typed_shapes() {
            assert_eq!(typed.to_value(), json);
            assert_eq!(typed.to_value().to_string(), json.to_string());
            assert_eq!(typed.as_json().as_ref(), &json);
            assert_eq!(typed.clone().into_value(), json);
            // A reader of the request's own members sees them all but `_meta`.
            let mut own = json.clone();
            if let RpcParams::Modern(_) = typed {
                own.as_object_mut().expect("an object").remove("_meta");
            }
            assert_eq!(typed.own_members().as_ref(), &own);
        }
    }

    /// Every member a reader looks up reads the same from the typed form as from its JSON
    /// (and from JSON wrapped as params).
    #[test]
    fn typed_params_answer_every_member_as_their_json_does() {
        let keys = [
            "idempotencyKey",
            "progressToken",
            "other",
            META_PROTOCOL_VERSION,
            META_CLIENT_CAPABILITIES,
            META_CLIENT_INFO,
        ];
        for (typed, json) in typed_shapes() {
            let wrapped = RpcParams::Json(json.clone());
            for read in [&typed as &dyn ParamMembers, &wrapped] {
                assert_eq!(read.tool_name(), json.tool_name());
                assert_eq!(read.arguments(), json.arguments());
                assert_eq!(read.idempotency_key(), json.idempotency_key());
                assert_eq!(read.progress_token(), json.progress_token());
                assert_eq!(read.protocol_version(), json.protocol_version());
                for key in keys {
                    assert_eq!(read.meta_has(key), json.meta_has(key), "{key}");
                }
            }
        }
    }

    #[test]
    fn members_read_from_json_by_name() {
        let params = json!({"name": "echo", "arguments": {"text": "x"},
            "_meta": {"idempotencyKey": 7, "progressToken": 7}});
        assert_eq!(params.tool_name(), Some("echo"));
        assert_eq!(params.arguments(), Some(&json!({"text": "x"})));
        assert_eq!(params.idempotency_key(), None, "a key that is not a string");
        assert_eq!(params.progress_token().as_deref(), Some(&json!(7)));
        assert!(params.meta_has("progressToken"));
        assert_eq!(Value::Null.protocol_version(), None);
    }
}
