//! `server/discover`: what a 2026-07-28 client asks instead of `initialize`, and may cache.
//! Every modern result names the server in `_meta["io.modelcontextprotocol/serverInfo"]`
//! and says `resultType: "complete"` (the only kind this slice produces).
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>

use serde_json::{Map, Value, json};

use crate::knobs::ServerKnobs;

use super::super::era::MODERN_PROTOCOL_VERSIONS;
use super::meta::META_SERVER_INFO;

/// Who this server is.
pub fn server_info() -> Value {
    json!({"name": "faultline", "version": env!("CARGO_PKG_VERSION")})
}

/// What the modern path offers: tools, whose list changes are published on
/// `subscriptions/listen` ([`super::listen`]); the conformance fixtures' prompts,
/// resources and completions ([`super::fixtures`]); and the tasks extension when
/// `tasks_offered`.
pub fn capabilities(knobs: &ServerKnobs) -> Value {
    let mut caps = json!({
        "tools": {"listChanged": true},
        "prompts": {},
        "resources": {},
        "completions": {}
    });
    if knobs.tasks_offered {
        caps["extensions"] = json!({super::tasks::TASKS_EXTENSION: {}});
    }
    caps
}

/// The result of `server/discover`.
pub fn discover_result(knobs: &ServerKnobs) -> Value {
    let mut result = json!({
        "supportedVersions": MODERN_PROTOCOL_VERSIONS,
        "capabilities": capabilities(knobs),
        "instructions": "faultline: a fault-injecting MCP server. Tools: echo, long_job.",
    });
    add_cache_hint(&mut result, knobs);
    complete(result)
}

/// The `cacheScope` of every cacheable result.
pub(crate) const CACHE_SCOPE: &str = "private";

/// Adds `ttlMs` (the `list_ttl` knob; 0 when it is `None`: do not cache) and
/// `cacheScope: "private"` to a cacheable result.
pub fn add_cache_hint(result: &mut Value, knobs: &ServerKnobs) {
    cache_hint(result, cache_ttl_ms(knobs));
}

/// The `ttlMs` of a cacheable result: the `list_ttl` knob, 0 when it is `None`.
pub(crate) fn cache_ttl_ms(knobs: &ServerKnobs) -> u64 {
    knobs.list_ttl.map_or(0, |d| d.ms())
}

/// Adds `ttlMs: ttl_ms` and `cacheScope: "private"` to a cacheable result.
pub(crate) fn cache_hint(result: &mut Value, ttl_ms: u64) {
    if let Some(object) = result.as_object_mut() {
        object.insert("ttlMs".to_string(), Value::from(ttl_ms));
        object.insert("cacheScope".to_string(), Value::from(CACHE_SCOPE));
    }
}

/// Marks a result complete and names the server in its `_meta` (kept alongside any
/// `_meta` the result has already).
pub fn complete(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        object
            .entry("resultType")
            .or_insert_with(|| Value::from("complete"));
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(META_SERVER_INFO.to_string(), server_info());
        }
    }
    result
}
