//! Knobs for the MCP 2026-07-28 revision (the stateless protocol): which eras the server
//! speaks, how a legacy-only server answers a modern probe, and the list cache hint.
//!
//! Every field these enums fill is written to a scenario only when it differs from its
//! default, so scenarios and ledgers of 2025-era runs keep their bytes.
//!
//! - transport: <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>
//! - versioning: <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>

use serde::{Deserialize, Serialize};

use crate::duration::PositiveDurationMs;

/// Which protocol eras the server speaks.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum Era {
    /// Both: a request that names 2026-07-28 is served statelessly, everything else by the
    /// 2025 path with sessions (the Python SDK's server). Plain `faultline serve` is this.
    #[default]
    DualStatefulLegacy,
    /// Both, without sessions on either side: a 2026-07-28 request is served as under
    /// `DualStatefulLegacy`, and a 2025 request is served too, but statelessly:
    /// `initialize` answers with no `Mcp-Session-Id`, later requests need none, and a GET
    /// gets what `legacy_get` says (the TypeScript SDK's `createMcpHandler`, whose legacy
    /// fallback is `legacy: 'stateless'`).
    DualStatelessLegacy,
    /// 2026-07-28 only: every POST is read as modern (a 2025 `initialize` lacks the
    /// request `_meta` and gets 400 -32602), GET and DELETE get 405 `Allow: POST`.
    ModernOnly,
    /// 2025 only: a modern request gets [`LegacyProbeAnswer`].
    LegacyOnly,
}

impl Era {
    pub fn is_default(&self) -> bool {
        *self == Era::default()
    }

    /// Whether a request classified as modern is served as one.
    pub fn speaks_modern(self) -> bool {
        self != Era::LegacyOnly
    }

    /// Whether 2025 requests are served with sessions (`initialize` mints one).
    pub fn serves_legacy_sessions(self) -> bool {
        matches!(self, Era::DualStatefulLegacy | Era::LegacyOnly)
    }
}

/// What a [`Era::DualStatelessLegacy`] server does with a 2025 GET (there is no session to
/// hang a standalone stream on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LegacyGet {
    /// 405 `Allow: POST`: no standalone stream, as the TypeScript SDK's stateless
    /// transport answers, and what <https://github.com/akutishevsky/nutrition-mcp/pull/31>
    /// changed its server to.
    #[default]
    Refuse405,
    /// A standalone SSE stream belonging to no session: it lives until the connection or
    /// the process ends, and nothing tells the client a restart happened (nutrition-mcp
    /// before that fix: "connected, no tools" after a deploy).
    ServeStream,
}

impl LegacyGet {
    pub fn is_default(&self) -> bool {
        *self == LegacyGet::default()
    }
}

/// How a [`Era::LegacyOnly`] server answers a request that names 2026-07-28: what a client
/// probing for the modern era meets in the field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LegacyProbeAnswer {
    /// What the 2025 path answers anyway: 400 -32600 for the unknown
    /// `MCP-Protocol-Version`, or 400 for the missing session.
    #[default]
    AsToday,
    /// A plain-text 400 (the Go SDK).
    PlainText400,
    /// 400 with a JSON-RPC error of this code (e.g. -32000, which some clients do not
    /// recognise as "fall back").
    Rpc400(i64),
    /// 404 with a JSON-RPC -32601.
    NotFound,
    /// 405 `Allow: GET, POST, DELETE`.
    MethodNotAllowed,
    /// The request runs down the 2025 path as if it named no modern version (its
    /// `MCP-Protocol-Version` is dropped): an `initialize`-less request then fails on
    /// its missing session.
    RunAsLegacy,
}

impl LegacyProbeAnswer {
    pub fn is_default(&self) -> bool {
        *self == LegacyProbeAnswer::default()
    }
}

/// `legacy_probe_answer` describes a legacy-only server: set under another era it would
/// never be used, and a scenario that sets it means something it does not get.
/// Likewise `legacy_get` describes a stateless 2025 path, which only
/// [`Era::DualStatelessLegacy`] has.
pub(crate) fn validate(
    era: Era,
    probe: LegacyProbeAnswer,
    legacy_get: LegacyGet,
) -> Result<(), String> {
    if era != Era::LegacyOnly && !probe.is_default() {
        return Err(format!(
            "legacy_probe_answer: {probe:?} applies only under era: LegacyOnly (era is {era:?})"
        ));
    }
    if era != Era::DualStatelessLegacy && !legacy_get.is_default() {
        return Err(format!(
            "legacy_get: {legacy_get:?} applies only under era: DualStatelessLegacy (era is {era:?})"
        ));
    }
    Ok(())
}

/// The default `list_ttl`: one minute.
pub const DEFAULT_LIST_TTL_MS: u64 = 60_000;

pub(crate) fn default_list_ttl() -> Option<PositiveDurationMs> {
    PositiveDurationMs::new(DEFAULT_LIST_TTL_MS)
}

pub(crate) fn list_ttl_is_default(ttl: &Option<PositiveDurationMs>) -> bool {
    *ttl == default_list_ttl()
}

/// What a 2026-07-28 job does when the connection carrying its request stream closes
/// (the client went away, or a middlebox cut it). The stream cannot be resumed
/// (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>),
/// so nothing the job produces afterwards reaches anyone; what differs is how much of its
/// work (a committed side effect) still happens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OnStreamCut {
    /// The job stops at the cut: a commit not yet made never happens.
    #[default]
    StopAtOnce,
    /// The job runs silently until its commit step is done, then stops (a job without a
    /// commit step, or past it, stops at once).
    FinishThroughCommit,
    /// The job runs silently to its end.
    RunToEnd,
}

impl OnStreamCut {
    pub fn is_default(&self) -> bool {
        *self == OnStreamCut::default()
    }
}

/// What a server restart keeps of the 2026-07-28 tasks extension's store. The spec leaves
/// restart behaviour open (SEP-2663:
/// <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>);
/// these are the three stores met in the field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskPersistence {
    /// A durable store and a durable work queue: every record survives, and a task the
    /// restart interrupted runs its work again from the start under the same task id (so a
    /// non-idempotent tool commits again: at-least-once).
    #[default]
    Everything,
    /// Terminal records survive; a task the restart interrupted is reported `failed`
    /// ("re-issue"), as ecto/vcad did after <https://github.com/ecto/vcad/pull/745>.
    TerminalOnly,
    /// An in-memory store: every task id is unknown after the restart (-32602), the
    /// field report of <https://github.com/ecto/vcad/pull/745> before its fix.
    Nothing,
}

impl TaskPersistence {
    pub fn is_default(&self) -> bool {
        *self == TaskPersistence::default()
    }
}

/// The default `task_poll_interval`: one second.
pub(crate) const DEFAULT_TASK_POLL_INTERVAL_MS: u64 = 1_000;

pub(crate) fn default_task_poll_interval() -> PositiveDurationMs {
    PositiveDurationMs::new(DEFAULT_TASK_POLL_INTERVAL_MS).expect("positive")
}

pub(crate) fn task_poll_interval_is_default(d: &PositiveDurationMs) -> bool {
    *d == default_task_poll_interval()
}

pub(crate) fn is_true(b: &bool) -> bool {
    *b
}

pub(crate) fn is_none<T>(o: &Option<T>) -> bool {
    o.is_none()
}

/// What a restart keeps of the 2026-07-28 state handles ([`crate::server::modern::handles`]):
/// SEP-2567 makes state explicit (a handle the client passes back), and leaves where the
/// server keeps what a handle names to the server
/// (<https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2567-sessionless-mcp.md>).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HandlePersistence {
    /// A durable store: every handle survives a restart.
    #[default]
    Everything,
    /// An in-memory store: every handle is unknown after a restart.
    Nothing,
}

impl HandlePersistence {
    pub fn is_default(&self) -> bool {
        *self == HandlePersistence::default()
    }
}

/// How the server answers a tool call naming a handle it does not know (expired, lost on
/// a restart, minted by another replica, or never minted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnknownHandle {
    /// A tool result with `isError: true` that says what happened and what to do
    /// ("basket bsk_… has expired; call create_basket again"): a model can recover.
    #[default]
    ClearIsError,
    /// A tool result with `isError: true` and a message that names neither the handle nor
    /// the remedy.
    OpaqueIsError,
    /// A JSON-RPC error -32602 (invalid params): no tool result at all.
    InvalidParams,
}

impl UnknownHandle {
    pub fn is_default(&self) -> bool {
        *self == UnknownHandle::default()
    }
}
