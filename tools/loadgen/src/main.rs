//! `faultline-loadgen`: the live server under load over loopback, measured.
//!
//! A developer tool, not part of the product: it lives in its own package so that the
//! `faultline` binary carries no HTTP client, no libc and no `/proc` readers. Run it with
//! `just bench-live`.
//!
//! It starts `faultline serve` (fault-free, `127.0.0.1:0`) as a child process for each run
//! of each phase, so that the server's RSS and CPU time are its own, and drives it with a
//! load generator of its own (tokio + hyper HTTP/1.1, keep-alive, `TCP_NODELAY`):
//!
//! 1. `echo1`, `echo`: closed-loop `tools/call echo` from 1 and from N initialized
//!    sessions (each with `--inflight` connections, one request in flight on each):
//!    requests/s, p50/p99/max latency ([`echo`]);
//! 2. `progress`: `long_job` (`interval_ms: 0`, `--steps` steps, with a progress token) in a
//!    loop from `--job-sessions` sessions: `notifications/progress` SSE events actually
//!    received and parsed by the client, per second ([`progress`]);
//! 3. `rss`: `--streams` sessions initialized, each holding its standalone GET SSE stream
//!    open (the priming event received), then the server's `VmRSS` ([`rss`]);
//! 4. `soak` (only when named): `--soak-sessions` sessions created, their GET stream
//!    opened and cut, deleted, in a loop; the RSS slope in bytes per session ([`soak`]);
//! 5. `attack` (only when named): issue 29's attacks in a loop while ordinary sessions call
//!    `echo`: their latency and the server's RSS over time ([`attack`]).
//!
//! Every phase is bounded (duration, or a fixed count with a timeout) and stops by itself.
//! With `--runs N` each phase runs N times on fresh servers and medians are reported
//! ([`runs`]).

mod attack;
mod conn;
mod echo;
mod os;
mod progress;
mod rss;
mod runs;
mod server;
mod soak;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, BoxError>;

/// Load-test `faultline serve` over loopback (req/s, latency, progress events/s, RSS).
#[derive(Parser)]
#[command(name = "faultline-loadgen", version)]
pub struct Args {
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
    /// Steps per `long_job` call (all produced at once with `interval_ms: 0`, ~170
    /// bytes/step).
    #[arg(long, default_value_t = 10_000)]
    pub steps: u32,
    /// Sessions, each with an open standalone GET stream, in the RSS phase.
    #[arg(long, default_value_t = 10_000)]
    pub streams: usize,
    /// Sessions created and deleted (each with a GET stream opened and cut) in the soak
    /// phase.
    #[arg(long, default_value_t = 10_000)]
    pub soak_sessions: usize,
    /// `serve --ledger-window` in the soak phase: entries kept per ledger record. Small,
    /// so that the windows are full before the second half of the loop, where the slope
    /// is fitted (with the default 10,000 a 10,000-session soak measures windows filling).
    /// Beyond about 25,000 sessions the loop meets the OS's ephemeral-port limit (each cut
    /// stream leaves a socket in TIME_WAIT for a minute), not the server's.
    #[arg(long, default_value_t = 1_000)]
    pub soak_ledger_window: u32,
    /// Seconds the attack phase runs.
    #[arg(long, default_value_t = 30.0)]
    pub attack_seconds: f64,
    /// Attackers of the attack phase (comma-separated): slow, token, flood, batch, modern.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "slow,token,flood,batch,modern"
    )]
    pub attacks: Vec<String>,
    /// Phases to run (comma-separated): echo1, echo, progress, rss, soak, attack (soak and
    /// attack only when named: `just soak`).
    #[arg(long, value_delimiter = ',', default_value = "echo1,echo,progress,rss")]
    pub phases: Vec<String>,
    /// Worker threads of the load generator's runtime (the server gets the rest of the
    /// machine; 1 leaves it most of a 2-core box).
    #[arg(long, default_value_t = 1)]
    pub client_threads: usize,
    /// The server binary to start with `serve --addr 127.0.0.1:0` (default: the `faultline`
    /// binary next to this one, as `cargo build --release -p faultline` leaves it).
    #[arg(long)]
    pub server_exe: Option<PathBuf>,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
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
    match runtime.block_on(runs::run_all(&args)) {
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
