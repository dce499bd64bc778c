//! The driver: one engine (`faultline_scenario::Engine`: the model with the scenario's
//! server-side half armed on it) behind a mutex, the virtual clock, and the table that
//! routes the engine's outputs to HTTP connections.
//!
//! Every entry point (a request, a client going away, the ticker, a control call) first
//! steps the engine to "now"; the engine fires faults at their exact point in the output
//! sequence, the same point as in the simulator. Nothing here decides a status code or
//! when a fault fires: the model and the engine do; this file only moves their outputs
//! onto connections.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use bytes::Bytes;
use faultline_model::{
    ConnId, CutReason, EndMode, EventRef, HttpRequest, HttpResponse, Output, ResponseBody, Server,
    StreamKind,
};
use faultline_scenario::{Emitted, Engine, FiredFault, arm};
use tokio::sync::mpsc;

use crate::Config;
use crate::call_gates::CallGates;
use crate::client_hold::ClientHold;
use crate::clock::VirtualClock;
use crate::conn_watch::TcpConn;
use crate::death_watch::DeathWatch;
use crate::plan_notes::plan_notes;
use crate::server_events::{EventSink, ServerEvent};
use crate::time_scale::TimeScale;

mod server_queues;

/// What the driver hands to one HTTP exchange.
#[derive(Debug)]
pub(crate) enum Frame {
    Respond(HttpResponse),
    /// One rendered SSE event (`id:`/`retry:`/`data:` lines and the blank line).
    Event(Bytes),
    /// The quiescence marker (see `quiet_marker`): not an event of the model, not
    /// counted as queued, never in the ledger.
    Marker(Bytes),
    End(EndMode),
}

/// The sending half of one connection's frame queue.
///
/// The slow-reader rules. A hard bound first: a frame that would take the queue past
/// [`crate::Limits::max_queue_bytes`] cuts the stream at once (`queue_full` in the
/// ledger's `cuts`), whatever the reader's pace, so that a reader taking 1 KB a second of
/// a job producing megabytes a second cannot pin gigabytes. Below it, bytes queued alone
/// never cut a connection, because a reader
/// taking everything as fast as it can still falls behind a job that produces thousands
/// of events in one turn. A stream is cut only when its queue is over the bound
/// ([`crate::Limits::stream_queue_bytes`]) at two sweeps in a row (see
/// [`State::cut_stalled_readers`]) and its reader took nothing in between: a client that
/// stopped reading. The cut is the server's doing, and the ledger says so
/// ([`faultline_model::CutEntry`]).
#[derive(Debug)]
struct Sink {
    tx: mpsc::UnboundedSender<Frame>,
    queued: Arc<AtomicUsize>,
    /// Bytes the reader has taken off the queue, ever (its progress).
    taken: Arc<AtomicU64>,
    /// `taken` at the last sweep that found the queue over its bound.
    over_bound_at: Option<u64>,
    /// The TCP connection, closed with the cut so that its queue is freed at once.
    tcp: Option<TcpConn>,
    /// The quiescence marker is the last thing sent on it.
    marked: bool,
    /// The session the exchange belongs to, for the event feed's fault lines (kept only
    /// when someone reads the feed: see [`crate::start_with_events`]).
    session: Option<String>,
}

/// The receiving half, owned by the HTTP response.
#[derive(Debug)]
pub(crate) struct Source {
    pub rx: mpsc::UnboundedReceiver<Frame>,
    pub queued: Arc<AtomicUsize>,
    /// Bytes taken off the queue, ever (see [`Sink`]).
    pub taken: Arc<AtomicU64>,
}

#[derive(Debug)]
pub(crate) struct State {
    pub engine: Engine,
    pub clock: VirtualClock,
    config: Config,
    conns: BTreeMap<ConnId, Sink>,
    /// Streams the engine ended whose frames still wait for their reader: still served,
    /// and still cut by the stall sweep if the reader stopped.
    draining: BTreeMap<ConnId, Sink>,
    /// Never reused, across `/_chaos/reset` too. Starts at 1, as the modelled client's.
    next_conn: u64,
    /// Faults and operator actions that fired (the most recent [`FIRED_KEPT`]).
    pub fired: VecDeque<FiredFault>,
    /// Everything the engine emitted, in order, for an embedding driver that must see the
    /// exact sequence (`run --live`); `None` unless asked for (it grows without bound).
    pub journal: Option<VecDeque<Emitted>>,
    /// Where an auto clock waits for the client (see `client_hold`).
    hold: ClientHold,
    /// The scenario's times for the client's calls (see `call_gates`).
    gates: CallGates,
    /// The scenario's client listens on the standalone stream: gates wait for it to open
    /// (see [`State::listener_awaited`]).
    await_listener: bool,
    /// The virtual time the ticker is sleeping towards (`None`: until woken).
    pub ticker_due: Option<u64>,
    /// Set once shutdown began: new SSE streams end at once.
    pub closing: bool,
    /// Where to tell a person what fired and who died (`None`: nobody is told, and
    /// nothing is spent on it).
    events: Option<EventSink>,
    /// Session deaths already told to the event feed.
    deaths: DeathWatch,
    /// At least the bytes queued on all streams together: every byte queued since they
    /// were last counted (see `server_queues`).
    queued_bound_bytes: usize,
}

/// The quiescence marker: an SSE event of its own type with empty data. Clients that
/// follow the SSE spec dispatch it as a `faultline.quiet` event, which MCP clients (they
/// listen for `message` events) ignore.
pub const QUIET_MARKER: &[u8] = b"event: faultline.quiet\ndata: \n\n";

/// A keep-alive (the model's [`Output::Comment`]): an SSE comment line and the blank
/// line, which SSE parsers skip and proxies count as traffic
/// (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>).
pub const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Fired faults remembered for `GET /_chaos/ledger`.
const FIRED_KEPT: usize = 10_000;

/// What an auto-advancing clock may do (see `auto_advance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AutoStep {
    /// A client waits on the server and everything is sent: jump to this time now.
    Jump(u64),
    /// As `Jump`, but what is due by then ends a job: the answer to a call its client waits
    /// on. The client gets to digest what went out on its other streams first (see
    /// `auto_advance`).
    Answer(u64),
    /// A request is held for the clock to reach this time, and nothing is due before it:
    /// jump there and let the request go on.
    Release(u64),
    /// Everything is sent and nobody is even connected: jump to this time after a grace.
    Quiet(u64),
    /// A call waits at its gate and nothing is due before it: jump there, let it go on.
    OpenGate(u64),
    /// A call waits at its gate, the clock is at the point the client must come back at
    /// after a fault, and it has not come back yet: wait for it (see `auto_advance`).
    AwaitReturn(u64),
    /// A call waits at its gate, but the scenario's client has not opened its standalone
    /// stream yet: wait for it (or for the listener grace, see `auto_advance`).
    AwaitListener,
    /// Frames are still on their way out.
    Busy,
    /// Nothing is due, or nothing may move time now.
    Nothing,
}

enum Delivery {
    Sent,
    /// The response is gone (client closed) or too far behind.
    Gone,
    /// The frame would take the queue past [`crate::Limits::max_queue_bytes`], which
    /// held this many bytes: not queued; the stream is to be cut.
    Full(usize),
}

impl State {
    /// A fresh engine from `config`, and the notes about what of its scenario is played.
    pub fn new(config: Config, events: Option<EventSink>) -> (State, Vec<String>) {
        let (engine, notes) = Self::build(&config);
        // An auto-advancing clock is a frozen one that the auto ticker jumps.
        let scale = if config.auto_grace.is_some() {
            0.0
        } else {
            config.time_scale
        };
        let clock = VirtualClock::new(scale);
        let state = State {
            engine,
            clock,
            journal: config.journal.then(VecDeque::new),
            conns: BTreeMap::new(),
            draining: BTreeMap::new(),
            next_conn: 1,
            fired: VecDeque::new(),
            hold: ClientHold::default(),
            gates: Self::gates(&config),
            await_listener: config.call_gates
                && config
                    .scenario
                    .as_ref()
                    .is_some_and(|s| s.client.standalone_stream),
            ticker_due: None,
            closing: false,
            events,
            deaths: DeathWatch::default(),
            queued_bound_bytes: 0,
            config,
        };
        (state, notes)
    }

    /// With `call_gates`: the armed time of each of the scenario's calls.
    fn gates(config: &Config) -> CallGates {
        match &config.scenario {
            Some(scenario) if config.call_gates => CallGates::new(
                arm(scenario, config.seed)
                    .calls
                    .iter()
                    .map(|c| c.at_ms)
                    .collect(),
            ),
            _ => CallGates::default(),
        }
    }

    fn build(config: &Config) -> (Engine, Vec<String>) {
        let (mut engine, notes) = match &config.scenario {
            Some(scenario) => {
                // The same arming as the simulator's: same seed, same member of the family.
                let armed = arm(scenario, config.seed);
                let notes = plan_notes(scenario, &armed, config.auto_grace.is_some());
                (Engine::new(config.knobs.clone(), &armed), notes)
            }
            None => (
                Engine::without_scenario(config.knobs.clone(), config.seed),
                Vec::new(),
            ),
        };
        engine.server_mut().set_limits(config.limits.model());
        if !config.control && !config.journal {
            // Nobody can read the ground truth without the control API: keep a window of
            // it so a long-lived server's memory stays bounded.
            engine
                .server_mut()
                .bound_ledger(config.limits.ledger_window);
            engine
                .server_mut()
                .bound_ledger_bytes(config.limits.ledger_window_bytes);
        }
        (engine, notes)
    }

    pub fn server(&self) -> &Server {
        self.engine.server()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `/_chaos/reset`: every open stream is aborted; a fresh engine with the same knobs,
    /// the scenario re-armed, virtual time back to 0.
    pub fn reset(&mut self) {
        let conns = std::mem::take(&mut self.conns);
        for (_, sink) in conns {
            let _ = sink.tx.send(Frame::End(EndMode::Reset));
        }
        self.draining.clear();
        self.queued_bound_bytes = 0;
        let (engine, _) = Self::build(&self.config);
        self.engine = engine;
        self.fired.clear();
        self.hold.clear();
        self.gates.clear();
        self.deaths = DeathWatch::default();
        if let Some(journal) = &mut self.journal {
            journal.clear();
        }
        self.clock.reset();
    }

    // ----------------------------------------------------------------------------------
    // Time
    // ----------------------------------------------------------------------------------

    /// Begins a turn (the caller holds the lock) and steps everything due up to the
    /// clock's "now", job steps as far as the turn's budget goes; returns "now".
    pub fn sync(&mut self) -> u64 {
        self.engine.server_mut().begin_turn();
        let now = self.clock.now_ms().max(self.server().now_ms());
        let mut out = Vec::new();
        self.engine.advance_to(now, &mut out);
        self.route(out);
        now
    }

    /// The wall-clock instant the ticker should wake at, remembering what it waits for.
    pub fn next_wake(&mut self) -> Option<Instant> {
        let due = self.next_due();
        self.ticker_due = due;
        due.and_then(|d| self.clock.wall_deadline(d))
    }

    pub fn next_due(&self) -> Option<u64> {
        self.engine.next_due()
    }

    /// What an auto-advancing clock may do now (see `auto_advance`).
    pub fn auto_step(&self, open_tcp: usize) -> AutoStep {
        let due = self.next_due();
        let unsent = self
            .conns
            .values()
            .any(|sink| sink.queued.load(Ordering::Acquire) > 0);
        if !self.gates.started() {
            return AutoStep::Nothing;
        }
        if self.hold.going() || self.gates.going() {
            // A request let go at its point is being handled there: not past it yet.
            return AutoStep::Busy;
        }
        // A call held at its gate is a client waiting on the server, like a held request.
        let gated = self.gates.earliest();
        let waiting = self.hold.has_held() || gated.is_some();
        match self.hold.until() {
            // Never past the point the client must come back at (see `client_hold`).
            Some(until) if due.is_none_or(|d| d > until) => {
                return match (self.hold.has_held(), gated, unsent) {
                    (_, _, true) => AutoStep::Nothing,
                    (true, _, false) => AutoStep::Release(until),
                    // Only a call made before the fault waits: the client has not come
                    // back from it yet.
                    (false, Some(_), false) => AutoStep::AwaitReturn(until),
                    (false, None, false) => AutoStep::Nothing,
                };
            }
            Some(_) if waiting => {
                // Someone waits for the clock: run what is due before the point at once.
                return match (unsent, due) {
                    (false, Some(d)) => self.jump(d),
                    _ => AutoStep::Busy,
                };
            }
            _ => {}
        }
        if let Some(gate) = gated {
            if unsent {
                return AutoStep::Busy;
            }
            if self.await_listener && !self.listening() {
                return AutoStep::AwaitListener;
            }
            return match due {
                Some(d) if d <= gate => self.jump(d),
                _ => AutoStep::OpenGate(gate),
            };
        }
        let Some(due) = due else {
            return AutoStep::Nothing;
        };
        if unsent {
            return AutoStep::Busy;
        }
        let notifications_to_come = self.engine.notifications_pending();
        let awaited = self.conns.keys().any(|&conn| {
            self.server().stream_of(conn).is_some_and(|s| {
                let stream = self.server().ledger().stream(s);
                match stream.kind {
                    StreamKind::Request => true,
                    // A standalone stream is a client listening; it waits on the server
                    // while something is to come: a scripted notification, or the steps
                    // of one of its session's jobs (their events may be resumed from it).
                    StreamKind::Standalone => {
                        notifications_to_come || self.has_running_job(stream.session)
                    }
                    // A 2026-07-28 listen stream waits for list changes, which only
                    // scripted work (a fault) makes: while some is to come, whatever is
                    // due may be one. Keep-alives and an idle proxy alone do not move the
                    // clock: they are due for ever, and time would race through them.
                    StreamKind::Listen => self.engine.scripted_pending(),
                }
            })
        });
        if awaited {
            self.jump(due)
        } else if open_tcp == 0 {
            AutoStep::Quiet(due)
        } else {
            // Connected, waiting on nothing: between two requests.
            AutoStep::Nothing
        }
    }

    /// A jump to `due`: [`AutoStep::Answer`] when a job ends by then, `Jump` otherwise.
    fn jump(&self, due: u64) -> AutoStep {
        if self.server().job_ends_by(due) {
            AutoStep::Answer(due)
        } else {
            AutoStep::Jump(due)
        }
    }

    /// A standalone stream is open on some connection.
    fn listening(&self) -> bool {
        self.conns.keys().any(|&conn| {
            self.server()
                .stream_of(conn)
                .is_some_and(|s| self.server().ledger().stream(s).kind == StreamKind::Standalone)
        })
    }

    /// The client did not open its standalone stream within the grace: gates stop waiting
    /// for it (a client that never listens).
    pub fn waive_listener(&mut self) {
        self.await_listener = false;
    }

    /// A `tools/call` arrived: `Some(receiver)` when it must wait for its gate. Which
    /// workload call it is, the engine says (one definition of "call k": a retry of call
    /// 0 waits for call 0's gate, not call 1's).
    pub fn admit_call(
        &mut self,
        body: &serde_json::Value,
    ) -> Option<tokio::sync::oneshot::Receiver<()>> {
        self.config.auto_grace?;
        let now = self.clock.now_ms();
        let call = self.engine.call_of(body);
        self.gates.admit(now, call)
    }

    /// A call let go at its gate was handled.
    pub fn gate_call_handled(&mut self) {
        self.gates.handled();
    }

    /// The clock may move to `gate`: jump there and let the calls waiting for it go on.
    pub fn open_gate(&mut self, gate: u64) {
        self.jump_to(gate);
        let now = self.clock.now_ms();
        self.gates.open(now);
    }

    fn has_running_job(&self, session: faultline_model::SessionKey) -> bool {
        self.server()
            .ledger()
            .jobs
            .iter()
            .any(|job| job.session == session && job.ended.is_none())
    }

    /// The server went quiet (nothing may move time until a client acts): every open SSE
    /// stream gets the quiescence marker, after whatever it was sent before.
    /// A stream gets one marker per quiet period: none again until something else is
    /// sent on it.
    pub fn mark_quiet(&mut self) {
        for (&conn, sink) in &mut self.conns {
            if !sink.marked && self.engine.server().stream_of(conn).is_some() {
                sink.marked = true;
                let _ = sink
                    .tx
                    .send(Frame::Marker(Bytes::from_static(QUIET_MARKER)));
            }
        }
    }

    /// A request arrived (`fresh_listen`: a GET without `Last-Event-ID`): `Some(receiver)`
    /// when it must wait for the clock first.
    pub fn admit(&mut self, fresh_listen: bool) -> Option<tokio::sync::oneshot::Receiver<()>> {
        // Only an auto clock holds requests.
        self.config.auto_grace?;
        let now = self.clock.now_ms();
        self.hold.admit(now, fresh_listen)
    }

    /// The clock reached the hold point: the held requests go on, one by one.
    pub fn release_held(&mut self, until: u64) {
        self.jump_to(until);
        self.hold.release();
    }

    /// A request was handled: the next held one, if any, may go on.
    pub fn next_held(&mut self) {
        self.hold.next();
    }

    /// A request the hold let go was handled (or dropped by its client).
    pub fn held_request_done(&mut self) {
        self.hold.released_handled();
    }

    /// The time scale as the control API reports it: a number, or `"auto"`.
    pub fn time_scale(&self) -> TimeScale {
        match self.config.auto_grace {
            Some(_) => TimeScale::Auto,
            None => TimeScale::Factor(self.clock.scale()),
        }
    }

    /// Jumps virtual time forward to `due` and runs what is due then.
    pub fn jump_to(&mut self, due: u64) {
        let now = self.clock.now_ms();
        self.advance_clock(due.saturating_sub(now));
    }

    /// Job steps are due now but this turn's budget is spent: the ticker takes another
    /// turn once the requests waiting for the lock had theirs.
    pub fn steps_waiting(&self) -> bool {
        let server = self.server();
        server.steps_waiting(server.now_ms())
    }

    /// True when work now comes due before the instant the ticker sleeps towards.
    pub fn ticker_must_wake(&self) -> bool {
        if self.steps_waiting() {
            return true;
        }
        if self.config.auto_grace.is_some() {
            // The auto ticker re-decides on every change.
            return true;
        }
        match (self.next_due(), self.ticker_due) {
            (Some(due), Some(planned)) => due < planned,
            (Some(_), None) => self.clock.scale() > 0.0,
            (None, _) => false,
        }
    }

    // ----------------------------------------------------------------------------------
    // Requests
    // ----------------------------------------------------------------------------------

    /// Hands one HTTP request to the engine. The answer (and, for SSE, the stream's
    /// events) arrive on the returned source.
    pub fn handle(&mut self, request: HttpRequest, tcp: Option<TcpConn>) -> (ConnId, Source) {
        let conn = ConnId(self.next_conn);
        self.next_conn += 1;
        let (tx, rx) = mpsc::unbounded_channel();
        let queued = Arc::new(AtomicUsize::new(0));
        let taken = Arc::new(AtomicU64::new(0));
        let session = match self.events {
            Some(_) => request.session_id.clone(),
            None => None,
        };
        self.conns.insert(
            conn,
            Sink {
                tx,
                queued: queued.clone(),
                taken: taken.clone(),
                over_bound_at: None,
                tcp,
                marked: false,
                session,
            },
        );
        let now = self.sync();
        let mut out = Vec::new();
        self.engine.handle(conn, request, now, &mut out);
        self.route(out);
        if self.closing && self.conns.contains_key(&conn) {
            self.end_now(conn, EndMode::Close);
        }
        (conn, Source { rx, queued, taken })
    }

    /// Spends the next connection number with no request behind it. `run --live` does,
    /// where its modelled client took back a request it had numbered: the simulated server
    /// numbers connections with the client's numbers, so the live one must leave the same
    /// gap. No request reaches it over HTTP.
    pub fn skip_conn(&mut self) {
        self.next_conn += 1;
    }

    /// The connection number the next request will get (for an embedding driver).
    pub fn next_conn(&self) -> u64 {
        self.next_conn
    }

    /// The HTTP response of `conn` was dropped (client closed, or the body finished).
    pub fn client_gone(&mut self, conn: ConnId) {
        if self.conns.remove(&conn).is_none() {
            self.draining.remove(&conn);
            return;
        }
        let now = self.sync();
        let mut out = Vec::new();
        self.engine.disconnect(conn, now, &mut out);
        self.route(out);
    }

    /// True while `conn`'s response is still being served.
    pub fn is_open(&self, conn: ConnId) -> bool {
        self.conns.contains_key(&conn) || self.draining.contains_key(&conn)
    }

    /// `/_chaos/streams/drop`: cuts every open SSE connection, or one session's.
    pub fn drop_streams(&mut self, session: Option<&str>, mode: EndMode) -> Vec<u64> {
        let now = self.sync();
        let mut out = Vec::new();
        let conns = self.engine.drop_streams(session, mode, now, &mut out);
        self.route(out);
        conns.into_iter().map(|c| c.0).collect()
    }

    /// `/_chaos/restart`.
    pub fn restart(&mut self) -> u64 {
        let now = self.sync();
        let mut out = Vec::new();
        self.engine.restart(now, &mut out);
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

    /// Puts what the engine emitted on the connections, in order; then tells the event
    /// feed, if anyone reads it, what fired and who died, in virtual-time order.
    fn route(&mut self, out: Vec<Emitted>) {
        let watching = self.events.is_some();
        let mut feed: Vec<ServerEvent> = Vec::new();
        let mut queue: VecDeque<Emitted> = out.into();
        while let Some(item) = queue.pop_front() {
            if let Some(journal) = &mut self.journal {
                journal.push_back(item.clone());
            }
            let mut more = Vec::new();
            match item {
                Emitted::Fired(fired) => {
                    tracing::info!(at_ms = fired.at_ms, fault = %fired.note, "fault fired");
                    if watching {
                        feed.push(self.fault_event(&fired));
                    }
                    let cuts_client_off = !fired.conns.is_empty() || fired.away_ms.is_some();
                    if self.config.auto_grace.is_some() && fired.fault.is_some() && cuts_client_off
                    {
                        let fresh_listen_returns = fired.cut_a_listen || fired.conns.is_empty();
                        self.hold
                            .client_cut_off(fired.at_ms, fired.away_ms, fresh_listen_returns);
                    }
                    if self.fired.len() >= FIRED_KEPT {
                        self.fired.pop_front();
                    }
                    self.fired.push_back(*fired);
                }
                Emitted::Wire(Output::Respond { conn, response }) => {
                    let sse = matches!(response.body, ResponseBody::Sse(_));
                    if watching
                        && sse
                        && let Some(minted) = &response.session_id
                        && let Some(sink) = self.conns.get_mut(&conn)
                    {
                        // `initialize` answered over SSE: the stream is the new session's.
                        sink.session = Some(minted.clone());
                    }
                    let delivered = self.deliver(conn, Frame::Respond(*response), 0);
                    if !sse {
                        self.conns.remove(&conn);
                    } else if matches!(delivered, Delivery::Gone) {
                        self.gone(conn, &mut more);
                    }
                }
                Emitted::Wire(Output::Event {
                    conn,
                    event,
                    id,
                    retry_ms,
                }) => {
                    let delivered = match self.room_for(conn) {
                        Some(_) => {
                            let bytes = render_event(self.server(), event, id, retry_ms);
                            let len = bytes.len();
                            if self.make_server_room(conn, len, &mut more) {
                                self.deliver(conn, Frame::Event(bytes), len)
                            } else {
                                Delivery::Sent
                            }
                        }
                        None => Delivery::Sent,
                    };
                    self.delivered(conn, delivered, &mut more);
                }
                Emitted::Wire(Output::Comment { conn }) => {
                    let bytes = Bytes::from_static(KEEP_ALIVE);
                    let delivered = if self.make_server_room(conn, KEEP_ALIVE.len(), &mut more) {
                        self.deliver(conn, Frame::Event(bytes), KEEP_ALIVE.len())
                    } else {
                        Delivery::Sent
                    };
                    self.delivered(conn, delivered, &mut more);
                }
                Emitted::Wire(Output::End { conn, how }) => {
                    if let Some(sink) = self.conns.remove(&conn) {
                        let _ = sink.tx.send(Frame::End(how));
                        if sink.queued.load(Ordering::Acquire) > 0 {
                            self.draining.insert(conn, sink);
                        }
                    }
                }
            }
            for o in more.into_iter().rev() {
                queue.push_front(o);
            }
        }
        if self.events.is_some() {
            // Before the trim: a death is told before its session may leave the window.
            self.deaths.new_deaths(self.engine.server(), &mut feed);
        }
        // Every output has been put on its connection: ledger ids may now be forgotten.
        self.engine.server_mut().trim_ledger();
        if let Some(sink) = &self.events {
            // Faults come out of the loop above and deaths from the ledger afterwards;
            // one batch may hold both (a clock jump over a TTL and a fault): tell them in
            // the order they happened. Stable: a death caused by a fault follows it.
            feed.sort_by_key(ServerEvent::at_ms);
            for event in feed {
                sink.send(event);
            }
        }
    }

    /// The feed's account of a fault: the engine's note and the sessions of the
    /// connections it cut (looked up before the cut connections are forgotten).
    fn fault_event(&self, fired: &FiredFault) -> ServerEvent {
        let mut sessions: Vec<String> = Vec::new();
        for conn in &fired.conns {
            if let Some(session) = self
                .conns
                .get(&ConnId(*conn))
                .and_then(|s| s.session.as_ref())
                && !sessions.contains(session)
            {
                sessions.push(session.clone());
            }
        }
        ServerEvent::FaultFired {
            at_ms: fired.at_ms,
            fault: fired.fault,
            note: fired.note.clone(),
            sessions,
        }
    }

    /// The bytes `conn`'s queue may still take before its hard bound; `None` when the
    /// connection is gone (nothing need be rendered for it).
    fn room_for(&self, conn: ConnId) -> Option<usize> {
        let sink = self.conns.get(&conn)?;
        let queued = sink.queued.load(Ordering::Acquire);
        Some(self.config.limits.max_queue_bytes.saturating_sub(queued))
    }

    fn deliver(&mut self, conn: ConnId, frame: Frame, len: usize) -> Delivery {
        let limit = self.config.limits.max_queue_bytes;
        let Some(sink) = self.conns.get_mut(&conn) else {
            // Ended already, or the client left: the network ate it.
            return Delivery::Sent;
        };
        let queued = sink.queued.load(Ordering::Acquire);
        if queued.saturating_add(len) > limit {
            return Delivery::Full(queued);
        }
        sink.marked = false;
        sink.queued.fetch_add(len, Ordering::AcqRel);
        self.queued_bound_bytes = self.queued_bound_bytes.saturating_add(len);
        match sink.tx.send(frame) {
            Ok(()) => Delivery::Sent,
            Err(_) => Delivery::Gone,
        }
    }

    /// The stall sweep (see [`Sink`]): cuts every stream whose queue was over its bound at
    /// the previous sweep and still is, with nothing taken in between. True if it cut any.
    pub fn cut_stalled_readers(&mut self) -> bool {
        let limit = self.config.limits.stream_queue_bytes;
        let mut stalled = Vec::new();
        for (&conn, sink) in self.conns.iter_mut().chain(self.draining.iter_mut()) {
            let queued = sink.queued.load(Ordering::Acquire);
            if queued <= limit {
                sink.over_bound_at = None;
                continue;
            }
            let taken = sink.taken.load(Ordering::Acquire);
            if sink.over_bound_at == Some(taken) {
                stalled.push((conn, queued));
            } else {
                sink.over_bound_at = Some(taken);
            }
        }
        if stalled.is_empty() {
            return false;
        }
        let now = self.sync();
        let mut out = Vec::new();
        for (conn, queued) in stalled {
            let Some(sink) = self
                .conns
                .remove(&conn)
                .or_else(|| self.draining.remove(&conn))
            else {
                continue;
            };
            tracing::warn!(
                conn = conn.0,
                queued,
                "SSE reader stopped reading: cutting the connection"
            );
            let reason = CutReason::NotReading {
                queued_bytes: queued as u64,
                limit_bytes: limit as u64,
            };
            self.cut_sink(conn, &sink, reason, now, &mut out);
        }
        self.route(out);
        true
    }

    /// Acts on what [`State::deliver`] said: a gone client is forgotten, a full queue cut.
    fn delivered(&mut self, conn: ConnId, delivered: Delivery, more: &mut Vec<Emitted>) {
        match delivered {
            Delivery::Sent => {}
            Delivery::Gone => self.gone(conn, more),
            Delivery::Full(queued) => self.cut_full(conn, queued, more),
        }
    }

    /// The hard queue bound (see [`Sink`]): the stream is cut at once, its TCP connection
    /// closed so that what it queued is freed, and the ledger's `cuts` says why.
    fn cut_full(&mut self, conn: ConnId, queued: usize, out: &mut Vec<Emitted>) {
        let Some(sink) = self.conns.remove(&conn) else {
            return;
        };
        let limit = self.config.limits.max_queue_bytes;
        tracing::warn!(
            conn = conn.0,
            queued,
            limit,
            "SSE reader too slow for its stream: queue full, cutting the connection"
        );
        let reason = CutReason::QueueFull {
            queued_bytes: queued as u64,
            limit_bytes: limit as u64,
        };
        let now = self.server().now_ms();
        self.cut_sink(conn, &sink, reason, now, out);
    }

    /// Cuts a stream the server gave up on: its TCP connection closed, so that what it
    /// queued is freed, and the cut and its reason in the ledger. The one path of both the
    /// stalled-reader sweep and the hard queue bound.
    fn cut_sink(
        &mut self,
        conn: ConnId,
        sink: &Sink,
        reason: CutReason,
        now: u64,
        out: &mut Vec<Emitted>,
    ) {
        if let Some(tcp) = &sink.tcp {
            tcp.0.cut();
        }
        self.engine.cut_connection(conn, reason, now, out);
    }

    /// A connection can take no more: forget it and tell the engine the client is gone.
    /// Dropping the sender makes the response abort after what was already queued.
    fn gone(&mut self, conn: ConnId, out: &mut Vec<Emitted>) {
        if self.conns.remove(&conn).is_some() {
            let now = self.server().now_ms();
            self.engine.disconnect(conn, now, out);
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
    if let Some(id) = id.and_then(|id| server.wire_event_id(event, id)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use faultline_model::HttpRequest;
    use serde_json::json;
    use std::time::Duration;

    /// A graded server (auto clock, call gates) playing one 2-step `long_job` call.
    fn graded() -> State {
        let scenario = faultline_scenario::Scenario::parse(
            r#"Scenario(
                name: "two_steps",
                summary: "One call of a 2-step job.",
                seed: 1,
                client: (model: Naive),
                workload: [CallTool(at: "0s", tool: LongJob(steps: 2, interval: "1s"))],
            )"#,
            "two_steps.ron",
        )
        .expect("the scenario parses");
        let config = Config::from_scenario(scenario)
            .with_auto_time(Duration::from_millis(30))
            .with_call_gates(true);
        State::new(config, None).0
    }

    /// Takes what a connection was sent off its queue, as its HTTP body would.
    fn drain(source: &mut Source) {
        while let Ok(frame) = source.rx.try_recv() {
            if let Frame::Event(bytes) = frame {
                source.queued.fetch_sub(bytes.len(), Ordering::AcqRel);
            }
        }
    }

    #[test]
    fn the_jump_that_ends_a_job_is_an_answer_and_the_steps_before_it_are_not() {
        let mut state = graded();
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}});
        let (_, mut source) = state.handle(HttpRequest::post(None, initialize), None);
        drain(&mut source);
        let session = state.server().ledger().sessions[0].wire_id.clone();
        // The test does not listen on a standalone stream: gates need not wait for one.
        state.waive_listener();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "long_job", "arguments": {"steps": 2, "interval_ms": 1000}}});
        assert!(state.admit_call(&call).is_none(), "call 0 is due at T+0");
        let (_, mut stream) = state.handle(HttpRequest::post(Some(session), call), None);
        state.gate_call_handled();
        drain(&mut stream);

        assert_eq!(state.auto_step(1), AutoStep::Jump(1_000), "step 1 of 2");
        state.jump_to(1_000);
        drain(&mut stream);
        assert_eq!(
            state.auto_step(1),
            AutoStep::Answer(2_000),
            "step 2 of 2 answers the call: the client gets to read its other streams first"
        );
    }
}
