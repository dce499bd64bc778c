//! # faultline-server
//!
//! The live driver of [`faultline_model::Server`]: an axum + tokio front end that speaks
//! MCP Streamable HTTP on `/mcp`, plays a scenario's server-side faults against real
//! traffic, and (with `control`) exposes the `/_chaos` API.
//!
//! ```text
//! axum request ─▶ HttpRequest ─▶ ┌──────────── Mutex ────────────┐
//!                                │ clock ─▶ step to now (script) │ ─▶ Output ─▶ per-connection queue
//! ticker (next_due) ───────────▶ │ faultline_model::Server       │            ─▶ status / JSON / SSE
//!                                └───────────────────────────────┘
//! ```
//!
//! One protocol core: this crate adds no protocol logic. It converts requests, routes the
//! model's outputs (`Respond`, `Event`, `End`) to connections, and moves virtual time
//! (`virtual = offset + wall elapsed * time_scale`, plus jumps). `EndMode::Reset` aborts
//! the connection mid-body so the client sees an error, never a clean end.

mod accept_loop;
mod auto_advance;
mod call_gates;
mod client_hold;
mod clock;
mod conn_watch;
mod content_coding;
mod control;
mod core;
mod counted_listener;
mod death_watch;
mod host_check;
mod http;
mod ledger_page;
mod ledger_snapshot;
mod ledger_stream;
mod limits;
mod plan_notes;
mod server_events;
mod time_scale;

use std::hash::{BuildHasher, RandomState};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::any;
use faultline_model::{
    ConnId, HttpMethod, HttpRequest, IdScheme, PositiveDurationMs, ServerKnobs, UnknownCursor,
};
use faultline_scenario::Scenario;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

pub use crate::auto_advance::{DEFAULT_GRACE, NO_GRACE};
pub use crate::clock::{MAX_TIME_SCALE, MAX_VIRTUAL_MS, is_pace};
pub use crate::core::{KEEP_ALIVE, QUIET_MARKER};
use crate::core::{Source, State};
pub use crate::limits::{
    DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_ECHO_BYTES, DEFAULT_MAX_HANDLES,
    DEFAULT_MAX_QUEUE_BYTES, DEFAULT_MAX_SERVER_QUEUE_BYTES, DEFAULT_MAX_SESSIONS_PER_PEER,
    DEFAULT_MAX_STEPS_PER_REQUEST, DEFAULT_MAX_STEPS_PER_SERVER, DEFAULT_MAX_STEPS_PER_SESSION,
    DEFAULT_MAX_TASKS, DEFAULT_STREAM_QUEUE_BYTES, DEFAULT_STREAM_STALL,
    DEFAULT_UNUSED_SESSION_TTL, Limits, default_max_connections,
};
pub use crate::server_events::{EventFeed, EventSink, Notice, ServerEvent, event_channel};

/// Request bodies above this get 413.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// How long shutdown waits for open connections before giving up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Everything the live server is started with.
#[derive(Debug, Clone)]
pub struct Config {
    pub knobs: ServerKnobs,
    /// Seeds the session-id generator and the scenario's range picks.
    pub seed: u64,
    /// The scenario whose faults and `Notify` workload are played live, if any.
    pub scenario: Option<Scenario>,
    /// Serve `/_chaos/*`.
    pub control: bool,
    /// Virtual milliseconds per wall millisecond; 0 freezes the clock (jumps only).
    pub time_scale: f64,
    /// `Some(grace)`: the clock auto-advances (`--time-scale auto`, see `auto_advance`)
    /// and `time_scale` is ignored.
    pub auto_grace: Option<Duration>,
    /// With an auto clock: virtual time runs at most this many virtual milliseconds per
    /// wall millisecond, counted from the first moment it moves (`grade --time-scale`;
    /// see `auto_advance`'s pace). `None`: as fast as the clients let it.
    pub pace: Option<f64>,
    /// Keep everything the engine emits, in order, for an embedding driver (`run --live`)
    /// to read with [`App::take_journal`]; also keeps the whole ledger.
    pub journal: bool,
    /// With an auto clock: whenever the server goes quiet (nothing may move time until a
    /// client acts), send [`QUIET_MARKER`] on every open SSE stream, after everything
    /// sent before it. A test client can then stop waiting on a stream that will carry
    /// nothing more, without a wall-clock timeout.
    pub quiet_marker: bool,
    /// With an auto clock and a scenario: the client's k-th `tools/call` waits until
    /// virtual time reaches the scenario's time for call k (see `call_gates`), and, if
    /// the scenario's client listens, until its standalone stream is open.
    pub call_gates: bool,
    /// Limits on what clients may make the server do, hold or keep (see [`Limits`]).
    pub limits: Limits,
    /// Host names accepted in `Host` besides `localhost`, loopback addresses and the bound
    /// address (`--allow-host`); compared without the port, case-insensitively.
    pub allowed_hosts: Vec<String>,
}

impl Config {
    /// A well-behaved server: session-monotonic ids, honest advertisement, SEP-1699
    /// priming with `retry: 1000`, GET validates the session, an unresumable cursor gets
    /// 400; bounded memory: event logs kept 10 minutes and at most 1000 events per
    /// stream, idle sessions reaped after a day, at most 10,000 sessions. No faults.
    pub fn well_behaved(seed: u64) -> Config {
        let knobs = ServerKnobs {
            priming_events: true,
            retry: PositiveDurationMs::new(1_000),
            event_log_capacity: Some(1_000),
            event_log_ttl: PositiveDurationMs::new(10 * 60_000),
            // A day: long enough that a session working through an hours-long job is
            // not reaped as idle (its open stream does not count as a request).
            session_idle_ttl: PositiveDurationMs::new(24 * 60 * 60_000),
            id_scheme: IdScheme::SessionMonotonic,
            unknown_cursor: UnknownCursor::BadRequest,
            ..ServerKnobs::default()
        };
        Config {
            knobs,
            seed,
            scenario: None,
            control: false,
            time_scale: 1.0,
            auto_grace: None,
            pace: None,
            journal: false,
            quiet_marker: false,
            call_gates: false,
            limits: Limits::default(),
            allowed_hosts: Vec::new(),
        }
    }

    /// The scenario's server knobs and seed; its faults and notifications are played.
    pub fn from_scenario(scenario: Scenario) -> Config {
        Config {
            knobs: scenario.server.clone(),
            seed: scenario.seed,
            scenario: Some(scenario),
            control: false,
            time_scale: 1.0,
            auto_grace: None,
            pace: None,
            journal: false,
            quiet_marker: false,
            call_gates: false,
            limits: Limits::for_scenario(),
            allowed_hosts: Vec::new(),
        }
    }

    pub fn with_control(mut self, control: bool) -> Config {
        self.control = control;
        self
    }

    pub fn with_time_scale(mut self, time_scale: f64) -> Config {
        self.time_scale = time_scale;
        self
    }

    /// An auto-advancing clock with this real-time grace (see `auto_advance`).
    pub fn with_auto_time(mut self, grace: Duration) -> Config {
        self.auto_grace = Some(grace);
        self
    }

    /// An auto clock that runs at most `pace` virtual milliseconds per wall millisecond
    /// (see [`Config::pace`]).
    pub fn with_pace(mut self, pace: Option<f64>) -> Config {
        self.pace = pace;
        self
    }

    pub fn with_seed(mut self, seed: u64) -> Config {
        self.seed = seed;
        self
    }

    pub fn with_journal(mut self, journal: bool) -> Config {
        self.journal = journal;
        self
    }

    /// Hold the client's calls until their scenario time (see [`Config::call_gates`]).
    pub fn with_call_gates(mut self, call_gates: bool) -> Config {
        self.call_gates = call_gates;
        self
    }

    /// Limits (see [`Limits`]).
    pub fn with_limits(mut self, limits: Limits) -> Config {
        self.limits = limits;
        self
    }

    /// Accept these host names in `Host` too (see [`Config::allowed_hosts`]).
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> Config {
        self.allowed_hosts = hosts;
        self
    }

    /// Send the quiescence marker (see [`Config::quiet_marker`]).
    pub fn with_quiet_marker(mut self, quiet_marker: bool) -> Config {
        self.quiet_marker = quiet_marker;
        self
    }
}

/// A request let go by the client hold or a call gate, until it is through.
struct Released<'a> {
    app: &'a App,
    hold: bool,
    gate: bool,
}

impl Released<'_> {
    fn done_with_hold(&mut self) {
        if std::mem::take(&mut self.hold) {
            self.app.with_state(|s| {
                s.held_request_done();
                s.next_held();
            });
        }
    }
}

impl Drop for Released<'_> {
    fn drop(&mut self) {
        if self.hold || self.gate {
            let (hold, gate) = (self.hold, self.gate);
            self.app.with_state(|s| {
                if hold {
                    s.held_request_done();
                }
                if gate {
                    s.gate_call_handled();
                }
            });
        }
    }
}

/// The body of a JSON-RPC `tools/call` request (a batch counts if any member is one),
/// parsed, or `None` for any other request.
fn tools_call_body(request: &HttpRequest) -> Option<serde_json::Value> {
    let body = match &request.body {
        faultline_model::RequestBody::Json(v) => v.clone(),
        faultline_model::RequestBody::Rpc(m) => m.to_value(),
        faultline_model::RequestBody::Bytes(bytes) => serde_json::from_slice(bytes).ok()?,
        faultline_model::RequestBody::Empty => return None,
    };
    let is_call = |m: &serde_json::Value| m["method"] == "tools/call";
    let call = match &body {
        serde_json::Value::Array(batch) => batch.iter().any(is_call),
        message => is_call(message),
    };
    call.then_some(body)
}

/// A seed from the OS (for servers started without a scenario or `--seed`).
pub fn random_seed() -> u64 {
    RandomState::new().hash_one(std::time::SystemTime::now())
}

struct Inner {
    state: Mutex<State>,
    /// Wakes the ticker when work comes due earlier than it planned (or, with an
    /// auto-advancing clock, on any activity).
    wake: Notify,
    /// Counts requests, departures and drained queues (auto-advancing clock only).
    activity: AtomicU64,
    /// Open TCP connections (an idle keep-alive connection is a client about to speak).
    open_tcp: Arc<AtomicUsize>,
    auto: bool,
    /// Signalled whenever a response stops being served (see [`App::changed`]).
    changed: Notify,
    control: bool,
    quiet_marker: bool,
    /// Calls wait at their gates (see [`Config::call_gates`]).
    gated: bool,
    /// When the last SSE event was handed to a connection (gated servers only; see
    /// `auto_advance`'s settle rule).
    last_event_out: Mutex<Option<std::time::Instant>>,
    /// Which `Host` names are answered; set once the address is bound (unset: any).
    host_policy: std::sync::OnceLock<host_check::HostPolicy>,
    /// Callers blocked on (or about to take) the state lock. The ticker running a big job
    /// turn by turn lets them all in before its next turn: a plain mutex is not fair, and
    /// the ticker would win it back every time.
    lock_waiters: AtomicUsize,
    /// Tickers inside [`App::let_waiters_in`]: only then does the last waiter signal
    /// `lock_free` (a signal takes the `Notify`'s own lock; most requests need none).
    turn_waiting: AtomicUsize,
    /// Signalled when the last of `lock_waiters` got the lock.
    lock_free: Notify,
    /// Whole-ledger bodies that may exist at once (see `ledger_page`).
    ledger_readers: Arc<tokio::sync::Semaphore>,
    /// How long a whole-ledger body may wait for its reader (the idle timeout).
    ledger_read_time: Duration,
}

/// The shared handle the HTTP handlers, the ticker and the control API hold.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("control", &self.inner.control)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Builds the model; returns the notes about scenario items that are not played live.
    pub fn new(config: Config) -> (App, Vec<String>) {
        App::watched(config, None)
    }

    /// Like [`App::new`], telling `events` about every fault fired and every session
    /// death.
    fn watched(config: Config, events: Option<EventSink>) -> (App, Vec<String>) {
        let control = config.control;
        let auto = config.auto_grace.is_some();
        let quiet_marker = auto && config.quiet_marker;
        let gated = auto && config.call_gates && config.scenario.is_some();
        let limits = config.limits;
        let (state, notes) = State::new(config, events);
        let app = App {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                wake: Notify::new(),
                activity: AtomicU64::new(0),
                open_tcp: Arc::new(AtomicUsize::new(0)),
                auto,
                changed: Notify::new(),
                control,
                quiet_marker,
                gated,
                last_event_out: Mutex::new(None),
                host_policy: std::sync::OnceLock::new(),
                lock_waiters: AtomicUsize::new(0),
                turn_waiting: AtomicUsize::new(0),
                lock_free: Notify::new(),
                ledger_readers: Arc::new(tokio::sync::Semaphore::new(limits.ledger_readers.max(1))),
                ledger_read_time: limits.idle_timeout,
            }),
        };
        (app, notes)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner.lock_waiters.fetch_add(1, AtomicOrdering::SeqCst);
        // A panic while holding the lock is a broken model invariant; keep serving (the
        // panic was logged) rather than turning every later request into a 500.
        let guard = self
            .inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // SeqCst with `let_waiters_in`: either the ticker sees this waiter, or this sees
        // the ticker waiting and signals it.
        if self.inner.lock_waiters.fetch_sub(1, AtomicOrdering::SeqCst) == 1
            && self.inner.turn_waiting.load(AtomicOrdering::SeqCst) > 0
        {
            self.inner.lock_free.notify_waiters();
        }
        guard
    }

    /// Between two turns of job steps: returns once every caller that was waiting for the
    /// lock got it (at once if none was), so that requests are served between turns.
    async fn let_waiters_in(&self) {
        let free = self.inner.lock_free.notified();
        tokio::pin!(free);
        // Registered and counted before the waiters are, so the last waiter's signal is
        // not missed.
        free.as_mut().enable();
        self.inner.turn_waiting.fetch_add(1, AtomicOrdering::SeqCst);
        if self.inner.lock_waiters.load(AtomicOrdering::SeqCst) > 0 {
            free.await;
        } else {
            tokio::task::yield_now().await;
        }
        self.inner.turn_waiting.fetch_sub(1, AtomicOrdering::SeqCst);
    }

    /// Runs `f` on the driver state, then wakes the ticker if work now comes due sooner.
    fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let mut state = self.lock();
        let r = f(&mut state);
        let wake = state.ticker_must_wake();
        drop(state);
        if wake {
            self.inner.wake.notify_one();
        }
        r
    }

    /// Hands a request to the engine, after the clock reached the point where the request
    /// may be handled (an auto clock holding for a returning client; see `client_hold`).
    async fn handle(
        &self,
        request: HttpRequest,
        tcp: Option<conn_watch::TcpConn>,
    ) -> (ConnId, Source) {
        self.note_activity();
        // Released from a hold or a gate, this request is what time waits for; the guard
        // says when it is through (handled, or dropped by its client), whatever happens.
        let mut through = Released {
            app: self,
            hold: false,
            gate: false,
        };
        let fresh_listen = request.method == HttpMethod::Get && request.last_event_id.is_none();
        let held = self.lock().admit(fresh_listen);
        if let Some(go_on) = held {
            tracing::debug!(method = ?request.method, "request held for the client's return point");
            self.inner.wake.notify_one();
            through.hold = go_on.await.is_ok();
        }
        if self.inner.gated
            && let Some(body) = tools_call_body(&request)
        {
            let held = self.lock().admit_call(&body);
            if let Some(go_on) = held {
                // Through the hold: it waits at its gate now, not at the return point.
                through.done_with_hold();
                tracing::debug!("call held at its gate");
                self.inner.wake.notify_one();
                through.gate = go_on.await.is_ok();
            }
        }
        self.with_state(|s| {
            let handled = s.handle(request, tcp);
            s.next_held();
            handled
        })
    }

    fn client_gone(&self, conn: ConnId) {
        self.note_activity();
        self.with_state(|s| s.client_gone(conn));
        self.inner.changed.notify_waiters();
    }

    /// Something happened on the wire: an auto-advancing clock re-decides.
    pub(crate) fn note_activity(&self) {
        if self.inner.auto {
            self.inner.activity.fetch_add(1, AtomicOrdering::AcqRel);
            self.inner.wake.notify_one();
        }
    }

    /// An SSE event went out on some connection.
    pub(crate) fn note_event_out(&self) {
        if self.inner.gated {
            *self
                .inner
                .last_event_out
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
        }
    }

    /// Wall time since the last SSE event went out (`None`: none yet, or not gated).
    fn since_event_out(&self) -> Option<Duration> {
        self.inner
            .last_event_out
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .map(|at| at.elapsed())
    }

    fn quiet_marker(&self) -> bool {
        self.inner.quiet_marker
    }

    fn activity(&self) -> u64 {
        self.inner.activity.load(AtomicOrdering::Acquire)
    }

    fn open_tcp(&self) -> usize {
        self.inner.open_tcp.load(AtomicOrdering::Acquire)
    }

    /// Ends every open SSE stream cleanly (shutdown).
    pub fn close_all_streams(&self) {
        self.lock().close_all();
    }

    // ----------------------------------------------------------------------------------
    // For an embedding driver that owns the clock (`run --live`): time moves only when it
    // says so, and it reads the engine's exact output sequence from the journal.
    // ----------------------------------------------------------------------------------

    /// Read access to the engine (its model, its ledger), after stepping it to now.
    pub fn with_engine<R>(&self, f: impl FnOnce(&faultline_scenario::Engine) -> R) -> R {
        self.with_state(|s| f(&s.engine))
    }

    /// The next virtual time at which the engine has work of its own.
    pub fn next_due(&self) -> Option<u64> {
        self.lock().next_due()
    }

    /// Moves virtual time forward to `at_ms` (never back) and runs what came due.
    /// Job steps beyond one turn's budget run in further turns, the lock released in
    /// between, until nothing due by `at_ms` is left.
    pub fn advance_to(&self, at_ms: u64) -> u64 {
        loop {
            let (now, waiting) = self.with_state(|s| {
                let now = s.clock.now_ms();
                let now = s.advance_clock(at_ms.saturating_sub(now));
                (now, s.steps_waiting())
            });
            if !waiting {
                return now;
            }
        }
    }

    /// Everything the engine emitted since the last call, in order (needs
    /// [`Config::journal`]).
    pub fn take_journal(&self) -> Vec<faultline_scenario::Emitted> {
        self.lock()
            .journal
            .as_mut()
            .map(|j| j.drain(..).collect())
            .unwrap_or_default()
    }

    /// The scenario faults and operator actions that fired so far (the most recent
    /// 10,000), in order.
    pub fn fired_faults(&self) -> Vec<faultline_scenario::FiredFault> {
        self.lock().fired.iter().cloned().collect()
    }

    /// The connection number the next request will be given.
    pub fn next_conn(&self) -> u64 {
        self.lock().next_conn()
    }

    /// Spends the next connection number with no request behind it (see
    /// `Core::skip_conn`): for the `run --live` harness, whose client took back a request.
    pub fn skip_conn(&self) {
        self.lock().skip_conn();
    }

    /// True while the response of `conn` is still being served.
    pub fn is_open(&self, conn: ConnId) -> bool {
        self.lock().is_open(conn)
    }

    /// Resolves once the server has seen `conn`'s client go away (or ended it itself).
    pub async fn wait_closed(&self, conn: ConnId) {
        loop {
            let notified = self.inner.changed.notified();
            tokio::pin!(notified);
            // Registered before the check, so a close between the two is not missed.
            notified.as_mut().enable();
            if !self.is_open(conn) {
                return;
            }
            notified.await;
        }
    }

    /// Room for one more whole-ledger body: what must live as long as it (its permit,
    /// and the guard whose drop stops its deadline). `None` when
    /// [`Limits::ledger_readers`] bodies exist already. Past the deadline (the idle
    /// timeout) a body still unread has its connection closed, which drops it.
    pub(crate) fn whole_ledger_reader(
        &self,
        tcp: Option<conn_watch::TcpConn>,
    ) -> Option<Box<dyn Send + Sync>> {
        let permit = self.inner.ledger_readers.clone().try_acquire_owned().ok()?;
        let (done, dropped) = tokio::sync::oneshot::channel::<()>();
        if let Some(tcp) = tcp {
            let within = self.inner.ledger_read_time;
            tokio::spawn(async move {
                // `dropped` resolves (with an error) when the body, holding `done`, goes.
                if tokio::time::timeout(within, dropped).await.is_err() {
                    tracing::warn!(
                        "a whole-ledger body was not read in time: closing its connection"
                    );
                    tcp.0.cut();
                }
            });
        }
        Some(Box::new((permit, done)))
    }

    /// The body `GET /_chaos/ledger` serves, as JSON: `{now_ms, time_scale, scenario,
    /// knobs, live_sessions, open_connections, faults_fired, ledger}`, where `ledger` is
    /// the model's [`faultline_model::Ledger`] as serde writes it.
    pub fn ledger_json(&self) -> serde_json::Value {
        let copy = self.with_state(|s| {
            s.sync();
            ledger_snapshot::LedgerCopy::of(s)
        });
        serde_json::to_value(&copy).unwrap_or_else(
            |e| serde_json::json!({"error": format!("the ledger did not serialize: {e}")}),
        )
    }
}

/// The axum app: `/mcp`, and `/_chaos/*`: the control API when control is on, else a 404
/// that says the control API needs `--control`.
pub fn router(app: App) -> Router {
    let mut router = Router::new().route("/mcp", any(http::mcp));
    router = if app.inner.control {
        router.route("/_chaos/{*path}", any(control::chaos))
    } else {
        router
            .route("/_chaos", any(control::control_off))
            .route("/_chaos/{*path}", any(control::control_off))
    };
    router
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            host_check::check_host,
        ))
        .with_state(app)
}

/// Runs the model's clock-driven work (job steps, TTLs, scripted faults and
/// notifications) when it comes due in wall time.
async fn ticker(app: App, mut stop: watch::Receiver<bool>) {
    loop {
        let (deadline, waiting) = {
            let mut state = app.lock();
            state.sync();
            (state.next_wake(), state.steps_waiting())
        };
        if waiting {
            if *stop.borrow() {
                return;
            }
            // A turn's budget of job steps ran and more are due: let the requests that
            // queued behind the lock in, then take another turn.
            app.let_waiters_in().await;
            continue;
        }
        let sleep = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = sleep => {}
            _ = app.inner.wake.notified() => {}
            _ = stop.changed() => return,
        }
    }
}

/// Every `stall` of wall time, cuts the SSE streams whose reader took nothing since the
/// last sweep while their queue was over its bound (see `core`'s slow-reader rule).
async fn stall_sweep(app: App, stall: Duration, mut stop: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(stall.max(Duration::from_millis(1)));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {
                // Not `with_state`: a sweep that cut nothing changed nothing, and must not
                // wake the ticker (an auto clock re-decides on every wake).
                let cut = app.lock().cut_stalled_readers();
                if cut {
                    app.inner.changed.notify_waiters();
                    app.inner.wake.notify_one();
                }
            }
            _ = stop.changed() => return,
        }
    }
}

/// A server running in the background (tests, embedding).
#[derive(Debug)]
pub struct Running {
    pub addr: SocketAddr,
    pub app: App,
    /// What of the scenario is played live, and what is the client's (see `plan_notes`).
    pub notes: Vec<String>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<io::Result<()>>,
}

impl Running {
    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Graceful shutdown: open SSE streams end cleanly, in-flight requests finish.
    pub async fn shutdown(self) -> io::Result<()> {
        let _ = self.stop.send(true);
        let mut task = self.task;
        match tokio::time::timeout(SHUTDOWN_GRACE, &mut task).await {
            Ok(Ok(result)) => result,
            Ok(Err(join)) => Err(io::Error::other(join)),
            Err(_) => {
                task.abort();
                Ok(())
            }
        }
    }
}

/// Binds `addr` and serves in the background on the current tokio runtime.
pub async fn start(config: Config, addr: SocketAddr) -> io::Result<Running> {
    start_with_events(config, addr, None).await
}

/// [`start`], telling `events` (from [`event_channel`]) about every fault fired and every
/// session death, at its virtual time. Kept out of [`Config`] so that a caller building a
/// `Config` literal is not asked for it.
async fn start_with_events(
    config: Config,
    addr: SocketAddr,
    events: Option<EventSink>,
) -> io::Result<Running> {
    let scale = config.time_scale;
    if !(scale.is_finite() && (0.0..=MAX_TIME_SCALE).contains(&scale)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "time scale {scale}: use a number from 0 to {MAX_TIME_SCALE} (virtual ms per wall ms)"
            ),
        ));
    }
    let limits = config.limits;
    let allowed_hosts = config.allowed_hosts.clone();
    let (app, notes) = App::watched(config, events);
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let _ = app
        .inner
        .host_policy
        .set(host_check::HostPolicy::new(addr, &allowed_hosts));
    let (stop, stopped) = watch::channel(false);
    tokio::spawn(stall_sweep(
        app.clone(),
        limits.stream_stall,
        stopped.clone(),
    ));
    let (auto_grace, pace) = {
        let state = app.lock();
        (state.config().auto_grace, state.config().pace)
    };
    match auto_grace {
        Some(grace) => tokio::spawn(auto_advance::auto_ticker(
            app.clone(),
            grace,
            auto_advance::Pacer::new(pace),
            stopped.clone(),
        )),
        None => tokio::spawn(ticker(app.clone(), stopped.clone())),
    };
    let task = tokio::spawn(accept_loop::serve(
        listener,
        router(app.clone()),
        app.clone(),
        limits,
        stopped,
    ));
    Ok(Running {
        addr,
        app,
        notes,
        stop,
        task,
    })
}

/// Builds a runtime and serves until Ctrl-C (SIGINT) or SIGTERM, then shuts down
/// gracefully. `on_listening` is called once with the bound address, after the signal
/// handlers are installed (so a signal sent as soon as the address is known is handled).
/// `events`, if given, is told about every fault fired and every session death.
pub fn serve_blocking(
    config: Config,
    addr: SocketAddr,
    events: Option<EventSink>,
    on_listening: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mut signals = Signals::install()?;
        let running = start_with_events(config, addr, events).await?;
        for note in &running.notes {
            eprintln!("faultline serve: {note}");
        }
        on_listening(running.addr);
        signals.recv().await;
        eprintln!("faultline serve: shutting down");
        running.shutdown().await
    })
}

/// SIGINT and SIGTERM, registered up front.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        {
            Ok(Signals {})
        }
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => {}
                _ = self.terminate.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
