//! The server's half of the ground truth: every event produced (id, stream, session,
//! generation, virtual time), every event put on a connection, every answer given, every
//! resumption attempt and how the cursor was resolved.
//!
//! The oracle never trusts a client's account of what happened; it joins what a client
//! says it applied with this record. Appending here is the only side effect of producing
//! an event, so the ledger cannot disagree with the event log.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::http::HttpMethod;
use crate::ids::{ConnId, EventRef, JobId, SessionKey, StreamId};
use crate::knobs::UnknownCursor;
use crate::route::{HeldBy, ReplicaId, Route};

mod hang;
mod modern;
pub use hang::{HangCause, HangEntry};
pub use modern::{
    CutEntry, CutReason, EraAnswer, EraAnswerKind, EraChange, HandleEntry, HandleLoss, HandleMiss,
    ListChange, ListName, ListenEnd, ListenEntry, ListenFilter, TaskEntry, TaskLoss, TaskMiss,
    TaskStatus,
};

/// What an event carries. Kept compact: JSON is rendered only when a driver needs bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    /// SEP-1699 priming event: an id and empty data.
    Priming,
    /// `notifications/progress` for step `step` of `total`.
    Progress { job: JobId, step: u32, total: u32 },
    /// The JSON-RPC response ending a tool call.
    ToolResult { job: JobId },
    /// A server notification on the standalone stream (`notifications/message`, with
    /// `{"seq": seq}` as its data). `seq` counts the notifications produced for the session,
    /// across its generations: the n-th has seq n-1, so a client that sees every notification
    /// sees 0, 1, 2, … with no gap, whatever other streams and sessions produce.
    Notification { seq: u64 },
    /// A response produced at once but sent over SSE (`json_responses: false`, batches).
    Response { message: u32 },
    /// `notifications/subscriptions/acknowledged`, the first message of 2026-07-28 listen
    /// stream `listen` (an index into [`Ledger::listens`]), carrying the honoured filter.
    /// Occurs only in modern runs.
    ListenAck { listen: u32 },
    /// `notifications/{tools,prompts,resources}/list_changed` on listen stream `listen`,
    /// for list change `change` (an index into [`Ledger::list_changes`]). Occurs only in
    /// modern runs.
    ListChanged { listen: u32, change: u32 },
    /// `notifications/{tools,prompts,resources}/list_changed` on a 2025 session's
    /// standalone stream, for list change `change` (an index into
    /// [`Ledger::list_changes`]): logged like any notification of the session, so a
    /// resumption replays it.
    SessionListChanged { change: u32 },
    /// The server ends 2026-07-28 listen stream `listen` (an index into
    /// [`Ledger::listens`]) with a message, `end` saying which: the listen request's
    /// `resultType: "complete"` result, or `notifications/cancelled` naming it. The
    /// connection then closes cleanly. Occurs only in modern runs.
    ListenEnded { listen: u32, end: ListenEnd },
}

impl Payload {
    /// Whether the client is expected to act on it: priming events carry nothing.
    pub fn carries_data(&self) -> bool {
        !matches!(self, Payload::Priming)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProducedEvent {
    pub id: u64,
    pub stream: StreamId,
    /// 1-based position of the event within its stream.
    pub ordinal: u32,
    pub session: SessionKey,
    pub generation: u32,
    pub at_ms: u64,
    pub payload: Payload,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamKind {
    /// The SSE answer to one POST.
    Request,
    /// The standalone GET stream (or a fresh stream opened for an unknown cursor).
    Standalone,
    /// A 2026-07-28 `subscriptions/listen` stream: a POST whose SSE answer stays open for
    /// list-change notifications. Occurs only in modern runs.
    Listen,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEntry {
    pub session: SessionKey,
    pub generation: u32,
    pub kind: StreamKind,
    pub opened_ms: u64,
    /// A 2026-07-28 request stream: its events carry no `id:` and it cannot be resumed.
    /// Written only when true, so 2025 ledgers keep their bytes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub modern: bool,
    /// When a 2026-07-28 request stream was cut before it completed (its connection closed
    /// or dropped, or cut with the process in a restart or a replica's outage). Written
    /// only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendEntry {
    pub event: EventRef,
    pub conn: ConnId,
    pub at_ms: u64,
    /// Sent as part of a `Last-Event-ID` replay rather than live.
    pub replay: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerEntry {
    pub conn: ConnId,
    pub at_ms: u64,
    pub method: HttpMethod,
    /// The JSON-RPC method of a POST, when it had one (at most
    /// [`KEPT_TEXT_BYTES`](crate::KEPT_TEXT_BYTES) of it).
    pub rpc_method: Option<String>,
    /// The `Mcp-Session-Id` the request carried (at most
    /// [`KEPT_TEXT_BYTES`](crate::KEPT_TEXT_BYTES) of it).
    pub session_sent: Option<String>,
    pub status: u16,
    /// Set only when `rpc_method` was cut: the method's full length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_method_len: Option<u64>,
    /// Set only when `session_sent` was cut: the header's full length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_sent_len: Option<u64>,
    /// In a fleet of more than one replica: which replica answered, and why the balancer
    /// sent the request there. Never written for a single server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Route>,
    /// A `tools/list` answered with a list (either era): the version of the list it gave
    /// (see [`Ledger::list_changes`]). Written only then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_version: Option<u32>,
    /// A 2026-07-28 `tools/list`'s `ttlMs`: how long the client may keep the list (0: not
    /// at all). Written only then (a 2025 list carries no cache hint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_ttl_ms: Option<u64>,
    /// The answer refused a dead or unknown session with a status that does not say so
    /// (`dead_session_answer: OkWithError200` or `Unavailable503`). A 4xx is a refusal by
    /// its status alone; a 200 or a 503 is not, and the judge, which reads the ledger
    /// only, would take the first for a success and the second for an outage. Written only
    /// then, so the ledgers of the other answers keep their bytes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dead_session: bool,
}

/// A request that named a live session the replica serving it does not hold (a
/// per-replica session store behind a balancer without affinity). It was answered as an
/// unknown session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MisrouteEntry {
    pub conn: ConnId,
    pub at_ms: u64,
    pub session: SessionKey,
    /// The replica that answered.
    pub answered_by: ReplicaId,
    /// The replica that holds the session.
    pub held_by: ReplicaId,
    /// The holder was down until then (`ReplicaDown`): the request failed over to a
    /// replica that never had the session. Written only when the holder was down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_down_until: Option<u64>,
}

/// Something that happened to one replica of a fleet (a `ReplicaDown` or `Scale` fault).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaEvent {
    pub at_ms: u64,
    pub replica: ReplicaId,
    #[serde(flatten)]
    pub what: ReplicaChange,
}

/// What happened to the replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum ReplicaChange {
    /// It crashed: its connections were reset, its jobs died, and its in-memory state
    /// went the way `restart_persistence` says. It takes no requests until `until_ms`,
    /// and then comes back as a fresh process.
    Down { until_ms: u64 },
    /// The fleet was scaled down past it: a down that never ends. Its connections were
    /// reset, its jobs died, and what it held in memory is gone.
    Removed,
    /// The fleet was scaled up to include it: an empty replica, up at once.
    Added,
}

/// How the server resolved a `Last-Event-ID`, as it actually did it.
///
/// `answer` is the answer the server *gave*, which is not always the `unknown_cursor` knob:
/// under [`UnknownCursor::ReplayRemaining`] a cursor that matches no stream leaves nothing to
/// replay, so the server opens a fresh stream and the resolution is
/// `Unknown { answer: FreshStream }`, exactly as under `unknown_cursor: FreshStream`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "resolution", rename_all = "snake_case")]
pub enum CursorResolution {
    /// The cursor named a retained event (or the stream's last one): replayed after it.
    /// `generation` is the session's generation at that moment: the numbering the cursor
    /// was interpreted in.
    Honoured {
        stream: StreamId,
        generation: u32,
        replayed: u32,
    },
    /// The stream is known but events after the cursor were evicted. Under
    /// `ReplayRemaining` the connection was attached to that stream and `replayed` events
    /// were sent (with the gap); under any other answer `replayed` is 0.
    Stale {
        stream: StreamId,
        answer: UnknownCursor,
        replayed: u32,
    },
    /// Nothing matched (or the header was not a number). `answer` is never
    /// `ReplayRemaining`: with no stream there is nothing to replay (see above).
    Unknown { answer: UnknownCursor },
    /// Rejected before the cursor was looked at (missing or dead session).
    SessionRejected { status: u16 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeEntry {
    pub conn: ConnId,
    pub at_ms: u64,
    /// The `Mcp-Session-Id` sent (at most [`KEPT_TEXT_BYTES`](crate::KEPT_TEXT_BYTES)).
    pub session_sent: Option<String>,
    /// The `Last-Event-ID` sent (at most [`KEPT_TEXT_BYTES`](crate::KEPT_TEXT_BYTES)).
    pub cursor: String,
    pub resolution: CursorResolution,
    /// The stream the connection was attached to afterwards, if any.
    pub attached_to: Option<StreamId>,
    /// Set only when `session_sent` was cut: the header's full length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_sent_len: Option<u64>,
    /// Set only when `cursor` was cut: the header's full length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor_len: Option<u64>,
    /// The server answered without asking its session store whether the session lives
    /// (`get_validates_session: false`): its `200` said nothing of the session, alive or
    /// not (what `zombie_session` needs to know). Written only when true, so the ledgers
    /// of servers that check keep their bytes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub session_unchecked: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeathCause {
    IdleTtl,
    AbsoluteTtl,
    Deleted,
    /// Lost in a restart with `restart_persistence: Nothing`.
    Restart,
    /// Held in memory by a fleet replica that went down (`restart_persistence: Nothing`).
    ReplicaDown,
    /// Held in memory by a fleet replica removed when the fleet was scaled down.
    ReplicaRemoved,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEntry {
    pub wire_id: String,
    pub created_ms: u64,
    /// Start time of each generation; generation `g` (1-based) started at `generations[g-1]`.
    pub generations: Vec<u64>,
    pub died: Option<(u64, DeathCause)>,
    /// In a fleet of more than one replica: who holds the session. Never written for a
    /// single server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_by: Option<HeldBy>,
    /// The 2026-07-28 stateless scope: the one ledger session every modern request stream
    /// belongs to, outside the session store (it has no wire id and never expires).
    /// Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub stateless: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobEntry {
    pub session: SessionKey,
    pub generation: u32,
    pub tool: String,
    pub request_id: Value,
    pub progress_token: Option<Value>,
    /// The client's idempotency key (`params._meta.idempotencyKey`), if it sent one.
    pub idempotency_key: Option<String>,
    pub steps: u32,
    pub started_ms: u64,
    pub ended: Option<(u64, JobEnd)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobEnd {
    Finished,
    Cancelled,
    /// The session died or the server restarted under it.
    Killed,
    /// A 2026-07-28 request stream was cut: the job stopped as the `on_stream_cut` knob
    /// says (at once, after its commit, or at its end), and nothing it produced after the
    /// cut was sent. Occurs only in modern runs.
    StreamClosed,
}

/// A non-idempotent side effect committed by a tool (`place_order`): the record the
/// `duplicate_effect` verdict reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectEntry {
    /// The order key the call named (`arguments.order`).
    pub order: String,
    pub job: JobId,
    /// The JSON-RPC id of the `tools/call` that committed it.
    pub request_id: Value,
    /// The request stream the call was answered on.
    pub stream: StreamId,
    pub at_ms: u64,
}

/// The server-side ground truth of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub sessions: Vec<SessionEntry>,
    pub streams: Vec<StreamEntry>,
    pub events: Vec<ProducedEvent>,
    pub sends: Vec<SendEntry>,
    pub answers: Vec<AnswerEntry>,
    pub resumptions: Vec<ResumeEntry>,
    pub jobs: Vec<JobEntry>,
    /// Responses sent over SSE (referenced by [`Payload::Response`]).
    pub messages: Vec<Value>,
    pub restarts: Vec<u64>,
    /// Connections cut on someone's own account: by the live server (a reader that
    /// stopped reading), or by an idle proxy in front of it (simulated or live). Never
    /// written when empty, so the ledger of a run without cuts keeps its bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cuts: Vec<CutEntry>,
    /// Requests a replica answered as for an unknown session because another replica held
    /// it (see [`MisrouteEntry`]). Never written when empty: a single server has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misroutes: Vec<MisrouteEntry>,
    /// Replicas that went down (see [`ReplicaEvent`]). Never written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replica_events: Vec<ReplicaEvent>,
    /// Side effects committed by non-idempotent tools (2026-07-28 `place_order`). Never
    /// written when empty, so 2025 ledgers keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<EffectEntry>,
    /// 2026-07-28 listen streams, in the order they opened. Never written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listens: Vec<ListenEntry>,
    /// Changes of the server's lists, in order. Never written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub list_changes: Vec<ListChange>,
    /// Tasks of the 2026-07-28 tasks extension (see [`TaskEntry`]). Never written when
    /// empty, so 2025 ledgers keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskEntry>,
    /// Restarts that switched the eras the server speaks (`RollEra`), in order. Never
    /// written when empty, so 2025 ledgers keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub era_changes: Vec<EraChange>,
    /// Answers where the request's era met a server that does not serve it as asked (see
    /// [`EraAnswer`]). Never written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub era_answers: Vec<EraAnswer>,
    /// 2026-07-28 state handles (`create_basket`, see [`HandleEntry`]). Never written when
    /// empty, so 2025 ledgers keep their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handles: Vec<HandleEntry>,
    /// Requests left without any answer (`standalone_get: Hang`, `unknown_cursor: Hang`).
    /// Never written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hangs: Vec<HangEntry>,
    /// Ids below these bases were trimmed by a long-lived server keeping a bounded window
    /// (see [`crate::Server::bound_ledger`]); a simulation never trims, so they stay 0.
    pub events_base: u32,
    pub jobs_base: u32,
    pub streams_base: u32,
    pub messages_base: u32,
    /// Sessions below this key were trimmed (dead, and referred to by nothing kept).
    /// Written only when set, so an untrimmed ledger reads as it always did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sessions_base: u32,
    /// Listens and list changes below these ids were trimmed (closed listens, and changes
    /// no kept event names). Written only when set.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub listens_base: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub list_changes_base: u32,
    /// Tasks and handles below these indexes were trimmed (their records in the stores
    /// keep what they need to answer). Written only when set.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tasks_base: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub handles_base: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_first_replica(r: &ReplicaId) -> bool {
    r.0 == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Ledger {
    pub fn event(&self, event: EventRef) -> &ProducedEvent {
        &self.events[(event.0 - self.events_base) as usize]
    }

    pub fn job(&self, job: JobId) -> &JobEntry {
        &self.jobs[(job.0 - self.jobs_base) as usize]
    }

    pub(crate) fn job_mut(&mut self, job: JobId) -> &mut JobEntry {
        let base = self.jobs_base;
        &mut self.jobs[(job.0 - base) as usize]
    }

    pub fn message(&self, message: u32) -> &Value {
        &self.messages[(message - self.messages_base) as usize]
    }

    /// How many of the events produced carry data for the client (every one but the priming
    /// events): what `clean` and `untested` count.
    pub fn data_events(&self) -> usize {
        self.events
            .iter()
            .filter(|e| e.payload.carries_data())
            .count()
    }

    /// The id the next event will get (ids keep counting across trims).
    pub fn next_event(&self) -> EventRef {
        EventRef(self.events_base + self.events.len() as u32)
    }

    /// One past the highest job id so far.
    pub fn jobs_end(&self) -> u32 {
        self.jobs_base + self.jobs.len() as u32
    }

    pub fn streams_end(&self) -> u32 {
        self.streams_base + self.streams.len() as u32
    }

    pub(crate) fn messages_end(&self) -> u32 {
        self.messages_base + self.messages.len() as u32
    }

    pub fn session(&self, key: SessionKey) -> &SessionEntry {
        &self.sessions[(key.0 - self.sessions_base) as usize]
    }

    pub(crate) fn session_mut(&mut self, key: SessionKey) -> &mut SessionEntry {
        let base = self.sessions_base;
        &mut self.sessions[(key.0 - base) as usize]
    }

    /// One past the highest session key so far (keys keep counting across trims).
    pub fn sessions_end(&self) -> u32 {
        self.sessions_base + self.sessions.len() as u32
    }

    pub fn stream(&self, stream: StreamId) -> &StreamEntry {
        &self.streams[(stream.0 - self.streams_base) as usize]
    }

    pub(crate) fn stream_mut(&mut self, stream: StreamId) -> &mut StreamEntry {
        let base = self.streams_base;
        &mut self.streams[(stream.0 - base) as usize]
    }

    /// Listen `listen` (the index [`Payload::ListenAck`] and [`Payload::ListChanged`] name).
    pub fn listen(&self, listen: u32) -> &ListenEntry {
        &self.listens[(listen - self.listens_base) as usize]
    }

    /// Listen `listen`'s entry, unless a long-lived server's window trimmed it.
    pub(crate) fn kept_listen_mut(&mut self, listen: u32) -> Option<&mut ListenEntry> {
        let kept = listen.checked_sub(self.listens_base)?;
        self.listens.get_mut(kept as usize)
    }

    /// The id the next listen will get (ids keep counting across trims).
    pub fn listens_end(&self) -> u32 {
        self.listens_base + self.listens.len() as u32
    }

    /// List change `change` (the index [`Payload::ListChanged`] and
    /// [`Payload::SessionListChanged`] name).
    pub fn list_change(&self, change: u32) -> &ListChange {
        &self.list_changes[(change - self.list_changes_base) as usize]
    }

    /// List change `change`, unless a long-lived server's window trimmed it.
    pub fn kept_list_change(&self, change: u32) -> Option<&ListChange> {
        let kept = change.checked_sub(self.list_changes_base)?;
        self.list_changes.get(kept as usize)
    }

    /// The id the next list change will get (ids keep counting across trims).
    pub fn list_changes_end(&self) -> u32 {
        self.list_changes_base + self.list_changes.len() as u32
    }

    /// Stream `stream`'s entry, unless a long-lived server's window trimmed it (a stream
    /// still open is kept while its event log lives, but a 2026-07-28 listen may stay open
    /// longer than its log retains anything).
    pub(crate) fn kept_stream_mut(&mut self, stream: StreamId) -> Option<&mut StreamEntry> {
        let kept = stream.0.checked_sub(self.streams_base)?;
        self.streams.get_mut(kept as usize)
    }

    /// Task `task`'s entry (an index that keeps counting across trims), unless a
    /// long-lived server's window trimmed it.
    pub fn kept_task(&self, task: u32) -> Option<&TaskEntry> {
        let kept = task.checked_sub(self.tasks_base)?;
        self.tasks.get(kept as usize)
    }

    pub(crate) fn kept_task_mut(&mut self, task: u32) -> Option<&mut TaskEntry> {
        let kept = task.checked_sub(self.tasks_base)?;
        self.tasks.get_mut(kept as usize)
    }

    /// The index the next task will get (indexes keep counting across trims).
    pub fn tasks_end(&self) -> u32 {
        self.tasks_base + self.tasks.len() as u32
    }

    /// Handle `handle`'s entry, unless a long-lived server's window trimmed it.
    pub fn kept_handle(&self, handle: u32) -> Option<&HandleEntry> {
        let kept = handle.checked_sub(self.handles_base)?;
        self.handles.get(kept as usize)
    }

    pub(crate) fn kept_handle_mut(&mut self, handle: u32) -> Option<&mut HandleEntry> {
        let kept = handle.checked_sub(self.handles_base)?;
        self.handles.get_mut(kept as usize)
    }

    /// The index the next handle will get (indexes keep counting across trims).
    pub fn handles_end(&self) -> u32 {
        self.handles_base + self.handles.len() as u32
    }

    /// The time the session died, if it did.
    pub fn death(&self, key: SessionKey) -> Option<(u64, DeathCause)> {
        self.session(key).died
    }
}
