//! The field client's habits, one by one, on top of a preset.
//!
//! faultline's two modelled clients are fixed bundles: `naive` (the client of the
//! incident reports) and `guarded` (the reference client with every guard). Field reports
//! are about clients with other habits: one that never re-initializes after a 404
//! (<https://github.com/modelcontextprotocol/typescript-sdk/issues/1708>), one whose retry
//! counter resets on every clean end of stream
//! (<https://github.com/modelcontextprotocol/python-sdk/issues/2393>), one that forgets its
//! cursor when a resumed stream dies before a new id
//! (<https://github.com/modelcontextprotocol/typescript-sdk/issues/2499>). A scenario's
//! `client: (habits: (...))` writes those habits down so that the report's own client
//! meets the report's own server.
//!
//! Habits describe the **field's client**: they change the `naive` preset (the run with
//! `--client naive`, or a scenario whose `model` is `Naive`). The `guarded` preset is the
//! reference client and runs unchanged, so one scenario shows both the report's symptom
//! and what a client with the guards makes of the same server. `like:` starts from a
//! named SDK client's documented habits ([`SdkClient`]); every other field overrides one
//! habit and is written only when set.

use faultline_model::DurationMs;
use serde::{Deserialize, Serialize};

use crate::reconnect::Reconnect;

/// Overrides of the naive preset's habits; `None` keeps the preset's (or `like`'s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClientHabits {
    /// Start from this SDK client's habits instead of the naive client's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub like: Option<SdkClient>,
    /// When a stream that delivers nothing is given up: `GiveUpAfter(n)` or `Forever`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconnect: Option<Reconnect>,
    /// What resets the count of reconnects without progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// How the wait before a reconnect grows (a server's `retry:` always wins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
    /// What the client does when a request in its session is answered 404/410.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reinit: Option<Reinit>,
    /// Whether a 404/410 on the SSE GET (a resumption or the standalone stream) leads to a
    /// new session too, once the GET's reconnects are spent (`true`), or only ends the
    /// stream (`false`: every SDK client of 2025 re-initializes, if at all, on a POST's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reinit_on_get: Option<bool>,
    /// How long a call may wait for its answer before the client gives up on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_timeout: Option<Timeout>,
    /// How long an open SSE stream may stay silent before the client cuts it and
    /// reconnects (an HTTP client's read timeout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_timeout: Option<Timeout>,
    /// What the client does with its cursor when a resumed stream dies before it brought
    /// a new id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor_after_resumed_drop: Option<CursorAfterDrop>,
    /// Whether a failed standalone GET ends the client's whole session (`Fatal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get_failure: Option<GetFailure>,
    /// Whether a dropped stream is resumed with `Last-Event-ID` at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumes: Option<bool>,
    /// Which events are dropped as already seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedup: Option<Dedup>,
    /// Whether a `notifications/tools/list_changed` makes the client list again (with
    /// `lists_tools`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<ListChanged>,
    /// What a call whose response stream ended before any event id does: fails at once,
    /// or waits (for its request timeout, if any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_stream_without_id: Option<NoIdCall>,
    /// What a call does when its POST is answered with a JSON-RPC error that names no
    /// request (`"id": null`, how a transport writes a refusal): fails with it, or drops
    /// it and waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idless_error: Option<IdlessError>,
    /// What the application hears of its standalone stream's failures (a refused GET, a
    /// stream given up): an error, or nothing beyond the transport's log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standalone_errors: Option<StandaloneErrors>,
    /// What a read timeout ends: the stream (reconnected, as a drop) or the whole client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_timeout_ends: Option<ReadTimeoutEnds>,
    /// What the client does before it hands a tool's result over: nothing, or list the
    /// tools first (once) to validate it against the tool's output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_check: Option<ResultCheck>,
    /// Whether the client keeps the cookies a response sets and sends them back (an HTTP
    /// client with a cookie jar), which keeps it pinned behind a cookie-affinity balancer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cookies: Option<Cookies>,
    /// What the client's transport does as it closes (whatever closes it: the
    /// application's exit, a fatal GET failure or read timeout): end its session with a
    /// `DELETE`, or leave it to the server's TTL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_close: Option<OnClose>,
    /// What the application does once every call it made has ended (its result handed
    /// over, or its failure told): stays connected to the end of the run, or exits,
    /// closing the client (see `on_close`). The application's habit, not the SDK's: no
    /// `like` sets it, and `faultline grade --like` sets `Exit`, as the client contract
    /// asks of a real client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_done: Option<WhenDone>,
    /// How the application makes the workload's calls: each at its time, whatever is
    /// still waiting, or one at a time, the next once the last has ended. The
    /// application's habit, like `when_done`: `faultline grade --like` sets `OneAtATime`,
    /// as the client contract's client makes its call and then its follow-ups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<Calls>,
}

impl ClientHabits {
    pub fn is_empty(&self) -> bool {
        *self == ClientHabits::default()
    }
}

/// Real SDK clients whose documented habits a scenario can start from. Each preset is
/// checked against the real client by `faultline grade` (see `docs/clients.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SdkClient {
    /// `@modelcontextprotocol/sdk` 1.x, `StreamableHTTPClientTransport` with its defaults
    /// (<https://github.com/modelcontextprotocol/typescript-sdk/blob/v1.x/src/client/streamableHttp.ts>):
    /// two reconnects, delays 1 s growing ×1.5 to 30 s; no re-initialization after a 404
    /// (typescript-sdk#1708); the cursor forgotten when a resumed stream dies before a new
    /// id (typescript-sdk#2499); a 60 s request timeout; no dedup.
    TypeScript1,
    /// PyPI `mcp` 2.x, `streamablehttp_client`
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/streamable_http.py>):
    /// two reconnects, but the count resets whenever a stream ends cleanly
    /// (python-sdk#2393) and only then, not on an event; no re-initialization after a 404
    /// (python-sdk#1676); a 300 s SSE read timeout; no dedup.
    Python2,
    /// crates.io `rmcp` 3.11, `StreamableHttpClientTransport` with its defaults
    /// (<https://github.com/modelcontextprotocol/rust-sdk/blob/main/crates/rmcp/src/transport/streamable_http_client.rs>):
    /// reconnects without limit, delays doubling from 1 s, every clean close reconnected
    /// (rust-sdk#958); a POST's 404 re-initializes at once and re-sends the request, a
    /// GET's is retried; no timeout; no dedup.
    Rmcp311,
}

impl SdkClient {
    pub const ALL: [SdkClient; 3] = [
        SdkClient::TypeScript1,
        SdkClient::Python2,
        SdkClient::Rmcp311,
    ];

    /// The name `--client` takes.
    pub fn name(self) -> &'static str {
        match self {
            SdkClient::TypeScript1 => "ts-1",
            SdkClient::Python2 => "python-2",
            SdkClient::Rmcp311 => "rmcp-3.11",
        }
    }

    pub fn parse(text: &str) -> Option<SdkClient> {
        SdkClient::ALL.into_iter().find(|c| c.name() == text)
    }

    /// Whether this client can play a scenario whose client speaks `era`: the SDK clients
    /// here are 2025 clients (they initialize and never probe for 2026-07-28), so a
    /// scenario whose client speaks 2026-07-28 only is not theirs.
    pub fn fits(self, era: crate::ClientEra) -> Result<(), String> {
        match era {
            crate::ClientEra::Modern => Err(format!(
                "{} is a 2025 client (it initializes and never speaks 2026-07-28); this scenario's client speaks 2026-07-28 only (`client.era: Modern`)",
                self.name()
            )),
            crate::ClientEra::Legacy | crate::ClientEra::Auto { .. } => Ok(()),
        }
    }

    /// The SDK client's habits, every one written out.
    pub fn habits(self) -> ClientHabits {
        match self {
            SdkClient::TypeScript1 => ClientHabits {
                like: None,
                reconnect: Some(Reconnect::GiveUpAfter(2)),
                progress: Some(Progress::NewEvent),
                backoff: Some(Backoff::Growing {
                    factor_percent: 150,
                    max: Some(DurationMs::from_secs(30)),
                }),
                reinit: Some(Reinit::Never),
                reinit_on_get: Some(false),
                request_timeout: Some(Timeout::After(DurationMs::from_secs(60))),
                read_timeout: Some(Timeout::Never),
                cursor_after_resumed_drop: Some(CursorAfterDrop::Forget),
                get_failure: Some(GetFailure::StreamOnly),
                resumes: Some(true),
                dedup: Some(Dedup::Off),
                list_changed: Some(ListChanged::Honoured),
                call_stream_without_id: Some(NoIdCall::Wait),
                idless_error: Some(IdlessError::Fails),
                standalone_errors: Some(StandaloneErrors::Logged),
                read_timeout_ends: Some(ReadTimeoutEnds::Stream),
                result_check: Some(ResultCheck::None),
                cookies: Some(Cookies::Dropped),
                on_close: Some(OnClose::Abandon),
                when_done: None,
                calls: None,
            },
            SdkClient::Python2 => ClientHabits {
                like: None,
                reconnect: Some(Reconnect::GiveUpAfter(2)),
                progress: Some(Progress::CleanEndOnly),
                backoff: Some(Backoff::Fixed),
                reinit: Some(Reinit::Never),
                reinit_on_get: Some(false),
                request_timeout: Some(Timeout::Never),
                read_timeout: Some(Timeout::After(DurationMs::from_secs(300))),
                cursor_after_resumed_drop: Some(CursorAfterDrop::Rewind),
                get_failure: Some(GetFailure::StreamOnly),
                resumes: Some(true),
                dedup: Some(Dedup::Off),
                list_changed: Some(ListChanged::Honoured),
                call_stream_without_id: Some(NoIdCall::Fail),
                idless_error: Some(IdlessError::Fails),
                standalone_errors: Some(StandaloneErrors::Logged),
                read_timeout_ends: Some(ReadTimeoutEnds::Stream),
                result_check: Some(ResultCheck::ListsToolsFirst),
                cookies: Some(Cookies::Kept),
                on_close: Some(OnClose::DeleteSession),
                when_done: None,
                calls: None,
            },
            SdkClient::Rmcp311 => ClientHabits {
                like: None,
                reconnect: Some(Reconnect::Forever),
                progress: Some(Progress::CleanEnd),
                backoff: Some(Backoff::Growing {
                    factor_percent: 200,
                    max: None,
                }),
                reinit: Some(Reinit::AtOnce),
                reinit_on_get: Some(false),
                request_timeout: Some(Timeout::Never),
                read_timeout: Some(Timeout::Never),
                cursor_after_resumed_drop: Some(CursorAfterDrop::Keep),
                get_failure: Some(GetFailure::StreamOnly),
                resumes: Some(true),
                dedup: Some(Dedup::Off),
                list_changed: Some(ListChanged::Honoured),
                call_stream_without_id: Some(NoIdCall::Fail),
                idless_error: Some(IdlessError::Dropped),
                standalone_errors: Some(StandaloneErrors::Logged),
                read_timeout_ends: Some(ReadTimeoutEnds::Stream),
                result_check: Some(ResultCheck::None),
                cookies: Some(Cookies::Dropped),
                on_close: Some(OnClose::DeleteSession),
                when_done: None,
                calls: None,
            },
        }
    }
}

/// What resets a stream's count of reconnects without progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Progress {
    /// An event whose id is past the cursor (the modelled clients' rule).
    NewEvent,
    /// Also a stream that ends cleanly, whatever it brought: with a server that answers
    /// an unresumable cursor by an empty `200`, the client reconnects for ever
    /// (<https://github.com/modelcontextprotocol/rust-sdk/issues/958>).
    CleanEnd,
    /// Only a stream that ends cleanly; an event past the cursor does not: a stream that
    /// keeps failing (a read timeout shorter than the gaps between events) is given up
    /// after the limit's failures in a row, whatever each brought. The Python SDK's
    /// `_handle_reconnection` and `handle_get_stream` count `attempt + 1` on every failure
    /// and start again at 0 only when a stream ends cleanly
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/streamable_http.py>).
    CleanEndOnly,
}

/// How the wait before a reconnect grows, from the scenario's `reconnect_delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backoff {
    /// Always `reconnect_delay`.
    Fixed,
    /// Each reconnect in a row waits `factor_percent`/100 times the last, up to `max`.
    Growing {
        factor_percent: u32,
        #[serde(default)]
        max: Option<DurationMs>,
    },
}

/// What a client does when a request in its session is answered 404/410.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reinit {
    /// Retry the request `n` times (1 s, 2 s, 4 s, ...), fail it, then re-initialize (the
    /// naive client: `AfterRetries(3)`).
    AfterRetries(u32),
    /// Re-initialize at once and send the request again in the new session (rmcp's
    /// `reinit_on_expired_session`).
    AtOnce,
    /// Fail the request and keep the session id: every later request repeats the 404
    /// (<https://github.com/modelcontextprotocol/typescript-sdk/issues/1708>).
    Never,
}

/// A limit on waiting, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Timeout {
    Never,
    After(DurationMs),
}

impl Timeout {
    pub fn ms(self) -> Option<u64> {
        match self {
            Timeout::Never => None,
            Timeout::After(d) => Some(d.ms()),
        }
    }
}

/// The cursor a client resumes from when a resumed stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CursorAfterDrop {
    /// The last id the stream brought (the one it was opened with if none came).
    Keep,
    /// None when the stream died before it brought a new id: it reconnects without
    /// `Last-Event-ID` (<https://github.com/modelcontextprotocol/typescript-sdk/issues/2499>).
    Forget,
    /// The cursor it was opened with when a call's resumed stream drops (a reset, not a
    /// clean end): what it brought is replayed again and, without dedup, handed over
    /// twice. The Python SDK's `_handle_reconnection` retries a failed resumption of a
    /// request's stream with the `last_event_id` it was called with, not the ids the
    /// resumed stream brought; its standalone GET keeps the last id
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/streamable_http.py>).
    Rewind,
}

/// What a failed standalone GET does to the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GetFailure {
    /// Only the standalone stream is lost; calls go on.
    StreamOnly,
    /// The client closes: every unfinished call fails and nothing more is sent.
    Fatal,
}

/// Which events a client drops as already seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dedup {
    /// Every event whose id is `<=` the cursor (the naive client of the incidents).
    AtOrBelowCursor,
    /// None: ids are opaque (every SDK client of 2025).
    Off,
}

/// What a client with a tools list does with `notifications/tools/list_changed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ListChanged {
    Honoured,
    Ignored,
}

/// What a call does when its response stream ended before any event id arrived (nothing
/// to resume from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoIdCall {
    /// The call fails at once (the Python SDK: "SSE stream ended without a response").
    Fail,
    /// The call waits, neither resumed nor failed, until its request timeout if it has
    /// one: the TypeScript SDK 1.x reconnects a POST stream only once it has seen an id
    /// (`_handleSseStream` in
    /// <https://github.com/modelcontextprotocol/typescript-sdk/blob/v1.x/src/client/streamableHttp.ts>).
    Wait,
}

/// What a call does when its POST is answered with a JSON-RPC error whose `id` is null:
/// the transport's refusal as servers write it (a 400 for a session they no longer know,
/// a 409, a 503 in JSON-RPC), which names no request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdlessError {
    /// The call fails with the error (the TypeScript and Python SDKs fail the request
    /// whose POST was refused, whatever the body says).
    Fails,
    /// The error is dropped and the call waits, for ever without a request timeout: a
    /// 404 to a request naming a session is the exception (`reinit`). rmcp 3.11 hands a
    /// non-2xx JSON-RPC error body on as a message from the server (`Json` in
    /// `post_message`, since
    /// <https://github.com/modelcontextprotocol/rust-sdk/pull/748>), and its service
    /// drops an error without an id ("received id-less peer error", `service.rs`): the
    /// pending request is never answered. A 401/403, a 429 and a 5xx that is not JSON
    /// still fail the call.
    Dropped,
}

/// What an application hears when its client's standalone stream fails: a GET refused
/// (4xx/5xx, a 404 for its session), or the stream given up after its reconnects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StandaloneErrors {
    /// An error, as for a call (the modelled clients').
    Raised,
    /// Nothing: the transport logs it, or hands it to an error callback few applications
    /// set, and no call fails. The TypeScript SDK 1.x calls the transport's `onerror`
    /// (`_startOrAuthSse` in
    /// <https://github.com/modelcontextprotocol/typescript-sdk/blob/v1.x/src/client/streamableHttp.ts>),
    /// the Python SDK's `handle_get_stream` logs at debug level and returns
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/streamable_http.py>),
    /// rmcp's worker warns in its log. Whatever the stream would have brought is lost
    /// without a word.
    Logged,
}

/// What a client's read timeout ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadTimeoutEnds {
    /// The silent stream: cut and reconnected, as a drop.
    Stream,
    /// The whole client: its calls fail and nothing more is sent (a transport whose
    /// timeout error tears it down: <https://github.com/PrefectHQ/fastmcp/issues/937>,
    /// <https://github.com/modelcontextprotocol/csharp-sdk/issues/344>).
    Client,
}

/// What a client does before it hands a tool's result over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResultCheck {
    /// Nothing: the result is handed over as it arrives.
    None,
    /// The first result waits for a `tools/list` (the tool's output schema), and a failed
    /// list fails the call with its result in hand: the Python SDK's `validate_tool_result`
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/session.py>).
    ListsToolsFirst,
}

/// What a client does with the cookies a response sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cookies {
    /// Kept and sent back (Python's httpx, a browser).
    Kept,
    /// Dropped (Node's `fetch`, a bare `reqwest` client).
    Dropped,
}

/// What an application does once every call it made has ended: its result handed over,
/// or its failure told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WhenDone {
    /// Stays connected to the end of the run, listening and reconnecting (a long-lived
    /// application; the modelled clients' default).
    Stay,
    /// Exits: the client closes (as its `on_close` says), every connection is cut and
    /// nothing more is sent (a script, or the client of `faultline grade`'s contract).
    Exit,
}

/// How an application makes its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Calls {
    /// Each at its time in the workload, whatever is still waiting (several users, an
    /// agent running tools in parallel; the modelled clients' default).
    AtTheirTimes,
    /// One at a time: a call whose time has come waits until every call before it has
    /// ended (its result handed over, or its failure told), as a script awaiting each
    /// call does. A call that never ends holds every later one back.
    OneAtATime,
}

/// What a client's transport does with its session as it closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnClose {
    /// Nothing: the session is left to the server's TTL. The TypeScript SDK 1.x:
    /// `StreamableHTTPClientTransport.close()` aborts its requests and ends no session;
    /// that takes an explicit `terminateSession()`
    /// (<https://github.com/modelcontextprotocol/typescript-sdk/blob/v1.x/src/client/streamableHttp.ts>).
    Abandon,
    /// A `DELETE` with the session id, which ends the session and whatever the server was
    /// still doing in it. The Python SDK's `terminate_on_close`, on by default
    /// (<https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/streamable_http.py>),
    /// and rmcp's client worker as it shuts down
    /// (<https://github.com/modelcontextprotocol/rust-sdk/blob/main/crates/rmcp/src/transport/streamable_http_client.rs>).
    /// The spec: a client that no longer needs its session SHOULD send one
    /// (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>).
    DeleteSession,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn client_of(client: &str) -> crate::ClientConfig {
        let text = format!("Scenario(name: \"x\", summary: \"y\", client: {client})");
        Scenario::parse(&text, "habits.ron").unwrap().client
    }

    #[test]
    fn habits_are_written_one_by_one_and_bare_or_in_some() {
        let client = client_of(r#"(habits: (like: Rmcp311, request_timeout: After("60s")))"#);
        assert_eq!(client.habits.like, Some(SdkClient::Rmcp311));
        assert_eq!(
            client.habits.request_timeout,
            Some(Timeout::After(DurationMs::from_secs(60)))
        );
        assert_eq!(client.habits.reinit, None, "left to the preset");
        let some = client_of(r#"(habits: (reinit: Some(Never)))"#);
        let bare = client_of(r#"(habits: (reinit: Never))"#);
        assert_eq!(some.habits, bare.habits);
        assert!(client_of("()").habits.is_empty());
    }

    #[test]
    fn an_sdk_client_is_refused_for_a_client_that_speaks_2026_07_28_only() {
        let text =
            r#"Scenario(name: "x", summary: "y", client: (era: Modern, habits: (like: Python2)))"#;
        let error = Scenario::parse(text, "habits.ron").unwrap_err().to_string();
        assert!(error.contains("python-2 is a 2025 client"), "{error}");
        let probing = r#"Scenario(name: "x", summary: "y", client: (era: Auto(era_cache: "1h"), habits: (like: Python2)))"#;
        assert!(Scenario::parse(probing, "habits.ron").is_ok());
    }

    #[test]
    fn every_sdk_client_is_named_and_sets_every_habit() {
        for sdk in SdkClient::ALL {
            assert_eq!(SdkClient::parse(sdk.name()), Some(sdk));
            let h = sdk.habits();
            assert!(h.like.is_none());
            assert!(
                h.reconnect.is_some()
                    && h.progress.is_some()
                    && h.backoff.is_some()
                    && h.reinit.is_some()
                    && h.reinit_on_get.is_some()
                    && h.request_timeout.is_some()
                    && h.read_timeout.is_some()
                    && h.cursor_after_resumed_drop.is_some()
                    && h.get_failure.is_some()
                    && h.resumes.is_some()
                    && h.dedup.is_some()
                    && h.list_changed.is_some()
                    && h.cookies.is_some()
                    && h.call_stream_without_id.is_some()
                    && h.idless_error.is_some()
                    && h.standalone_errors.is_some()
                    && h.read_timeout_ends.is_some()
                    && h.result_check.is_some()
                    && h.on_close.is_some()
                    && h.when_done.is_none()
                    && h.calls.is_none(),
                "{sdk:?}: every habit of the SDK's, and not the application's `when_done` and `calls`"
            );
        }
    }
}
