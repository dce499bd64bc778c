//! POST: JSON-RPC messages in, answers out as a JSON body or as an SSE stream.
//!
//! This is where `initialize` mints a session and where a `tools/call` becomes a job whose
//! output outlives the request: the reason request streams (and so resumption) exist.
//! The order of the checks is the protocol's: media types, then the body, then
//! `initialize` (which needs no session), then version and session for everything else.

use std::sync::LazyLock;

use serde_json::{Value, json};

use crate::http::{HttpRequest, HttpResponse, Output, RequestBody};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::jsonrpc::{self, Incoming};
use crate::ledger::{ListName, Payload, StreamKind};
use crate::rpc_answer::RpcAnswer;
use crate::rpc_params::{ParamMembers, RpcParams};
use crate::tools::{self, ToolCall};

use super::admission::{Rejection, check_post_media, check_protocol_version};
use super::jobs::JobSpec;
use super::modern::list_versions::legacy_tool_list;
use super::{LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, Server};

/// The version assumed when a request carries no `MCP-Protocol-Version` (spec 2025-06-18).
const DEFAULT_PROTOCOL_VERSION: &str = "2025-03-26";
/// The last protocol revision that allowed JSON-RPC batches.
const BATCH_PROTOCOL_VERSION: &str = "2025-03-26";

/// A POST body read as JSON-RPC: one message, or a batch of them.
struct Messages {
    batch: bool,
    items: Vec<Incoming>,
}

impl Messages {
    /// The JSON-RPC method the ledger records for the POST.
    fn rpc(&self) -> Option<String> {
        if self.batch {
            Some("batch".to_string())
        } else {
            self.items[0].method().map(str::to_string)
        }
    }
}

/// What one request turned into before it is put on the wire.
enum Reply {
    Immediate(RpcAnswer),
    Job,
}

/// What a POST's messages turned into.
struct Replies {
    batch: bool,
    items: Vec<Reply>,
    /// The POST's request stream, opened as soon as a job needed one.
    stream: Option<StreamId>,
}

/// What a request asks of the server: an answer now, or a job that answers later.
pub(super) enum Dispatch {
    Now(RpcAnswer),
    Job(JobSpec),
}

impl Server {
    pub(super) fn handle_post(
        &mut self,
        conn: ConnId,
        mut request: HttpRequest,
        out: &mut Vec<Output>,
    ) {
        // The body is read once, here, and not needed after: take it rather than copy it.
        let checked = check_post_media(&request, self.knobs.accept_wildcard)
            .and_then(|()| read_messages(std::mem::replace(&mut request.body, RequestBody::Empty)));
        let Some(messages) = self.admit(conn, &request, None, checked, out) else {
            return;
        };
        let checked = self.check_echoes(&messages.items);
        if self
            .admit(conn, &request, messages.rpc(), checked, out)
            .is_none()
        {
            return;
        }
        if self.route_post(conn, &mut request, messages.batch, &messages.items, out) {
            return;
        }
        let rpc = messages.rpc();
        if messages
            .items
            .iter()
            .any(|m| m.method() == Some("initialize"))
        {
            if messages.batch {
                self.reject(conn, &request, rpc, Rejection::InitializeInBatch, out);
            } else {
                self.initialize(conn, &request, &messages.items[0], out);
            }
            return;
        }
        let checked = check_protocol_version(&request).and_then(|()| self.live_session(&request));
        let Some(key) = self.admit(conn, &request, rpc.clone(), checked, out) else {
            return;
        };
        let version = self
            .sessions
            .get(key)
            .map_or(DEFAULT_PROTOCOL_VERSION, |s| s.protocol_version);
        if messages.batch && version != BATCH_PROTOCOL_VERSION {
            self.reject(conn, &request, rpc, Rejection::BatchNeedsOldProtocol, out);
            return;
        }
        // Dispatch is pure: decided for every request up front, so that a POST that would
        // open one stream too many is refused before any of its messages acts.
        let max_job_steps = self.limits.max_job_steps;
        let tools_version = self.list_version(ListName::Tools);
        let dispatched: Vec<Option<Dispatch>> = messages
            .items
            .iter()
            .map(|m| match m {
                Incoming::Request { id, method, params } => {
                    Some(dispatch(id, method, params, max_job_steps, tools_version))
                }
                _ => None,
            })
            .collect();
        if self.would_pass_stream_cap(key, &dispatched) {
            self.reject(conn, &request, rpc, Rejection::StreamLimit, out);
            return;
        }
        let checked = self.check_step_budgets(key, &dispatched);
        if self
            .admit(conn, &request, rpc.clone(), checked, out)
            .is_none()
        {
            return;
        }
        self.touch(key);
        let only_initialized = messages
            .items
            .iter()
            .all(|m| m.method() == Some("notifications/initialized"));
        if !only_initialized {
            self.sessions.mark_used(key);
        }
        let lists_tools = !messages.batch && rpc.as_deref() == Some("tools/list");
        let replies = self.run_messages(key, messages, dispatched, out);
        self.answer_post(conn, &request, rpc, key, replies, out);
        if lists_tools {
            self.note_list_version(tools_version);
        }
    }

    /// Acts on each message in order: requests are dispatched (a long tool call starts a
    /// job writing to this POST's stream), cancellations end jobs, responses are ignored.
    fn run_messages(
        &mut self,
        key: SessionKey,
        messages: Messages,
        dispatched: Vec<Option<Dispatch>>,
        out: &mut Vec<Output>,
    ) -> Replies {
        let mut replies = Replies {
            batch: messages.batch,
            items: Vec::new(),
            stream: None,
        };
        for (message, dispatched) in messages.items.into_iter().zip(dispatched) {
            match (message, dispatched) {
                (Incoming::Response, _) => {}
                (Incoming::Notification { method, params }, _) => {
                    if method == "notifications/cancelled" {
                        self.cancel(key, params.get("requestId"), out);
                    }
                }
                (Incoming::Request { .. }, None) => {}
                (Incoming::Request { id, params, .. }, Some(dispatched)) => match dispatched {
                    Dispatch::Now(v) => replies.items.push(Reply::Immediate(v)),
                    Dispatch::Job(spec) => {
                        let stream = *replies
                            .stream
                            .get_or_insert_with(|| self.open_stream(key, StreamKind::Request));
                        self.start_job(key, stream, &id, &params, spec);
                        replies.items.push(Reply::Job);
                    }
                },
            }
        }
        replies
    }

    /// Puts the replies on the wire: 202 for nothing to say, a JSON body when everything
    /// is answered already (and `json_responses` allows it), else an SSE stream that stays
    /// open while jobs write to it.
    fn answer_post(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        key: SessionKey,
        replies: Replies,
        out: &mut Vec<Output>,
    ) {
        if replies.items.is_empty() {
            self.respond(conn, request, rpc, HttpResponse::empty(202), out);
            return;
        }
        let all_immediate = replies
            .items
            .iter()
            .all(|r| matches!(r, Reply::Immediate(_)));
        if all_immediate && self.knobs.json_responses {
            let mut answers = replies.items.into_iter().map(|r| match r {
                Reply::Immediate(answer) => answer,
                Reply::Job => unreachable!("all immediate"),
            });
            // One answer stays typed; a batch's become the JSON array they are.
            let response = if replies.batch {
                HttpResponse::json(
                    200,
                    Value::Array(answers.map(RpcAnswer::into_value).collect()),
                )
            } else {
                HttpResponse::answer(200, answers.next().expect("one reply"))
            };
            self.respond(conn, request, rpc, response, out);
            return;
        }
        let stream = replies
            .stream
            .unwrap_or_else(|| self.open_stream(key, StreamKind::Request));
        self.respond(conn, request, rpc, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        self.prime(stream, key, out);
        for reply in replies.items {
            if let Reply::Immediate(answer) = reply {
                // The ledger keeps the event's message as JSON.
                let message = self.ledger.messages_end();
                self.ledger.messages.push(answer.into_value());
                self.emit(stream, Payload::Response { message }, out);
            }
        }
        let jobs_open = self
            .log
            .get(stream)
            .is_some_and(|l| !l.open_jobs.is_empty());
        if !jobs_open {
            self.complete_stream(stream, out);
        } else {
            // Steps due "now" (interval 0) run at once, in order.
            let now = self.now_ms;
            self.advance(now, out);
        }
    }

    /// `answer` as the one event of a new request stream of `key` (`all_answers_over_sse`),
    /// the response naming `session_id` when given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn answer_on_stream(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        key: SessionKey,
        session_id: Option<String>,
        answer: RpcAnswer,
        out: &mut Vec<Output>,
    ) {
        let stream = self.open_stream(key, StreamKind::Request);
        // Only `initialize`'s answer names a session here (the stateless path has none).
        if let Some(log) = self.log.get_mut(stream) {
            log.answers_initialize = session_id.is_some();
        }
        let mut response = HttpResponse::sse(stream);
        response.session_id = session_id;
        self.respond(conn, request, rpc, response, out);
        self.attach(conn, stream, out);
        self.prime(stream, key, out);
        let message = self.ledger.messages_end();
        self.ledger.messages.push(answer.into_value());
        self.emit(stream, Payload::Response { message }, out);
        self.complete_stream(stream, out);
    }

    /// Whether answering these requests would open a stream for a session whose event
    /// log already holds [`crate::Limits::max_streams_per_session`] of them.
    fn would_pass_stream_cap(&self, key: SessionKey, dispatched: &[Option<Dispatch>]) -> bool {
        let Some(cap) = self.limits.max_streams_per_session else {
            return false;
        };
        let mut requests = dispatched.iter().flatten().peekable();
        let opens_stream = requests.peek().is_some()
            && (!self.knobs.json_responses || requests.any(|d| matches!(d, Dispatch::Job(_))));
        opens_stream && self.log.streams_held(key) >= cap
    }

    fn initialize(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        message: &Incoming,
        out: &mut Vec<Output>,
    ) {
        let rpc = Some("initialize".to_string());
        let Incoming::Request { id, params, .. } = message else {
            self.reject(conn, request, rpc, Rejection::InitializeNotRequest, out);
            return;
        };
        if let Err(why) = self.make_session_room(request.peer, out) {
            self.reject(conn, request, rpc, why, out);
            return;
        }
        let version = negotiated_version(params);
        let wire_id = self.mint_session(version, request.peer);
        let answer = self.initialize_answer(id, version);
        let key = self.ever_minted.get(&wire_id).copied();
        match key {
            Some(key) if self.knobs.all_answers_over_sse => {
                self.answer_on_stream(conn, request, rpc, key, Some(wire_id), answer, out);
            }
            _ => {
                let mut response = HttpResponse::answer(200, answer);
                response.session_id = Some(wire_id);
                self.respond(conn, request, rpc, response, out);
            }
        }
    }
}

impl Server {
    /// The answer to the `initialize` `id` that settled on `version`: its result lent
    /// from the ones built once.
    pub(super) fn initialize_answer(&self, id: &Value, version: &str) -> RpcAnswer {
        let monotonic = self.knobs.advertise_monotonic_ids;
        match SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .position(|v| *v == version)
        {
            Some(i) => RpcAnswer::lent(id, &INITIALIZE_RESULTS[i][usize::from(monotonic)]),
            None => RpcAnswer::result(id, initialize_result(version, monotonic)),
        }
    }
}

/// The `initialize` result of each supported version, without and with the monotonic-ids
/// advertisement: built once and lent to each answer (the same value, so the same bytes),
/// since every session of every run starts with one.
static INITIALIZE_RESULTS: LazyLock<Vec<[Value; 2]>> = LazyLock::new(|| {
    SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .map(|v| [initialize_result(v, false), initialize_result(v, true)])
        .collect()
});

/// The `initialize` result for `version`; `monotonic`: whether it advertises
/// session-lifetime monotonic event ids.
fn initialize_result(version: &str, monotonic: bool) -> Value {
    let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
    if monotonic {
        capabilities["experimental"] = json!({"resumption": {"sessionMonotonicEventIds": true}});
    }
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": {"name": "faultline", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "faultline: a fault-injecting MCP server. Tools: echo, long_job.",
    })
}

/// The version an `initialize` with `params` settles on: the one it asks for when
/// supported, else the latest.
pub(super) fn negotiated_version(params: &RpcParams) -> &'static str {
    let asked = params.protocol_version().unwrap_or(LATEST_PROTOCOL_VERSION);
    SUPPORTED_PROTOCOL_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == asked)
        .unwrap_or(LATEST_PROTOCOL_VERSION)
}

/// What a request asks for: an answer now, or a tool job.
pub(super) fn dispatch(
    id: &Value,
    method: &str,
    params: &RpcParams,
    max_job_steps: u32,
    tools_version: u32,
) -> Dispatch {
    match method {
        "ping" => Dispatch::Now(RpcAnswer::empty(id)),
        "tools/list" => Dispatch::Now(legacy_tool_list_answer(id, tools_version)),
        "logging/setLevel" => match params.as_json().get("level").and_then(Value::as_str) {
            Some(_) => Dispatch::Now(RpcAnswer::empty(id)),
            None => Dispatch::Now(RpcAnswer::error(
                id,
                jsonrpc::INVALID_PARAMS,
                "logging/setLevel needs params.level",
            )),
        },
        "tools/call" => match tools::call_within(params, max_job_steps) {
            ToolCall::Immediate(result) => Dispatch::Now(RpcAnswer::result(id, result)),
            ToolCall::Text(text) => Dispatch::Now(RpcAnswer::text(id, text)),
            ToolCall::Error { code, message } => Dispatch::Now(RpcAnswer::error(id, code, message)),
            ToolCall::Job { steps, interval_ms } => {
                Dispatch::Job(JobSpec::of_call(params, steps, interval_ms))
            }
        },
        "initialize" => Dispatch::Now(RpcAnswer::error(
            id,
            jsonrpc::INVALID_REQUEST,
            "already initialized",
        )),
        other => Dispatch::Now(RpcAnswer::error(
            id,
            jsonrpc::METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        )),
    }
}

/// The answer to a 2025 `tools/list` of list version `version`: the first version's list
/// built once and lent (nearly every list a run gives), a later one built.
fn legacy_tool_list_answer(id: &Value, version: u32) -> RpcAnswer {
    static FIRST: LazyLock<Value> = LazyLock::new(|| legacy_tool_list(1));
    match version {
        ..=1 => RpcAnswer::lent(id, &FIRST),
        _ => RpcAnswer::result(id, legacy_tool_list(version)),
    }
}

/// Parses a POST body into JSON-RPC messages.
fn read_messages(body: RequestBody) -> Result<Messages, Rejection> {
    let body = match body {
        // A typed message is one well-formed message: classified by moving its fields.
        RequestBody::Rpc(message) => {
            return Ok(Messages {
                batch: false,
                items: vec![message.into_incoming()],
            });
        }
        RequestBody::Json(v) => Ok(v),
        RequestBody::Bytes(b) => serde_json::from_slice::<Value>(&b),
        RequestBody::Empty => serde_json::from_slice::<Value>(b""),
    };
    let (batch, items) = match body.map_err(|_| Rejection::ParseError)? {
        Value::Array(values) => (
            true,
            values
                .into_iter()
                .map(jsonrpc::classify)
                .collect::<Result<Vec<_>, _>>()
                .map_err(Rejection::InvalidMessage)?,
        ),
        // Nearly every POST: one message, classified straight into its one-element list.
        single => (
            false,
            vec![jsonrpc::classify(single).map_err(Rejection::InvalidMessage)?],
        ),
    };
    if items.is_empty() {
        return Err(Rejection::EmptyBatch);
    }
    Ok(Messages { batch, items })
}
