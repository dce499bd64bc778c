//! `faultline bench-live`: the live server under load over loopback, measured.
//!
//! Starts `faultline serve` (this very binary, fault-free, `127.0.0.1:0`) as a child process
//! for each phase, so that the server's RSS and CPU time are its own, and drives it with a
//! built-in load generator (tokio + hyper HTTP/1.1, keep-alive, `TCP_NODELAY`):
//!
//! 1. `echo-1`, `echo-N`: closed-loop `tools/call echo` from 1 and from N initialized
//!    sessions (each with `--inflight` connections, one request in flight on each):
//!    requests/s, p50/p99/max latency;
//! 2. `progress`: `long_job` (`interval_ms: 0`, `--steps` steps, with a progress token) in a
//!    loop from `--job-sessions` sessions: `notifications/progress` SSE events actually
//!    received and parsed by the client, per second;
//! 3. `rss`: `--streams` sessions initialized, each holding its standalone GET SSE stream
//!    open (the priming event received), then the server's `VmRSS` from `/proc`.
//!
//! Every phase is bounded (duration, or a fixed count with a timeout) and stops by itself.
//! With `--runs N` each phase runs N times on fresh servers and medians are reported.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::Args;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::{Semaphore, watch};

const PROTOCOL_VERSION: &str = "2025-11-25";
const BOTH: &str = "application/json, text/event-stream";

#[derive(Args)]
pub struct BenchLiveArgs {
    /// Seconds each timed phase (echo, progress) runs.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Repetitions of every phase, each on a fresh server (medians are reported).
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    /// Sessions of the many-session echo phase (the single-session phase always runs too).
    #[arg(long, default_value_t = 32)]
    pub sessions: usize,
    /// Connections per session in the echo phases, one request in flight on each.
    #[arg(long, default_value_t = 1)]
    pub inflight: usize,
    /// Sessions running `long_job` concurrently in the progress phase.
    #[arg(long, default_value_t = 8)]
    pub job_sessions: usize,
    /// Steps per `long_job` call (all produced at once with `interval_ms: 0`; keep a job's
    /// SSE body under the server's 8 MiB per-connection queue limit, ~170 bytes/step).
    #[arg(long, default_value_t = 10_000)]
    pub steps: u32,
    /// Sessions, each with an open standalone GET stream, in the RSS phase.
    #[arg(long, default_value_t = 10_000)]
    pub streams: usize,
    /// Phases to run (comma-separated): echo1, echo, progress, rss.
    #[arg(long, value_delimiter = ',', default_value = "echo1,echo,progress,rss")]
    pub phases: Vec<String>,
    /// Worker threads of the load generator's runtime (the server gets the rest of the
    /// machine; 1 leaves it most of a 2-core box).
    #[arg(long, default_value_t = 1)]
    pub client_threads: usize,
    /// The server binary to start with `serve --addr 127.0.0.1:0` (default: this binary).
    #[arg(long)]
    pub server_exe: Option<PathBuf>,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

pub fn bench_live(args: BenchLiveArgs) -> ExitCode {
    let runtime = match args.client_threads {
        0 | 1 => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        n => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(n)
            .enable_all()
            .build(),
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run_all(&args)) {
        Ok(report) => {
            if let Some(path) = &args.json {
                let text = serde_json::to_string_pretty(&report).expect("serializable");
                if let Err(e) = std::fs::write(path, text + "\n") {
                    eprintln!("error: writing {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, BoxError>;

async fn run_all(args: &BenchLiveArgs) -> Result<Value> {
    let exe = match &args.server_exe {
        Some(p) => p.clone(),
        None => {
            // If the binary was rebuilt while we run, the old inode is still ours to exec.
            let exe = std::env::current_exe()?;
            if exe.exists() {
                exe
            } else {
                PathBuf::from("/proc/self/exe")
            }
        }
    };
    let duration = Duration::from_secs_f64(args.duration.max(0.1));
    let runs = args.runs.max(1);
    let want = |p: &str| args.phases.iter().any(|x| x == p);
    for p in &args.phases {
        if !["echo1", "echo", "progress", "rss"].contains(&p.as_str()) {
            return Err(format!("unknown phase {p:?} (echo1, echo, progress, rss)").into());
        }
    }
    let nofile = raise_nofile_limit(args.streams + 1_024);
    println!(
        "faultline bench-live: server {} | {} run(s) | {:.1} s per timed phase | client threads {} | RLIMIT_NOFILE {}",
        exe.display(),
        runs,
        duration.as_secs_f64(),
        args.client_threads.max(1),
        nofile
    );
    let mut report = serde_json::Map::new();
    report.insert(
        "config".into(),
        json!({
            "server_exe": exe.display().to_string(),
            "runs": runs,
            "duration_s": duration.as_secs_f64(),
            "sessions": args.sessions,
            "inflight": args.inflight,
            "job_sessions": args.job_sessions,
            "steps": args.steps,
            "streams": args.streams,
            "client_threads": args.client_threads.max(1),
            "rlimit_nofile": nofile,
        }),
    );

    let mut echo_phases = Vec::new();
    if want("echo1") {
        echo_phases.push(("echo1", 1));
    }
    if want("echo") {
        echo_phases.push(("echo", args.sessions.max(1)));
    }
    for (name, sessions) in echo_phases {
        let mut results = Vec::new();
        for run in 1..=runs {
            let mut server = ServerChild::spawn(&exe)?;
            let r = echo_phase(&server, sessions, args.inflight.max(1), duration).await;
            let cpu = server.cpu_seconds();
            let rss = server.rss_mib();
            let alive = server.check_alive();
            drop(server);
            alive?;
            let mut r = r?;
            r.server_cpu_s = cpu;
            r.server_rss_mib = rss;
            println!(
                "  {name:<8} run {run}: {:>5} sessions x {} in flight  {:>9.0} req/s  p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  errors {}  server CPU {:.2} s ({:.1} µs/req), RSS after {:.1} MiB",
                sessions,
                args.inflight.max(1),
                r.rps,
                r.p50_ms,
                r.p99_ms,
                r.max_ms,
                r.errors,
                r.server_cpu_s,
                r.server_cpu_s * 1e6 / r.requests.max(1) as f64,
                r.server_rss_mib,
            );
            results.push(r);
        }
        let m = EchoResult::median(&results);
        println!(
            "{name:<10} median of {runs}: {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms ({} sessions x {} in flight)",
            m.rps,
            m.p50_ms,
            m.p99_ms,
            sessions,
            args.inflight.max(1)
        );
        report.insert(
            name.into(),
            json!({
                "sessions": sessions,
                "inflight_per_session": args.inflight.max(1),
                "median": m.to_json(),
                "runs": results.iter().map(EchoResult::to_json).collect::<Vec<_>>(),
            }),
        );
    }

    if want("progress") {
        let mut results = Vec::new();
        for run in 1..=runs {
            let mut server = ServerChild::spawn(&exe)?;
            let r = progress_phase(&server, args.job_sessions.max(1), args.steps, duration).await;
            let cpu = server.cpu_seconds();
            let rss = server.rss_mib();
            let alive = server.check_alive();
            drop(server);
            alive?;
            let mut r = r?;
            r.server_cpu_s = cpu;
            r.server_rss_mib = rss;
            println!(
                "  progress run {run}: {:>5} sessions  {:>9.0} events/s  ({} events, {} jobs completed, {} short jobs)  server CPU {:.2} s, RSS after {:.1} MiB",
                args.job_sessions.max(1),
                r.events_per_s,
                r.events,
                r.jobs_completed,
                r.short_jobs,
                r.server_cpu_s,
                r.server_rss_mib,
            );
            results.push(r);
        }
        let m = median(results.iter().map(|r| r.events_per_s).collect());
        println!(
            "progress   median of {runs}: {m:.0} notifications/progress events/s ({} sessions, {} steps per job)",
            args.job_sessions.max(1),
            args.steps
        );
        report.insert(
            "progress".into(),
            json!({
                "sessions": args.job_sessions.max(1),
                "steps": args.steps,
                "median_events_per_s": m,
                "runs": results.iter().map(|r| json!({
                    "events": r.events,
                    "events_per_s": r.events_per_s,
                    "jobs_completed": r.jobs_completed,
                    "short_jobs": r.short_jobs,
                    "server_cpu_s": r.server_cpu_s,
                    "server_rss_after_mib": r.server_rss_mib,
                })).collect::<Vec<_>>(),
            }),
        );
    }

    if want("rss") {
        let mut results = Vec::new();
        for run in 1..=runs {
            let mut server = ServerChild::spawn(&exe)?;
            let r = rss_phase(&server, args.streams).await;
            let alive = server.check_alive();
            drop(server);
            alive?;
            let r = r?;
            println!(
                "  rss      run {run}: idle {:.1} MiB, {} sessions {:.1} MiB, +{} open GET streams {:.1} MiB (peak {:.1} MiB; {:.1} KiB/stream+session)  generator {:.1} MiB  open {:.1} s",
                r.idle_mib,
                r.streams,
                r.sessions_mib,
                r.open,
                r.streams_mib,
                r.hwm_mib,
                (r.streams_mib - r.idle_mib) * 1024.0 / r.open.max(1) as f64,
                r.generator_mib,
                r.open_s,
            );
            results.push(r);
        }
        let m = median(results.iter().map(|r| r.streams_mib).collect());
        println!(
            "rss        median of {runs}: {m:.1} MiB server VmRSS with {} sessions each holding an open GET stream",
            args.streams
        );
        report.insert(
            "rss".into(),
            json!({
                "streams": args.streams,
                "median_mib": m,
                "runs": results.iter().map(|r| json!({
                    "idle_mib": r.idle_mib,
                    "sessions_mib": r.sessions_mib,
                    "streams_mib": r.streams_mib,
                    "peak_mib": r.hwm_mib,
                    "open_streams": r.open,
                    "generator_mib": r.generator_mib,
                    "open_s": r.open_s,
                })).collect::<Vec<_>>(),
            }),
        );
    }
    Ok(Value::Object(report))
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

// --------------------------------------------------------------------------------------
// The server child
// --------------------------------------------------------------------------------------

/// Raises this process's soft `RLIMIT_NOFILE` towards `want` (at most the hard limit);
/// the server child inherits it. Returns the soft limit in force afterwards.
#[cfg(unix)]
fn raise_nofile_limit(want: usize) -> libc::rlim_t {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read/write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        let want = want as libc::rlim_t;
        if lim.rlim_cur < want {
            let raised = libc::rlimit {
                rlim_cur: want.min(lim.rlim_max),
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    lim.rlim_cur
}

#[cfg(not(unix))]
fn raise_nofile_limit(_want: usize) -> u64 {
    0
}

/// `faultline serve` as a child process; killed (SIGTERM, then SIGKILL) on drop.
struct ServerChild {
    child: Child,
    addr: SocketAddr,
}

impl ServerChild {
    fn spawn(exe: &std::path::Path) -> Result<ServerChild> {
        let mut child = Command::new(exe)
            .args(["serve", "--addr", "127.0.0.1:0", "--seed", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|a| a.parse::<SocketAddr>().ok());
        match addr {
            Some(addr) => Ok(ServerChild { child, addr }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("the server's first line was {line:?}, not `listening on …`").into())
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// An error if the server exited during the phase (a crash is a result, not noise).
    fn check_alive(&mut self) -> Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => Err(format!("the server exited during the phase: {status}").into()),
        }
    }

    /// The server's `VmRSS` now, in MiB (0 if unreadable).
    fn rss_mib(&self) -> f64 {
        proc_rss_mib(self.pid()).map_or(0.0, |(rss, _)| rss)
    }

    /// User + system CPU seconds the server has used so far.
    fn cpu_seconds(&self) -> f64 {
        proc_cpu_seconds(self.pid()).unwrap_or(0.0)
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        // SIGTERM first: the server shuts down gracefully, as it would in production.
        #[cfg(unix)]
        // SAFETY: signalling our own child by its pid.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` and `VmHWM` of a process, in MiB.
fn proc_rss_mib(pid: u32) -> Option<(f64, f64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map(|kib| kib / 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn proc_cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the `(comm)`, which may itself contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    #[cfg(unix)]
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    #[cfg(not(unix))]
    let ticks = 100.0;
    Some((utime + stime) / ticks.max(1.0))
}

// --------------------------------------------------------------------------------------
// The client
// --------------------------------------------------------------------------------------

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    tx: SendRequest<Full<Bytes>>,
    host: String,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Result<Conn> {
        let tcp = TcpStream::connect(addr).await?;
        tcp.set_nodelay(true)?;
        let (tx, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Conn {
            tx,
            host: addr.to_string(),
        })
    }

    async fn post(
        &mut self,
        session: Option<&str>,
        body: Bytes,
    ) -> Result<Response<hyper::body::Incoming>> {
        let mut req = Request::post("/mcp")
            .header(HOST, &self.host)
            .header(ACCEPT, BOTH)
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", PROTOCOL_VERSION);
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        self.tx.ready().await?;
        Ok(self.tx.send_request(req.body(Full::new(body))?).await?)
    }

    async fn get_stream(&mut self, session: &str) -> Result<Response<hyper::body::Incoming>> {
        let req = Request::get("/mcp")
            .header(HOST, &self.host)
            .header(ACCEPT, "text/event-stream")
            .header("mcp-protocol-version", PROTOCOL_VERSION)
            .header("mcp-session-id", session)
            .body(Full::new(Bytes::new()))?;
        self.tx.ready().await?;
        Ok(self.tx.send_request(req).await?)
    }

    /// `initialize` then `notifications/initialized`; returns the session id.
    async fn initialize(&mut self) -> Result<String> {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "faultline-bench-live", "version": env!("CARGO_PKG_VERSION")},
            }
        });
        let resp = self.post(None, Bytes::from(body.to_string())).await?;
        let status = resp.status();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        resp.into_body().collect().await?;
        let session = match (status, session) {
            (StatusCode::OK, Some(s)) => s,
            (status, _) => return Err(format!("initialize answered {status}").into()),
        };
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let resp = self.post(Some(&session), Bytes::from_static(note)).await?;
        let status = resp.status();
        resp.into_body().collect().await?;
        if status != StatusCode::ACCEPTED {
            return Err(format!("notifications/initialized answered {status}").into());
        }
        Ok(session)
    }
}

// --------------------------------------------------------------------------------------
// Phase 1: echo
// --------------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct EchoResult {
    requests: u64,
    errors: u64,
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    server_cpu_s: f64,
    server_rss_mib: f64,
}

impl EchoResult {
    fn median(rs: &[EchoResult]) -> EchoResult {
        let m = |f: fn(&EchoResult) -> f64| median(rs.iter().map(f).collect());
        EchoResult {
            requests: m(|r| r.requests as f64) as u64,
            errors: m(|r| r.errors as f64) as u64,
            rps: m(|r| r.rps),
            p50_ms: m(|r| r.p50_ms),
            p99_ms: m(|r| r.p99_ms),
            max_ms: m(|r| r.max_ms),
            server_cpu_s: m(|r| r.server_cpu_s),
            server_rss_mib: m(|r| r.server_rss_mib),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "requests": self.requests,
            "errors": self.errors,
            "req_per_s": self.rps,
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "max_ms": self.max_ms,
            "server_cpu_s": self.server_cpu_s,
            "server_rss_after_mib": self.server_rss_mib,
        })
    }
}

async fn echo_phase(
    server: &ServerChild,
    sessions: usize,
    inflight: usize,
    duration: Duration,
) -> Result<EchoResult> {
    let addr = server.addr;
    // Set up everything first: sessions, then one connection per in-flight slot.
    let mut workers = Vec::with_capacity(sessions * inflight);
    for _ in 0..sessions {
        let mut conn = Conn::open(addr).await?;
        let session: Arc<str> = conn.initialize().await?.into();
        workers.push((conn, session.clone()));
        for _ in 1..inflight {
            workers.push((Conn::open(addr).await?, session.clone()));
        }
    }
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for (w, (mut conn, session)) in workers.into_iter().enumerate() {
        tasks.spawn(async move {
            let mut latencies_us: Vec<u32> = Vec::with_capacity(1 << 16);
            let mut errors = 0u64;
            let mut id = 1u64;
            while Instant::now() < deadline {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello from worker {w}"}}}}}}"#
                );
                id += 1;
                let t = Instant::now();
                let ok = match conn.post(Some(&session), Bytes::from(body)).await {
                    Ok(resp) => {
                        let status = resp.status();
                        match resp.into_body().collect().await {
                            Ok(b) => {
                                let b = b.to_bytes();
                                status == StatusCode::OK && contains(&b, b"\"result\"")
                            }
                            Err(_) => false,
                        }
                    }
                    Err(_) => {
                        // The connection is unusable: count it and reconnect.
                        match Conn::open(addr).await {
                            Ok(c) => conn = c,
                            Err(_) => return (latencies_us, errors + 1),
                        }
                        false
                    }
                };
                if ok {
                    latencies_us.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                } else {
                    errors += 1;
                }
            }
            (latencies_us, errors)
        });
    }
    let mut all: Vec<u32> = Vec::new();
    let mut errors = 0;
    while let Some(joined) = tasks.join_next().await {
        let (lat, err) = joined?;
        all.extend(lat);
        errors += err;
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |p: f64| -> f64 {
        if all.is_empty() {
            return 0.0;
        }
        let i = ((all.len() as f64 * p).ceil() as usize).clamp(1, all.len()) - 1;
        all[i] as f64 / 1000.0
    };
    Ok(EchoResult {
        requests: all.len() as u64,
        errors,
        rps: all.len() as f64 / elapsed,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        max_ms: pct(1.0),
        server_cpu_s: 0.0,
        server_rss_mib: 0.0,
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

// --------------------------------------------------------------------------------------
// Phase 2: progress events
// --------------------------------------------------------------------------------------

struct ProgressResult {
    events: u64,
    events_per_s: f64,
    jobs_completed: u64,
    /// Completed jobs that delivered fewer progress events than steps (should be 0).
    short_jobs: u64,
    server_cpu_s: f64,
    server_rss_mib: f64,
}

/// Splits an SSE body into lines and counts what matters.
#[derive(Default)]
struct SseCounter {
    partial: Vec<u8>,
    progress: u64,
    result: bool,
}

impl SseCounter {
    fn feed(&mut self, mut chunk: &[u8]) {
        while let Some(nl) = chunk.iter().position(|&b| b == b'\n') {
            let line = &chunk[..nl];
            if self.partial.is_empty() {
                self.line(line);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.line(&whole);
            }
            chunk = &chunk[nl + 1..];
        }
        self.partial.extend_from_slice(chunk);
    }

    fn line(&mut self, line: &[u8]) {
        let Some(data) = line.strip_prefix(b"data: ") else {
            return;
        };
        if data.starts_with(br#"{"jsonrpc":"2.0","method":"notifications/progress""#)
            || (data.len() > 2 && contains(data, b"\"notifications/progress\""))
        {
            self.progress += 1;
        } else if contains(data, b"\"result\"") {
            self.result = true;
        }
    }
}

async fn progress_phase(
    server: &ServerChild,
    sessions: usize,
    steps: u32,
    duration: Duration,
) -> Result<ProgressResult> {
    let addr = server.addr;
    let mut workers = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        let mut conn = Conn::open(addr).await?;
        let session = conn.initialize().await?;
        workers.push((conn, session));
    }
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for (w, (mut conn, session)) in workers.into_iter().enumerate() {
        tasks.spawn(async move {
            let (mut events, mut completed, mut short) = (0u64, 0u64, 0u64);
            let mut id = 1u64;
            'jobs: while Instant::now() < deadline {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"long_job","arguments":{{"steps":{steps},"interval_ms":0}},"_meta":{{"progressToken":"w{w}-{id}"}}}}}}"#
                );
                id += 1;
                let resp = match conn.post(Some(&session), Bytes::from(body)).await {
                    Ok(r) if r.status() == StatusCode::OK => r,
                    _ => break,
                };
                let mut body = resp.into_body();
                let mut sse = SseCounter::default();
                loop {
                    let frame = tokio::time::timeout_at(deadline.into(), body.frame()).await;
                    match frame {
                        // The phase is over; whatever was counted so far stands.
                        Err(_) => {
                            events += sse.progress;
                            break 'jobs;
                        }
                        Ok(Some(Ok(frame))) => {
                            if let Some(data) = frame.data_ref() {
                                sse.feed(data);
                            }
                        }
                        Ok(Some(Err(_))) | Ok(None) => break,
                    }
                }
                events += sse.progress;
                if sse.result {
                    completed += 1;
                    if sse.progress < steps as u64 {
                        short += 1;
                    }
                } else {
                    break;
                }
            }
            (events, completed, short)
        });
    }
    let (mut events, mut completed, mut short) = (0, 0, 0);
    while let Some(joined) = tasks.join_next().await {
        let (e, c, s) = joined?;
        events += e;
        completed += c;
        short += s;
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok(ProgressResult {
        events,
        events_per_s: events as f64 / elapsed,
        jobs_completed: completed,
        short_jobs: short,
        server_cpu_s: 0.0,
        server_rss_mib: 0.0,
    })
}

// --------------------------------------------------------------------------------------
// Phase 3: RSS with many open streams
// --------------------------------------------------------------------------------------

struct RssResult {
    streams: usize,
    open: usize,
    idle_mib: f64,
    sessions_mib: f64,
    streams_mib: f64,
    hwm_mib: f64,
    generator_mib: f64,
    open_s: f64,
}

async fn rss_phase(server: &ServerChild, streams: usize) -> Result<RssResult> {
    let addr = server.addr;
    let pid = server.pid();
    let rss = || proc_rss_mib(pid).ok_or("cannot read the server's /proc status");
    let (idle_mib, _) = rss()?;
    let phase_deadline = Instant::now() + Duration::from_secs(120);

    // Initialize the sessions over a small pool of keep-alive connections.
    const POOL: usize = 32;
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..POOL.min(streams.max(1)) {
        let next = next.clone();
        tasks.spawn(async move {
            let mut conn = Conn::open(addr).await?;
            let mut ids = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < streams {
                ids.push(conn.initialize().await?);
            }
            Ok::<_, BoxError>(ids)
        });
    }
    let mut sessions = Vec::with_capacity(streams);
    while let Some(joined) = tasks.join_next().await {
        sessions.extend(joined??);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (sessions_mib, _) = rss()?;

    // One connection per standalone GET stream, held open until `stop`.
    let started = Instant::now();
    let (stop_tx, stop_rx) = watch::channel(false);
    let opening = Arc::new(Semaphore::new(128));
    let opened = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let mut holders = tokio::task::JoinSet::new();
    for session in sessions {
        let (opening, opened, failed) = (opening.clone(), opened.clone(), failed.clone());
        let mut stop = stop_rx.clone();
        holders.spawn(async move {
            let permit = opening.acquire_owned().await.expect("never closed");
            let open = async {
                let mut conn = Conn::open(addr).await?;
                let resp = conn.get_stream(&session).await?;
                if resp.status() != StatusCode::OK {
                    return Err(format!("GET answered {}", resp.status()).into());
                }
                let mut body = resp.into_body();
                // The priming event proves the stream is attached.
                match body.frame().await {
                    Some(Ok(_)) => Ok::<_, BoxError>((conn, body)),
                    _ => Err("the GET stream ended before its first event".into()),
                }
            };
            let held = tokio::time::timeout(Duration::from_secs(30), open).await;
            drop(permit);
            match held {
                Ok(Ok(held)) => {
                    opened.fetch_add(1, Ordering::Relaxed);
                    let _ = stop.wait_for(|s| *s).await;
                    drop(held);
                }
                _ => {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while opened.load(Ordering::Relaxed) + failed.load(Ordering::Relaxed) < streams
        && Instant::now() < phase_deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let open_s = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (streams_mib, hwm_mib) = rss()?;
    let generator_mib = proc_rss_mib(std::process::id()).map_or(0.0, |(r, _)| r);
    let open = opened.load(Ordering::Relaxed);
    let _ = stop_tx.send(true);
    holders.abort_all();
    while holders.join_next().await.is_some() {}
    if open < streams {
        eprintln!(
            "warning: only {open} of {streams} GET streams opened ({} failed)",
            failed.load(Ordering::Relaxed)
        );
    }
    Ok(RssResult {
        streams,
        open,
        idle_mib,
        sessions_mib,
        streams_mib,
        hwm_mib,
        generator_mib,
        open_s,
    })
}

#[cfg(test)]
mod tests {
    use super::SseCounter;

    #[test]
    fn sse_counter_joins_split_lines() {
        let mut c = SseCounter::default();
        c.feed(b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/pro");
        c.feed(b"gress\",\"params\":{}}\n\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
        assert_eq!(c.progress, 1);
        assert!(c.result);
    }
}
