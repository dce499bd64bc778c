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

mod clock;
mod control;
mod core;
mod http;
mod script;

use std::hash::{BuildHasher, RandomState};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::any;
use axum::serve::ListenerExt;
use faultline_model::{
    ConnId, HttpRequest, IdScheme, PositiveDurationMs, ServerKnobs, UnknownCursor,
};
use faultline_sim::Scenario;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

use crate::core::{Source, State};

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
}

impl Config {
    /// A well-behaved server: session-monotonic ids, honest advertisement, SEP-1699
    /// priming with `retry: 1000`, GET validates the session, an unresumable cursor gets
    /// 400; bounded memory: event logs kept 10 minutes and at most 1000 events per
    /// stream, idle sessions reaped after an hour, at most 10,000 sessions. No faults.
    pub fn well_behaved(seed: u64) -> Config {
        let knobs = ServerKnobs {
            priming_events: true,
            retry: PositiveDurationMs::new(1_000),
            event_log_capacity: Some(1_000),
            event_log_ttl: PositiveDurationMs::new(10 * 60_000),
            session_idle_ttl: PositiveDurationMs::new(60 * 60_000),
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
}

/// A seed from the OS (for servers started without a scenario or `--seed`).
pub fn random_seed() -> u64 {
    RandomState::new().hash_one(std::time::SystemTime::now())
}

struct Inner {
    state: Mutex<State>,
    /// Wakes the ticker when work comes due earlier than it planned.
    wake: Notify,
    control: bool,
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
        let control = config.control;
        let (state, notes) = State::new(config);
        let app = App {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                wake: Notify::new(),
                control,
            }),
        };
        (app, notes)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock is a broken model invariant; keep serving (the
        // panic was logged) rather than turning every later request into a 500.
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

    fn handle(&self, request: HttpRequest) -> (ConnId, Source) {
        self.with_state(|s| s.handle(request))
    }

    fn client_gone(&self, conn: ConnId) {
        self.with_state(|s| s.client_gone(conn));
    }

    /// Ends every open SSE stream cleanly (shutdown).
    pub fn close_all_streams(&self) {
        self.lock().close_all();
    }

    /// The ledger view `GET /_chaos/ledger` serves.
    pub fn ledger_json(&self) -> serde_json::Value {
        self.with_state(|s| {
            s.sync();
            control::ledger_view(s)
        })
    }
}

/// The axum app: `/mcp`, and `/_chaos/*` when control is on.
pub fn router(app: App) -> Router {
    let mut router = Router::new().route("/mcp", any(http::mcp));
    if app.inner.control {
        router = router.route("/_chaos/{*path}", any(control::chaos));
    }
    router
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

/// Runs the model's clock-driven work (job steps, TTLs, scripted faults and
/// notifications) when it comes due in wall time.
async fn ticker(app: App, mut stop: watch::Receiver<bool>) {
    loop {
        let deadline = {
            let mut state = app.lock();
            state.sync();
            state.next_wake()
        };
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

/// A server running in the background (tests, embedding).
#[derive(Debug)]
pub struct Running {
    pub addr: SocketAddr,
    pub app: App,
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
    let (app, notes) = App::new(config);
    for note in notes {
        eprintln!("faultline serve: {note}");
    }
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    // Nagle + delayed ACK would hold every small SSE frame back ~40 ms.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    let (stop, stopped) = watch::channel(false);
    tokio::spawn(ticker(app.clone(), stopped.clone()));
    let service = router(app.clone()).into_make_service_with_connect_info::<SocketAddr>();
    let closing = app.clone();
    let mut signal = stopped;
    let shutdown = async move {
        let _ = signal.wait_for(|stop| *stop).await;
        closing.close_all_streams();
    };
    let task = tokio::spawn(async move {
        axum::serve(listener, service)
            .with_graceful_shutdown(shutdown)
            .await
    });
    Ok(Running {
        addr,
        app,
        stop,
        task,
    })
}

/// Builds a runtime and serves until Ctrl-C (SIGINT) or SIGTERM, then shuts down
/// gracefully. `on_listening` is called once with the bound address, after the signal
/// handlers are installed (so a signal sent as soon as the address is known is handled).
pub fn serve_blocking(
    config: Config,
    addr: SocketAddr,
    on_listening: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mut signals = Signals::install()?;
        let running = start(config, addr).await?;
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
