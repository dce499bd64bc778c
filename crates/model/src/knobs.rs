//! Every server behaviour that decides whether a resumption is safe, each settable on its own.
//!
//! Field incidents come from *combinations* of choices that are individually reasonable
//! (a short event-log TTL, per-stream ids, a permissive GET). Keeping each choice a separate
//! knob is what lets a scenario reproduce one deployment exactly and lets the explorer walk
//! the space. Defaults describe a well-behaved server: session-monotonic ids, events kept for
//! the session's life, GET validates the session, honest capability advertisement.

use serde::{Deserialize, Serialize};

use crate::duration::{DurationMs, PositiveDurationMs};

mod modern;
mod standalone_get;
mod wire;

pub use modern::{
    DEFAULT_LIST_TTL_MS, Era, HandlePersistence, LegacyGet, LegacyProbeAnswer, OnStreamCut,
    TaskPersistence, UnknownHandle,
};
pub use standalone_get::{StaleStandalone, StaleStandaloneAnswer, StandaloneGet};
pub use wire::{
    DeleteAnswer, ErrorCodes, IdFormat, RefusalBody, ResumedStreamEnd, SecondStandalone,
    SessionIdHeader,
};

/// How the server numbers SSE event ids (the `id:` field and hence `Last-Event-ID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum IdScheme {
    /// One counter for the session's whole life, across streams and restarts: the only
    /// numbering under which a cursor means the same thing everywhere.
    SessionMonotonic,
    /// Each stream counts from 1 (the natural reading of the SSE spec; Behavior A).
    PerStream,
    /// One counter per session generation, from 1 again after a restart (Behavior B).
    PerGeneration,
    /// Every event carries the same id, `1`: a server that sets `id:` from a constant
    /// (<https://github.com/platformatic/mcp/issues/164>; rmcp's priming events all carry
    /// `id: 0`, <https://github.com/modelcontextprotocol/rust-sdk/issues/791>). A cursor then names the first
    /// event of whichever stream the log looks at first: a resumption replays from the
    /// wrong place, and a client that drops ids at or below its cursor drops everything.
    Constant,
}

/// What the server answers to a `Last-Event-ID` it cannot honour exactly: unknown,
/// evicted, expired, or unparsable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum UnknownCursor {
    /// 200 and a brand-new stream numbered by the id scheme (Behavior A's trap).
    FreshStream,
    /// 400 Bad Request (Go SDK; the loud answer, which this project recommends).
    BadRequest,
    /// 404 Not Found (indistinguishable from a dead session).
    NotFound,
    /// 200 with a stream that ends at once, with no events (Python and rmcp SDKs).
    Empty200,
    /// 200 and whatever is still retained after the cursor, gap or not (rmcp's answer to
    /// a cursor that fell out of its window, as `evicted_cursor`). A cursor no stream
    /// covers leaves nothing to replay: it gets a fresh stream, as under `FreshStream`
    /// (and the ledger records it as one).
    ReplayRemaining,
    /// 500 with a plain-text body, no JSON-RPC error: the Python SDK's transport without
    /// an event store fails on any `Last-Event-ID`.
    ServerError,
    /// No answer at all: the GET gets no status line and no bytes, and stays open until
    /// the client closes it (its own timeout) or the run ends. The ledger records the
    /// resumption (`answer: Hang`, attached to nothing) and the open exchange in `hangs`.
    Hang,
}

/// What a server restart keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RestartPersistence {
    /// Everything is gone: old session ids get the dead-session answer.
    Nothing,
    /// Sessions are restored by id alone (rmcp `SessionStore`): a new generation with no
    /// event log; counters restart unless the id scheme is session-monotonic.
    SessionIdsOnly,
    /// Sessions and event logs survive; a new generation all the same.
    Everything,
}

/// The HTTP status a request naming a dead or unknown session gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum DeadSessionAnswer {
    /// 404, as the spec requires.
    NotFound,
    /// 410 Gone.
    Gone,
    /// 400, as older TypeScript SDK examples did
    /// (<https://github.com/modelcontextprotocol/typescript-sdk/issues/389>; the 1.32.2
    /// example answers 404 -32001): clients never re-initialize.
    BadRequest,
    /// 401, as a gateway with authentication in front of the session store answers an
    /// unknown session (<https://github.com/punkpeye/mcp-proxy/issues/108>; Composio's
    /// idle sessions, <https://github.com/NousResearch/hermes-agent/pull/107805>): clients
    /// take it for lost credentials, not a lost session, and never re-initialize.
    Unauthorized401,
    /// 409, as a server whose state check runs before its session check answers a
    /// session it no longer holds: clients take it for a clash of their own making (the
    /// TypeScript and Go transports answer 409 to a second standalone GET) and send the
    /// same session again.
    Conflict409,
    /// 429, as a rate limiter in front of the session check answers an expired session
    /// (<https://github.com/zereight/gitlab-mcp/issues/697>: the POST "continues through
    /// rate limiting, authentication, and the new-transport path"): clients back off and
    /// send the dead session again.
    TooManyRequests429,
    /// 503, as a server answers an unknown session after a restart
    /// (<https://github.com/markmhendrickson/neotoma/issues/1923>): clients take it for an
    /// outage of the server and retry the dead session, or give the server up.
    Unavailable503,
    /// 200 with a JSON-RPC error as the body (`id: null`, the `session_not_found` code of
    /// `error_codes`), as a server that answers the request before it checks the session
    /// does (<https://github.com/aklivity/zilla/issues/2525>: POST answered 200 with
    /// -32600; <https://github.com/actionhero/keryx/issues/503>: 200 and an error in the
    /// body). Nothing at the HTTP level says the session is gone: a client that reads
    /// statuses sees a success, and the error reaches the application as the call's own.
    OkWithError200,
}

impl DeadSessionAnswer {
    pub fn status(self) -> u16 {
        match self {
            DeadSessionAnswer::NotFound => 404,
            DeadSessionAnswer::Gone => 410,
            DeadSessionAnswer::BadRequest => 400,
            DeadSessionAnswer::Unauthorized401 => 401,
            DeadSessionAnswer::Conflict409 => 409,
            DeadSessionAnswer::TooManyRequests429 => 429,
            DeadSessionAnswer::Unavailable503 => 503,
            DeadSessionAnswer::OkWithError200 => 200,
        }
    }

    /// Whether the status alone marks the answer as a refusal (a 4xx). A 200 or a 503
    /// does not, so the ledger marks those answers (`AnswerEntry::dead_session`) for a
    /// judge that reads only the ledger.
    pub(crate) fn status_says_refused(self) -> bool {
        (400..500).contains(&self.status())
    }
}

/// The server's configuration. Every field is independent of every other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerKnobs {
    /// A session dies this long after the last request that validated it. `None`: never.
    pub session_idle_ttl: Option<PositiveDurationMs>,
    /// A session dies this long after `initialize`, whatever it does. `None`: never.
    pub session_absolute_ttl: Option<PositiveDurationMs>,
    /// An event is forgotten this long after it was produced. `None`: kept while its
    /// stream lives (bounded by `event_log_capacity`).
    pub event_log_ttl: Option<PositiveDurationMs>,
    /// At most this many events are kept per stream; older ones are evicted first.
    pub event_log_capacity: Option<u32>,
    /// How often the sweeper runs. `None`: expiry is exact (checked on every input).
    /// With a period, something that expires at `t` is really removed at the next
    /// multiple of the period, the way cron-style sweepers behave.
    pub gc_interval: Option<PositiveDurationMs>,
    pub id_scheme: IdScheme,
    pub unknown_cursor: UnknownCursor,
    /// Whether GET checks `Mcp-Session-Id` against the session store (and refreshes it).
    pub get_validates_session: bool,
    pub restart_persistence: RestartPersistence,
    /// Whether the `initialize` result declares session-lifetime monotonic event ids
    /// (`capabilities.experimental.resumption.sessionMonotonicEventIds`).
    pub advertise_monotonic_ids: bool,
    /// Send an id-bearing empty event first on every SSE stream (SEP-1699 priming).
    pub priming_events: bool,
    /// The SSE `retry:` field sent with priming events, in ms.
    pub retry: Option<PositiveDurationMs>,
    pub dead_session_answer: DeadSessionAnswer,
    /// Answer requests that finish at once with a JSON body (true) or a one-event SSE stream.
    pub json_responses: bool,
    /// At most this many live sessions; `initialize` beyond it gets 503.
    pub max_sessions: u32,
    /// Which protocol eras the server speaks (2026-07-28, 2025, or both).
    #[serde(skip_serializing_if = "Era::is_default")]
    pub era: Era,
    /// How a [`Era::LegacyOnly`] server answers a 2026-07-28 request.
    #[serde(skip_serializing_if = "LegacyProbeAnswer::is_default")]
    pub legacy_probe_answer: LegacyProbeAnswer,
    /// What a [`Era::DualStatelessLegacy`] server answers a 2025 GET.
    #[serde(skip_serializing_if = "LegacyGet::is_default")]
    pub legacy_get: LegacyGet,
    /// The `ttlMs` a 2026-07-28 list result carries (`cacheScope: "private"`); `None`:
    /// no cache hint.
    #[serde(skip_serializing_if = "modern::list_ttl_is_default")]
    pub list_ttl: Option<PositiveDurationMs>,
    /// What a 2026-07-28 job does when its request stream is cut.
    #[serde(skip_serializing_if = "OnStreamCut::is_default")]
    pub on_stream_cut: OnStreamCut,
    /// Whether the 2026-07-28 path offers the tasks extension (`io.modelcontextprotocol/tasks`):
    /// a job tool called by a client that declares it answers with a task id.
    #[serde(skip_serializing_if = "modern::is_true")]
    pub tasks_offered: bool,
    /// A task's `ttlMs`, counted from its creation; `None`: `ttlMs: null`, no limit.
    #[serde(skip_serializing_if = "modern::is_none")]
    pub task_ttl: Option<PositiveDurationMs>,
    /// The `pollIntervalMs` a task suggests.
    #[serde(skip_serializing_if = "modern::task_poll_interval_is_default")]
    pub task_poll_interval: PositiveDurationMs,
    /// How long after its TTL an expired task (reported `failed`) is kept before it is
    /// purged (then unknown: -32602); `None`: never purged.
    #[serde(skip_serializing_if = "modern::is_none")]
    pub task_purge_delay: Option<DurationMs>,
    /// What a restart keeps of the task store.
    #[serde(skip_serializing_if = "TaskPersistence::is_default")]
    pub task_persistence: TaskPersistence,
    /// How long a 2026-07-28 state handle (`create_basket`) lives unused; `None`: for ever.
    #[serde(skip_serializing_if = "modern::is_none")]
    pub handle_idle_ttl: Option<PositiveDurationMs>,
    /// What a restart keeps of the state handles.
    #[serde(skip_serializing_if = "HandlePersistence::is_default")]
    pub handle_persistence: HandlePersistence,
    /// How a tool call naming an unknown handle is answered.
    #[serde(skip_serializing_if = "UnknownHandle::is_default")]
    pub unknown_handle: UnknownHandle,
    /// A 2026-07-28 listen stream gets an SSE comment (`: keep-alive`) whenever it has
    /// carried no bytes for this long, so that a proxy's idle timeout does not cut it;
    /// `None`: no keep-alive (see [`crate::server::modern::keepalive`]).
    #[serde(skip_serializing_if = "modern::is_none")]
    pub listen_keepalive: Option<PositiveDurationMs>,
    /// What a cursor gets whose stream is still in the log but whose events after it were
    /// evicted (capacity or TTL); `None`: the `unknown_cursor` answer. rmcp replays what
    /// is left of its window there, but answers an unknown cursor with an empty 200.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted_cursor: Option<UnknownCursor>,
    /// A replay starts at the cursor's own event (delivered again) instead of the one
    /// after it, as rmcp 3.11's does.
    #[serde(skip_serializing_if = "wire::is_false")]
    pub replay_from_cursor: bool,
    /// Whether a request stream's events stay resumable after its response was sent.
    /// `false`: the stream is forgotten once answered (rmcp 3.11 removes the request's
    /// cache when the response goes out), so a cursor into a finished call is unknown.
    #[serde(skip_serializing_if = "wire::is_true")]
    pub keep_answered_streams: bool,
    /// When a resumed stream ends: with its call's response, or never (the client
    /// closes it), as the TypeScript SDK does for a call that had finished and the
    /// Python SDK for every resumed stream.
    #[serde(skip_serializing_if = "ResumedStreamEnd::is_default")]
    pub resumed_stream_end: ResumedStreamEnd,
    /// Whether `priming_events` primes the standalone GET stream too (the TypeScript and
    /// Python SDKs prime only POST streams).
    #[serde(skip_serializing_if = "wire::is_true")]
    pub prime_standalone: bool,
    /// How event ids are spelled on the wire (the model numbers them by `id_scheme`
    /// whatever their spelling); `Hidden`: no `id:` at all, as a server without an event
    /// store sends.
    #[serde(skip_serializing_if = "IdFormat::is_default")]
    pub id_format: IdFormat,
    /// The JSON-RPC error codes of the transport's refusals.
    #[serde(skip_serializing_if = "ErrorCodes::is_default")]
    pub error_codes: ErrorCodes,
    /// Whether a POST with `Accept: */*` is taken as accepting JSON and SSE (the
    /// TypeScript SDK refuses it with 406).
    #[serde(skip_serializing_if = "wire::is_true")]
    pub accept_wildcard: bool,
    /// Which responses carry `Mcp-Session-Id` besides `initialize`'s.
    #[serde(skip_serializing_if = "SessionIdHeader::is_default")]
    pub session_id_header: SessionIdHeader,
    /// The answers that are JSON whatever `json_responses` says go over SSE too (one
    /// event on a request stream, primed when `priming_events` is on): `initialize`'s, and
    /// every immediate answer of the stateless legacy path. The SDK servers answer every
    /// request over SSE unless told to use JSON.
    #[serde(skip_serializing_if = "wire::is_false")]
    pub all_answers_over_sse: bool,
    /// A resumed stream gets a priming event after its replay (the Python SDK's transport
    /// primes the stream it registers for the resumption).
    #[serde(skip_serializing_if = "wire::is_false")]
    pub prime_resumed: bool,
    /// The body of the transport's refusals: a JSON-RPC error, or plain text (rmcp).
    #[serde(skip_serializing_if = "RefusalBody::is_default")]
    pub refusal_body: RefusalBody,
    /// The status a successful DELETE gets: 200, or 202 (rmcp).
    #[serde(skip_serializing_if = "DeleteAnswer::is_default")]
    pub delete_answer: DeleteAnswer,
    /// What a second standalone GET gets while the first is open: 409, or a silent
    /// shadow stream (rmcp).
    #[serde(skip_serializing_if = "SecondStandalone::is_default")]
    pub second_standalone: SecondStandalone,
    /// Whether a cursor is looked up among every session's streams when its own session
    /// has no such event: one event store passed to every session, as the Python SDK's
    /// session manager does (`StreamableHTTPSessionManager(event_store=…)`), so a session
    /// presenting another's cursor is replayed the other session's events.
    #[serde(skip_serializing_if = "wire::is_false")]
    pub cursors_across_sessions: bool,
    /// What a GET that would open the standalone stream gets (2025 session path): the
    /// stream, a 400, a 404, or no answer at all.
    #[serde(skip_serializing_if = "StandaloneGet::is_default")]
    pub standalone_get: StandaloneGet,
    /// How long after a standalone GET's connection drops a new standalone GET of the
    /// same session is refused, and with which status (`None`: the drop is noticed at
    /// once, and the reconnect is served).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_standalone: Option<StaleStandalone>,
}

impl Default for ServerKnobs {
    fn default() -> Self {
        ServerKnobs {
            session_idle_ttl: None,
            session_absolute_ttl: None,
            event_log_ttl: None,
            event_log_capacity: Some(10_000),
            gc_interval: None,
            id_scheme: IdScheme::SessionMonotonic,
            unknown_cursor: UnknownCursor::BadRequest,
            get_validates_session: true,
            restart_persistence: RestartPersistence::Everything,
            advertise_monotonic_ids: true,
            priming_events: false,
            retry: None,
            dead_session_answer: DeadSessionAnswer::NotFound,
            json_responses: true,
            max_sessions: 10_000,
            era: Era::default(),
            legacy_probe_answer: LegacyProbeAnswer::default(),
            legacy_get: LegacyGet::default(),
            list_ttl: modern::default_list_ttl(),
            on_stream_cut: OnStreamCut::default(),
            tasks_offered: true,
            task_ttl: None,
            task_poll_interval: modern::default_task_poll_interval(),
            task_purge_delay: None,
            task_persistence: TaskPersistence::default(),
            handle_idle_ttl: None,
            handle_persistence: HandlePersistence::default(),
            unknown_handle: UnknownHandle::default(),
            listen_keepalive: None,
            evicted_cursor: None,
            replay_from_cursor: false,
            keep_answered_streams: true,
            resumed_stream_end: ResumedStreamEnd::default(),
            prime_standalone: true,
            id_format: IdFormat::default(),
            error_codes: ErrorCodes::default(),
            accept_wildcard: true,
            session_id_header: SessionIdHeader::default(),
            all_answers_over_sse: false,
            prime_resumed: false,
            refusal_body: RefusalBody::default(),
            delete_answer: DeleteAnswer::default(),
            second_standalone: SecondStandalone::default(),
            cursors_across_sessions: false,
            standalone_get: StandaloneGet::default(),
            stale_standalone: None,
        }
    }
}

impl ServerKnobs {
    /// What a restart keeps, as the timeline says it: `persistence: Everything`, and the
    /// task store's persistence beside it when it differs from the default and the server
    /// speaks 2026-07-28 (where tasks live), so that "Everything" is not read as the tasks
    /// too.
    pub fn restart_keeps(&self) -> String {
        if self.task_persistence.is_default() || !self.era.speaks_modern() {
            format!("persistence: {:?}", self.restart_persistence)
        } else {
            format!(
                "persistence: {:?}; tasks: {:?}",
                self.restart_persistence, self.task_persistence
            )
        }
    }

    /// True when the capability the server advertises is one its numbering keeps: the
    /// precondition under which the guarded client's guards are proven to never lose silently.
    pub fn advertisement_is_honest(&self) -> bool {
        !self.advertise_monotonic_ids || self.id_scheme == IdScheme::SessionMonotonic
    }

    /// Checks relations between knobs that serde cannot see field by field.
    pub fn validate(&self) -> Result<(), String> {
        if self.event_log_capacity == Some(0) {
            return Err(
                "event_log_capacity: 0 keeps no events at all; use at least 1, or None for no cap"
                    .into(),
            );
        }
        if self.max_sessions == 0 {
            return Err("max_sessions: 0 would refuse every initialize; use at least 1".into());
        }
        modern::validate(self.era, self.legacy_probe_answer, self.legacy_get)
    }
}

/// Calls the macro `$callback` with the name of every field of [`ServerKnobs`], in
/// declaration order: the one list that the scenario reader (`server:` blocks and
/// `serve --knob`) and the explorer's `--knob` pins both expand. Each expansion checks the
/// list exhaustive by destructuring, so a new field that is missing here does not compile.
#[macro_export]
macro_rules! with_server_knob_fields {
    ($callback:ident) => {
        $callback!(
            session_idle_ttl,
            session_absolute_ttl,
            event_log_ttl,
            event_log_capacity,
            gc_interval,
            id_scheme,
            unknown_cursor,
            get_validates_session,
            restart_persistence,
            advertise_monotonic_ids,
            priming_events,
            retry,
            dead_session_answer,
            json_responses,
            max_sessions,
            era,
            legacy_probe_answer,
            legacy_get,
            list_ttl,
            on_stream_cut,
            tasks_offered,
            task_ttl,
            task_poll_interval,
            task_purge_delay,
            task_persistence,
            handle_idle_ttl,
            handle_persistence,
            unknown_handle,
            listen_keepalive,
            evicted_cursor,
            replay_from_cursor,
            keep_answered_streams,
            resumed_stream_end,
            prime_standalone,
            id_format,
            error_codes,
            accept_wildcard,
            session_id_header,
            all_answers_over_sse,
            prime_resumed,
            refusal_body,
            delete_answer,
            second_standalone,
            cursors_across_sessions,
            standalone_get,
            stale_standalone,
        );
    };
}
