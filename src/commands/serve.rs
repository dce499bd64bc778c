//! `faultline serve`: the model over real HTTP, for clients in any language.
//!
//! The first stdout line is exactly `listening on http://ADDR/mcp` (a contract: scripts
//! wait for it and read the port from it). Everything else goes to stderr: the scenario's
//! notes, then one line per fault fired and per session death at its virtual time
//! (`T+30m session 5e26… died: absolute TTL`), unless `--quiet`.
//!
//! Exit codes: 0 after a clean shutdown (SIGINT, SIGTERM), 2 for input the server cannot
//! start with (a bad scenario or address, an address in use, a frozen clock nobody can
//! move), 1 for anything else.

mod listen_addr;

use std::io::{ErrorKind, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use faultline_server::{Config, Limits, MAX_TIME_SCALE, event_channel};

use self::listen_addr::parse_listen_addr;

/// Fault and death lines that may wait for stderr; beyond that they are counted, not
/// queued, so a stalled terminal never holds the server back.
const EVENT_LINES_QUEUED: usize = 1_024;

#[derive(Args)]
pub struct ServeArgs {
    /// Play this scenario live: its server knobs, its faults and its notifications.
    /// Without it: a well-behaved server (monotonic ids, priming, no faults).
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// Serve as an official SDK server does: its profile's knobs (`faultline profiles`
    /// lists them), checked against the real server by tests/profiles/run.sh.
    #[arg(long, value_name = "NAME", conflicts_with = "scenario")]
    pub profile: Option<String>,
    /// Set one server knob, on top of --profile or --scenario (repeatable), written as in a
    /// scenario's `server:` block: `--knob event_log_capacity=5`, `--knob retry=2s`.
    #[arg(long = "knob", value_name = "NAME=VALUE")]
    pub knobs: Vec<String>,
    /// Address to listen on (`127.0.0.1:8080`, `localhost:8080`, `[::1]:0`); port 0 picks
    /// a free one.
    #[arg(long, default_value = "127.0.0.1:0", value_parser = parse_listen_addr)]
    pub addr: SocketAddr,
    /// Serve the /_chaos control API (loopback peers only).
    #[arg(long)]
    pub control: bool,
    /// Virtual milliseconds per wall millisecond (60 = a minute of TTL per second;
    /// 0 = frozen: only POST /_chaos/clock/advance moves time, so it needs --control), or
    /// `auto`: time jumps to the next due server event whenever every client waits on the
    /// server (see --auto-grace-ms). With --grading, a number is the grading clock's pace,
    /// as `grade --time-scale`: at most that many virtual ms per wall ms. [default: 1]
    #[arg(long, value_parser = parse_time_scale)]
    pub time_scale: Option<TimeScaleArg>,
    /// With --time-scale auto: real milliseconds of quiet, when no client waits on a POST
    /// stream, before time jumps (a client between two requests gets this long to send);
    /// `never`: time moves only while a client waits on the server, never because wall
    /// time passed (the testkit's and grade's clock).
    #[arg(long, default_value = "30", value_parser = parse_auto_grace)]
    pub auto_grace_ms: std::time::Duration,
    /// Seed for session ids and the scenario's ranges (default: the scenario's seed, or
    /// random without a scenario).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Allow listening on an address other than loopback.
    #[arg(long)]
    pub allow_non_loopback: bool,
    /// Do not print a line for each fault fired and each session death.
    #[arg(short, long)]
    pub quiet: bool,
    /// Serve --scenario exactly as `faultline grade` does, to replay a graded run: the
    /// grading clock (time moves only while a client waits on the server), calls held
    /// until their scenario time, the `faultline.quiet` marker (implies --time-scale auto).
    #[arg(long, requires = "scenario")]
    pub grading: bool,
    /// Close a connection whose request headers are not complete this many milliseconds
    /// after its first byte (or after it opened), or whose body then takes as long again.
    #[arg(long, default_value_t = faultline_server::DEFAULT_HEADER_TIMEOUT.as_millis() as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_ms: u64,
    /// Close a keep-alive connection with no request in flight and no byte received for
    /// this many milliseconds.
    #[arg(long, default_value_t = faultline_server::DEFAULT_IDLE_TIMEOUT.as_millis() as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout_ms: u64,
    /// Open connections at most; one more gets 503 with a sentence and is closed
    /// (default: the open-file limit minus 64).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// Bytes of SSE frames that may wait for one stream's reader; a stream over it whose
    /// reader takes nothing for --stream-stall-ms is cut (recorded in the ledger's `cuts`).
    #[arg(long, default_value_t = faultline_server::DEFAULT_STREAM_QUEUE_BYTES as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub stream_queue_bytes: u64,
    /// See --stream-queue-bytes.
    #[arg(long, default_value_t = faultline_server::DEFAULT_STREAM_STALL.as_millis() as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub stream_stall_ms: u64,
    /// Also answer requests whose `Host` names this host (repeatable); by default only
    /// localhost, loopback addresses and the bound address (DNS-rebinding protection).
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// The most steps one `long_job` call may ask for; more gets a JSON-RPC error naming
    /// the limit [default: 100000; with --scenario, the simulator's 1000000].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_job_steps: Option<u32>,
    /// Job steps run per turn while holding the server's lock; steps still due run in
    /// later turns, with other clients' requests served in between.
    #[arg(long, default_value_t = Limits::default().job_steps_per_turn, value_parser = clap::value_parser!(u32).range(1..))]
    pub job_steps_per_turn: u32,
    /// SSE streams a session's event log may hold; a POST that would open one more gets
    /// 429 Too Many Requests.
    #[arg(long, default_value_t = Limits::default().max_streams_per_session, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_streams_per_session: u32,
    /// 2026-07-28 task records held at most (not with --scenario); a new task takes the
    /// room of a gone, expired or the oldest finished task, and a task call when every
    /// one is still working gets 429 Too Many Requests.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_TASKS, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tasks: u32,
    /// 2026-07-28 state handles (baskets) held at most (not with --scenario); a new one
    /// takes the room of a lost, idle-expired or the least recently used one.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_HANDLES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_handles: u32,
    /// Without --control: entries kept per ledger record (sessions, events, answers, ...).
    #[arg(long, default_value_t = Limits::default().ledger_window, value_parser = clap::value_parser!(u32).range(1..))]
    pub ledger_window: u32,
    /// Without --control: bytes the ledger may weigh (an estimate of its heap use).
    #[arg(long, default_value_t = Limits::default().ledger_window_bytes, value_parser = clap::value_parser!(u64).range(1..))]
    pub ledger_window_bytes: u64,
    /// Bytes of SSE frames one stream's queue may hold, whatever its reader's pace; the
    /// frame that would pass it cuts the stream (`queue_full` in the ledger's `cuts`).
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_QUEUE_BYTES as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_queue_bytes: u64,
    /// Bytes of SSE frames all streams' queues together may hold; a frame that would pass
    /// it cuts the largest queue first (`server_queues_full` in the ledger's `cuts`).
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_SERVER_QUEUE_BYTES as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_server_queue_bytes: u64,
    /// The longest request id or `_meta.progressToken` accepted, in bytes (not with
    /// --scenario); a longer one gets 400 before anything runs.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_ECHO_BYTES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_echo_bytes: u32,
    /// Job steps one POST may ask for, a 2025-03-26 batch's summed (not with --scenario);
    /// more gets 400.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_STEPS_PER_REQUEST, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps_per_request: u64,
    /// Job steps a session's running jobs may still have to run, with a new POST's (the
    /// 2026-07-28 sessionless requests count as one session; not with --scenario); more
    /// gets 429.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_STEPS_PER_SESSION, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps_per_session: u64,
    /// Job steps every running job may still have to run, with a new POST's (not with
    /// --scenario); more gets 503. Bounds the work clients that left leave behind.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_STEPS_PER_SERVER, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps_per_server: u64,
    /// Live sessions one client address may hold (not with --scenario); `initialize`
    /// beyond it takes the room of that address's oldest never-used session, else 429.
    #[arg(long, default_value_t = faultline_server::DEFAULT_MAX_SESSIONS_PER_PEER, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_sessions_per_peer: u32,
    /// Virtual milliseconds a session never used after `initialize` lives (not with
    /// --scenario).
    #[arg(long, default_value_t = faultline_server::DEFAULT_UNUSED_SESSION_TTL.as_millis() as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub unused_session_ttl_ms: u64,
    /// Whole-ledger bodies (`GET /_chaos/ledger` without `since`) written at once; one
    /// more gets 503 pointing at `?since=N` pages.
    #[arg(long, default_value_t = Limits::default().ledger_readers as u32, value_parser = clap::value_parser!(u32).range(1..))]
    pub ledger_readers: u32,
}

impl ServeArgs {
    /// The limits the flags set, on top of `base` (the config's own defaults).
    fn limits(&self, base: Limits) -> Limits {
        Limits {
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            idle_timeout: Duration::from_millis(self.idle_timeout_ms),
            max_connections: self
                .max_connections
                .map_or_else(faultline_server::default_max_connections, |n| {
                    usize::try_from(n).unwrap_or(usize::MAX)
                }),
            stream_queue_bytes: usize::try_from(self.stream_queue_bytes).unwrap_or(usize::MAX),
            stream_stall: Duration::from_millis(self.stream_stall_ms),
            max_job_steps: self.max_job_steps.unwrap_or(base.max_job_steps),
            job_steps_per_turn: self.job_steps_per_turn,
            max_streams_per_session: self.max_streams_per_session,
            // Applied only where the config bounds them (not for a scenario).
            max_tasks: base.max_tasks.map(|_| self.max_tasks),
            max_handles: base.max_handles.map(|_| self.max_handles),
            ledger_window: self.ledger_window,
            ledger_window_bytes: self.ledger_window_bytes,
            forget_dead_sessions: base.forget_dead_sessions,
            max_queue_bytes: usize::try_from(self.max_queue_bytes).unwrap_or(usize::MAX),
            max_server_queue_bytes: usize::try_from(self.max_server_queue_bytes)
                .unwrap_or(usize::MAX),
            // Applied only where the config bounds them (not for a scenario, whose
            // requests get the simulator's answers).
            max_echo_bytes: base.max_echo_bytes.map(|_| self.max_echo_bytes),
            max_steps_per_request: base
                .max_steps_per_request
                .map(|_| self.max_steps_per_request),
            max_steps_per_session: base
                .max_steps_per_session
                .map(|_| self.max_steps_per_session),
            max_steps_per_server: base.max_steps_per_server.map(|_| self.max_steps_per_server),
            max_sessions_per_peer: base
                .max_sessions_per_peer
                .map(|_| self.max_sessions_per_peer),
            unused_session_ttl: base
                .unused_session_ttl
                .map(|_| Duration::from_millis(self.unused_session_ttl_ms)),
            ledger_readers: usize::try_from(self.ledger_readers).unwrap_or(usize::MAX),
        }
    }
}

/// `--time-scale`: a factor, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeScaleArg {
    Scaled(f64),
    Auto,
}

fn parse_time_scale(text: &str) -> Result<TimeScaleArg, String> {
    if text == "auto" {
        return Ok(TimeScaleArg::Auto);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=MAX_TIME_SCALE).contains(&v) => {
            Ok(TimeScaleArg::Scaled(v))
        }
        Ok(v) if v.is_finite() && v > MAX_TIME_SCALE => Err(format!(
            "{text:?}: at most {MAX_TIME_SCALE} virtual ms per wall ms (about 11.6 virtual days per second); a faster clock would pass the end of virtual time (100 years) within the hour"
        )),
        _ => Err(format!(
            "{text:?}: use a finite number from 0 to {MAX_TIME_SCALE} (virtual ms per wall ms) or `auto`"
        )),
    }
}

fn parse_auto_grace(text: &str) -> Result<std::time::Duration, String> {
    if text == "never" {
        return Ok(faultline_server::NO_GRACE);
    }
    text.parse::<u64>()
        .map(std::time::Duration::from_millis)
        .map_err(|_| format!("{text:?}: use whole milliseconds (e.g. 30) or `never`"))
}

pub fn serve(args: ServeArgs) -> ExitCode {
    let time_scale = args.time_scale.unwrap_or(TimeScaleArg::Scaled(1.0));
    if args.grading && args.time_scale == Some(TimeScaleArg::Scaled(0.0)) {
        eprintln!(
            "error: --grading --time-scale 0: a grading clock's pace must be positive (at most that many virtual ms per wall ms), or leave --time-scale out"
        );
        return ExitCode::from(2);
    }
    if time_scale == TimeScaleArg::Scaled(0.0) && !args.control {
        eprintln!(
            "error: --time-scale 0 freezes virtual time, and only POST /_chaos/clock/advance moves a frozen clock: add --control, or use a positive scale or --time-scale auto"
        );
        return ExitCode::from(2);
    }
    if !args.addr.ip().is_loopback() {
        if !args.allow_non_loopback {
            eprintln!(
                "error: {} is not a loopback address; this server injects faults and its session ids are predictable from the seed. Pass --allow-non-loopback if you really mean it.",
                args.addr
            );
            return ExitCode::from(2);
        }
        eprintln!(
            "warning: listening on non-loopback address {}: anyone who can reach it can use this fault-injecting server{}",
            args.addr,
            if args.control {
                " (the /_chaos control API still answers loopback peers only)"
            } else {
                ""
            }
        );
    }
    let config = match &args.scenario {
        Some(path) => match crate::bundled::load(path) {
            Ok(scenario) => {
                eprintln!(
                    "faultline serve: scenario {} (seed {})",
                    scenario.name,
                    args.seed.unwrap_or(scenario.seed)
                );
                let mut config = if args.grading {
                    match faultline_grade::plan(&scenario) {
                        Ok(plan) => {
                            let context =
                                serde_json::to_string(&plan.context).expect("a context serializes");
                            eprintln!(
                                "faultline serve: grading; run the client with:\n  export FAULTLINE_SCENARIO='{}' FAULTLINE_CONTEXT='{}'",
                                scenario.name,
                                context.replace('\'', "'\\''")
                            );
                            let pace = match args.time_scale {
                                Some(TimeScaleArg::Scaled(pace)) => Some(pace),
                                _ => None,
                            };
                            faultline_grade::grading_config(&plan, pace)
                        }
                        Err(why) => {
                            eprintln!("error: --grading: {}: {why}", scenario.name);
                            return ExitCode::from(2);
                        }
                    }
                } else {
                    Config::from_scenario(scenario)
                };
                if let Some(seed) = args.seed {
                    config.seed = seed;
                }
                config
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => {
            let mut config =
                Config::well_behaved(args.seed.unwrap_or_else(faultline_server::random_seed));
            if let Some(name) = &args.profile {
                match faultline_model::profile(name) {
                    Ok(profile) => {
                        eprintln!("faultline serve: profile {name}: {}", profile.description);
                        config.knobs = profile.knobs();
                    }
                    Err(e) => {
                        eprintln!("error: --profile: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            config
        }
    };
    let mut config = config;
    for pin in &args.knobs {
        let set = pin
            .split_once('=')
            .ok_or_else(|| format!("--knob {pin:?}: write NAME=VALUE"))
            .and_then(|(name, value)| {
                faultline_scenario::set_knob(&mut config.knobs, name.trim(), value)
            });
        if let Err(e) = set {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let limits = args.limits(config.limits);
    let config = config.with_control(args.control).with_limits(limits);
    let config = match time_scale {
        // The grading server brings its own clock.
        _ if args.grading => config,
        TimeScaleArg::Scaled(scale) => config.with_time_scale(scale),
        TimeScaleArg::Auto => config.with_auto_time(args.auto_grace_ms),
    };
    let config = config.with_allowed_hosts(args.allow_host.clone());
    let (events, printer) = if args.quiet {
        (None, None)
    } else {
        let (sink, feed) = event_channel(EVENT_LINES_QUEUED);
        // Ends when the server is gone (every sink dropped), after the last line.
        let printer = std::thread::spawn(move || {
            for notice in feed {
                let _ = writeln!(std::io::stderr().lock(), "{notice}");
            }
        });
        (Some(sink), Some(printer))
    };
    let result = faultline_server::serve_blocking(config, args.addr, events, |addr| {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "listening on http://{addr}/mcp");
        let _ = stdout.flush();
    });
    if let Some(printer) = printer {
        let _ = printer.join();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let (message, code) = start_error(args.addr, &e);
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// What to tell the user when the server could not start or stopped with an error, and
/// the exit code: 2 when the address given cannot be listened on (bad input), else 1.
fn start_error(addr: SocketAddr, error: &std::io::Error) -> (String, u8) {
    let free_port = SocketAddr::new(addr.ip(), 0);
    match error.kind() {
        ErrorKind::AddrInUse => (
            format!(
                "{addr} is already in use: pick another with --addr, or --addr {free_port} for a free port"
            ),
            2,
        ),
        ErrorKind::AddrNotAvailable => (
            format!(
                "{addr} is not an address of this machine: pick one of its own with --addr, e.g. 127.0.0.1:0"
            ),
            2,
        ),
        ErrorKind::PermissionDenied => (
            format!(
                "not allowed to listen on {addr} ({error}): ports below 1024 need privileges; pick a higher port, or --addr {free_port} for a free one"
            ),
            2,
        ),
        _ => (error.to_string(), 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auto_grace_flag_reads_milliseconds_or_never() {
        assert_eq!(parse_auto_grace("30"), Ok(faultline_server::DEFAULT_GRACE));
        assert_eq!(parse_auto_grace("never"), Ok(faultline_server::NO_GRACE));
        assert_eq!(
            parse_auto_grace("0"),
            Ok(std::time::Duration::from_millis(0))
        );
        assert!(parse_auto_grace("soon").unwrap_err().contains("`never`"));
    }

    #[test]
    fn an_absurd_time_scale_is_refused_with_the_bound() {
        let refused = parse_time_scale("1e300").expect_err("refused");
        assert!(refused.contains("at most 1000000"), "{refused}");
        assert!(parse_time_scale("inf").is_err());
        assert!(parse_time_scale("-1").is_err());
        assert_eq!(
            parse_time_scale("1000000"),
            Ok(TimeScaleArg::Scaled(MAX_TIME_SCALE))
        );
        assert_eq!(parse_time_scale("auto"), Ok(TimeScaleArg::Auto));
    }
}

#[cfg(test)]
mod limit_flag_tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    fn limits(args: &[&str], base: Limits) -> Result<Limits, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))?;
        Ok(cli.serve.limits(base))
    }

    #[test]
    fn the_task_and_handle_bounds_apply_without_a_scenario_only() {
        let live = limits(
            &["--max-tasks", "7", "--max-handles", "3"],
            Limits::default(),
        )
        .unwrap();
        assert_eq!((live.max_tasks, live.max_handles), (Some(7), Some(3)));
        let defaults = limits(&[], Limits::default()).unwrap();
        assert_eq!(
            (defaults.max_tasks, defaults.max_handles),
            (Some(10_000), Some(10_000))
        );
        let scenario = limits(&["--max-tasks", "7"], Limits::for_scenario()).unwrap();
        assert_eq!((scenario.max_tasks, scenario.max_handles), (None, None));
        assert!(limits(&["--max-tasks", "0"], Limits::default()).is_err());
    }

    #[test]
    fn every_limit_has_a_flag_and_the_request_bounds_stay_off_for_a_scenario() {
        let flags = [
            "--max-queue-bytes",
            "1000",
            "--max-server-queue-bytes",
            "2000",
            "--max-echo-bytes",
            "3",
            "--max-steps-per-request",
            "4",
            "--max-steps-per-session",
            "5",
            "--max-steps-per-server",
            "6",
            "--max-sessions-per-peer",
            "7",
            "--unused-session-ttl-ms",
            "8",
            "--ledger-readers",
            "9",
        ];
        let live = limits(&flags, Limits::default()).unwrap();
        assert_eq!(
            (live.max_queue_bytes, live.max_server_queue_bytes),
            (1000, 2000)
        );
        assert_eq!(live.max_echo_bytes, Some(3));
        assert_eq!(
            (
                live.max_steps_per_request,
                live.max_steps_per_session,
                live.max_steps_per_server
            ),
            (Some(4), Some(5), Some(6))
        );
        assert_eq!(live.max_sessions_per_peer, Some(7));
        assert_eq!(live.unused_session_ttl, Some(Duration::from_millis(8)));
        assert_eq!(live.ledger_readers, 9);
        assert_eq!(limits(&[], Limits::default()).unwrap(), Limits::default());
        let scenario = limits(&flags, Limits::for_scenario()).unwrap();
        assert_eq!(
            (
                scenario.max_echo_bytes,
                scenario.max_steps_per_request,
                scenario.max_steps_per_session,
                scenario.max_steps_per_server,
                scenario.max_sessions_per_peer,
                scenario.unused_session_ttl
            ),
            (None, None, None, None, None, None)
        );
        assert_eq!(
            limits(&[], Limits::for_scenario()).unwrap(),
            Limits::for_scenario()
        );
    }
}
