//! Which protocol era a request speaks: MCP 2026-07-28 (stateless, per-request `_meta`)
//! or the 2025 revisions (sessions, `initialize`, `Last-Event-ID`).
//!
//! A dual-era server picks the era per request
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>). The first
//! matching rule wins:
//!
//! 1. `MCP-Protocol-Version` names a modern revision ([`MODERN_PROTOCOL_VERSIONS`]). A
//!    stray `Mcp-Session-Id` or `Last-Event-ID` is ignored.
//! 2. A POST whose message carries `params._meta["io.modelcontextprotocol/protocolVersion"]`
//!    (the header check then answers -32020 if the header is missing or differs).
//! 3. The method is `server/discover`, which only 2026-07-28 defines.
//! 4. Anything else is legacy: the 2025 code path, byte for byte.
//!
//! Rule 2 reads the body only when rule 1 missed, so 2025 traffic pays one header
//! comparison and one map lookup.

use crate::http::{HttpMethod, HttpRequest};
use crate::jsonrpc::Incoming;
use crate::rpc_params::ParamMembers;

/// Protocol revisions without sessions, served by [`super::modern`], oldest first.
pub const MODERN_PROTOCOL_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The `_meta` key naming a request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The method only 2026-07-28 defines, and which a client may send first to probe.
pub const DISCOVER: &str = "server/discover";

/// The era a request speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestEra {
    /// MCP 2026-07-28: stateless, every request self-describing.
    Modern,
    /// MCP 2025-03-26 to 2025-11-25: sessions and resumable streams.
    Legacy,
}

/// Which rule of the module docs decided a request's era (for tests and the ledger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraRule {
    /// Rule 1: the `MCP-Protocol-Version` header.
    Header,
    /// Rule 2: `_meta` in the POST's message.
    Meta,
    /// Rule 3: `server/discover`.
    Discover,
    /// Rule 4: none of the above.
    Fallback,
}

impl EraRule {
    pub fn era(self) -> RequestEra {
        match self {
            EraRule::Fallback => RequestEra::Legacy,
            _ => RequestEra::Modern,
        }
    }
}

/// The era of `request`, whose first JSON-RPC message (for a POST whose body parsed) is
/// `first`.
pub fn classify(request: &HttpRequest, first: Option<&Incoming>) -> RequestEra {
    rule(request, first).era()
}

/// The rule that decides `request`'s era (see [`classify`]).
pub fn rule(request: &HttpRequest, first: Option<&Incoming>) -> EraRule {
    if header_names_modern(request) {
        return EraRule::Header;
    }
    if request.method != HttpMethod::Post {
        return EraRule::Fallback;
    }
    let Some(message) = first else {
        return EraRule::Fallback;
    };
    if meta_names_version(message) {
        return EraRule::Meta;
    }
    if message.method() == Some(DISCOVER) {
        return EraRule::Discover;
    }
    EraRule::Fallback
}

/// Whether `MCP-Protocol-Version` names a modern revision.
pub fn header_names_modern(request: &HttpRequest) -> bool {
    request
        .protocol_version
        .as_deref()
        .is_some_and(|v| MODERN_PROTOCOL_VERSIONS.contains(&v.trim()))
}

/// Whether `params._meta` of a request or notification names a protocol version.
fn meta_names_version(message: &Incoming) -> bool {
    match message {
        Incoming::Request { params, .. } => params.meta_has(META_PROTOCOL_VERSION),
        Incoming::Notification { params, .. } => params.meta_has(META_PROTOCOL_VERSION),
        Incoming::Response => false,
    }
}
