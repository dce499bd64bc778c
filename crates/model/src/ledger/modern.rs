//! The 2026-07-28 half of the ledger: what the stateless revision's server did that a 2025
//! session has no word for. Listen streams and the list changes published on them, the era
//! a server spoke and the requests it refused for their era, request streams cut under a
//! call, and the task and handle stores (what they held, evicted or lost after a restart).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{is_first_replica, is_zero};
use crate::ids::{ConnId, JobId, StreamId};
use crate::knobs::Era;
use crate::route::ReplicaId;
use crate::server::era::RequestEra;

/// One of the lists a 2026-07-28 server publishes changes of on listen streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListName {
    Tools,
    Prompts,
    Resources,
}

impl ListName {
    /// `tools`, `prompts`, `resources`: the word in `*/list` and `*/list_changed`.
    pub fn word(self) -> &'static str {
        match self {
            ListName::Tools => "tools",
            ListName::Prompts => "prompts",
            ListName::Resources => "resources",
        }
    }
}

/// Which list changes a listen stream carries (`toolsListChanged`, …): what the client
/// asked for, or what the server honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ListenFilter {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
}

impl ListenFilter {
    pub fn wants(&self, list: ListName) -> bool {
        match list {
            ListName::Tools => self.tools,
            ListName::Prompts => self.prompts,
            ListName::Resources => self.resources,
        }
    }
}

/// A 2026-07-28 `subscriptions/listen` stream: who opened it and what it carries. When it
/// was cut is its stream's `closed_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListenEntry {
    pub stream: StreamId,
    /// The listen request's JSON-RPC id: the `subscriptionId` every message carries.
    pub request_id: Value,
    /// The honoured filter (what the acknowledgement carried).
    pub filter: ListenFilter,
    pub opened_ms: u64,
    /// Keep-alive comments sent on it (`listen_keepalive`). Written only when some were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub keepalives: u32,
}

/// How the server (or the network) ends a 2026-07-28 listen stream. The spec gives two
/// graceful ends that disagree with each other
/// (<https://github.com/modelcontextprotocol/modelcontextprotocol/issues/3348>): the
/// subscriptions page's graceful closure (the listen request's result) and the
/// cancellation page's `notifications/cancelled` naming the listen request. A client must
/// take any of them, and a reset, as "not listening any more".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ListenEnd {
    /// The connection is reset: no message, no clean end (a proxy, a deploy).
    #[default]
    Reset,
    /// The listen request's result, `resultType: "complete"`, then a clean end.
    Complete,
    /// `notifications/cancelled` with the listen request's id, then a clean end.
    Cancelled,
}

impl ListenEnd {
    pub fn is_reset(&self) -> bool {
        *self == ListenEnd::Reset
    }
}

/// A change of one of the server's lists: it now has version `version` (every list
/// starts at version 1). `notified`: whether `list_changed` was published to the listen
/// streams open then (a change can also be made silently). `published_on`: the one
/// replica of a fleet that published it (the others did not); with a per-replica bus
/// (`notifications: SameReplica`) only the listens held there heard it. `listening`:
/// some listen stream asking for this list was open when the change was made (told of it
/// or not): what the times alone cannot say when a listen closed at the change's instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListChange {
    pub at_ms: u64,
    pub list: ListName,
    pub version: u32,
    pub notified: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_on: Option<ReplicaId>,
    /// Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub listening: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A restart at `at_ms` after which the server speaks `to` instead of `from`: the whole
/// server, or with `replica` one replica of a fleet (a rolling deploy that moves the
/// fleet from one era to the other one replica at a time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EraChange {
    pub at_ms: u64,
    pub from: Era,
    pub to: Era,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica: Option<ReplicaId>,
}

/// What an [`EraAnswer`] says about the request's era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EraAnswerKind {
    /// The server does not speak the request's era: a 2026-07-28 request to a legacy-only
    /// server (`legacy_probe_answer`), a 2025 one to a modern-only server.
    Refused,
    /// A 2025 `initialize` answered without a session (`DualStatelessLegacy`): a client
    /// that requires `Mcp-Session-Id` cannot go on.
    Sessionless,
}

/// One answer where the request's era met a server that does not serve it as asked: the
/// ground truth of `era_mismatch`. `rpc_error` is the answer's JSON-RPC code when the era
/// refusal set it (the 2025 path's own refusals leave it out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EraAnswer {
    pub at_ms: u64,
    pub conn: ConnId,
    pub rpc_method: Option<String>,
    pub status: u16,
    pub request_era: RequestEra,
    pub server_era: Era,
    pub kind: EraAnswerKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<i64>,
}

/// Why a connection was cut by something other than the client or a fault's plain drop:
/// the server on its own account, or a proxy in front of it acting on its own rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum CutReason {
    /// The client stopped reading its SSE stream: more than `limit_bytes` waited for it
    /// and it took nothing for a whole stall period (a client that reads, however slowly
    /// relative to the producer, is never cut).
    NotReading { queued_bytes: u64, limit_bytes: u64 },
    /// The client read too slowly for what was produced for it: the stream's queue would
    /// have passed its hard bound of `limit_bytes` (the live server's `max_queue_bytes`),
    /// whatever the reader's pace. `queued_bytes` waited when the next frame came.
    QueueFull { queued_bytes: u64, limit_bytes: u64 },
    /// The server's SSE queues together would have passed their bound of `limit_bytes`
    /// (the live server's `max_queued_bytes`): `total_bytes` waited in all of them when the
    /// next frame came, and this stream's queue, holding `queued_bytes`, was the largest.
    /// Many slow readers, each under its own bound, cannot pin memory without end.
    ServerQueuesFull {
        queued_bytes: u64,
        total_bytes: u64,
        limit_bytes: u64,
    },
    /// An idle proxy (the `IdleProxy` fault) reset the connection: no bytes had passed on
    /// it for `idle_ms` (no event, no keep-alive comment), the last at `last_bytes_ms`.
    /// <https://github.com/modelcontextprotocol/go-sdk/pull/1232>
    IdleProxy { idle_ms: u64, last_bytes_ms: u64 },
}

/// A connection cut on someone's own account (see [`CutReason`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CutEntry {
    pub conn: ConnId,
    pub at_ms: u64,
    /// The stream the connection carried, if it was attached to one.
    pub stream: Option<StreamId>,
    #[serde(flatten)]
    pub reason: CutReason,
}

/// A task of the 2026-07-28 tasks extension: a `tools/call` answered with a task id whose
/// work runs as a job, polled with `tasks/get`. What the `lost_task` verdict reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEntry {
    pub task_id: String,
    pub tool: String,
    /// The JSON-RPC id of the `tools/call` that created it.
    pub request_id: Value,
    pub created_ms: u64,
    /// Its `ttlMs` (`None`: null, no limit).
    pub ttl_ms: Option<u64>,
    /// The jobs doing its work: one, or more when a restart re-ran it
    /// (`task_persistence: Everything`).
    pub jobs: Vec<JobId>,
    /// When it reached a terminal status, and which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<(u64, TaskStatus)>,
    /// When and how its record vanished (its id unknown from then on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<(u64, TaskLoss)>,
    /// Each `tasks/get` (or `tasks/cancel`) for this id answered -32602 after it vanished.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<TaskMiss>,
}

/// A task's status, as `tasks/get` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn wire(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// How a task's record vanished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskLoss {
    /// Purged by the operator (the `PurgeTasks` fault).
    Purged,
    /// Its TTL ran out and the purge delay after it passed.
    Expired,
    /// A restart under `task_persistence: Nothing`.
    Restart,
    /// Its work had ended and a long-lived server whose task store was full
    /// ([`crate::Limits::max_tasks`]) gave its room to a new task. Never in a simulation.
    Evicted,
}

/// A request for a task id the server no longer knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskMiss {
    pub at_ms: u64,
    pub conn: ConnId,
    /// `tasks/get` or `tasks/cancel`.
    pub method: String,
    pub request_id: Value,
}

/// A 2026-07-28 state handle (SEP-2567's explicit state): minted by `create_basket`,
/// passed back by the client to `add_item`, and gone when it idles out or a restart
/// forgets it. What a client that loses its basket lost is read from here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandleEntry {
    pub handle: String,
    pub minted_ms: u64,
    /// The replica that minted it (and alone knows it, with per-replica session stores).
    #[serde(default, skip_serializing_if = "is_first_replica")]
    pub replica: ReplicaId,
    /// When each `add_item` found it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub used_ms: Vec<u64>,
    /// When and why it vanished (unknown from then on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<(u64, HandleLoss)>,
    /// Each call that named it and was answered as for an unknown handle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misses: Vec<HandleMiss>,
}

/// Why a handle vanished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandleLoss {
    /// Unused for `handle_idle_ttl` (the time recorded is when it ran out).
    Expired,
    /// A restart under `handle_persistence: Nothing`.
    Restart,
    /// The least recently used handle of a long-lived server whose handle store was full
    /// ([`crate::Limits::max_handles`]): its room went to a new handle. Never in a
    /// simulation.
    Evicted,
}

/// A call naming a handle the serving replica did not know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandleMiss {
    pub at_ms: u64,
    pub conn: ConnId,
    /// The replica that answered (another than the one that minted a live handle, when
    /// the handle was not lost but elsewhere).
    #[serde(default, skip_serializing_if = "is_first_replica")]
    pub replica: ReplicaId,
    pub request_id: Value,
}
