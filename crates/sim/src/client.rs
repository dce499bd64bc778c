//! The modelled MCP client: one state machine, two policies.
//!
//! `naive` is the client the incident reports describe (README.md, "The incidents"): it
//! dedups by "id <= cursor", believes a 200 on the SSE GET, retries a 404 three times and
//! lets another task keep the old session id. `guarded` applies the guards those incidents
//! call for, one by one. Both are the same code with different [`Policy`] flags, so a difference in outcome
//! is always attributable to a named guard.
//!
//! The client sees only what is on the wire (status codes, headers, event ids, JSON-RPC
//! ids); the `EventRef` it carries is opaque to it and only handed back to the recorder.

use std::borrow::Cow;
use std::collections::BTreeMap;

use faultline_model::{
    ConnId, EndMode, EventRef, HttpRequest, HttpResponse, InitializeParams, ResponseBody,
    RpcMessage, ToolCallParams,
};
use serde_json::Value;

use crate::client_error::{ClientError, ResumptionCursorError, SessionResumptionError};
use crate::client_record::{
    AppliedRecord, CallRecord, ClientRecord, ErrorRecord, ErrorScope, RequestRecord, ResumeRecord,
    Task,
};
use crate::conn_map::ConnMap;
use crate::legacy_tools_list::LegacyToolsList;
use faultline_scenario::{
    Backoff, Calls, ClientConfig, ClientHabits, ClientModel, Cookies, CursorAfterDrop, Dedup,
    GetFailure, IdlessError, ListChanged, NoIdCall, OnClose, Progress, ReadTimeoutEnds, Reconnect,
    Reinit, ResultCheck, StandaloneErrors, Tool, WhenDone,
};

/// The longest wait the guarded client takes from a server's `retry:` (the TypeScript SDK's
/// own longest reconnect wait by default, `maxReconnectionDelay`).
const SERVER_RETRY_CAP_MS: u64 = 30_000;

/// The guards, each switchable on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Drop events whose id is `<=` the cursor as "already seen" (the naive dedup).
    pub skip_ids_at_or_below_cursor: bool,
    /// The first event after a resumption must be `cursor + 1` (seed 002).
    pub contiguity_check: bool,
    /// After a replay `200`, send a session-scoped `ping` before applying anything (seed 000).
    pub liveness_probe_after_replay: bool,
    /// Send `Last-Event-ID` only if `initialize` advertised session-monotonic ids.
    pub cursor_only_if_advertised: bool,
    /// All tasks read the session id from one handle (no stale copies).
    pub shared_session_handle: bool,
    /// Re-issue unfinished tool calls (same idempotency key) after re-initializing.
    pub reissue_after_reinit: bool,
    /// Surface untyped failures as typed resumption errors and rebuild the session.
    pub typed_errors: bool,
    /// (2026-07-28 client) Re-issue a call whose request stream was cut even when its tool
    /// is not idempotent, with a new request id. Without it a cut non-idempotent call is
    /// a typed `CallCutError` for the application to settle.
    pub reissue_non_idempotent_after_cut: bool,
    /// Client with a tools list: a 2026-07-28 one listens again after the listen stream
    /// drops and lists again once listening (what the naive client, like the SDKs, never
    /// does); a 2025 one lists again after its standalone stream ends or its session
    /// changes, and before every call to a server that assigned no session or when it
    /// opens no standalone stream ([`crate::legacy_tools_list`]).
    pub relisten_after_drop: bool,
    /// Keep the cookies a response sets and send them back (an HTTP client with a cookie
    /// jar): what keeps it pinned behind a `StickyCookie` balancer.
    pub keeps_cookies: bool,
    /// Check every notification's session tag (`_meta["io.faultline/session"]`) against
    /// the session the stream was opened for: a foreign one is quarantined, raised as a
    /// `ResumptionCursorError`, and the session rebuilt (a shared event store keyed by
    /// stream replays other sessions' events).
    pub session_check_per_event: bool,
    /// (2026-07-28 client using tasks) A task id the server no longer knows (-32602 on
    /// `tasks/get`) is a typed `TaskLostError`. Without it the client takes the vanished
    /// task for finished, with nothing to show.
    pub task_lost_is_error: bool,
    /// (2025 client) Refuse a server whose `initialize` names no `Mcp-Session-Id`: the
    /// strict gateway of <https://github.com/baruchiro/paperless-mcp/issues/154>. Without
    /// it the client works sessionless, as the 2025 spec allows (a server *may* assign a
    /// session: <https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>).
    pub requires_session: bool,
    /// (client with `era: Auto`) Read the `server/discover` probe's answer by the spec's
    /// rule (stay modern on a result or a 400 with a 2026-07-28 error code, fall back to
    /// `initialize` on anything else). Without it the client falls back only on -32601,
    /// as rmcp's Auto mode did (<https://github.com/modelcontextprotocol/rust-sdk/issues/1040>).
    pub era_fallback_by_spec: bool,
    /// (client with `era: Auto`) Probe again whenever the era it settled on fails.
    /// Without it the detected era is kept for `era_cache`, whatever happens.
    pub reprobe_on_failure: bool,
    /// (2025 client) Give up on a stream after this many reconnects in a row that
    /// delivered nothing new; `None`: never (`habits: (reconnect: Forever)`).
    pub max_fruitless_reconnects: Option<u32>,
    /// (2025 client) A stream that ends cleanly counts as progress, whatever it brought:
    /// the reconnect count starts again (`habits: (progress: CleanEnd)`).
    pub clean_end_is_progress: bool,
    /// (2025 client) An event past the cursor resets the count of reconnects in a row;
    /// without it only a clean end does (`habits: (progress: CleanEndOnly)`).
    pub new_event_is_progress: bool,
    /// (2025 client) How the wait before a reconnect grows without a server `retry:`.
    pub backoff: Backoff,
    /// (2025 client) What a request answered 404/410 in the session leads to (without
    /// `typed_errors`, which always rebuilds the session).
    pub reinit: Reinit,
    /// (2025 client) A 404/410 on an SSE GET leads to a new session once the GET's
    /// reconnects are spent; without it the stream only ends.
    pub reinit_on_get: bool,
    /// (2025 client) A call not answered within this many ms is given up (failed, its
    /// connections closed).
    pub request_timeout_ms: Option<u64>,
    /// (2025 client) An SSE stream silent for this many ms is cut by the client and
    /// reconnected, as a drop.
    pub read_timeout_ms: Option<u64>,
    /// (2025 client) What becomes of the cursor when a resumed stream ends: kept (the
    /// last id it brought), forgotten when no new id came (typescript-sdk#2499), or
    /// rewound to the cursor it was opened with when it drops (the Python SDK).
    pub cursor_after_resumed_drop: CursorAfterDrop,
    /// (2025 client) A failed standalone GET closes the whole client.
    pub get_failure_fatal: bool,
    /// (2025 client) A dropped stream is resumed with `Last-Event-ID`; without it a
    /// dropped request stream is left waiting and the standalone stream opened afresh.
    pub resumes: bool,
    /// (client with a tools list) A `list_changed` makes the client list again.
    pub honours_list_changed: bool,
    /// (2025 client) A call's stream that ended before any event id is neither resumed
    /// nor failed: the call waits (the TypeScript SDK 1.x reconnects a POST stream only
    /// once it has seen an id, and fails the call only at its request timeout).
    pub call_waits_without_id: bool,
    /// (2025 client) A call whose POST is answered with a JSON-RPC error naming no request
    /// (`"id": null`) drops the error and waits, unless the answer is a 404 naming its
    /// session, a 401/403 or a 429 (`habits: (idless_error: Dropped)`: rmcp 3.11).
    pub drops_idless_errors: bool,
    /// (2025 client) The standalone stream's failures raise no error: the application hears
    /// nothing of them (`habits: (standalone_errors: Logged)`).
    pub standalone_errors_logged: bool,
    /// (2025 client) The first result is held until a `tools/list` answers, and a failed
    /// list fails the call (the Python SDK validates a result against the tool's output
    /// schema, listing tools first when it has none).
    pub lists_before_result: bool,
    /// (2025 client) A read timeout closes the whole client rather than reconnecting the
    /// stream (an HTTP client whose timeout error tears the transport down).
    pub read_timeout_fatal: bool,
    /// A 2025 client whatever the scenario's `client.era` says: the SDK clients of
    /// `habits.like` initialize and never probe for 2026-07-28.
    pub speaks_2025_only: bool,
    /// (2025 client) Once every call has ended, the application exits and the client
    /// closes (`habits: (when_done: Exit)`); without it the client stays to the end.
    pub exits_when_done: bool,
    /// The application makes its calls one at a time: a call whose time has come waits
    /// until every earlier one has ended (`habits: (calls: OneAtATime)`; the world holds
    /// it back).
    pub calls_one_at_a_time: bool,
    /// (2025 client) Closing, the client first ends its session with a `DELETE`
    /// (`habits: (on_close: DeleteSession)`).
    pub deletes_session_on_close: bool,
    /// (2025 client) A server's `retry:` is honoured up to this many ms, never longer: a
    /// server that asks for an hour keeps no call waiting an hour
    /// (<https://github.com/modelcontextprotocol/ruby-sdk/pull/504>). `None`: honoured
    /// whatever it asks.
    pub server_retry_cap_ms: Option<u64>,
}

impl Policy {
    pub fn of(model: ClientModel) -> Policy {
        let reference = Policy {
            skip_ids_at_or_below_cursor: false,
            contiguity_check: true,
            liveness_probe_after_replay: true,
            cursor_only_if_advertised: true,
            shared_session_handle: true,
            reissue_after_reinit: true,
            typed_errors: true,
            reissue_non_idempotent_after_cut: false,
            relisten_after_drop: true,
            keeps_cookies: true,
            session_check_per_event: true,
            task_lost_is_error: true,
            requires_session: false,
            era_fallback_by_spec: true,
            reprobe_on_failure: true,
            max_fruitless_reconnects: Reconnect::DEFAULT.limit(),
            clean_end_is_progress: false,
            new_event_is_progress: true,
            backoff: Backoff::Fixed,
            reinit: Reinit::AfterRetries(0),
            reinit_on_get: true,
            request_timeout_ms: None,
            read_timeout_ms: None,
            cursor_after_resumed_drop: CursorAfterDrop::Keep,
            get_failure_fatal: false,
            resumes: true,
            honours_list_changed: true,
            speaks_2025_only: false,
            call_waits_without_id: false,
            drops_idless_errors: false,
            standalone_errors_logged: false,
            read_timeout_fatal: false,
            exits_when_done: false,
            calls_one_at_a_time: false,
            deletes_session_on_close: false,
            lists_before_result: false,
            server_retry_cap_ms: Some(SERVER_RETRY_CAP_MS),
        };
        match model {
            ClientModel::Naive => Policy {
                skip_ids_at_or_below_cursor: true,
                contiguity_check: false,
                liveness_probe_after_replay: false,
                cursor_only_if_advertised: false,
                reinit: Reinit::AfterRetries(3),
                shared_session_handle: false,
                reissue_after_reinit: false,
                typed_errors: false,
                reissue_non_idempotent_after_cut: true,
                relisten_after_drop: false,
                keeps_cookies: false,
                session_check_per_event: false,
                task_lost_is_error: false,
                requires_session: true,
                era_fallback_by_spec: false,
                reprobe_on_failure: false,
                server_retry_cap_ms: None,
                ..reference
            },
            ClientModel::Guarded => reference,
        }
    }

    /// The policy of a run of `model` on a scenario whose client is `cfg`: the naive
    /// preset takes the field client's habits (`cfg.habits`, after `like`'s); the guarded
    /// preset is the reference client and takes none.
    pub fn for_run(model: ClientModel, cfg: &ClientConfig) -> Policy {
        let policy = Policy::of(model);
        match model {
            ClientModel::Naive => {
                let base = cfg.habits.like.map_or(policy, |sdk| Policy {
                    speaks_2025_only: true,
                    ..policy.with_habits(&sdk.habits())
                });
                base.with_habits(&cfg.habits)
            }
            ClientModel::Guarded => policy,
        }
    }

    /// This policy with every habit `habits` sets.
    pub fn with_habits(self, habits: &ClientHabits) -> Policy {
        let mut p = self;
        if let Some(r) = habits.reconnect {
            p.max_fruitless_reconnects = r.limit();
        }
        if let Some(progress) = habits.progress {
            p.clean_end_is_progress = progress != Progress::NewEvent;
            p.new_event_is_progress = progress != Progress::CleanEndOnly;
        }
        if let Some(b) = habits.backoff {
            p.backoff = b;
        }
        if let Some(r) = habits.reinit {
            p.reinit = r;
        }
        if let Some(g) = habits.reinit_on_get {
            p.reinit_on_get = g;
        }
        if let Some(t) = habits.request_timeout {
            p.request_timeout_ms = t.ms();
        }
        if let Some(t) = habits.read_timeout {
            p.read_timeout_ms = t.ms();
        }
        if let Some(c) = habits.cursor_after_resumed_drop {
            p.cursor_after_resumed_drop = c;
        }
        if let Some(g) = habits.get_failure {
            p.get_failure_fatal = g == GetFailure::Fatal;
        }
        if let Some(r) = habits.resumes {
            p.resumes = r;
        }
        if let Some(d) = habits.dedup {
            p.skip_ids_at_or_below_cursor = d == Dedup::AtOrBelowCursor;
        }
        if let Some(l) = habits.list_changed {
            p.honours_list_changed = l == ListChanged::Honoured;
        }
        if let Some(c) = habits.cookies {
            p.keeps_cookies = c == Cookies::Kept;
        }
        if let Some(c) = habits.call_stream_without_id {
            p.call_waits_without_id = c == NoIdCall::Wait;
        }
        if let Some(e) = habits.idless_error {
            p.drops_idless_errors = e == IdlessError::Dropped;
        }
        if let Some(e) = habits.standalone_errors {
            p.standalone_errors_logged = e == StandaloneErrors::Logged;
        }
        if let Some(r) = habits.read_timeout_ends {
            p.read_timeout_fatal = r == ReadTimeoutEnds::Client;
        }
        if let Some(c) = habits.result_check {
            p.lists_before_result = c == ResultCheck::ListsToolsFirst;
        }
        if let Some(c) = habits.on_close {
            p.deletes_session_on_close = c == OnClose::DeleteSession;
        }
        if let Some(w) = habits.when_done {
            p.exits_when_done = w == WhenDone::Exit;
        }
        if let Some(c) = habits.calls {
            p.calls_one_at_a_time = c == Calls::OneAtATime;
        }
        p
    }

    /// How many times a request answered 404/410 is sent again in the same session.
    fn dead_session_retries(&self) -> u32 {
        match self.reinit {
            Reinit::AfterRetries(n) => n,
            Reinit::AtOnce | Reinit::Never => 0,
        }
    }
}

/// What an event on the wire says, as a client can read it.
#[derive(Debug, Clone, PartialEq)]
pub enum WireKind {
    Priming,
    /// A `notifications/progress` (no model here reads its token: progress is applied
    /// like any other event, so none is copied out of the ledger for it).
    Progress,
    /// A JSON-RPC response (to request `request_id`).
    Response {
        request_id: Option<u64>,
    },
    /// A server notification; `owner` is the tag of the session it says it belongs to
    /// (`None` when the server tags nothing, as a single server does).
    Notification {
        owner: Option<u64>,
    },
    /// `notifications/subscriptions/acknowledged`, first on a 2026-07-28 listen stream.
    ListenAck,
    /// `notifications/<list>/list_changed` on a 2026-07-28 listen stream.
    ListChanged {
        list: faultline_model::ListName,
    },
    /// The server's last message on a 2026-07-28 listen stream: the listen's `complete`
    /// result or `notifications/cancelled` naming it (a clean end follows).
    ListenEnded,
}

#[derive(Debug, Clone)]
pub struct WireEvent {
    pub event: EventRef,
    pub id: Option<u64>,
    pub retry_ms: Option<u64>,
    pub kind: WireKind,
}

/// What the client did with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Applied,
    /// Discarded because its id was `<=` the cursor.
    SkippedAsSeen,
    /// Held until the liveness probe answers.
    Buffered,
    /// Refused: belongs to a session or stream the client no longer trusts.
    Quarantined,
    /// Arrived on a connection the client had already abandoned.
    Ignored,
    /// An empty priming event: only moves the cursor.
    Primed,
}

impl Fate {
    /// What the client did, as the report and the diagrams print it.
    pub fn label(self) -> &'static str {
        match self {
            Fate::Applied => "applied",
            Fate::SkippedAsSeen => "SKIPPED as already seen",
            Fate::Buffered => "buffered until the liveness probe answers",
            Fate::Quarantined => "quarantined",
            Fate::Ignored => "lost in flight (connection already gone)",
            Fate::Primed => "cursor primed",
        }
    }
}

/// The client's requests to the outside world, collected per callback.
#[derive(Debug, Default)]
pub struct ClientIo {
    pub sends: Vec<(ConnId, HttpRequest, Task)>,
    /// Connections the client closes itself.
    pub closes: Vec<ConnId>,
    /// (at_ms, token): call `on_wake(token)` then.
    pub wakes: Vec<(u64, u64)>,
    pub next_conn: u64,
}

impl ClientIo {
    pub(crate) fn conn(&mut self) -> ConnId {
        self.next_conn += 1;
        ConnId(self.next_conn)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Logical {
    Call(usize),
    Standalone,
    /// The SSE answer to an auxiliary request (a probe): read to the end, never resumed.
    Aux,
}

#[derive(Debug, Clone)]
struct StreamConn {
    logical: Logical,
    session: String,
    cursor: Option<u64>,
    cursor_event: Option<EventRef>,
    /// The cursor this connection resumed from, until the first id arrives (contiguity).
    check_first: Option<u64>,
    /// The cursor the connection's GET sent (`None`: a stream the server opened afresh).
    opened_with: Option<u64>,
    /// The event that cursor named.
    opened_with_event: Option<EventRef>,
    /// When the connection's request was sent.
    opened_at_ms: u64,
    /// The probe connection whose answer gates applying events.
    probe: Option<ConnId>,
}

impl StreamConn {
    /// A stream `logical` of `session` as the server opens it: no cursor yet.
    fn fresh(logical: Logical, session: String) -> StreamConn {
        StreamConn {
            logical,
            session,
            cursor: None,
            cursor_event: None,
            check_first: None,
            opened_with: None,
            opened_with_event: None,
            opened_at_ms: 0,
            probe: None,
        }
    }
}

#[derive(Debug, Clone)]
enum Purpose {
    Initialize,
    Ignore,
    Call {
        call: usize,
        session: String,
        retries_left: u32,
        task: Task,
    },
    Get {
        stream: StreamConn,
    },
    Stream(StreamConn),
    Probe {
        session: String,
        buffer: Vec<WireEvent>,
        stream_conn: ConnId,
    },
    /// A `tools/list` (JSON-RPC id `request_id`) for the client's tools list.
    List {
        request_id: u64,
    },
    /// The `tools/list` call `call`'s result waits on (`lists_before_result`), with the
    /// result's event when it came on a stream.
    ListBeforeResult {
        call: usize,
        held: Option<(ConnId, WireEvent)>,
    },
    /// A `ping` sent after `session` refused call `call` with `refused` (400, 401, 403):
    /// a success means the refusal was the call's own, anything else a dead session.
    Verify {
        session: String,
        call: usize,
        refused: u16,
    },
}

#[derive(Debug, Clone)]
enum Wake {
    Start,
    RetryCall {
        call: usize,
        session: String,
        retries_left: u32,
        task: Task,
    },
    Reconnect {
        stream: StreamConn,
        attempt: u32,
    },
    /// End of the replay burst of a resumed stream: by now the first replayed event must
    /// have arrived (seed 002: "no replayed event for cursor" is an error).
    ReplayDeadline {
        conn: ConnId,
    },
    /// `request_timeout`: the attempt of call `call` with request id `request_id` must
    /// have been answered by now.
    CallDeadline {
        call: usize,
        request_id: u64,
    },
    /// `read_timeout`: the stream on `conn` must have brought something since.
    ReadSilence {
        conn: ConnId,
    },
    /// Initialize again after a refused `initialize` (the guarded client).
    Reinitialize,
}

/// One workload call as a client tracks it (both eras' clients).
#[derive(Debug, Clone)]
pub(crate) struct CallState {
    pub tool: Tool,
    pub progress: bool,
    /// Request ids of every attempt, in order.
    pub request_ids: Vec<u64>,
    pub done: bool,
    pub failed: bool,
    /// Not yet sent: no session was ready, or the client had not started.
    pub deferred: bool,
}

/// Registers a workload call (in file order) in a client's calls and its record; its index.
pub(crate) fn plan_call_into(
    calls: &mut Vec<CallState>,
    record: &mut ClientRecord,
    tool: Tool,
    progress: bool,
) -> usize {
    let index = calls.len();
    calls.push(CallState {
        tool,
        progress,
        request_ids: Vec::new(),
        done: false,
        failed: false,
        deferred: false,
    });
    record.calls.push(CallRecord {
        key: call_key(index),
        asked_at_ms: None,
        attempts: 0,
        completed_at_ms: None,
        failed_at_ms: None,
        result_dropped: false,
    });
    index
}

/// A guarded client re-issues one call at most this many times (each in a new session).
const MAX_REISSUES: u32 = 3;
/// Either client re-initializes at most this many times in a row without progress (an
/// applied event, a completed call, or any success answer to a request naming the
/// session), then surfaces an error and stops: behind a
/// round-robin balancer every new session can land elsewhere at once, and a client that
/// rebuilds forever at one virtual instant would never let the run end.
const MAX_REINITS_WITHOUT_PROGRESS: u32 = 3;
/// The guarded client sends a refused `initialize` again at most this many times in a row
/// (after 1, 2, 4, ... reconnect delays: a minute in all at the default 1 s).
const MAX_INITIALIZE_REFUSALS: u32 = 6;
/// Backoff between retries of a request that got 404/410 (ms): 1 s, 2 s, 4 s, ...
const RETRY_BACKOFF_MS: u64 = 1_000;

#[derive(Debug)]
pub struct Client {
    policy: Policy,
    /// Borrowed from the model's version tables when it names a known revision, so that
    /// a request's `MCP-Protocol-Version` header costs no allocation.
    protocol_version: Cow<'static, str>,
    reconnect_delay_ms: u64,
    standalone_stream: bool,
    session: Option<String>,
    monotonic_advertised: bool,
    /// The ids that arrived in the current session (kept by a policy with
    /// `contiguity_check`, once the session advertised session-monotonic ids: each id is
    /// then unique in the session, so one that arrives twice was replayed from another
    /// stream).
    session_ids_seen: Vec<u64>,
    /// The SSE streams the current session's server opened for the client (answers with
    /// no `Last-Event-ID`; a resumption continues one) that may still carry events: a
    /// stream that brought its call's result is done. While there is one, an id it skips
    /// can have gone to no other stream of the client's (such as one it left behind when it
    /// re-ran a call).
    session_streams: Vec<Logical>,
    initializing: bool,
    calls: Vec<CallState>,
    purposes: ConnMap<Purpose>,
    request_index: ConnMap<usize>,
    request_to_call: BTreeMap<u64, usize>,
    next_request_id: u64,
    server_retry_ms: Option<u64>,
    wakes: BTreeMap<u64, Wake>,
    next_token: u64,
    stale_tasks: u32,
    /// Reconnect attempts per logical stream since it last delivered an event.
    fruitless: BTreeMap<Logical, u32>,
    /// Re-initializations since the last applied event, completed call or success answer
    /// to a session-scoped request.
    reinits_without_progress: u32,
    /// Stopped re-initializing (see [`MAX_REINITS_WITHOUT_PROGRESS`]): no more sessions.
    gave_up: bool,
    /// A `tools/list` answered for `lists_before_result`: later results are handed over
    /// at once.
    tools_listed_for_results: bool,
    /// Why the client closed itself (`get_failure: Fatal`, `read_timeout_ends: Client`),
    /// for the calls it fails after.
    closed_why: Option<String>,
    /// The cookie jar (`name=value`, the last `Set-Cookie` kept), sent as `Cookie` on
    /// every request when the policy keeps cookies.
    cookie: Option<String>,
    /// The tools list it works from (`lists_tools`).
    tools_list: LegacyToolsList,
    /// The current session's server opened a fresh stream with a priming event (SEP-1699):
    /// it numbers its streams for resumption from their first byte, so a resumption that
    /// replays nothing while its stream stays open is "nothing new", not a lost cursor (a
    /// cursor it cannot honour is answered by a new stream, which begins with a priming
    /// event, or by a stream that ends at once: both still refused).
    server_primes: bool,
    /// `initialize` answers in a row that refused it (the guarded client tries again).
    initialize_refusals: u32,
    /// When each open stream last brought an event (kept only with `read_timeout`).
    last_heard: ConnMap<u64>,
    seq: u64,
    pub record: ClientRecord,
}

impl Client {
    pub fn new(
        policy: Policy,
        protocol_version: &str,
        reconnect_delay_ms: u64,
        standalone_stream: bool,
    ) -> Self {
        Client {
            policy,
            protocol_version: known_version(protocol_version),
            reconnect_delay_ms,
            standalone_stream,
            session: None,
            monotonic_advertised: false,
            session_ids_seen: Vec::new(),
            session_streams: Vec::new(),
            initializing: false,
            calls: Vec::new(),
            purposes: ConnMap::default(),
            request_index: ConnMap::default(),
            request_to_call: BTreeMap::new(),
            next_request_id: 0,
            server_retry_ms: None,
            wakes: BTreeMap::new(),
            next_token: 0,
            stale_tasks: 0,
            fruitless: BTreeMap::new(),
            reinits_without_progress: 0,
            gave_up: false,
            closed_why: None,
            tools_listed_for_results: false,
            cookie: None,
            tools_list: LegacyToolsList::default(),
            server_primes: false,
            initialize_refusals: 0,
            last_heard: ConnMap::default(),
            seq: 0,
            record: ClientRecord::default(),
        }
    }

    /// The client works from a tools list (`lists_tools`): see [`crate::legacy_tools_list`].
    pub fn with_tools_list(mut self, lists_tools: bool) -> Self {
        self.tools_list = LegacyToolsList::new(lists_tools);
        self
    }

    /// Registers the workload's calls (in file order) before the run starts.
    pub fn plan_call(&mut self, tool: Tool, progress: bool) -> usize {
        plan_call_into(&mut self.calls, &mut self.record, tool, progress)
    }

    /// The next number in the client's own order of actions.
    fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// A request held back while the client was away really left at `now`.
    pub fn mark_sent(&mut self, conn: ConnId, now: u64) {
        if let Some(&i) = self.request_index.get(&conn) {
            self.record.requests[i].at_ms = now;
        }
        if let Some(r) = self.record.resumptions.iter_mut().find(|r| r.conn == conn) {
            r.at_ms = now;
        }
    }

    // ------------------------------------------------------------------------------
    // Sending
    // ------------------------------------------------------------------------------

    fn send(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        task: Task,
        purpose: Purpose,
        mut request: HttpRequest,
    ) -> ConnId {
        let conn = io.conn();
        if request.cookie.is_none() {
            request.cookie = self.cookie.clone();
        }
        let (http, rpc) = match request.method {
            faultline_model::HttpMethod::Post => {
                let rpc = request.body.rpc_method().map(str::to_string);
                ("POST", rpc)
            }
            faultline_model::HttpMethod::Get => ("GET", None),
            faultline_model::HttpMethod::Delete => ("DELETE", None),
            faultline_model::HttpMethod::Other => ("OTHER", None),
        };
        let last_event_id = request
            .last_event_id
            .as_deref()
            .and_then(|s| s.parse().ok());
        self.request_index.insert(conn, self.record.requests.len());
        let sent_seq = self.tick();
        let call = match &purpose {
            Purpose::Call { call, .. } => Some(*call),
            _ => None,
        };
        self.record.requests.push(RequestRecord {
            at_ms: now,
            conn,
            task,
            http,
            rpc,
            session: request.session_id.clone(),
            last_event_id,
            status: None,
            sent_seq,
            answered_seq: None,
            call,
        });
        self.purposes.insert(conn, purpose);
        io.sends.push((conn, request, task));
        conn
    }

    /// A POST in `session` (`Some("")`: the sessionless server's, no header).
    fn post(&self, session: Option<&str>, message: RpcMessage) -> HttpRequest {
        let header = session.filter(|s| !s.is_empty()).map(str::to_string);
        let mut request = HttpRequest::rpc(header, message);
        if session.is_some() {
            request.protocol_version = Some(self.protocol_version.clone());
        }
        request
    }

    fn wake(&mut self, io: &mut ClientIo, at: u64, wake: Wake) {
        self.next_token += 1;
        self.wakes.insert(self.next_token, wake);
        io.wakes.push((at, self.next_token));
    }

    fn initialize(&mut self, io: &mut ClientIo, now: u64) {
        if self.initializing {
            return;
        }
        self.initializing = true;
        self.next_request_id += 1;
        let params = InitializeParams {
            protocol_version: self.protocol_version.clone(),
        };
        let message = RpcMessage::request(self.next_request_id, "initialize", params);
        let request = self.post(None, message);
        self.send(io, now, Task::Main, Purpose::Initialize, request);
    }

    fn send_call(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        call: usize,
        session: String,
        retries_left: u32,
        task: Task,
    ) {
        self.next_request_id += 1;
        let rid = self.next_request_id;
        self.request_to_call.insert(rid, call);
        let state = &mut self.calls[call];
        state.request_ids.push(rid);
        let (name, arguments) = state.tool.wire_call(call);
        // Typed: the engine and the model read the key and the token as fields, and the
        // JSON is built only at the live edge and for the trace.
        let params = ToolCallParams {
            name,
            arguments,
            // The key `new_call` wrote into the record (a copy, not another `format!`).
            idempotency_key: self.record.calls[call].key.clone(),
            // Its progress token, when it asks for progress, is its key.
            progress: state.progress,
        };
        self.record.calls[call].attempts += 1;
        let message = RpcMessage::request(rid, "tools/call", params);
        let request = self.post(Some(&session), message);
        if let Some(timeout) = self.policy.request_timeout_ms {
            self.wake(
                io,
                now + timeout,
                Wake::CallDeadline {
                    call,
                    request_id: rid,
                },
            );
        }
        self.send(
            io,
            now,
            task,
            Purpose::Call {
                call,
                session,
                retries_left,
                task,
            },
            request,
        );
    }

    /// Sends workload call `call` in `session` now, or, for a client that works from a
    /// tools list and holds none it trusts, lists first and sends it when the list comes.
    fn call_or_wait(&mut self, io: &mut ClientIo, now: u64, call: usize, session: String) {
        // Guarded: a list is trusted only while a change could reach it, on a session's
        // standalone stream (a sessionless server's carries nothing; without one there is
        // no channel at all, and a restart may bring other tools).
        let trusts =
            !(self.policy.relisten_after_drop && (session.is_empty() || !self.standalone_stream));
        if self.tools_list.admits(call, trusts) {
            let retries = self.policy.dead_session_retries();
            self.send_call(io, now, call, session, retries, Task::Main);
        } else if self.tools_list.should_list() {
            self.send_list(io, now, &session);
        }
    }

    fn send_list(&mut self, io: &mut ClientIo, now: u64, session: &str) {
        self.next_request_id += 1;
        let request_id = self.next_request_id;
        self.tools_list.listing = Some(request_id);
        let message = RpcMessage::bare_request(request_id, "tools/list");
        let request = self.post(Some(session), message);
        self.send(io, now, Task::Main, Purpose::List { request_id }, request);
    }

    /// The `tools/list` with id `request_id` was answered (`listed`: with a list): the calls
    /// that waited for it go now, in the current session.
    fn on_listed(&mut self, io: &mut ClientIo, now: u64, request_id: u64, listed: bool) {
        let Some(waiting) = self.tools_list.answered(request_id, listed) else {
            return;
        };
        for call in waiting {
            let state = &self.calls[call];
            if state.done || state.failed {
                continue;
            }
            match self.session.clone() {
                Some(session) if !self.initializing => {
                    let retries = self.policy.dead_session_retries();
                    self.send_call(io, now, call, session, retries, Task::Main);
                }
                _ => self.calls[call].deferred = true,
            }
        }
    }

    /// True when every id strictly between `cursor` and `first` arrived in this session.
    /// The session numbers all its streams from one counter, so a resumed stream whose
    /// first replayed id skips only ids that came on the session's other streams lost
    /// nothing; an id in the gap that never arrived anywhere may have been this stream's,
    /// evicted, so it counts as a gap. `false` for `first <= cursor + 1`.
    fn seen_all_between(&self, cursor: u64, first: u64) -> bool {
        let Some(gap) = first.checked_sub(cursor).and_then(|d| d.checked_sub(1)) else {
            return false;
        };
        if gap == 0 || gap > self.session_ids_seen.len() as u64 {
            return false;
        }
        let mut between: Vec<u64> = self
            .session_ids_seen
            .iter()
            .copied()
            .filter(|&i| i > cursor && i < first)
            .collect();
        between.sort_unstable();
        between.dedup();
        between.len() as u64 == gap
    }

    fn open_get(&mut self, io: &mut ClientIo, now: u64, mut stream: StreamConn) {
        let mut cursor = stream.cursor;
        if self.policy.cursor_only_if_advertised && !self.monotonic_advertised {
            cursor = None;
        }
        let request = HttpRequest {
            protocol_version: Some(self.protocol_version.clone()),
            ..HttpRequest::get(
                Some(stream.session.clone()).filter(|s| !s.is_empty()),
                cursor.map(|c| c.to_string()),
            )
        };
        stream.check_first = if self.policy.contiguity_check {
            cursor
        } else {
            None
        };
        stream.opened_with = cursor;
        stream.opened_with_event = stream.cursor_event.filter(|_| cursor.is_some());
        stream.opened_at_ms = now;
        // The record of a resumption keeps its own copy of the session (a GET without a
        // cursor needs none).
        let resumed = cursor.map(|c| (c, stream.session.clone(), stream.cursor_event));
        let conn = self.send(io, now, Task::Main, Purpose::Get { stream }, request);
        if let Some((cursor, session, cursor_event)) = resumed {
            self.record.resumptions.push(ResumeRecord {
                at_ms: now,
                conn,
                session,
                cursor,
                cursor_event,
            });
        }
    }

    fn raise(&mut self, now: u64, error: ClientError, scope: ErrorScope) {
        if self.policy.standalone_errors_logged && matches!(scope, ErrorScope::Standalone(_)) {
            // Logged by the transport; the application hears nothing.
            return;
        }
        self.record.errors.push(ErrorRecord {
            at_ms: now,
            error,
            scope,
        });
    }

    fn fail_call(&mut self, now: u64, call: usize, message: String) {
        if self.calls[call].done || self.calls[call].failed {
            return;
        }
        self.calls[call].failed = true;
        self.record.calls[call].failed_at_ms = Some(now);
        self.raise(
            now,
            ClientError::Surfaced { message },
            ErrorScope::Call(call),
        );
    }

    fn complete_call(&mut self, now: u64, call: usize) {
        if !self.calls[call].done {
            self.reinits_without_progress = 0;
            self.calls[call].done = true;
            self.calls[call].failed = false;
            self.record.calls[call].completed_at_ms = Some(now);
            self.record.calls[call].failed_at_ms = None;
        }
    }

    // ------------------------------------------------------------------------------
    // Callbacks from the simulator
    // ------------------------------------------------------------------------------

    /// The workload asks for call `call` now.
    pub fn on_call(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        if self.gave_up {
            let why = self.closed_why.as_ref().map_or_else(
                || "no session: the client gave up re-initializing".to_string(),
                |why| format!("the client closed: {why}"),
            );
            self.fail_call(now, call, why);
            return;
        }
        match self.session.clone() {
            Some(session) if !self.initializing => self.call_or_wait(io, now, call, session),
            _ => self.calls[call].deferred = true,
        }
    }

    /// Another task sends a request with the session id it remembered at `from_ms`.
    pub fn on_stale_task(&mut self, io: &mut ClientIo, now: u64, from_ms: u64) {
        self.stale_tasks += 1;
        let task = Task::Stale(self.stale_tasks);
        let session = if self.policy.shared_session_handle {
            self.session.clone()
        } else {
            self.record
                .session_at(from_ms)
                .map(str::to_string)
                .or_else(|| self.session.clone())
        };
        let Some(session) = session else {
            return;
        };
        let call = self.plan_call(
            Tool::Echo {
                text: format!("from {}", task.label()),
            },
            false,
        );
        let retries = self.policy.dead_session_retries();
        self.send_call(io, now, call, session, retries, task);
    }

    pub fn on_wake(&mut self, io: &mut ClientIo, now: u64, token: u64) {
        let Some(wake) = self.wakes.remove(&token) else {
            return;
        };
        match wake {
            Wake::Start => self.initialize(io, now),
            Wake::ReplayDeadline { conn } => {
                let Some(Purpose::Stream(stream)) = self.purposes.get(&conn) else {
                    return;
                };
                let Some(cursor) = stream.check_first else {
                    return;
                };
                let session = stream.session.clone();
                self.cursor_error(io, now, &session, format!(
                        "session {session}: server opened stream with no replayed event for cursor {cursor}; buffer likely expired"
                    ));
            }
            Wake::Reinitialize => {
                if self.session.is_none() && !self.gave_up {
                    self.initialize(io, now);
                }
            }
            Wake::CallDeadline { call, request_id } => {
                self.call_deadline(io, now, call, request_id)
            }
            Wake::ReadSilence { conn } => self.read_silence(io, now, conn),
            Wake::RetryCall {
                call,
                session,
                retries_left,
                task,
            } => {
                if self.calls[call].done {
                    return;
                }
                self.send_call(io, now, call, session, retries_left, task);
            }
            Wake::Reconnect {
                mut stream,
                attempt,
            } => {
                if self.session.as_deref() != Some(stream.session.as_str()) {
                    // Re-initialized meanwhile: the old stream is gone with its session.
                    if let (Logical::Standalone, Some(s)) = (stream.logical, self.session.clone())
                        && !self.has_standalone()
                    {
                        self.open_get(io, now, StreamConn::fresh(Logical::Standalone, s));
                    }
                    return;
                }
                if let Logical::Call(i) = stream.logical
                    && self.calls[i].done
                {
                    return;
                }
                let _ = attempt;
                stream.probe = None;
                self.open_get(io, now, stream);
            }
        }
    }

    /// `request_timeout` ran out for the attempt `request_id` of call `call`: unless it
    /// was answered, or sent again meanwhile, the client gives up on the call: it closes
    /// what it had open for it and fails it.
    fn call_deadline(&mut self, io: &mut ClientIo, now: u64, call: usize, request_id: u64) {
        let state = &self.calls[call];
        if state.done || state.failed || state.request_ids.last() != Some(&request_id) {
            return;
        }
        let conns: Vec<ConnId> = self
            .purposes
            .iter()
            .filter(|(_, p)| match p {
                Purpose::Call { call: c, .. } => *c == call,
                Purpose::Stream(s) | Purpose::Get { stream: s } => s.logical == Logical::Call(call),
                _ => false,
            })
            .map(|(c, _)| c)
            .collect();
        for conn in conns {
            self.purposes.remove(&conn);
            io.closes.push(conn);
        }
        self.wakes.retain(|_, w| match w {
            Wake::RetryCall { call: c, .. } => *c != call,
            Wake::Reconnect { stream, .. } => stream.logical != Logical::Call(call),
            _ => true,
        });
        let timeout = self.policy.request_timeout_ms.unwrap_or_default();
        self.fail_call(
            now,
            call,
            format!(
                "request timed out after {}",
                faultline_model::DurationMs(timeout)
            ),
        );
    }

    /// Starts watching the stream just opened on `conn` for silence (`read_timeout`).
    fn watch_silence(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) {
        if let Some(timeout) = self.policy.read_timeout_ms
            && matches!(self.purposes.get(&conn), Some(Purpose::Stream(_)))
        {
            self.last_heard.insert(conn, now);
            self.wake(io, now + timeout, Wake::ReadSilence { conn });
        }
    }

    /// `read_timeout` may have run out on the stream on `conn`: if nothing came for that
    /// long, the client cuts the stream and treats the cut as a drop; else it looks again
    /// when the timeout would run out from the last event.
    fn read_silence(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) {
        let (Some(timeout), Some(&last)) =
            (self.policy.read_timeout_ms, self.last_heard.get(&conn))
        else {
            return;
        };
        if !matches!(self.purposes.get(&conn), Some(Purpose::Stream(_))) {
            self.last_heard.remove(&conn);
            return;
        }
        if now < last + timeout {
            self.wake(io, last + timeout, Wake::ReadSilence { conn });
            return;
        }
        self.last_heard.remove(&conn);
        io.closes.push(conn);
        if self.policy.read_timeout_fatal {
            // The timeout's error ends the client: fastmcp#937, csharp-sdk#344.
            let Some(Purpose::Stream(stream)) = self.purposes.get(&conn) else {
                return;
            };
            let (logical, session) = (stream.logical, stream.session.clone());
            self.purposes.remove(&conn);
            let why = format!(
                "a read timeout ({timeout} ms without a byte) on a stream of session {session}"
            );
            if logical == Logical::Standalone {
                self.raise(
                    now,
                    ClientError::Surfaced {
                        message: format!("standalone stream: {why}"),
                    },
                    ErrorScope::Standalone(session),
                );
            }
            self.close_client(io, now, &why);
            return;
        }
        self.on_end(io, now, conn, EndMode::Reset);
    }

    fn has_standalone(&self) -> bool {
        self.purposes.values().any(|p| match p {
            Purpose::Stream(s) | Purpose::Get { stream: s } => s.logical == Logical::Standalone,
            _ => false,
        })
    }

    pub fn on_response(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        response: &HttpResponse,
    ) {
        if self.policy.keeps_cookies
            && let Some(set) = &response.set_cookie
        {
            // The jar keeps the `name=value` part; attributes (`Path=/`) stay behind.
            let pair = set.split(';').next().unwrap_or_default().trim();
            self.cookie = Some(pair.to_string());
        }
        if let Some(&i) = self.request_index.get(&conn) {
            let request = &self.record.requests[i];
            let logical = match self.purposes.get(&conn) {
                Some(Purpose::Call { call, .. }) => Some(Logical::Call(*call)),
                Some(Purpose::Get { stream }) => Some(stream.logical),
                Some(Purpose::List { .. }) => Some(Logical::Aux),
                _ => None,
            };
            if let Some(logical) = logical
                && response.status == 200
                && matches!(response.body, ResponseBody::Sse(_))
                && request.last_event_id.is_none()
                && request.session.is_some()
                && request.session == self.session
            {
                self.session_streams.push(logical);
            }
            let seq = self.tick();
            self.record.requests[i].status = Some(response.status);
            self.record.requests[i].answered_seq = Some(seq);
            if (200..300).contains(&response.status)
                && !refused_in_body(response)
                && self.record.requests[i].session.is_some()
                && !matches!(self.purposes.get(&conn), Some(Purpose::Ignore))
            {
                // The session answered: it works, whatever comes next. Not an answer the
                // client ignores (the DELETE of a session it abandoned, `initialized`):
                // behind round robin the DELETE reaches the abandoned session's replica
                // now and then, and counting that as progress re-initialized forever at one
                // instant.
                self.reinits_without_progress = 0;
            }
        }
        let Some(purpose) = self.purposes.remove(&conn) else {
            return;
        };
        let status = response.status;
        match purpose {
            Purpose::Ignore => {}
            Purpose::Initialize => self.on_initialized(io, now, response),
            Purpose::Call {
                call,
                session,
                retries_left,
                task,
            } => match (&response.body, status) {
                (body, _) if self.drops_idless_error(body, status, &session) => {
                    // The error names no request: the call is neither answered nor
                    // failed, and waits (for its request timeout, if any).
                }
                (ResponseBody::Sse(_), 200) => {
                    self.purposes.insert(
                        conn,
                        Purpose::Stream(StreamConn::fresh(Logical::Call(call), session)),
                    );
                }
                (body @ (ResponseBody::Json(_) | ResponseBody::Answer(_)), 200) => {
                    if body.has_rpc_result() && self.holds_result(call) {
                        self.list_before_result(io, now, call, None);
                    } else if body.has_rpc_result() {
                        self.complete_call(now, call);
                    } else {
                        let error = body.rpc_error();
                        let error = error.as_deref().unwrap_or(&Value::Null);
                        self.fail_call(
                            now,
                            call,
                            format!("tools/call returned a JSON-RPC error: {error}"),
                        );
                    }
                }
                (_, 404 | 410) => {
                    self.on_dead_session(io, now, session, Some((call, retries_left, task)), status)
                }
                (body, 400 | 401 | 403 | 409 | 429 | 200 | 503)
                    if self.policy.typed_errors
                        && !session.is_empty()
                        && self.session.as_deref() == Some(session.as_str())
                        && (status < 500 || matches!(body, ResponseBody::Refusal { .. }))
                        && (status != 200 || matches!(body, ResponseBody::Refusal { .. })) =>
                {
                    // Not the spec's death notice, but a dead session is one reason for
                    // it: settle the doubt with a ping before failing the call. A 200 is
                    // a question only when its body is the transport's refusal, and a
                    // 503 only when the server refused in JSON-RPC (a gateway's 503 is an
                    // outage, not an answer about the session).
                    self.verify_session(io, now, session, call, status);
                }
                (ResponseBody::Refusal { code, message }, 200) => self.fail_call(
                    now,
                    call,
                    format!("tools/call returned a JSON-RPC error: {code} {message}"),
                ),
                (_, other) => {
                    self.fail_call(now, call, format!("tools/call failed with HTTP {other}"))
                }
            },
            Purpose::Get { stream } => self.on_get_answer(io, now, conn, stream, response),
            Purpose::List { request_id } => match (&response.body, status) {
                (ResponseBody::Sse(_), 200) => {
                    // The list comes as an event of this stream (`json_responses: false`).
                    self.purposes.insert(
                        conn,
                        Purpose::Stream(StreamConn::fresh(
                            Logical::Aux,
                            self.session.clone().unwrap_or_default(),
                        )),
                    );
                }
                (body @ (ResponseBody::Json(_) | ResponseBody::Answer(_)), 200) => {
                    let listed = body.has_rpc_result();
                    self.on_listed(io, now, request_id, listed);
                }
                (_, 404 | 410) if self.policy.typed_errors => {
                    // The session died under the list: the calls waiting on it wait for
                    // the next session's list instead of going to the dead one.
                    let session = self
                        .request_index
                        .get(&conn)
                        .and_then(|&i| self.record.requests[i].session.clone());
                    self.tools_list.abandon(request_id);
                    if let Some(session) = session {
                        self.on_dead_session(io, now, session, None, status);
                    }
                }
                _ => self.on_listed(io, now, request_id, false),
            },
            Purpose::Probe {
                session,
                buffer,
                stream_conn,
            } => {
                if status == 200 && !refused_in_body(response) {
                    if let ResponseBody::Sse(_) = response.body {
                        // The ping's answer comes as an SSE stream: read it like any other.
                        self.purposes.insert(
                            conn,
                            Purpose::Stream(StreamConn::fresh(Logical::Aux, session.clone())),
                        );
                    }
                    if let Some(Purpose::Stream(s)) = self.purposes.get_mut(&stream_conn) {
                        s.probe = None;
                    }
                    for event in buffer {
                        self.apply(io, now, stream_conn, &event);
                    }
                } else if status == 404 || status == 410 {
                    let n = buffer.len();
                    for event in &buffer {
                        self.record.quarantined.push((event.event, now));
                    }
                    self.session_error(io, now, &session, format!(
                            "session {session} dead despite successful SSE replay; quarantine {n} buffered events, discard cursor, re-initialize"
                        ), false);
                } else {
                    for event in &buffer {
                        self.record.quarantined.push((event.event, now));
                    }
                    self.session_error(io, now, &session, format!(
                            "liveness probe for session {session} returned {status}; refusing to apply buffered events under ambiguous session state"
                        ), true);
                }
            }
            Purpose::ListBeforeResult { call, held } => {
                if status == 200 && matches!(response.body, ResponseBody::Sse(_)) {
                    // The list comes as an SSE stream: read it like any other.
                    if let Some(session) = self.session.clone() {
                        self.purposes.insert(
                            conn,
                            Purpose::Stream(StreamConn::fresh(Logical::Aux, session)),
                        );
                    }
                }
                self.on_listed_before_result(io, now, call, held, status);
            }
            Purpose::Verify {
                session,
                call,
                refused,
            } => {
                if (200..300).contains(&status) && !refused_in_body(response) {
                    if let ResponseBody::Sse(_) = response.body {
                        // The ping's answer comes as an SSE stream: read it like any other.
                        self.purposes.insert(
                            conn,
                            Purpose::Stream(StreamConn::fresh(Logical::Aux, session.clone())),
                        );
                    }
                    self.fail_call(
                        now,
                        call,
                        format!("tools/call failed with HTTP {refused}; the session answers its ping, so the refusal was the call's own"),
                    );
                } else {
                    // Not the spec's death notice: say the session is ended (`DELETE`),
                    // in case the server still holds it somewhere.
                    self.session_error(io, now, &session, format!(
                            "session {session} refused a call with HTTP {refused} and its liveness ping with HTTP {status}: the server no longer holds it; re-initialize and re-issue"
                        ), true);
                }
            }
            Purpose::Stream(_) => {}
        }
        self.watch_silence(io, now, conn);
    }

    /// Sends a session-scoped `ping` to learn whether `session`, which refused call `call`
    /// with `refused` (a 400, 401 or 403), is still alive ([`Purpose::Verify`]).
    /// Whether this answer to a call's POST is an error naming no request that the client
    /// drops (`idless_error: Dropped`): a JSON-RPC error whose `id` is null, in any answer
    /// but the ones such a transport reads by their status first (a 404 naming the
    /// session, a 401/403, a 429), as rmcp 3.11's `post_message` does.
    fn drops_idless_error(&self, body: &ResponseBody, status: u16, session: &str) -> bool {
        if !self.policy.drops_idless_errors
            || matches!(status, 401 | 403 | 429)
            || (status == 404 && !session.is_empty())
        {
            return false;
        }
        match body {
            ResponseBody::Refusal { .. } => true,
            ResponseBody::Json(value) => {
                value.get("error").is_some() && value.get("id").is_none_or(Value::is_null)
            }
            _ => false,
        }
    }

    fn verify_session(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        session: String,
        call: usize,
        refused: u16,
    ) {
        self.next_request_id += 1;
        let ping = RpcMessage::bare_request(self.next_request_id, "ping");
        let request = self.post(Some(&session), ping);
        self.send(
            io,
            now,
            Task::Probe,
            Purpose::Verify {
                session,
                call,
                refused,
            },
            request,
        );
    }

    fn on_initialized(&mut self, io: &mut ClientIo, now: u64, response: &HttpResponse) {
        self.initializing = false;
        // A sessionless 2025 server answers `initialize` without `Mcp-Session-Id`: the
        // client then works with the empty session (no header), unless it requires one.
        let sessionless = (response.status == 200 && response.session_id.is_none())
            .then(|| response.body.has_rpc_result().then(String::new))
            .flatten();
        if sessionless.is_some() && self.policy.requires_session {
            self.raise(
                now,
                ClientError::Surfaced {
                    message: "initialize answered without an Mcp-Session-Id; this client requires a session".into(),
                },
                ErrorScope::Session(String::new()),
            );
            // It refuses the server: the work waiting for a session fails with it.
            self.gave_up = true;
            for call in 0..self.calls.len() {
                if !self.calls[call].done {
                    self.fail_call(now, call, "no session: the server assigns none".into());
                }
            }
            return;
        }
        let (200, Some(session), body @ (ResponseBody::Json(_) | ResponseBody::Answer(_))) = (
            response.status,
            response.session_id.as_ref().or(sessionless.as_ref()),
            &response.body,
        ) else {
            self.raise(
                now,
                ClientError::Surfaced {
                    message: format!("initialize failed with HTTP {}", response.status),
                },
                ErrorScope::Session(String::new()),
            );
            if self.policy.typed_errors {
                // A refused initialize (a 503 while replicas restart, a proxy's 502) is
                // tried again, waiting twice as long each time, so that an outage of up
                // to a minute is outlasted; then the waiting calls fail: never a call left
                // waiting for a session that will not come.
                self.initialize_refusals += 1;
                if self.initialize_refusals <= MAX_INITIALIZE_REFUSALS {
                    let at =
                        now + (self.reconnect_delay_ms << (self.initialize_refusals - 1).min(10));
                    self.wake(io, at, Wake::Reinitialize);
                } else {
                    self.gave_up = true;
                    for call in 0..self.calls.len() {
                        if !self.calls[call].done {
                            self.fail_call(
                                now,
                                call,
                                format!("initialize refused {MAX_INITIALIZE_REFUSALS} times in a row; giving up"),
                            );
                        }
                    }
                }
            }
            return;
        };
        // `get` per key: `pointer` allocates for every path segment.
        // The result is lent, not built, for a typed answer.
        self.monotonic_advertised = body
            .rpc_result()
            .as_deref()
            .and_then(|r| r.get("capabilities"))
            .and_then(|c| c.get("experimental"))
            .and_then(|e| e.get("resumption"))
            .and_then(|r| r.get("sessionMonotonicEventIds"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.session_ids_seen.clear();
        self.session_streams.clear();
        self.server_primes = false;
        self.initialize_refusals = 0;
        let session = session.clone();
        self.session = Some(session.clone());
        self.record.sessions.push((now, session.clone()));
        let note = self.post(
            Some(&session),
            RpcMessage::notification("notifications/initialized"),
        );
        self.send(io, now, Task::Main, Purpose::Ignore, note);
        if self.standalone_stream {
            self.open_get(
                io,
                now,
                StreamConn::fresh(Logical::Standalone, session.clone()),
            );
        }
        if self.policy.relisten_after_drop {
            // A new session: what the old one was told is no guide to this one.
            self.tools_list.drop_list();
        }
        for call in 0..self.calls.len() {
            let state = &self.calls[call];
            let mut reissue = self.policy.reissue_after_reinit
                && !state.request_ids.is_empty()
                && !state.done
                && !state.failed;
            if reissue && state.request_ids.len() > MAX_REISSUES as usize {
                self.fail_call(
                    now,
                    call,
                    format!("gave up after re-issuing the call {MAX_REISSUES} times"),
                );
                reissue = false;
            }
            let state = &self.calls[call];
            if state.deferred || reissue {
                self.calls[call].deferred = false;
                self.calls[call].failed = false;
                self.call_or_wait(io, now, call, session.clone());
            }
        }
        if !self.tools_list.held && self.tools_list.should_list() {
            self.send_list(io, now, &session);
        }
    }

    fn on_get_answer(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        mut stream: StreamConn,
        response: &HttpResponse,
    ) {
        let status = response.status;
        let resumed = self.record.requests[self.request_index[&conn]].last_event_id;
        match (status, &response.body) {
            (200, ResponseBody::Sse(_)) => {
                if resumed.is_some() && self.policy.liveness_probe_after_replay {
                    let ping = {
                        self.next_request_id += 1;
                        RpcMessage::bare_request(self.next_request_id, "ping")
                    };
                    let request = self.post(Some(&stream.session), ping);
                    let probe = self.send(
                        io,
                        now,
                        Task::Probe,
                        Purpose::Probe {
                            session: stream.session.clone(),
                            buffer: Vec::new(),
                            stream_conn: conn,
                        },
                        request,
                    );
                    stream.probe = Some(probe);
                }
                if stream.check_first.is_some() && !self.server_primes {
                    // The replay is sent at once; anything later is live traffic.
                    self.wake(io, now, Wake::ReplayDeadline { conn });
                }
                self.purposes.insert(conn, Purpose::Stream(stream));
            }
            (405, _) if resumed.is_none() && stream.logical == Logical::Standalone => {
                // "The server does not offer an SSE stream at this endpoint" (2025 spec:
                // <https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server>):
                // nothing to retry. A client for which a failed GET is fatal closes on it.
                if self.policy.get_failure_fatal {
                    let session = stream.session.clone();
                    self.give_up_stream(io, now, stream.logical, session, status);
                }
            }
            (404 | 410, _) => {
                let session = stream.session.clone();
                if self.policy.typed_errors {
                    self.on_dead_session(io, now, session, None, status);
                } else {
                    // The naive client retries the GET like any transient failure, then
                    // gives up on the stream and, if its habit says so, re-initializes.
                    let attempt = self.bump_fruitless(stream.logical);
                    if self.get_retries().is_none_or(|n| attempt <= n) {
                        let at = now + self.get_retry_delay(attempt, true);
                        self.wake(io, at, Wake::Reconnect { stream, attempt });
                    } else if self.policy.reinit_on_get && self.policy.reinit != Reinit::Never {
                        self.on_dead_session(io, now, session, None, status);
                    } else {
                        self.give_up_stream(io, now, stream.logical, session, status);
                    }
                }
            }
            (other, _) => {
                let session = stream.session.clone();
                if self.policy.typed_errors {
                    self.cursor_error(io, now, &session, format!(
                            "session {session}: server refused to resume after cursor {} (HTTP {other}); fall back to re-initialize",
                            resumed.map_or("-".into(), |c| c.to_string())
                        ));
                } else {
                    let attempt = self.bump_fruitless(stream.logical);
                    let fatal =
                        self.policy.get_failure_fatal && stream.logical == Logical::Standalone;
                    if !fatal && self.get_retries().is_none_or(|n| attempt <= n) {
                        let at = now + self.get_retry_delay(attempt, false);
                        self.wake(io, at, Wake::Reconnect { stream, attempt });
                    } else {
                        self.give_up_stream(io, now, stream.logical, session, other);
                    }
                }
            }
        }
    }

    /// How many times a failed GET is sent again: the naive client's retries of a failed
    /// request, or (a client that does not re-initialize by retries) its reconnect budget.
    fn get_retries(&self) -> Option<u32> {
        match self.policy.reinit {
            Reinit::AfterRetries(n) => Some(n),
            Reinit::AtOnce | Reinit::Never => self.policy.max_fruitless_reconnects,
        }
    }

    /// The wait before GET attempt `attempt` again: the naive client's own (doubling from
    /// 1 s after a 404, the reconnect delay after anything else), or the reconnect
    /// back-off of a client with other habits.
    fn get_retry_delay(&self, attempt: u32, dead: bool) -> u64 {
        match self.policy.reinit {
            Reinit::AfterRetries(_) if dead => RETRY_BACKOFF_MS << (attempt - 1).min(10),
            Reinit::AfterRetries(_) => self.reconnect_delay(1),
            Reinit::AtOnce | Reinit::Never => self.reconnect_delay(attempt),
        }
    }

    /// The client stops retrying a GET that keeps failing with `status`: a call's stream
    /// fails the call; the standalone stream's loss is surfaced. With `get_failure: Fatal`
    /// the standalone stream's failure closes the whole client.
    fn give_up_stream(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        logical: Logical,
        session: String,
        status: u16,
    ) {
        match logical {
            Logical::Call(i) => {
                self.fail_call(
                    now,
                    i,
                    format!("could not resume the stream (HTTP {status})"),
                );
                return;
            }
            Logical::Standalone | Logical::Aux => self.raise(
                now,
                ClientError::Surfaced {
                    message: format!("standalone stream gave up after HTTP {status}"),
                },
                ErrorScope::Standalone(session.clone()),
            ),
        }
        if self.policy.get_failure_fatal {
            let why = format!("its standalone GET in session {session} failed with HTTP {status}");
            self.close_client(io, now, &why);
        }
    }

    /// `when_done: Exit`: once every call the workload planned has ended (its result handed
    /// over or its failure told), the application exits. Every connection closes, the
    /// session is deleted first when the transport does so (`on_close: DeleteSession`),
    /// nothing more is sent, and the record keeps when the client left: nothing the server
    /// produces after that is owed to it. Asked after every callback (the world does);
    /// does nothing until then, or when the client stays.
    pub fn leave_if_done(&mut self, io: &mut ClientIo, now: u64) {
        if !self.policy.exits_when_done
            || self.record.left_at_ms.is_some()
            || self.calls.is_empty()
            || !self.calls.iter().all(|c| c.done || c.failed)
        {
            return;
        }
        self.record.left_at_ms = Some(now);
        self.wakes.clear();
        self.close_transport(io, now, "the application exited, its calls done");
        self.session = None;
    }

    /// The transport closes, whatever closed it (the application's exit, a fatal error):
    /// every connection is cut, the session is deleted first when the transport does so
    /// (`on_close: DeleteSession`), and nothing more is sent.
    fn close_transport(&mut self, io: &mut ClientIo, now: u64, why: &str) {
        self.closed_why = Some(why.to_string());
        let conns: Vec<ConnId> = self.purposes.keys().collect();
        for conn in conns {
            self.purposes.remove(&conn);
            io.closes.push(conn);
        }
        if self.policy.deletes_session_on_close
            && let Some(session) = self.session.take().filter(|s| !s.is_empty())
        {
            let request = HttpRequest {
                protocol_version: Some(self.protocol_version.clone()),
                ..HttpRequest::delete(Some(session))
            };
            self.send(io, now, Task::Main, Purpose::Ignore, request);
        }
        self.gave_up = true;
    }

    /// `get_failure: Fatal` (or `read_timeout_ends: Client`): the failure ends the client.
    /// Its transport closes ([`close_transport`](Self::close_transport)) and every
    /// unfinished call fails.
    fn close_client(&mut self, io: &mut ClientIo, now: u64, why: &str) {
        self.close_transport(io, now, why);
        for call in 0..self.calls.len() {
            let state = &self.calls[call];
            if !state.done && (state.deferred || !state.request_ids.is_empty()) {
                self.fail_call(now, call, format!("the client closed: {why}"));
            }
        }
    }

    fn bump_fruitless(&mut self, logical: Logical) -> u32 {
        let n = self.fruitless.entry(logical).or_insert(0);
        *n += 1;
        *n
    }

    /// The wait before reconnect `attempt` (1 for the first in a row): the server's
    /// `retry:` if it sent one (up to the policy's cap), else the client's delay grown by its
    /// back-off.
    fn reconnect_delay(&self, attempt: u32) -> u64 {
        if let Some(retry) = self.server_retry_ms {
            return self
                .policy
                .server_retry_cap_ms
                .map_or(retry, |cap| retry.min(cap));
        }
        match self.policy.backoff {
            Backoff::Fixed => self.reconnect_delay_ms,
            Backoff::Growing {
                factor_percent,
                max,
            } => {
                let cap = max.map_or(u64::MAX, |m| m.ms());
                let mut delay = self.reconnect_delay_ms;
                for _ in 1..attempt.min(64) {
                    delay = (delay.saturating_mul(u64::from(factor_percent)) / 100).min(cap);
                }
                delay.min(cap)
            }
        }
    }

    /// A session-scoped request got 404/410.
    fn on_dead_session(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        session: String,
        call: Option<(usize, u32, Task)>,
        status: u16,
    ) {
        if self.policy.typed_errors {
            if self.session.as_deref() == Some(session.as_str()) {
                self.session_error(io, now, &session, format!(
                        "session {session} rejected at transport layer (status={status}); teardown and re-initialize"
                    ), false);
            }
            return;
        }
        match call {
            Some((call, retries_left, task)) if retries_left > 0 => {
                let attempt = self.policy.dead_session_retries() - retries_left;
                let at = now + (RETRY_BACKOFF_MS << attempt.min(10));
                self.wake(
                    io,
                    at,
                    Wake::RetryCall {
                        call,
                        session,
                        retries_left: retries_left - 1,
                        task,
                    },
                );
            }
            Some((call, _, task)) => match self.policy.reinit {
                Reinit::AfterRetries(retries) => {
                    self.fail_call(
                        now,
                        call,
                        format!(
                            "tools/call failed: HTTP {status} (session expired) after {retries} retries"
                        ),
                    );
                    // The agent reacts to the tool failure by re-initializing; other tasks
                    // keep whatever session id they hold.
                    if task == Task::Main && self.session.as_deref() == Some(session.as_str()) {
                        self.reinitialize(io, now);
                    }
                }
                Reinit::AtOnce if task == Task::Main => {
                    // rmcp's `reinit_on_expired_session`: a new session, and the refused
                    // request sent again in it.
                    if self.session.as_deref() == Some(session.as_str()) {
                        self.calls[call].deferred = true;
                        self.reinitialize(io, now);
                    } else if let (Some(current), false) =
                        (self.session.clone(), self.initializing)
                    {
                        self.call_or_wait(io, now, call, current);
                    } else {
                        self.calls[call].deferred = true;
                    }
                }
                Reinit::AtOnce | Reinit::Never => self.fail_call(
                    now,
                    call,
                    format!(
                        "tools/call failed: HTTP {status} (session expired); the client keeps session {session}"
                    ),
                ),
            },
            None if self.policy.reinit == Reinit::Never => {
                if self.session.as_deref() == Some(session.as_str()) {
                    self.raise(
                        now,
                        ClientError::Surfaced {
                            message: format!("standalone stream: HTTP {status}"),
                        },
                        ErrorScope::Standalone(session.clone()),
                    );
                }
            }
            None => {
                if self.session.as_deref() == Some(session.as_str()) {
                    self.raise(
                        now,
                        ClientError::Surfaced {
                            message: format!("standalone stream: HTTP {status}"),
                        },
                        ErrorScope::Standalone(session.clone()),
                    );
                    self.reinitialize(io, now);
                }
            }
        }
    }

    fn reinitialize(&mut self, io: &mut ClientIo, now: u64) {
        let streams: Vec<ConnId> = self.stream_conns_of(self.session.clone().as_deref());
        for conn in streams {
            let purpose = self.purposes.remove(&conn);
            io.closes.push(conn);
            // rmcp aborts the old session's streams and fails the requests they answered.
            if self.policy.reinit == Reinit::AtOnce
                && let Some(Purpose::Stream(s) | Purpose::Get { stream: s }) = purpose
                && let Logical::Call(i) = s.logical
            {
                self.fail_call(
                    now,
                    i,
                    "the session was re-initialized before the response arrived".into(),
                );
            }
        }
        let old = self.session.take().unwrap_or_default();
        self.fruitless.clear();
        self.initialize_again(io, now, &old);
    }

    /// Initializes a new session in place of `old`, unless the client has re-initialized
    /// [`MAX_REINITS_WITHOUT_PROGRESS`] times in a row without progress: then it surfaces
    /// an error, fails what is unfinished and stops.
    fn initialize_again(&mut self, io: &mut ClientIo, now: u64, old: &str) {
        if self.gave_up {
            return;
        }
        self.reinits_without_progress += 1;
        if self.reinits_without_progress <= MAX_REINITS_WITHOUT_PROGRESS {
            self.initialize(io, now);
            return;
        }
        self.gave_up = true;
        self.raise(
            now,
            ClientError::Surfaced {
                message: format!(
                    "gave up after {MAX_REINITS_WITHOUT_PROGRESS} re-initializations without progress (no event applied, no call completed, no request in the session answered with success); the last session was {old}"
                ),
            },
            ErrorScope::Session(old.to_string()),
        );
        for call in 0..self.calls.len() {
            let state = &self.calls[call];
            if !state.done && (state.deferred || !state.request_ids.is_empty()) {
                self.fail_call(
                    now,
                    call,
                    format!(
                        "gave up after {MAX_REINITS_WITHOUT_PROGRESS} re-initializations without progress"
                    ),
                );
            }
        }
    }

    fn stream_conns_of(&self, session: Option<&str>) -> Vec<ConnId> {
        self.purposes
            .iter()
            .filter(|(_, p)| match p {
                Purpose::Stream(s) | Purpose::Get { stream: s } => {
                    Some(s.session.as_str()) == session
                }
                _ => false,
            })
            .map(|(c, _)| c)
            .collect()
    }

    /// Raises `SessionResumptionError` for `session` with `message`, then abandons the
    /// session (`delete`: with a `DELETE`, when the server may still hold it).
    fn session_error(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        session: &str,
        message: String,
        delete: bool,
    ) {
        let error = SessionResumptionError {
            session: session.to_string(),
            message,
        };
        self.raise(
            now,
            ClientError::SessionResumption(error),
            ErrorScope::Session(session.to_string()),
        );
        self.abandon_session(io, now, session, delete);
    }

    /// Seed 002's fallback: raise `ResumptionCursorError`, then abandon the session (DELETE
    /// it, re-initialize, re-issue what was unfinished).
    fn cursor_error(&mut self, io: &mut ClientIo, now: u64, session: &str, message: String) {
        let error = ResumptionCursorError {
            session: session.to_string(),
            message,
        };
        self.raise(
            now,
            ClientError::ResumptionCursor(error),
            ErrorScope::Session(session.to_string()),
        );
        self.abandon_session(io, now, session, true);
    }

    /// Guarded teardown: stop reading the session, quarantine what it buffered, optionally
    /// DELETE it, re-initialize and re-issue what was unfinished.
    fn abandon_session(&mut self, io: &mut ClientIo, now: u64, session: &str, delete: bool) {
        if self.session.as_deref() != Some(session) {
            return;
        }
        let conns = self.stream_conns_of(Some(session));
        for conn in conns {
            self.purposes.remove(&conn);
            io.closes.push(conn);
        }
        let probes: Vec<ConnId> = self
            .purposes
            .iter()
            .filter(|(_, p)| matches!(p, Purpose::Probe { session: s, .. } if s == session))
            .map(|(c, _)| c)
            .collect();
        for probe in probes {
            if let Some(Purpose::Probe { buffer, .. }) = self.purposes.get_mut(&probe) {
                for event in buffer.drain(..) {
                    self.record.quarantined.push((event.event, now));
                }
            }
        }
        if delete {
            let request = HttpRequest {
                protocol_version: Some(self.protocol_version.clone()),
                ..HttpRequest::delete(Some(session.to_string()).filter(|s| !s.is_empty()))
            };
            self.send(io, now, Task::Main, Purpose::Ignore, request);
        }
        self.session = None;
        self.fruitless.clear();
        self.initialize_again(io, now, session);
    }

    pub fn on_event(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        event: &WireEvent,
    ) -> Fate {
        let Some(Purpose::Stream(stream)) = self.purposes.get(&conn) else {
            return Fate::Ignored;
        };
        // Copy the small fields; the session id is cloned only on the (rare) error paths.
        let (logical, cursor, check_first, probe) = (
            stream.logical,
            stream.cursor,
            stream.check_first,
            stream.probe,
        );
        let ids_unique = self.policy.contiguity_check && self.monotonic_advertised;
        if self.policy.read_timeout_ms.is_some() {
            self.last_heard.insert(conn, now);
        }
        if let Some(retry) = event.retry_ms {
            self.server_retry_ms = Some(retry);
        }
        if self.policy.session_check_per_event
            && let WireKind::Notification { owner: Some(owner) } = event.kind
            && owner != faultline_model::session_tag(&self.stream_session(conn))
        {
            return self.refuse_event(io, now, conn, event.event, |session| format!(
                "session {session}: a notification tagged for another session ({owner:016x}) arrived on its stream; the event store mixes sessions; re-initialize"
            ));
        }
        if let Some(id) = event.id {
            if let Some(expected_after) = check_first
                && id != expected_after + 1
                && !(ids_unique && self.seen_all_between(expected_after, id))
            {
                return self.refuse_event(io, now, conn, event.event, |session| format!(
                        "session {session}: non-contiguous replay; expected event {}, got {id}. Event-ID namespace likely reset or gap is unrecoverable; fall back to re-initialize.",
                        expected_after + 1
                ));
            }
            // Only a new stream starts with a priming event (SEP-1699): one that opens a
            // resumed stream means the server started a new stream instead of replaying
            // after the cursor, so what the old stream still owed (a call's result) cannot
            // come on it, however well its id follows the cursor.
            if let Some(expected_after) = check_first
                && event.kind == WireKind::Priming
            {
                return self.refuse_event(io, now, conn, event.event, |session| format!(
                        "session {session}: the resumed stream began with a priming event (id {id}), not a replay after cursor {expected_after}: the server started a new stream; fall back to re-initialize"
                ));
            }
            if ids_unique {
                // Checked where a cross-stream replay shows, the first event after a
                // resumption (rare: a scan is cheaper than keeping the ids sorted). A
                // server that numbers per stream while it advertises session-wide ids is
                // caught there too, and not on fresh streams, which it serves well enough.
                if check_first.is_some() && self.session_ids_seen.contains(&id) {
                    return self.refuse_event(io, now, conn, event.event, |session| format!(
                            "session {session}: event id {id} arrived a second time; the session's ids are unique, so the server replayed another stream's events; fall back to re-initialize"
                    ));
                }
                self.session_ids_seen.push(id);
            }
            // A live stream skips ids of the session's counter that went to its other
            // streams. While the session's server opened only this one stream for the
            // client and nothing else is in flight, an id skipped and never seen went to a
            // stream nobody reads: lost (a replica that forgot, in a restart, which stream
            // was the session's standalone one, and gave its notifications to a new one;
            // `tests/orphaned_stream.rs`).
            if ids_unique
                && check_first.is_none()
                && let Some(c) = cursor
                && id > c.saturating_add(1)
                && self.session_streams.len() <= 1
                && self.alone_in_session(conn)
                && !self.seen_all_between(c, id)
            {
                return self.refuse_event(io, now, conn, event.event, |session| format!(
                        "session {session}: ids {}..={} were skipped on the session's only open stream and never arrived anywhere: a stream the client cannot read took them; fall back to re-initialize",
                        c + 1,
                        id - 1
                ));
            }
            if self.policy.contiguity_check
                && check_first.is_none()
                && cursor.is_some_and(|c| id <= c)
            {
                return self.refuse_event(io, now, conn, event.event, |session| format!(
                        "session {session}: event id went backwards ({id} after {}); the id namespace was reset",
                        cursor.unwrap_or(0)
                ));
            }
            if self.policy.skip_ids_at_or_below_cursor && cursor.is_some_and(|c| id <= c) {
                self.record.skipped.push((event.event, now));
                return Fate::SkippedAsSeen;
            }
            if let Some(Purpose::Stream(s)) = self.purposes.get_mut(&conn) {
                s.cursor = Some(id);
                s.cursor_event = Some(event.event);
                s.check_first = None;
            }
        }
        // Progress means the cursor moved forward, not merely that bytes arrived: a server
        // that replays the same events on every reconnect must not keep a client looping.
        if self.policy.new_event_is_progress
            && event.id.is_none_or(|id| cursor.is_none_or(|c| id > c))
        {
            self.fruitless.remove(&logical);
        }
        if event.kind == WireKind::Priming {
            if check_first.is_none() {
                self.server_primes = true;
            }
            return Fate::Primed;
        }
        if let Some(probe) = probe
            && let Some(Purpose::Probe { buffer, .. }) = self.purposes.get_mut(&probe)
        {
            buffer.push(event.clone());
            return Fate::Buffered;
        }
        if let WireKind::Response {
            request_id: Some(rid),
        } = event.kind
            && let Some(&call) = self.request_to_call.get(&rid)
            && self.holds_result(call)
        {
            self.list_before_result(io, now, call, Some((conn, event.clone())));
            return Fate::Buffered;
        }
        self.apply(io, now, conn, event);
        Fate::Applied
    }

    /// `lists_before_result`: a call's result is held until a `tools/list` answers (once
    /// per client), as the Python SDK's `validate_tool_result` fetches the tool's output
    /// schema before it hands the result over.
    fn holds_result(&self, call: usize) -> bool {
        self.policy.lists_before_result
            && !self.tools_listed_for_results
            && !self.calls[call].done
            && !self.calls[call].failed
            // A list needs a session to be sent in (never held for a list not sent).
            && self.session.is_some()
    }

    /// Sends the `tools/list` a held result waits on; `held`: the result's event and the
    /// connection it came on (`None`: a JSON answer, nothing to apply).
    fn list_before_result(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        call: usize,
        held: Option<(ConnId, WireEvent)>,
    ) {
        // `holds_result` held the result only with a session.
        let session = self.session.clone().unwrap_or_default();
        self.next_request_id += 1;
        let list = RpcMessage::bare_request(self.next_request_id, "tools/list");
        let request = self.post(Some(&session), list);
        self.send(
            io,
            now,
            Task::Main,
            Purpose::ListBeforeResult { call, held },
            request,
        );
    }

    /// The `tools/list` a held result waited on answered `status`: the result is handed
    /// over, or the call fails with its result in hand.
    fn on_listed_before_result(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        call: usize,
        held: Option<(ConnId, WireEvent)>,
        status: u16,
    ) {
        if (200..300).contains(&status) {
            self.tools_listed_for_results = true;
            match held {
                Some((conn, event)) => self.apply(io, now, conn, &event),
                None => self.complete_call(now, call),
            }
        } else {
            if held.is_some() {
                self.stream_done(Logical::Call(call));
            } else if !self.calls[call].done && !self.calls[call].failed {
                self.record.calls[call].result_dropped = true;
            }
            self.fail_call(
                now,
                call,
                format!(
                    "the tools/list sent before handing over the result failed with HTTP {status}"
                ),
            );
        }
    }

    /// A stream of `logical` brought its request's answer: it carries nothing after it.
    fn stream_done(&mut self, logical: Logical) {
        if let Some(i) = self.session_streams.iter().position(|&l| l == logical) {
            self.session_streams.swap_remove(i);
        }
    }

    /// True when `conn` is the only exchange of the client that could still bring events
    /// (a stream, a GET, a POST awaiting its answer): what is in flight besides it is at most
    /// a liveness probe or a request whose answer the client ignores.
    fn alone_in_session(&self, conn: ConnId) -> bool {
        self.purposes.iter().all(|(other, purpose)| {
            other == conn || matches!(purpose, Purpose::Ignore | Purpose::Probe { .. })
        })
    }

    /// The session of the stream read on `conn` (empty if `conn` reads none).
    fn stream_session(&self, conn: ConnId) -> String {
        match self.purposes.get(&conn) {
            Some(Purpose::Stream(s)) => s.session.clone(),
            _ => String::new(),
        }
    }

    /// Refuses an event of the stream on `conn`: quarantines it and raises a
    /// `ResumptionCursorError` for the stream's session, worded by `reason` from the
    /// session id, which abandons the session ([`cursor_error`](Self::cursor_error)).
    fn refuse_event(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        event: EventRef,
        reason: impl FnOnce(&str) -> String,
    ) -> Fate {
        let session = self.stream_session(conn);
        self.record.quarantined.push((event, now));
        let message = reason(&session);
        self.cursor_error(io, now, &session, message);
        Fate::Quarantined
    }

    fn apply(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, event: &WireEvent) {
        self.reinits_without_progress = 0;
        self.record.applied.push(AppliedRecord {
            event: event.event,
            at_ms: now,
            conn,
        });
        match event.kind {
            WireKind::Response {
                request_id: Some(rid),
            } => {
                if let Some(&call) = self.request_to_call.get(&rid) {
                    self.stream_done(Logical::Call(call));
                    self.complete_call(now, call);
                } else if self.tools_list.listing == Some(rid) {
                    self.stream_done(Logical::Aux);
                    self.on_listed(io, now, rid, true);
                }
            }
            WireKind::ListChanged { .. } if self.policy.honours_list_changed => {
                self.tools_list.drop_list()
            }
            _ => {}
        }
    }

    pub fn on_end(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, how: EndMode) {
        let Some(Purpose::Stream(stream)) = self.purposes.remove(&conn) else {
            return;
        };
        if stream.logical == Logical::Aux {
            // A `tools/list` answered over SSE whose stream ended before the list came.
            let listed_here = self
                .request_index
                .get(&conn)
                .is_some_and(|&i| self.record.requests[i].rpc.as_deref() == Some("tools/list"));
            if let (true, Some(rid)) = (listed_here, self.tools_list.listing) {
                self.on_listed(io, now, rid, false);
            }
            return;
        }
        if stream.logical == Logical::Standalone && self.policy.relisten_after_drop {
            // Whatever was published while it reconnects may never arrive.
            self.tools_list.drop_list();
        }
        if let Logical::Call(i) = stream.logical
            && (self.calls[i].done || self.calls[i].failed)
        {
            return;
        }
        if self.session.as_deref() != Some(stream.session.as_str()) {
            return;
        }
        if self.policy.clean_end_is_progress && how == EndMode::Close {
            // The habit of rust-sdk#958 and python-sdk#2393: a clean end starts the count
            // again, whatever the stream brought.
            self.fruitless.remove(&stream.logical);
        }
        let session = stream.session.clone();
        if self.policy.cursor_only_if_advertised
            && !self.monotonic_advertised
            && stream.cursor.is_some()
        {
            self.cursor_error(io, now, &session, format!(
                    "session {session} did not negotiate monotonic event IDs; refusing to resume on Last-Event-ID"
                ));
            return;
        }
        // A resumption that replayed nothing, on a server that primes its streams, and
        // stayed open a while before this end: nothing new was there (a graceful idle
        // close, SEP-1699's polling, or a proxy's idle cut). It resumes again from the same
        // cursor, and the end counts as no failure.
        let quiet_resumption = self.server_primes && now > stream.opened_at_ms;
        if self.policy.contiguity_check && stream.check_first.is_some() && quiet_resumption {
            self.fruitless.remove(&stream.logical);
        }
        if self.policy.contiguity_check
            && let Some(cursor) = stream.check_first
            && !quiet_resumption
        {
            self.cursor_error(io, now, &session, format!(
                    "session {session}: server opened stream with no replayed event for cursor {cursor}; buffer likely expired"
                ));
            return;
        }
        if self.policy.typed_errors
            && stream.logical == Logical::Standalone
            && stream.cursor.is_none()
        {
            self.cursor_error(io, now, &session, format!(
                    "session {session}: the standalone stream ended before any event id arrived; nothing proves no notification was missed; re-initialize"
                ));
            return;
        }
        let attempt = self.bump_fruitless(stream.logical);
        if let Some(limit) = self.policy.max_fruitless_reconnects
            && attempt > limit
        {
            // What the count counted: reconnects that brought nothing new, or (when only
            // a clean end resets it) failures in a row, whatever they brought.
            let counted = if self.policy.new_event_is_progress {
                "without progress"
            } else {
                "in a row"
            };
            match stream.logical {
                Logical::Call(i) => self.fail_call(
                    now,
                    i,
                    format!("gave up resuming after {limit} reconnects {counted}"),
                ),
                Logical::Standalone | Logical::Aux => self.raise(
                    now,
                    ClientError::Surfaced {
                        message: format!(
                            "standalone stream gave up after {limit} reconnects {counted}"
                        ),
                    },
                    ErrorScope::Standalone(session),
                ),
            }
            return;
        }
        let mut stream = stream;
        // Reconnects without `Last-Event-ID` although the stream was a resumption.
        let mut forgot = false;
        match self.policy.cursor_after_resumed_drop {
            CursorAfterDrop::Forget
                if stream.opened_with.is_some() && stream.cursor == stream.opened_with =>
            {
                // typescript-sdk#2499: the cursor the GET sent is not kept, and no new id came.
                forgot = true;
            }
            CursorAfterDrop::Rewind
                if how == EndMode::Reset
                    && stream.opened_with.is_some()
                    && matches!(stream.logical, Logical::Call(_)) =>
            {
                // The Python SDK resumes a call's resumption that failed with the cursor
                // it was opened with: whatever it brought is replayed again. (Its
                // standalone GET keeps the last id, as `Keep`.)
                stream.cursor = stream.opened_with;
                stream.cursor_event = stream.opened_with_event;
            }
            _ => {}
        }
        if !self.policy.resumes {
            if let Logical::Call(_) = stream.logical {
                // Nothing resumes the call's stream: the call waits for an answer that no
                // stream of the client's will bring.
                return;
            }
            forgot = true;
        }
        if forgot {
            stream.cursor = None;
            stream.cursor_event = None;
        }
        if stream.cursor.is_none() && !forgot {
            match stream.logical {
                Logical::Call(i) if self.policy.reissue_after_reinit => {
                    // Nothing to resume from: re-issue the call (it carries an idempotency
                    // key), from a list the client still trusts (else it lists first).
                    self.call_or_wait(io, now, i, session);
                    return;
                }
                Logical::Call(_) if self.policy.call_waits_without_id => {
                    // Not resumable and not failed either: the call waits for an answer no
                    // stream will bring, until its request timeout if it has one.
                    return;
                }
                Logical::Call(i) => {
                    self.fail_call(now, i, "the response stream ended before any event id arrived; nothing to resume from".into());
                    return;
                }
                Logical::Standalone | Logical::Aux => {}
            }
        }
        let at = now + self.reconnect_delay(attempt);
        self.wake(io, at, Wake::Reconnect { stream, attempt });
    }

    /// Schedules the client's start.
    pub fn schedule_start(&mut self, io: &mut ClientIo, at: u64) {
        self.wake(io, at, Wake::Start);
    }

    // take_request_id, counters, calls_done, adopt: what the era probe hands over.
    crate::era_probe::era_handover!();
}

/// `version` as the model's own `&'static` text when it is one the model knows (a scenario
/// may name any string: that one is copied).
fn known_version(version: &str) -> Cow<'static, str> {
    faultline_model::SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .chain(faultline_model::MODERN_PROTOCOL_VERSIONS.iter())
        .find(|&&known| known == version)
        .map_or_else(
            || Cow::Owned(version.to_string()),
            |&known| Cow::Borrowed(known),
        )
}

pub use faultline_verdicts::client_record::call_key;

/// A 2xx whose body is the transport's refusal (a JSON-RPC error without an id): the
/// answer of a server that refuses a dead session with 200 (`dead_session_answer:
/// OkWithError200`). Its status says success; it is not progress, nor proof that the
/// session lives.
fn refused_in_body(response: &HttpResponse) -> bool {
    (200..300).contains(&response.status) && matches!(response.body, ResponseBody::Refusal { .. })
}
