//! The modelled MCP 2026-07-28 client: no `initialize`, no session. Every workload call is
//! one POST carrying its protocol version, capabilities and identity in `_meta`, with the
//! method and tool name repeated in `Mcp-Method` / `Mcp-Name` and `MCP-Protocol-Version:
//! 2026-07-28`; a job tool answers on an SSE stream of its own (progress, then the
//! response), which has no event ids and cannot be resumed
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).
//!
//! So when a call's stream is cut before its response, the call's outcome is unknown: the
//! server may have done the work (committed an order) or not. The two policies differ in
//! one guard, [`Policy::reissue_non_idempotent_after_cut`]:
//!
//! - **naive** re-issues the cut call, whatever the tool, as a new request with a new id,
//!   after its reconnect delay (at most [`MAX_REISSUES`] times): a non-idempotent tool runs
//!   twice, which the `duplicate_effect` verdict finds in the server's ledger;
//! - **guarded** re-issues only idempotent tools (`echo`, `long_job`); for a
//!   non-idempotent one (`place_order`, whose `tools/list` entry says `idempotentHint:
//!   false`) it raises a typed [`CallCutError`] and leaves the call failed. The model
//!   offers no idempotency handle a re-issue could carry to be deduplicated, so not
//!   re-issuing is the one safe thing a client can do on its own; settling whether the
//!   order went through is the application's job.
//!
//! A client with `lists_tools` works from a tools list, as an agent host does: at start it
//! opens `subscriptions/listen` for `toolsListChanged` and calls `tools/list`; it caches the
//! list and calls a tool only from a cached list, listing again first when the cache is
//! gone (a re-issue of a cut call too: one due while the client was away once left from a
//! list that had changed meanwhile). A `list_changed` on its listen stream drops the cache
//! (both clients). Two guards differ, both [`Policy::relisten_after_drop`]
//! (<https://github.com/nicobailon/pi-mcp-adapter/issues/468>):
//!
//! - **naive** never listens again after its listen stream drops (like the SDKs, which do
//!   not re-listen) and keeps its list for 24 hours (the SDKs' clamp on `ttlMs`): a change
//!   made while it is not listening goes unseen, and it calls tools from the old list,
//!   which the `missed_change` verdict finds;
//! - **guarded** honours `ttlMs`, listens again after its reconnect delay when the listen
//!   stream drops, and lists again as soon as the new listen is acknowledged (the server
//!   replays nothing, so only a fresh list covers the time it was not listening). A call
//!   held back while the client was away is checked again as it leaves: from a list that
//!   went stale meanwhile it is taken back and waits for a new one.
//!
//! A listen "drops" however it ends: a reset, a clean end, or the server's last message on
//! it (the listen's `complete` result or `notifications/cancelled`, the two graceful ends
//! the spec's pages disagree on:
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/issues/3348>). Keep-alive
//! comments reach neither client: an SSE parser skips them, and no modelled client has a
//! read timeout they could reset.
//!
//! With `use_tasks` both clients declare the tasks extension
//! (`io.modelcontextprotocol/tasks`, SEP-2663:
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>):
//! a job tool then answers at once with a task id, which the client keeps and polls with
//! `tasks/get` every `pollIntervalMs` until the task is terminal (`completed` inlines the
//! result). When the server no longer knows the id (-32602: purged, expired or lost in a
//! restart) the policies differ in [`Policy::task_lost_is_error`]:
//!
//! - **naive** takes the vanished task for finished and completes the call with nothing
//!   to show: "tasks are not found after a restart" went unnoticed that way
//!   (<https://github.com/ecto/vcad/pull/745>), and the `lost_task` verdict finds it;
//! - **guarded** raises a typed [`TaskLostError`] naming the task id and leaves the call
//!   failed: whether the work was done is for the application to settle.
//!
//! A task reported `failed` or `cancelled` is an untyped error for both.
//!
//! Both clients are told which tools are idempotent (the scenario's [`Tool::idempotent`])
//! rather than listing tools first, so that a run's requests are its calls alone.
//! `StaleTask` and `Notify` have no meaning here and the scenario check refuses them.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use faultline_model::{
    ClientMeta, ConnId, EndMode, HttpRequest, HttpResponse, ModernParams, ResponseBody, RpcMessage,
};
use faultline_scenario::Tool;
use serde_json::{Map, Value, json};

use crate::client::{
    CallState, ClientIo, Fate, Policy, WireEvent, WireKind, call_key, plan_call_into,
};
use crate::client_error::{CallCutError, ClientError, TaskLostError};
use crate::client_record::{
    AppliedRecord, ClientRecord, ErrorRecord, ErrorScope, RequestRecord, Task,
};

/// The protocol revision this client speaks.
pub const MODERN_VERSION: &str = "2026-07-28";

/// How long the naive client keeps a tools list, whatever its `ttlMs` says (the TS and
/// Python clients clamp `ttlMs` at 24 h).
pub const NAIVE_LIST_KEEP_MS: u64 = 24 * 3_600_000;

/// A cut call is re-issued at most this many times (the run must end even against a
/// network that cuts every attempt).
pub const MAX_REISSUES: usize = 3;

#[derive(Debug, Clone, Copy)]
enum Purpose {
    /// A `tools/call` awaiting its answer.
    Call(usize),
    /// The SSE stream answering call `k`.
    Stream(usize),
    /// A `subscriptions/listen` awaiting its answer.
    Listen,
    /// The listen stream.
    ListenStream,
    /// A `tools/list` awaiting its answer.
    List,
    /// A `tasks/get` for call `k`'s task.
    Poll(usize),
}

#[derive(Debug, Clone, Copy)]
enum Wake {
    Start,
    Reissue(usize),
    Relisten,
    Poll(usize),
}

/// The tools list the client holds: when it was listed and the `ttlMs` it came with.
#[derive(Debug, Clone, Copy)]
struct CachedList {
    listed_ms: u64,
    ttl_ms: u64,
}

/// The tasks extension's identifier.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The client's `clientCapabilities`, without and with the tasks extension, and its
/// `clientInfo`: the same in every request's `_meta`, so built once and lent.
static CLIENT_CAPABILITIES: LazyLock<[Value; 2]> =
    LazyLock::new(|| [json!({}), json!({"extensions": {TASKS_EXTENSION: {}}})]);
static CLIENT_INFO: LazyLock<Value> =
    LazyLock::new(|| json!({"name": "faultline-modelled-client", "version": "0"}));

/// A task the client keeps for a call.
#[derive(Debug, Clone)]
struct KeptTask {
    task_id: String,
    poll_interval_ms: u64,
}

#[derive(Debug)]
pub struct ModernClient {
    policy: Policy,
    reconnect_delay_ms: u64,
    started: bool,
    calls: Vec<CallState>,
    purposes: BTreeMap<ConnId, Purpose>,
    request_index: BTreeMap<ConnId, usize>,
    request_to_call: BTreeMap<u64, usize>,
    next_request_id: u64,
    wakes: BTreeMap<u64, Wake>,
    next_token: u64,
    seq: u64,
    /// Works from a tools list (see the module docs).
    lists_tools: bool,
    list: Option<CachedList>,
    /// A `tools/list` is in flight.
    listing: bool,
    /// Calls waiting for a fresh list, in order.
    waiting: Vec<usize>,
    /// How many listen streams were acknowledged so far.
    listens_acked: u32,
    /// Run job tools as tasks (declare the extension, poll `tasks/get`).
    use_tasks: bool,
    /// Per call, the task it runs as.
    tasks: BTreeMap<usize, KeptTask>,
    pub record: ClientRecord,
}

impl ModernClient {
    pub fn new(
        policy: Policy,
        reconnect_delay_ms: u64,
        lists_tools: bool,
        use_tasks: bool,
    ) -> Self {
        ModernClient {
            policy,
            reconnect_delay_ms,
            started: false,
            calls: Vec::new(),
            purposes: BTreeMap::new(),
            request_index: BTreeMap::new(),
            request_to_call: BTreeMap::new(),
            next_request_id: 0,
            wakes: BTreeMap::new(),
            next_token: 0,
            seq: 0,
            lists_tools,
            list: None,
            listing: false,
            waiting: Vec::new(),
            listens_acked: 0,
            use_tasks,
            tasks: BTreeMap::new(),
            record: ClientRecord::default(),
        }
    }

    /// Registers a workload call (in file order) before the run starts.
    pub fn plan_call(&mut self, tool: Tool, progress: bool) -> usize {
        plan_call_into(&mut self.calls, &mut self.record, tool, progress)
    }

    /// The client starts at `at` (there is nothing to initialize: it only begins sending).
    pub fn schedule_start(&mut self, io: &mut ClientIo, at: u64) {
        self.wake(io, at, Wake::Start);
    }

    // take_request_id, counters, calls_done, adopt: what the era probe hands over.
    crate::era_probe::era_handover!();

    /// A request held back while the client was away really left at `now`.
    pub fn mark_sent(&mut self, conn: ConnId, now: u64) {
        if let Some(&i) = self.request_index.get(&conn) {
            self.record.requests[i].at_ms = now;
        }
    }

    /// A request held back while the client was away is about to leave at `now`. The
    /// guarded client checks a call's tools list again first: if it is no longer fresh
    /// (its listen ended meanwhile, or its `ttlMs` passed), the call is taken back (its
    /// attempt unmade) and waits for a new list, like a call made now. Returns whether the
    /// request leaves.
    pub fn may_leave(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) -> bool {
        let Some(&Purpose::Call(call)) = self.purposes.get(&conn) else {
            return true;
        };
        if !self.lists_tools || !self.policy.relisten_after_drop || self.list_fresh(now) {
            return true;
        }
        self.purposes.remove(&conn);
        if let Some(i) = self.request_index.remove(&conn) {
            self.record.requests.remove(i);
            for index in self.request_index.values_mut() {
                if *index > i {
                    *index -= 1;
                }
            }
        }
        if let Some(rid) = self.calls[call].request_ids.pop() {
            self.request_to_call.remove(&rid);
        }
        let attempts = &mut self.record.calls[call].attempts;
        *attempts = attempts.saturating_sub(1);
        self.waiting.push(call);
        self.send_list(io, now);
        false
    }

    fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn wake(&mut self, io: &mut ClientIo, at: u64, wake: Wake) {
        self.next_token += 1;
        self.wakes.insert(self.next_token, wake);
        io.wakes.push((at, self.next_token));
    }

    /// The request `_meta` every POST carries (typed: the model reads it as fields, and
    /// the JSON is built only at the live edge and for the trace), asking for progress
    /// under `progress_token`.
    fn meta(&self, progress_token: Option<String>) -> ClientMeta {
        ClientMeta {
            protocol_version: MODERN_VERSION,
            client_capabilities: &CLIENT_CAPABILITIES[usize::from(self.use_tasks)],
            client_info: &CLIENT_INFO,
            progress_token,
        }
    }

    /// A request's `params`: its own `members` and the `_meta` every request carries.
    fn params(&self, members: Map<String, Value>, progress_token: Option<String>) -> ModernParams {
        ModernParams {
            members: Value::Object(members),
            meta: self.meta(progress_token),
        }
    }

    /// A POST of `method` with `params` (given `_meta`), headers agreeing with the body.
    fn post(&self, rid: u64, method: &str, params: Map<String, Value>) -> HttpRequest {
        let params = self.params(params, None);
        let mut request = HttpRequest::rpc(None, message(rid, method.to_string(), params));
        request.protocol_version = Some(MODERN_VERSION.into());
        request.mcp_method = Some(method.into());
        request
    }

    /// The POST of one attempt at `call`, as a 2026-07-28 client sends it.
    fn request(&self, call: usize, rid: u64) -> HttpRequest {
        let state = &self.calls[call];
        let (name, arguments) = state.tool.wire_call(call);
        // A task's work is not streamed: no progress to ask for.
        let progress_token =
            (state.progress && !(self.use_tasks && state.tool.streams())).then(|| call_key(call));
        let mut params = Map::new();
        params.insert("name".into(), Value::from(name));
        params.insert("arguments".into(), arguments);
        let params = self.params(params, progress_token);
        let mut request = HttpRequest::rpc(None, message(rid, "tools/call", params));
        request.protocol_version = Some(MODERN_VERSION.into());
        request.mcp_method = Some("tools/call".into());
        request.mcp_name = Some(name.into());
        request
    }

    /// The `tasks/get` for `task_id`.
    fn poll_request(&self, task_id: &str, rid: u64) -> HttpRequest {
        let mut params = Map::new();
        params.insert("taskId".into(), Value::from(task_id));
        let params = self.params(params, None);
        let mut request = HttpRequest::rpc(None, message(rid, "tasks/get", params));
        request.protocol_version = Some(MODERN_VERSION.into());
        request.mcp_method = Some("tasks/get".into());
        request
    }

    fn send_poll(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        let Some(task) = self.tasks.get(&call) else {
            return;
        };
        self.next_request_id += 1;
        let request = self.poll_request(&task.task_id, self.next_request_id);
        self.send(io, now, request, "tasks/get", Purpose::Poll(call));
    }

    fn send_call(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        self.next_request_id += 1;
        let rid = self.next_request_id;
        let request = self.request(call, rid);
        self.request_to_call.insert(rid, call);
        self.calls[call].request_ids.push(rid);
        self.record.calls[call].attempts += 1;
        self.send(io, now, request, "tools/call", Purpose::Call(call));
    }

    fn send(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        request: HttpRequest,
        rpc: &str,
        purpose: Purpose,
    ) {
        let conn = io.conn();
        self.request_index.insert(conn, self.record.requests.len());
        let sent_seq = self.tick();
        self.record.requests.push(RequestRecord {
            at_ms: now,
            conn,
            task: Task::Main,
            http: "POST",
            rpc: Some(rpc.into()),
            session: None,
            last_event_id: None,
            status: None,
            sent_seq,
            answered_seq: None,
            call: match purpose {
                Purpose::Call(call) => Some(call),
                _ => None,
            },
        });
        self.purposes.insert(conn, purpose);
        io.sends.push((conn, request, Task::Main));
    }

    /// Sends a request that is not a workload call (a listen, a list).
    fn send_other(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        method: &str,
        params: Map<String, Value>,
        purpose: Purpose,
    ) {
        self.next_request_id += 1;
        let request = self.post(self.next_request_id, method, params);
        self.send(io, now, request, method, purpose);
    }

    fn send_listen(&mut self, io: &mut ClientIo, now: u64) {
        let mut params = Map::new();
        params.insert("notifications".into(), json!({"toolsListChanged": true}));
        self.send_other(io, now, "subscriptions/listen", params, Purpose::Listen);
    }

    fn send_list(&mut self, io: &mut ClientIo, now: u64) {
        if !self.listing {
            self.listing = true;
            self.send_other(io, now, "tools/list", Map::new(), Purpose::List);
        }
    }

    /// Whether the cached list may still be used at `now`.
    fn list_fresh(&self, now: u64) -> bool {
        self.list.is_some_and(|l| {
            let keep = if self.policy.relisten_after_drop {
                l.ttl_ms
            } else {
                NAIVE_LIST_KEEP_MS
            };
            now < l.listed_ms.saturating_add(keep)
        })
    }

    /// Sends `call` now, or (a client that works from a list without a fresh one) lists
    /// first and sends it when the list arrives.
    fn call_or_wait(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        if !self.lists_tools || self.list_fresh(now) {
            self.send_call(io, now, call);
            return;
        }
        self.waiting.push(call);
        self.send_list(io, now);
    }

    fn raise(&mut self, now: u64, error: ClientError, call: usize) {
        self.record.errors.push(ErrorRecord {
            at_ms: now,
            error,
            scope: ErrorScope::Call(call),
        });
    }

    fn fail_call(&mut self, now: u64, call: usize, error: ClientError) {
        if self.calls[call].done || self.calls[call].failed {
            return;
        }
        self.calls[call].failed = true;
        self.record.calls[call].failed_at_ms = Some(now);
        self.raise(now, error, call);
    }

    fn complete_call(&mut self, now: u64, call: usize) {
        if !self.calls[call].done {
            self.calls[call].done = true;
            self.record.calls[call].completed_at_ms = Some(now);
        }
    }

    // ------------------------------------------------------------------------------
    // Callbacks from the simulator
    // ------------------------------------------------------------------------------

    /// The workload asks for call `call` now.
    pub fn on_call(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        if self.started {
            self.call_or_wait(io, now, call);
        } else {
            self.calls[call].deferred = true;
        }
    }

    pub fn on_wake(&mut self, io: &mut ClientIo, now: u64, token: u64) {
        match self.wakes.remove(&token) {
            Some(Wake::Start) => {
                self.started = true;
                if self.lists_tools {
                    self.send_listen(io, now);
                    self.send_list(io, now);
                }
                for call in 0..self.calls.len() {
                    if std::mem::take(&mut self.calls[call].deferred) {
                        self.call_or_wait(io, now, call);
                    }
                }
            }
            Some(Wake::Relisten) => self.send_listen(io, now),
            Some(Wake::Reissue(call)) if !self.calls[call].done && !self.calls[call].failed => {
                self.call_or_wait(io, now, call);
            }
            Some(Wake::Poll(call)) if !self.calls[call].done && !self.calls[call].failed => {
                self.send_poll(io, now, call);
            }
            Some(Wake::Reissue(_) | Wake::Poll(_)) | None => {}
        }
    }

    pub fn on_response(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        response: &HttpResponse,
    ) {
        if let Some(&i) = self.request_index.get(&conn) {
            let seq = self.tick();
            self.record.requests[i].status = Some(response.status);
            self.record.requests[i].answered_seq = Some(seq);
        }
        let call = match self.purposes.remove(&conn) {
            Some(Purpose::Call(call)) => call,
            Some(Purpose::Listen) => {
                if let (ResponseBody::Sse(_), 200) = (&response.body, response.status) {
                    self.purposes.insert(conn, Purpose::ListenStream);
                } else {
                    // No channel for changes: an error the application sees (and a client
                    // that found its era by probing takes for a failure of that era).
                    self.record.errors.push(ErrorRecord {
                        at_ms: now,
                        error: ClientError::Surfaced {
                            message: format!(
                                "subscriptions/listen failed with HTTP {}",
                                response.status
                            ),
                        },
                        scope: ErrorScope::Standalone(String::new()),
                    });
                }
                return;
            }
            Some(Purpose::List) => {
                self.listing = false;
                if response.body.has_rpc_result() {
                    let ttl_ms = response
                        .body
                        .rpc_result_member("ttlMs")
                        .and_then(|ttl| ttl.as_u64())
                        .unwrap_or(0);
                    self.list = Some(CachedList {
                        listed_ms: now,
                        ttl_ms,
                    });
                }
                // The calls that waited go now, from the list just received (or, when
                // listing failed, without one: the call's own answer says what happened).
                for call in std::mem::take(&mut self.waiting) {
                    self.send_call(io, now, call);
                }
                return;
            }
            Some(Purpose::Poll(call)) => {
                self.on_poll_answer(io, now, call, response);
                return;
            }
            _ => return,
        };
        match (&response.body, response.status) {
            (ResponseBody::Sse(_), 200) => {
                self.purposes.insert(conn, Purpose::Stream(call));
            }
            (body, 200)
                if body
                    .rpc_result_member("resultType")
                    .is_some_and(|t| *t == "task")
                    && body
                        .rpc_result_member("taskId")
                        .is_some_and(|t| t.is_string()) =>
            {
                let member = |name| body.rpc_result_member(name);
                let task = KeptTask {
                    task_id: member("taskId")
                        .and_then(|t| t.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    poll_interval_ms: member("pollIntervalMs")
                        .and_then(|p| p.as_u64())
                        .unwrap_or(1_000)
                        .max(1),
                };
                let at = now + task.poll_interval_ms;
                self.tasks.insert(call, task);
                self.wake(io, at, Wake::Poll(call));
            }
            (body, 200) if body.has_rpc_result() => {
                self.complete_call(now, call);
            }
            (body, _) if body.rpc_error().is_some() => {
                let error = body.rpc_error().expect("an error");
                let message = format!("tools/call returned a JSON-RPC error: {error}");
                self.fail_call(now, call, ClientError::Surfaced { message });
            }
            (_, status) => {
                let message = format!("tools/call failed with HTTP {status}");
                self.fail_call(now, call, ClientError::Surfaced { message });
            }
        }
    }

    /// The answer to a `tasks/get` for call `call`'s task.
    fn on_poll_answer(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        call: usize,
        response: &HttpResponse,
    ) {
        let Some(task) = self.tasks.get(&call).cloned() else {
            return;
        };
        // The members read, each borrowed or built alone: a typed answer is not written
        // out whole.
        let body = &response.body;
        if !matches!(
            body,
            ResponseBody::Json(_) | ResponseBody::Answer(_) | ResponseBody::Refusal { .. }
        ) {
            let message = format!("tasks/get failed with HTTP {}", response.status);
            self.fail_call(now, call, ClientError::Surfaced { message });
            return;
        }
        if let Some(error) = body.rpc_error() {
            if error["code"].as_i64() != Some(faultline_model::jsonrpc::INVALID_PARAMS) {
                let message = format!("tasks/get returned a JSON-RPC error: {error}");
                self.fail_call(now, call, ClientError::Surfaced { message });
            } else if self.policy.task_lost_is_error {
                let error = TaskLostError {
                    call: call_key(call),
                    task_id: task.task_id.clone(),
                    message: format!(
                        "tools/call {} ({}): the server no longer knows task {} (tasks/get: {}); whether its work was done is unknown",
                        self.calls[call].tool.wire_call(call).0,
                        call_key(call),
                        task.task_id,
                        error["message"].as_str().unwrap_or("-32602")
                    ),
                };
                self.fail_call(now, call, ClientError::TaskLost(error));
            } else {
                // The naive reading: no such task any more, so it must be over.
                self.complete_call(now, call);
            }
            return;
        }
        let status = body.rpc_result_member("status");
        match status.as_deref().and_then(Value::as_str) {
            Some("working" | "input_required") => {
                self.wake(io, now + task.poll_interval_ms, Wake::Poll(call));
            }
            Some("completed") => self.complete_call(now, call),
            other => {
                let message = format!(
                    "task {} ended {}: {}",
                    task.task_id,
                    other.unwrap_or("with no status"),
                    body.rpc_result_member("error")
                        .as_deref()
                        .and_then(|e| e["message"].as_str())
                        .unwrap_or("")
                );
                self.fail_call(now, call, ClientError::Surfaced { message });
            }
        }
    }

    pub fn on_event(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        event: &WireEvent,
    ) -> Fate {
        let call = match self.purposes.get(&conn).copied() {
            Some(Purpose::Stream(call)) => call,
            Some(Purpose::ListenStream) => {
                self.on_listen_event(io, now, conn, event);
                return Fate::Applied;
            }
            _ => return Fate::Ignored,
        };
        self.record.applied.push(AppliedRecord {
            event: event.event,
            at_ms: now,
            conn,
        });
        if let WireKind::Response {
            request_id: Some(rid),
        } = event.kind
            && self.request_to_call.get(&rid) == Some(&call)
        {
            self.complete_call(now, call);
        }
        Fate::Applied
    }

    /// A message on the listen stream: the acknowledgement of a listen after a drop makes
    /// the guarded client list again; a tools `list_changed` drops the cached list.
    fn on_listen_event(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, event: &WireEvent) {
        self.record.applied.push(AppliedRecord {
            event: event.event,
            at_ms: now,
            conn,
        });
        match event.kind {
            WireKind::ListenAck => {
                self.listens_acked += 1;
                if self.listens_acked > 1 {
                    // Listening again: what changed meanwhile was never sent.
                    self.list = None;
                    self.send_list(io, now);
                }
            }
            WireKind::ListChanged {
                list: faultline_model::ListName::Tools,
            } if self.policy.honours_list_changed => self.list = None,
            // The server ended the listen (its `complete` result, or
            // `notifications/cancelled`): as good as a drop, whatever follows on the wire.
            WireKind::ListenEnded => self.listen_ended(io, now, conn),
            _ => {}
        }
    }

    /// The listen stream on `conn` ended, however (a reset, a clean end, the server's last
    /// message): the guarded client listens again after its reconnect delay and, not
    /// listening meanwhile, no longer trusts its list; the naive one never listens again.
    fn listen_ended(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) {
        if !matches!(self.purposes.remove(&conn), Some(Purpose::ListenStream)) {
            return;
        }
        if self.policy.relisten_after_drop {
            // Not listening, it would not hear of a change: the cached list is no longer
            // known to be current, so a call made meanwhile lists first (found by the
            // 2026-07-28 swarm: a call held back while the client was away left from a
            // list that changed silently).
            self.list = None;
            let at = now + self.reconnect_delay_ms;
            self.wake(io, at, Wake::Relisten);
        }
    }

    /// A call's stream ended: after its response that is the normal end; before it, the
    /// call was cut and its outcome is unknown. A listen stream that ends is listened
    /// again by the guarded client only.
    pub fn on_end(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, how: EndMode) {
        let call = match self.purposes.get(&conn).copied() {
            Some(Purpose::Stream(call)) => {
                self.purposes.remove(&conn);
                call
            }
            Some(Purpose::ListenStream) => return self.listen_ended(io, now, conn),
            _ => {
                self.purposes.remove(&conn);
                return;
            }
        };
        let state = &self.calls[call];
        if state.done || state.failed {
            return;
        }
        let how = match how {
            EndMode::Close => "closed",
            EndMode::Reset => "reset",
        };
        let tool = state.tool.wire_call(call).0;
        if state.request_ids.len() > MAX_REISSUES {
            let message = format!(
                "tools/call {tool} ({}): the request stream was {how} before the response, {} times; gave up re-issuing",
                call_key(call),
                state.request_ids.len()
            );
            self.fail_call(now, call, ClientError::Surfaced { message });
            return;
        }
        if state.tool.idempotent() || self.policy.reissue_non_idempotent_after_cut {
            let at = now + self.reconnect_delay_ms;
            self.wake(io, at, Wake::Reissue(call));
            return;
        }
        let error = CallCutError {
            call: call_key(call),
            tool: tool.to_string(),
            message: format!(
                "tools/call {tool} ({}, request id {}): the request stream was {how} before the response; a 2026-07-28 stream cannot be resumed and {tool} is not idempotent, so it is not re-issued: whether it took effect is unknown",
                call_key(call),
                state.request_ids.last().copied().unwrap_or(0)
            ),
        };
        self.fail_call(now, call, ClientError::CallCut(error));
    }
}

/// A JSON-RPC request, typed (see [`RpcMessage`]); its own `params` members built as maps
/// directly, not through `json!`, which serializes each of its parts (the arguments) into
/// a copy first.
fn message(
    rid: u64,
    method: impl Into<std::borrow::Cow<'static, str>>,
    params: ModernParams,
) -> RpcMessage {
    RpcMessage::request(rid, method, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultline_model::{DurationMs, RequestBody};
    use faultline_scenario::{ClientModel, PickCount};

    fn body(request: &HttpRequest) -> Value {
        match &request.body {
            RequestBody::Rpc(message) => message.to_value(),
            other => panic!("a typed message, not {other:?}"),
        }
    }

    /// The typed `_meta` is sent as the maps the client built before, to the byte: with
    /// and without the tasks extension, with a progress token only where progress is
    /// asked for and a task's work is streamed.
    #[test]
    fn a_request_is_the_json_it_was_built_as() {
        let meta = |capabilities: Value| {
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities,
                "io.modelcontextprotocol/clientInfo":
                    {"name": "faultline-modelled-client", "version": "0"},
            })
        };
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let job = Tool::LongJob {
            steps: PickCount::fixed(2),
            interval: DurationMs(10),
        };
        for use_tasks in [false, true] {
            let mut client = ModernClient::new(Policy::of(ClientModel::Naive), 0, false, use_tasks);
            let call = client.plan_call(job.clone(), true);
            let mut expected_meta = meta(if use_tasks { tasks.clone() } else { json!({}) });
            if !use_tasks {
                expected_meta["progressToken"] = json!("call-0");
            }
            let expected = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": "long_job", "arguments": {"steps": 2, "interval_ms": 10},
                "_meta": expected_meta}});
            let sent = body(&client.request(call, 7));
            assert_eq!(sent, expected);
            assert_eq!(sent.to_string(), expected.to_string());
            let poll = body(&client.poll_request("task-1", 8));
            assert_eq!(
                poll,
                json!({"jsonrpc": "2.0", "id": 8, "method": "tasks/get", "params": {
                    "taskId": "task-1",
                    "_meta": meta(if use_tasks { tasks.clone() } else { json!({}) })}})
            );
        }
    }
}
