//! # faultline-testkit
//!
//! Property-test a real MCP client library against the live faultline server.
//!
//! ```text
//! arb_server_knobs() ─┐                      ┌─▶ your client (real HTTP, loopback) ─▶ Observed / error
//! arb_fault_script() ─┴▶ Harness ─▶ server ──┤
//!   (the swarm generator)   (tokio runtime)  └─▶ ledger (ground truth) ─┐
//!                                                                       ▼
//!                                   Outcome: clean | silent_gap | surfaced | hung + repro
//! ```
//!
//! ```no_run
//! use faultline_testkit::{Harness, Observed, arb_fault_script, arb_server_knobs};
//! use proptest::prelude::*;
//!
//! async fn call_long_job(url: String, steps: u32) -> Result<Observed, String> {
//!     // your client: initialize, tools/call long_job with a progress token, collect
//!     // the progress values and the result text
//! #   let _ = (url, steps);
//!     unimplemented!()
//! }
//!
//! proptest! {
//!     #[test]
//!     fn my_client_never_loses_progress(knobs in arb_server_knobs(), faults in arb_fault_script()) {
//!         let outcome = Harness::new(knobs, faults).run(|url| call_long_job(url, 20));
//!         prop_assert!(outcome.no_silent_loss(), "{}", outcome.report());
//!     }
//! }
//! ```
//!
//! ## Time
//!
//! The live server's clock is `virtual = wall elapsed * time_scale` (plus jumps), read
//! from `std::time::Instant` inside `faultline-server`; it is not tokio's clock, so paused
//! tokio time cannot drive it (that would need the server's `clock.rs` to read
//! `tokio::time::Instant` and its ticker to sleep on tokio time, and the client under test
//! to use no real sockets' timeouts). The harness therefore runs on real time with a large
//! `time_scale` (default [`DEFAULT_TIME_SCALE`] = 60: a minute of server time per wall
//! second, so a 30 s log TTL passes during a client's 1 s reconnect back-off, as it would
//! in production with a slower client). Everything the client does in wall time is
//! magnified by the same factor, which is the point: a client's back-off is measured in
//! server minutes.
//!
//! ## What is judged
//!
//! The closure makes **one** `long_job` call (with a progress token) and returns what its
//! application saw ([`Observed`]) or an error. The ground truth is the ledger of the
//! in-process server: the last `long_job` job it started is the call (a client may re-issue
//! it after re-initializing; abandoned attempts owe nothing). Every progress step the server
//! produced for that job, and the job's result, must be in `Observed`, or the client must
//! have returned an error.

use std::fmt::{self, Write as _};
use std::future::Future;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use faultline_model::{DurationMs, ServerKnobs};
use faultline_server::Config;
use faultline_sim::swarm::{self, SwarmOptions};
use faultline_sim::{
    ClientConfig, ClientModel, Fault, PickCount, PickDuration, Scenario, StreamSel, Tool, Trigger,
    Work,
};
use proptest::prelude::*;
use serde_json::Value;

pub use faultline_model;
pub use faultline_sim;

/// Virtual milliseconds per wall millisecond unless [`Harness::time_scale`] says otherwise.
pub const DEFAULT_TIME_SCALE: f64 = 60.0;

/// How long a client may take (wall time) before the outcome is [`Verdict::Hung`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The server knobs the swarm generator picks for `seed` (the same generator as the
/// simulator's property tests and the explorer).
pub fn knobs_for_seed(seed: u64) -> ServerKnobs {
    swarm::generate(seed, SwarmOptions::default()).server
}

/// The swarm's fault script for `seed`, reduced to what the live server plays
/// ([`live_faults`]).
pub fn faults_for_seed(seed: u64) -> Vec<Fault> {
    live_faults(swarm::generate(seed, SwarmOptions::default()).faults)
}

/// Keeps the faults the live server plays and makes them fit one call:
///
/// - `Drop`, `Restart`, `Gc` are kept, with `At` or `AfterEvent` triggers as generated;
/// - `StaleTask` is removed and `away` cleared: both are client-side (the simulator's
///   modelled client obeys them; a real client reconnects on its own schedule);
/// - `Call(k)` selectors become `Call(0)`: the harness's scenario has the one call the
///   client under test makes.
pub fn live_faults(faults: Vec<Fault>) -> Vec<Fault> {
    let one_call = |s: StreamSel| match s {
        StreamSel::Call(_) => StreamSel::Call(0),
        other => other,
    };
    let trigger = |t: Trigger| match t {
        Trigger::AfterEvent { n, on } => Trigger::AfterEvent {
            n,
            on: one_call(on),
        },
        at => at,
    };
    faults
        .into_iter()
        .filter_map(|f| match f {
            Fault::Drop {
                when, mode, stream, ..
            } => Some(Fault::Drop {
                when: trigger(when),
                mode,
                stream: one_call(stream),
                away: None,
            }),
            Fault::Restart { when, .. } => Some(Fault::Restart {
                when: trigger(when),
                away: None,
            }),
            Fault::Gc { when } => Some(Fault::Gc {
                when: trigger(when),
            }),
            Fault::StaleTask { .. } => None,
        })
        .collect()
}

/// Server knobs drawn by the swarm generator. Shrinks by seed (toward seed 0).
pub fn arb_server_knobs() -> impl Strategy<Value = ServerKnobs> {
    any::<u64>().prop_map(knobs_for_seed)
}

/// A fault script drawn by the swarm generator ([`faults_for_seed`]), as a subsequence of
/// the seed's script (at least half of it) so that shrinking removes faults one by one.
pub fn arb_fault_script() -> impl Strategy<Value = Vec<Fault>> {
    any::<u64>().prop_flat_map(|seed| {
        let faults = faults_for_seed(seed);
        let n = faults.len();
        proptest::sample::subsequence(faults, n / 2..=n)
    })
}

/// What the client's application saw of the call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// The `progress` values of the call's `notifications/progress`, in arrival order.
    pub progress: Vec<f64>,
    /// The result's text content (`None`: the client returned without one).
    pub result: Option<String>,
}

/// The verdict of one run.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every progress step the server produced for the call, and its result, were seen.
    Clean,
    /// The client returned success, but steps (or the result) the server produced never
    /// reached its application, and no error said so.
    SilentGap {
        missing_steps: Vec<u32>,
        result_missing: bool,
    },
    /// The client returned an error: loud, whatever was lost.
    Surfaced { error: String },
    /// The client neither returned nor failed within the timeout (a hang or an endless
    /// reconnect loop: the application gets neither the result nor an error).
    Hung { after: Duration },
}

impl Verdict {
    /// The stable snake_case name.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::SilentGap { .. } => "silent_gap",
            Verdict::Surfaced { .. } => "surfaced",
            Verdict::Hung { .. } => "hung",
        }
    }
}

/// The server's ground truth about the call (from the ledger).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    /// `long_job` jobs the server started (re-issues included).
    pub jobs: usize,
    /// Progress steps produced for the judged (last) job, in order.
    pub produced_steps: Vec<u32>,
    /// How the judged job ended (`finished`, `cancelled`, `killed`), if it did.
    pub job_end: Option<String>,
    /// Every answer the server gave: `(virtual ms, method, status)`.
    pub answers: Vec<(u64, String, u16)>,
    /// Resumptions (`Last-Event-ID` requests) and how each cursor was resolved.
    pub resumptions: Vec<String>,
    /// Faults that fired: `(virtual ms, description)`.
    pub faults_fired: Vec<(u64, String)>,
    /// Virtual time when the ledger was read.
    pub now_ms: u64,
}

impl Truth {
    fn from_ledger(ledger: &Value) -> Truth {
        let jobs: Vec<(usize, &Value)> = ledger["jobs"]
            .as_array()
            .map(|a| a.iter().enumerate().collect())
            .unwrap_or_default();
        let long_jobs: Vec<&(usize, &Value)> = jobs
            .iter()
            .filter(|(_, j)| j["tool"] == "long_job")
            .collect();
        let judged = long_jobs.last().map(|(i, j)| (*i, *j));
        let mut produced_steps = Vec::new();
        if let Some((index, _)) = judged {
            for stream in ledger["streams"].as_array().into_iter().flatten() {
                for event in stream["events"].as_array().into_iter().flatten() {
                    let p = &event["payload"];
                    if p["type"] == "progress" && p["job"].as_u64() == Some(index as u64) {
                        produced_steps.push((
                            event["at_ms"].as_u64().unwrap_or(0),
                            p["step"].as_u64().unwrap_or(0) as u32,
                        ));
                    }
                }
            }
        }
        produced_steps.sort();
        let produced_steps = produced_steps.into_iter().map(|(_, s)| s).collect();
        let job_end = judged.and_then(|(_, j)| {
            j["ended"]
                .as_array()
                .and_then(|e| e.get(1))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        let answers = ledger["answers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let method = match a["rpc_method"].as_str() {
                    Some(m) => format!("{} {m}", a["method"].as_str().unwrap_or("?")),
                    None => a["method"].as_str().unwrap_or("?").to_string(),
                };
                (
                    a["at_ms"].as_u64().unwrap_or(0),
                    method,
                    a["status"].as_u64().unwrap_or(0) as u16,
                )
            })
            .collect();
        let resumptions = ledger["resumptions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                format!(
                    "T+{}ms Last-Event-ID {} -> {}",
                    r["at_ms"],
                    r["cursor"].as_str().unwrap_or("?"),
                    r["resolution"]
                )
            })
            .collect();
        let faults_fired = ledger["faults_fired"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                (
                    f["at_ms"].as_u64().unwrap_or(0),
                    f["fault"].as_str().unwrap_or("?").to_string(),
                )
            })
            .collect();
        Truth {
            jobs: long_jobs.len(),
            produced_steps,
            job_end,
            answers,
            resumptions,
            faults_fired,
            now_ms: ledger["now_ms"].as_u64().unwrap_or(0),
        }
    }
}

/// One run: the verdict, what the client said, what the server knows, how to reproduce.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub verdict: Verdict,
    /// What the client returned (`None` if it errored or hung).
    pub observed: Option<Observed>,
    pub truth: Truth,
    /// The scenario the server played (knobs + faults + a description of the call).
    pub scenario: Scenario,
    pub time_scale: f64,
    pub elapsed: Duration,
}

impl Outcome {
    /// `false` for `silent_gap` and `hung` (the application got neither everything nor an
    /// error); `true` for `clean` and `surfaced`.
    pub fn no_silent_loss(&self) -> bool {
        matches!(self.verdict, Verdict::Clean | Verdict::Surfaced { .. })
    }

    pub fn is_clean(&self) -> bool {
        self.verdict == Verdict::Clean
    }

    /// Writes the scenario's RON to a file in the temp directory (named by its content)
    /// and returns its path.
    pub fn write_scenario(&self) -> std::io::Result<PathBuf> {
        let text = self.scenario.to_ron();
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        let path = std::env::temp_dir().join(format!("faultline-testkit-{hash:016x}.ron"));
        std::fs::write(&path, text)?;
        Ok(path)
    }

    /// The command that serves this run's scenario for the client to be run against again.
    pub fn repro_command(&self, scenario_file: &str) -> String {
        format!(
            "faultline serve --scenario {scenario_file} --control --time-scale {} --seed {}",
            self.time_scale, self.scenario.seed
        )
    }

    /// A report for a failing property: the verdict and its evidence, the knobs and
    /// faults in RON, and the command that reproduces the server side.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "verdict: {}", self.verdict.name());
        match &self.verdict {
            Verdict::Clean => {}
            Verdict::SilentGap {
                missing_steps,
                result_missing,
            } => {
                let _ = writeln!(
                    out,
                    "  missing progress steps: {} ({} of {} produced)",
                    ranges(missing_steps),
                    missing_steps.len(),
                    self.truth.produced_steps.len()
                );
                if *result_missing {
                    let _ = writeln!(out, "  the result never reached the application");
                }
            }
            Verdict::Surfaced { error } => {
                let _ = writeln!(out, "  the client returned an error: {error}");
            }
            Verdict::Hung { after } => {
                let _ = writeln!(
                    out,
                    "  no result and no error after {:.1} s wall ({} s virtual)",
                    after.as_secs_f64(),
                    self.truth.now_ms / 1000
                );
            }
        }
        if let Some(o) = &self.observed {
            let _ = writeln!(
                out,
                "client observed: {} progress notifications, result {:?}",
                o.progress.len(),
                o.result
            );
        }
        let _ = writeln!(
            out,
            "server produced: {} long_job job(s); judged job: steps {} , ended {:?}",
            self.truth.jobs,
            ranges(&self.truth.produced_steps),
            self.truth.job_end
        );
        for (at, fault) in &self.truth.faults_fired {
            let _ = writeln!(out, "  fault fired at T+{at}ms: {fault}");
        }
        let n = self.truth.resumptions.len();
        for r in self.truth.resumptions.iter().take(5) {
            let _ = writeln!(out, "  resumption {r}");
        }
        if n > 5 {
            let _ = writeln!(out, "  ... {} more resumptions", n - 5);
        }
        let _ = writeln!(
            out,
            "  {} HTTP answers; last ones:",
            self.truth.answers.len()
        );
        let skip = self.truth.answers.len().saturating_sub(6);
        for (at, method, status) in self.truth.answers.iter().skip(skip) {
            let _ = writeln!(out, "    T+{at}ms {method} -> {status}");
        }
        let _ = writeln!(out, "scenario (knobs, faults):\n{}", self.scenario.to_ron());
        match self.write_scenario() {
            Ok(path) => {
                let _ = writeln!(
                    out,
                    "reproduce: {}\n  then run the client against the printed URL",
                    self.repro_command(&path.display().to_string())
                );
            }
            Err(e) => {
                let _ = writeln!(out, "reproduce: (could not write the scenario file: {e})");
            }
        }
        out
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report())
    }
}

/// `1..=3, 7` style.
fn ranges(steps: &[u32]) -> String {
    let mut sorted = steps.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}..={end}")
        });
        i += 1;
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// Joins what the client reported with the ledger.
pub fn judge(
    client: Option<Result<Observed, String>>,
    truth: &Truth,
    elapsed: Duration,
) -> Verdict {
    match client {
        None => Verdict::Hung { after: elapsed },
        Some(Err(error)) => Verdict::Surfaced { error },
        Some(Ok(observed)) => {
            let seen: Vec<u32> = observed
                .progress
                .iter()
                .filter(|p| p.is_finite() && **p >= 0.0)
                .map(|p| p.round() as u32)
                .collect();
            let missing_steps: Vec<u32> = truth
                .produced_steps
                .iter()
                .copied()
                .filter(|s| !seen.contains(s))
                .collect();
            let result_missing = observed.result.is_none();
            if missing_steps.is_empty() && !result_missing {
                Verdict::Clean
            } else {
                Verdict::SilentGap {
                    missing_steps,
                    result_missing,
                }
            }
        }
    }
}

/// Runs one client against one live server configuration.
#[derive(Debug, Clone)]
pub struct Harness {
    knobs: ServerKnobs,
    faults: Vec<Fault>,
    time_scale: f64,
    timeout: Duration,
    seed: u64,
    steps: u32,
    interval_ms: u64,
}

impl Harness {
    /// `faults` are passed through [`live_faults`].
    pub fn new(knobs: ServerKnobs, faults: Vec<Fault>) -> Harness {
        Harness {
            knobs,
            faults: live_faults(faults),
            time_scale: DEFAULT_TIME_SCALE,
            timeout: DEFAULT_TIMEOUT,
            seed: 1,
            steps: 20,
            interval_ms: 1_000,
        }
    }

    /// A scenario file's knobs and faults (and seed).
    pub fn from_scenario(scenario: &Scenario) -> Harness {
        let mut h = Harness::new(scenario.server.clone(), scenario.faults.clone());
        h.seed = scenario.seed;
        h
    }

    /// Virtual ms per wall ms (default [`DEFAULT_TIME_SCALE`]).
    pub fn time_scale(mut self, time_scale: f64) -> Harness {
        assert!(time_scale.is_finite() && time_scale > 0.0);
        self.time_scale = time_scale;
        self
    }

    /// Wall time the client gets before the outcome is `hung` (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Harness {
        self.timeout = timeout;
        self
    }

    /// Seeds the server's session ids.
    pub fn seed(mut self, seed: u64) -> Harness {
        self.seed = seed;
        self
    }

    /// Describes the call the client makes (`long_job` steps and interval, virtual ms) in
    /// the reproduction scenario; the live server does not play it, the client makes it.
    pub fn call(mut self, steps: u32, interval_ms: u64) -> Harness {
        self.steps = steps;
        self.interval_ms = interval_ms;
        self
    }

    /// The scenario the server plays.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            name: "testkit".into(),
            summary: "A live run of a client under test (faultline-testkit): server knobs and faults; the CallTool describes the client's call and is not played live.".into(),
            seed: self.seed,
            server: self.knobs.clone(),
            client: ClientConfig {
                model: ClientModel::Naive,
                start_at: PickDuration::fixed(DurationMs::ZERO),
                ..ClientConfig::default()
            },
            workload: vec![Work::CallTool {
                at: PickDuration::fixed(DurationMs::ZERO),
                tool: Tool::LongJob {
                    steps: PickCount::fixed(self.steps as u64),
                    interval: DurationMs(self.interval_ms),
                },
                progress: true,
            }],
            faults: self.faults.clone(),
            horizon: None,
            expect: Default::default(),
        }
    }

    /// Starts the server on `127.0.0.1:0` on a runtime of its own, runs `client` with the
    /// MCP URL under the timeout, reads the ledger, and tears everything down (tasks the
    /// client spawned included).
    pub fn run<F, Fut, E>(&self, client: F) -> Outcome
    where
        F: FnOnce(String) -> Fut,
        Fut: Future<Output = Result<Observed, E>> + Send + 'static,
        E: fmt::Display + Send + 'static,
    {
        let scenario = self.scenario();
        let config = Config {
            knobs: self.knobs.clone(),
            seed: self.seed,
            scenario: Some(scenario.clone()),
            control: true,
            time_scale: self.time_scale,
            auto_grace: None,
            journal: false,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let timeout = self.timeout;
        let (reported, ledger, elapsed) = runtime.block_on(async move {
            let running = faultline_server::start(config, "127.0.0.1:0".parse().unwrap())
                .await
                .expect("bind 127.0.0.1:0");
            let started = Instant::now();
            let task = tokio::spawn(client(running.url()));
            let reported = match tokio::time::timeout(timeout, task).await {
                Ok(Ok(Ok(observed))) => Some(Ok(observed)),
                Ok(Ok(Err(e))) => Some(Err(e.to_string())),
                Ok(Err(join)) => Some(Err(format!("the client panicked: {join}"))),
                Err(_) => None,
            };
            let elapsed = started.elapsed();
            (reported, running.app.ledger_json(), elapsed)
        });
        // Aborts the server, the ticker and whatever the client left running.
        runtime.shutdown_timeout(Duration::from_millis(200));
        let truth = Truth::from_ledger(&ledger);
        let observed = reported.as_ref().and_then(|r| r.as_ref().ok()).cloned();
        let verdict = judge(reported, &truth, elapsed);
        Outcome {
            verdict,
            observed,
            truth,
            scenario,
            time_scale: self.time_scale,
            elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_faults_keep_only_server_side_faults_on_call_zero() {
        let mut any = false;
        for seed in 0..200 {
            let faults = faults_for_seed(seed);
            for f in &faults {
                any = true;
                match f {
                    Fault::Drop { away, stream, .. } => {
                        assert!(away.is_none());
                        assert!(matches!(
                            stream,
                            StreamSel::Any | StreamSel::Standalone | StreamSel::Call(0)
                        ));
                    }
                    Fault::Restart { away, .. } => assert!(away.is_none()),
                    Fault::Gc { .. } => {}
                    Fault::StaleTask { .. } => panic!("StaleTask is client-side"),
                }
            }
            // The reproduction scenario must load with `faultline serve --scenario`.
            let h = Harness::new(knobs_for_seed(seed), faults);
            let text = h.scenario().to_ron();
            Scenario::parse(&text, "testkit.ron").unwrap_or_else(|e| panic!("{e}\n{text}"));
        }
        assert!(any);
    }

    #[test]
    fn judge_names_the_missing_steps_and_result() {
        let truth = Truth {
            produced_steps: vec![1, 2, 3, 4],
            ..Truth::default()
        };
        let seen = |p: &[f64], r: Option<&str>| {
            Some(Ok(Observed {
                progress: p.to_vec(),
                result: r.map(str::to_string),
            }))
        };
        let d = Duration::ZERO;
        assert_eq!(
            judge(seen(&[1.0, 2.0, 3.0, 4.0], Some("ok")), &truth, d),
            Verdict::Clean
        );
        assert_eq!(
            judge(seen(&[1.0, 2.0], None), &truth, d),
            Verdict::SilentGap {
                missing_steps: vec![3, 4],
                result_missing: true
            }
        );
        assert_eq!(
            judge(Some(Err("boom".into())), &truth, d).name(),
            "surfaced"
        );
        assert_eq!(judge(None, &truth, d).name(), "hung");
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1..=3, 5, 7..=8");
    }
}
