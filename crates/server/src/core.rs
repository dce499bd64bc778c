//! The driver: one `faultline_model::Server` behind a mutex, the virtual clock, the fault
//! script, and the table that routes the model's outputs to HTTP connections.
//!
//! Every entry point (a request, a client going away, the ticker, a control call) first
//! steps the model to "now" one due instant at a time, so that an `AfterEvent` fault fires
//! right after its event, not after a batch. Nothing here decides a status code: the model
//! does; this file only moves its outputs onto connections.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bytes::Bytes;
use faultline_model::{
    ConnId, EndMode, EventRef, HttpMethod, HttpRequest, HttpResponse, Output, Payload, RequestBody,
    ResponseBody, Server,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use tokio::sync::mpsc;

use crate::Config;
use crate::clock::VirtualClock;
use crate::script::{Action, FiredFault, LiveFault, Script};

/// At most this many bytes of SSE frames may wait for one slow client; beyond that the
/// connection is cut (the model is told the client went away, the client sees an abort).
pub(crate) const MAX_QUEUED_BYTES: usize = 8 << 20;

/// What the driver hands to one HTTP exchange.
#[derive(Debug)]
pub(crate) enum Frame {
    Respond(HttpResponse),
    /// One rendered SSE event (`id:`/`retry:`/`data:` lines and the blank line).
    Event(Bytes),
    End(EndMode),
}

/// The sending half of one connection's frame queue.
#[derive(Debug)]
struct Sink {
    tx: mpsc::UnboundedSender<Frame>,
    queued: Arc<AtomicUsize>,
}

/// The receiving half, owned by the HTTP response.
#[derive(Debug)]
pub(crate) struct Source {
    pub rx: mpsc::UnboundedReceiver<Frame>,
    pub queued: Arc<AtomicUsize>,
}

#[derive(Debug)]
pub(crate) struct State {
    pub server: Server,
    pub clock: VirtualClock,
    config: Config,
    conns: BTreeMap<ConnId, Sink>,
    /// Never reused, across `/_chaos/reset` too.
    next_conn: u64,
    script: Script,
    pub fired: Vec<FiredFault>,
    /// The virtual time the ticker is sleeping towards (`None`: until woken).
    pub ticker_due: Option<u64>,
    /// Set once shutdown began: new SSE streams end at once.
    pub closing: bool,
}

/// Ledger entries kept per record by a server without the control API.
const LEDGER_WINDOW: u32 = 10_000;

enum Delivery {
    Sent,
    /// The response is gone (client closed) or too far behind.
    Gone,
}

impl State {
    /// A fresh model from `config`, and the notes about what its script does not play.
    pub fn new(config: Config) -> (State, Vec<String>) {
        let (server, script, notes) = Self::build(&config);
        let clock = VirtualClock::new(config.time_scale);
        let state = State {
            server,
            clock,
            config,
            conns: BTreeMap::new(),
            next_conn: 0,
            script,
            fired: Vec::new(),
            ticker_due: None,
            closing: false,
        };
        (state, notes)
    }

    fn build(config: &Config) -> (Server, Script, Vec<String>) {
        // Same derivation as the simulator: the server's session-id seed first, then the
        // scenario's picks from the same stream.
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let server_seed = rng.next_u64();
        let mut server = Server::new(config.knobs.clone(), server_seed);
        if !config.control {
            // Nobody can read the ground truth without the control API: keep a window of
            // it so a long-lived server's memory stays bounded.
            server.bound_ledger(LEDGER_WINDOW);
        }
        let (script, notes) = Script::new(config.scenario.as_ref(), &mut rng);
        (server, script, notes)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `/_chaos/reset`: every open stream is aborted; a fresh model with the same knobs,
    /// the script re-armed, virtual time back to 0.
    pub fn reset(&mut self) {
        let conns = std::mem::take(&mut self.conns);
        for (_, sink) in conns {
            let _ = sink.tx.send(Frame::End(EndMode::Reset));
        }
        let (server, script, _) = Self::build(&self.config);
        self.server = server;
        self.script = script;
        self.fired.clear();
        self.clock.reset();
    }

    // ----------------------------------------------------------------------------------
    // Time
    // ----------------------------------------------------------------------------------

    /// Steps everything due up to the clock's "now"; returns it.
    pub fn sync(&mut self) -> u64 {
        let now = self.clock.now_ms().max(self.server.now_ms());
        self.step_to(now);
        now
    }

    /// Runs the model and the script up to `target`, one due instant at a time.
    fn step_to(&mut self, target: u64) {
        let mut out = Vec::new();
        loop {
            let model_due = self.server.next_due();
            let script_due = self.script.next_due();
            let Some(next) = model_due.into_iter().chain(script_due).min() else {
                break;
            };
            if next > target {
                break;
            }
            if model_due == Some(next) {
                // The model's own work first at a shared instant, as in the simulator.
                self.server.advance(next, &mut out);
                self.route(std::mem::take(&mut out));
            } else if let Some((at, action)) = self.script.pop() {
                self.perform(at, action);
            }
        }
        self.server.advance(target, &mut out);
        self.route(out);
    }

    fn perform(&mut self, at: u64, action: Action) {
        let mut out = Vec::new();
        match action {
            Action::Notify {
                session,
                item,
                remaining,
            } => {
                if self.server.notify(&session, at, &mut out) {
                    self.script.notify_again(session, item, remaining, at);
                }
                self.route(out);
            }
            Action::Fault(index) => {
                self.server.advance(at, &mut out);
                self.route(std::mem::take(&mut out));
                if let Some(fault) = self.script.fault(index) {
                    let more = self.fire(fault);
                    self.route(more);
                }
            }
        }
    }

    /// Performs a fault at the model's current time; returns the outputs to route.
    fn fire(&mut self, fault: LiveFault) -> Vec<Output> {
        let now = self.server.now_ms();
        let mut out = Vec::new();
        let mut cut = Vec::new();
        match fault {
            LiveFault::Drop { mode, stream } => {
                for conn in self.server.open_connections(None) {
                    let Some(s) = self.server.stream_of(conn) else {
                        continue;
                    };
                    let kind = self.server.ledger().stream(s).kind;
                    if self.script.matches(stream, s, kind) {
                        self.server.drop_connection(conn, mode, now, &mut out);
                        cut.push(conn.0);
                    }
                }
            }
            LiveFault::Restart => {
                cut = self
                    .server
                    .open_connections(None)
                    .iter()
                    .map(|c| c.0)
                    .collect();
                self.server.restart(now, &mut out);
            }
            LiveFault::Gc => self.server.gc_now(now, &mut out),
        }
        tracing::info!(at_ms = now, fault = %fault.label(), connections = ?cut, "fault fired");
        self.fired.push(FiredFault {
            at_ms: now,
            fault: fault.label(),
            connections: cut,
        });
        out
    }

    /// The wall-clock instant the ticker should wake at, remembering what it waits for.
    pub fn next_wake(&mut self) -> Option<Instant> {
        let due = self.next_due();
        self.ticker_due = due;
        due.and_then(|d| self.clock.wall_deadline(d))
    }

    pub fn next_due(&self) -> Option<u64> {
        self.server
            .next_due()
            .into_iter()
            .chain(self.script.next_due())
            .min()
    }

    /// True when work now comes due before the instant the ticker sleeps towards.
    pub fn ticker_must_wake(&self) -> bool {
        match (self.next_due(), self.ticker_due) {
            (Some(due), Some(planned)) => due < planned,
            (Some(_), None) => self.clock.scale() > 0.0,
            (None, _) => false,
        }
    }

    // ----------------------------------------------------------------------------------
    // Requests
    // ----------------------------------------------------------------------------------

    /// Hands one HTTP request to the model. The answer (and, for SSE, the stream's
    /// events) arrive on the returned source.
    pub fn handle(&mut self, request: HttpRequest) -> (ConnId, Source) {
        let conn = ConnId(self.next_conn);
        self.next_conn += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        self.conns.insert(
            conn,
            Sink {
                tx,
                queued: queued.clone(),
            },
        );
        let now = self.sync();
        let (answers, jobs) = {
            let l = self.server.ledger();
            (l.answers.len(), l.jobs_end())
        };
        let close_mid_call = closes_stream_mid_call(&request);
        let mut out = Vec::new();
        self.server.handle(conn, request, now, &mut out);
        self.note_call(conn, answers, jobs, &out);
        self.route(out);
        if close_mid_call && self.server.stream_of(conn).is_some() {
            // SEP-1699 polling (`test_reconnection`): the priming event is already queued;
            // end the POST stream cleanly mid-call, as a server that wants the client to
            // poll does. The job goes on; its result waits in the log for the resume.
            let mut out = Vec::new();
            self.server
                .drop_connection(conn, EndMode::Close, now, &mut out);
            self.route(out);
        }
        if self.closing && self.conns.contains_key(&conn) {
            self.end_now(conn, EndMode::Close);
        }
        (conn, Source { rx, queued })
    }

    /// Tells the script about an accepted `tools/call` (for `Call(k)` selectors).
    fn note_call(&mut self, conn: ConnId, answers: usize, jobs: u32, out: &[Output]) {
        let ledger = self.server.ledger();
        let accepted = ledger.answers[answers..].iter().any(|a| {
            a.conn == conn && a.status == 200 && a.rpc_method.as_deref() == Some("tools/call")
        });
        if !accepted {
            return;
        }
        let stream = out.iter().find_map(|o| match o {
            Output::Respond {
                conn: c,
                response:
                    HttpResponse {
                        body: ResponseBody::Sse(s),
                        ..
                    },
            } if *c == conn => Some(*s),
            _ => None,
        });
        let new_jobs: Vec<_> = (jobs..ledger.jobs_end())
            .map(faultline_model::JobId)
            .collect();
        self.script.on_call(stream, &new_jobs);
    }
}

/// True for a POST whose single JSON-RPC message is a `tools/call` of a tool that wants its
/// stream closed mid-call (see `faultline_model::tools::closes_stream_mid_call`).
fn closes_stream_mid_call(request: &HttpRequest) -> bool {
    if request.method != HttpMethod::Post {
        return false;
    }
    let value = match &request.body {
        RequestBody::Bytes(b) => {
            // Cheap pre-filter: only a body that names the tool is parsed a second time.
            let name = faultline_model::tools::TEST_RECONNECTION.as_bytes();
            if !b.windows(name.len()).any(|w| w == name) {
                return false;
            }
            match serde_json::from_slice::<serde_json::Value>(b) {
                Ok(v) => v,
                Err(_) => return false,
            }
        }
        RequestBody::Json(v) => v.clone(),
        RequestBody::Empty => return false,
    };
    value.get("method").and_then(serde_json::Value::as_str) == Some("tools/call")
        && value
            .get("params")
            .is_some_and(faultline_model::tools::closes_stream_mid_call)
}

impl State {
    /// The HTTP response of `conn` was dropped (client closed, or the body finished).
    pub fn client_gone(&mut self, conn: ConnId) {
        if self.conns.remove(&conn).is_none() {
            return;
        }
        let now = self.sync();
        let mut out = Vec::new();
        self.server.disconnect(conn, now, &mut out);
        self.route(out);
    }

    /// `/_chaos/streams/drop`: cuts every open SSE connection, or one session's.
    pub fn drop_streams(&mut self, session: Option<&str>, mode: EndMode) -> Vec<u64> {
        let now = self.sync();
        let mut out = Vec::new();
        let conns = self.server.open_connections(session);
        for &conn in &conns {
            self.server.drop_connection(conn, mode, now, &mut out);
        }
        self.route(out);
        conns.into_iter().map(|c| c.0).collect()
    }

    /// `/_chaos/restart`.
    pub fn restart(&mut self) -> u64 {
        let now = self.sync();
        let mut out = Vec::new();
        self.server.restart(now, &mut out);
        self.route(out);
        now
    }

    /// `/_chaos/clock/advance`: jump, then run everything that came due on the way.
    pub fn advance_clock(&mut self, ms: u64) -> u64 {
        self.clock.jump(ms);
        self.sync()
    }

    /// Shutdown: end every open stream cleanly so that graceful shutdown can finish.
    pub fn close_all(&mut self) {
        self.closing = true;
        let conns = std::mem::take(&mut self.conns);
        for (_, sink) in conns {
            let _ = sink.tx.send(Frame::End(EndMode::Close));
        }
    }

    fn end_now(&mut self, conn: ConnId, how: EndMode) {
        if let Some(sink) = self.conns.remove(&conn) {
            let _ = sink.tx.send(Frame::End(how));
        }
    }

    // ----------------------------------------------------------------------------------
    // Routing
    // ----------------------------------------------------------------------------------

    /// Puts the model's outputs on their connections, in order, firing `AfterEvent`
    /// faults right after their event (their effects go before the rest of the batch).
    fn route(&mut self, out: Vec<Output>) {
        let mut queue: VecDeque<Output> = out.into();
        while let Some(output) = queue.pop_front() {
            let mut more = Vec::new();
            match output {
                Output::Respond { conn, response } => {
                    let sse = matches!(response.body, ResponseBody::Sse(_));
                    let delivered = self.deliver(conn, Frame::Respond(response), 0);
                    if !sse {
                        self.conns.remove(&conn);
                    } else if matches!(delivered, Delivery::Gone) {
                        self.gone(conn, &mut more);
                    }
                }
                Output::Event {
                    conn,
                    event,
                    id,
                    retry_ms,
                } => {
                    let bytes = render_event(&self.server, event, id, retry_ms);
                    let len = bytes.len();
                    if let Delivery::Gone = self.deliver(conn, Frame::Event(bytes), len) {
                        self.gone(conn, &mut more);
                    }
                    let produced = self.server.ledger().event(event);
                    let (stream, ordinal, payload) =
                        (produced.stream, produced.ordinal, produced.payload);
                    if let Payload::Progress { job, .. } | Payload::ToolResult { job } = payload {
                        self.script.on_job_event(job, stream);
                    }
                    let kind = self.server.ledger().stream(stream).kind;
                    for index in self.script.event_triggers(ordinal, stream, kind) {
                        if let Some(fault) = self.script.fault(index) {
                            more.extend(self.fire(fault));
                        }
                    }
                }
                Output::End { conn, how } => {
                    if let Some(sink) = self.conns.remove(&conn) {
                        let _ = sink.tx.send(Frame::End(how));
                    }
                }
            }
            for o in more.into_iter().rev() {
                queue.push_front(o);
            }
            self.observe_sessions();
        }
        self.observe_sessions();
        // Every output has been put on its connection: ledger ids may now be forgotten.
        self.server.trim_ledger();
    }

    fn deliver(&mut self, conn: ConnId, frame: Frame, len: usize) -> Delivery {
        let Some(sink) = self.conns.get(&conn) else {
            // Ended already, or the client left: the network ate it.
            return Delivery::Sent;
        };
        let behind = sink.queued.fetch_add(len, Ordering::AcqRel) + len;
        if behind > MAX_QUEUED_BYTES {
            tracing::warn!(
                conn = conn.0,
                behind,
                "slow SSE client: cutting the connection"
            );
            return Delivery::Gone;
        }
        match sink.tx.send(frame) {
            Ok(()) => Delivery::Sent,
            Err(_) => Delivery::Gone,
        }
    }

    /// A connection can take no more: forget it and tell the model the client is gone.
    /// Dropping the sender makes the response abort after what was already queued.
    fn gone(&mut self, conn: ConnId, out: &mut Vec<Output>) {
        if self.conns.remove(&conn).is_some() {
            let now = self.server.now_ms();
            self.server.disconnect(conn, now, out);
        }
    }

    /// Gives sessions created since the last look their notification schedule.
    fn observe_sessions(&mut self) {
        let ledger = self.server.ledger();
        while self.script.sessions_seen < ledger.sessions.len() {
            let entry = &ledger.sessions[self.script.sessions_seen];
            let (wire, created) = (entry.wire_id.clone(), entry.created_ms);
            self.script.sessions_seen += 1;
            self.script.on_new_session(&wire, created);
        }
    }
}

/// One SSE event: `id: N`, optional `retry: N`, then `data:` with the JSON-RPC message
/// (empty for a priming event), then the blank line.
pub(crate) fn render_event(
    server: &Server,
    event: EventRef,
    id: Option<u64>,
    retry_ms: Option<u64>,
) -> Bytes {
    let mut s = String::with_capacity(160);
    if let Some(id) = id {
        let _ = writeln!(s, "id: {id}");
    }
    if let Some(retry) = retry_ms {
        let _ = writeln!(s, "retry: {retry}");
    }
    match server.event_message(event) {
        // serde_json never writes a raw newline in compact form, so one data line suffices.
        Some(message) => {
            s.push_str("data: ");
            s.push_str(&message.to_string());
            s.push('\n');
        }
        None => s.push_str("data: \n"),
    }
    s.push('\n');
    Bytes::from(s)
}
