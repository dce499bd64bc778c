//! # faultline-testkit
//!
//! Property-test a real MCP client library against the live faultline server.
//!
//! ```text
//! arb_call_case() ─▶ Harness ─▶ server ──┬─▶ your client (real HTTP, loopback) ─▶ Observed / error
//! (knobs + faults     (tokio runtime)     └─▶ ledger (ground truth) ─┐
//!  for the call)                                                     ▼
//!          Outcome: clean | silent_gap | duplicate, ... | untested | surfaced | hung + repro
//! ```
//!
//! ```no_run
//! use faultline_testkit::{Observed, arb_call_case};
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
//!     fn my_client_never_loses_progress(case in arb_call_case(20, 1_000)) {
//!         let outcome = case.harness().run(|url| call_long_job(url, 20));
//!         prop_assert!(outcome.no_silent_loss(), "{}", outcome.report());
//!     }
//! }
//! ```
//!
//! ## Time
//!
//! The server runs on an auto-advancing virtual clock with no grace
//! ([`faultline_server::NO_GRACE`]): time jumps to the next due server event only while
//! the client waits on the server (a request's SSE stream is open, or a listening stream
//! whose session has a job running or notifications to come) and every frame is out.
//! Whatever the client does in wall time (sleep, back off, be descheduled on a loaded
//! machine), the server's time stands still meanwhile. A 20-step job of one minute per
//! step takes milliseconds of wall time, and the ledger records the same virtual times on
//! every run.
//!
//! A client's wall-clock back-off therefore does not decide where it comes back in server
//! time; the fault does. A fault that cuts the client off (a `Drop` of its stream, a
//! `Restart`) with `away: Some(d)` holds the clock at "fault + d" until the client's next
//! request, running whatever is due before that point (the job goes on without its
//! client); a request that comes earlier in wall time waits for that point. With no
//! `away`, the client comes back at the instant of the fault.
//!
//! A stream that will carry nothing more (the server is quiet: nothing may move time until
//! the client acts) can be told apart from one that is merely slow with
//! [`Harness::quiet_marker`]: the server then sends an SSE event of type
//! `faultline.quiet` on every open stream whenever it goes quiet, after everything sent
//! before it. MCP clients ignore it (they listen for `message` events); a hand-written
//! test client can stop reading there instead of on a wall-clock timeout.
//!
//! The only wall-clock figure left is the hang timeout ([`Harness::timeout`]): a client
//! that neither returns nor fails within it is [`Verdict::Hung`]. A client that works
//! needs milliseconds, so the verdict does not depend on the machine's speed; the ledger
//! of a hung client's run ends wherever the timeout cut its retries (each at the same
//! virtual time, since nothing moves the clock then).
//!
//! ## What is judged
//!
//! The closure makes **one** `long_job` call (with a progress token) and returns what its
//! application saw ([`Observed`]) or an error. The ground truth is the typed ledger of the
//! in-process server ([`Truth::ledger`]): the last `long_job` job it started is the call
//! (a client may re-issue it after re-initializing; abandoned attempts owe nothing). Every
//! progress step the server produced for that job, and the job's result, must be in
//! `Observed`, or the client must have returned an error. The judge is the one of
//! `faultline run` and `faultline grade` (`faultline_verdicts::judge`, reading the client
//! as a real one, from what its application was handed), so a step handed over twice is
//! `duplicate` here as there, and a case with a fault that never met the client is `untested`, not
//! `clean`.

use std::fmt::{self, Write as _};
use std::future::Future;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use faultline_model::{CursorResolution, DurationMs, JobEnd, JobId, Ledger, Payload, ServerKnobs};
use faultline_scenario::FiredFault;
use faultline_server::Config;
use faultline_sim::swarm::{self, SwarmOptions};
use faultline_sim::vtime;
use faultline_sim::{
    ClientConfig, ClientModel, Fault, PickCount, PickDuration, Scenario, StreamSel, Tool, Trigger,
    Work,
};
pub use faultline_verdicts::VerdictKind;
use faultline_verdicts::untested::Exercise;
use faultline_verdicts::{
    CallSpec, ClientContext, ClientReport, MissingReport, Observation, Supports, Words,
};
use proptest::prelude::*;

use faultline_verdicts::verdict::Evidence;
/// One verdict of the one judge, with its evidence and sentence.
pub use faultline_verdicts::verdict::Verdict as JudgeVerdict;

pub use call_case::{CallCase, Edge, arb_call_case};
pub use coverage::Coverage;
pub use faultline_model;
pub use faultline_sim;

mod call_case;
mod coverage;

/// How long a client may take (wall time) before the outcome is [`Verdict::Hung`]. A
/// client that works needs milliseconds: the margin is for loaded machines.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

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
/// - every server-side fault is kept (`Drop`, `Restart`, `Gc`, the fleet's, and the
///   2026-07-28 ones: `CutCall`, `ChangeList`, `DropListen`, `IdleProxy`, `PurgeTasks`,
///   `RollEra`), with its trigger and `away` as written (`away` is where, in server time,
///   the cut-off client comes back: the clock waits for it there, see the crate docs);
/// - `StaleTask` is removed: it is the modelled client's own bug, not the server's;
/// - `Call(k)` selectors and `CutCall`'s call become call 0: the harness's scenario has
///   the one call the client under test makes.
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
                when,
                mode,
                stream,
                away,
            } => Some(Fault::Drop {
                when: trigger(when),
                mode,
                stream: one_call(stream),
                away,
            }),
            Fault::Restart { when, away } => Some(Fault::Restart {
                when: trigger(when),
                away,
            }),
            Fault::Gc { when } => Some(Fault::Gc {
                when: trigger(when),
            }),
            Fault::ReplicaDown {
                when,
                replica,
                down,
            } => Some(Fault::ReplicaDown {
                when: trigger(when),
                replica,
                down,
            }),
            Fault::RollingDeploy {
                when,
                every,
                down,
                to_era,
            } => Some(Fault::RollingDeploy {
                when: trigger(when),
                every,
                down,
                to_era,
            }),
            Fault::StickyLost { when } => Some(Fault::StickyLost {
                when: trigger(when),
            }),
            Fault::Scale { when, to } => Some(Fault::Scale {
                when: trigger(when),
                to,
            }),
            Fault::PurgeTasks { when } => Some(Fault::PurgeTasks {
                when: trigger(when),
            }),
            Fault::Proxy502 {
                when,
                lasting,
                status,
            } => Some(Fault::Proxy502 {
                when: trigger(when),
                lasting,
                status,
            }),
            // The 2026-07-28 faults: the live server plays them as it plays the others.
            Fault::CutCall { at, away, .. } => Some(Fault::CutCall { call: 0, at, away }),
            Fault::DropListen { when, end, away } => Some(Fault::DropListen {
                when: trigger(when),
                end,
                away,
            }),
            Fault::RollEra { when, to, away } => Some(Fault::RollEra {
                when: trigger(when),
                to,
                away,
            }),
            f @ (Fault::ChangeList { .. }
            | Fault::IdleProxy { .. }
            | Fault::IdleProxySse { .. }) => Some(f),
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
    /// The error the client reported to its application after it had been handed some
    /// progress. Returning `Ok(Observed { error: Some(..), .. })` instead of `Err(..)`
    /// keeps what the application was handed before the failure in view of the judge: a
    /// client that applied a dead session's replay and then failed loudly still applied
    /// it (`quarantine_violation`), as `faultline grade` reads a report with both
    /// `progress` and `error`.
    pub error: Option<String>,
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
    /// Another silent loss or harm the judge found: the application was handed something
    /// twice (`duplicate`), out of order (`out_of_order`), read in the wrong numbering
    /// (`cursor_reuse`), from a dead or another session (`quarantine_violation`,
    /// `foreign_event`), or the client reconnected without end (`reconnect_loop`).
    Failure {
        kind: VerdictKind,
        /// The judge's sentence.
        summary: String,
    },
    /// Nothing lost, and not all of it tested: the call never reached the server, or one
    /// of the case's faults never met the client (a fault timed after an event that never
    /// came, or a drop of a stream the client did not have open).
    Untested { reasons: Vec<String> },
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
            Verdict::Failure { kind, .. } => kind.name(),
            Verdict::Untested { .. } => "untested",
            Verdict::Surfaced { .. } => "surfaced",
            Verdict::Hung { .. } => "hung",
        }
    }
}

/// The server's ground truth about the call: the typed ledger of the in-process server,
/// and what the harness reads from it.
#[derive(Debug, Clone, Default)]
pub struct Truth {
    /// Everything the server did (the same record `faultline run` digests as
    /// `ledger_sha256`).
    pub ledger: Ledger,
    /// Scenario faults that fired, in order.
    pub faults_fired: Vec<FiredFault>,
    /// Virtual time when the ledger was read.
    pub now_ms: u64,
    /// `long_job` jobs the server started (re-issues included).
    pub jobs: usize,
    /// Progress steps produced for the judged (last) `long_job` job, in order.
    pub produced_steps: Vec<u32>,
    /// The judged job's produced steps that the server never put on any connection (lost
    /// on the server's side: evicted, on a stream nobody resumed, ...).
    pub never_sent_steps: Vec<u32>,
    /// How the judged job ended, if it did.
    pub job_end: Option<JobEnd>,
}

impl Truth {
    fn new(ledger: Ledger, faults_fired: Vec<FiredFault>, now_ms: u64) -> Truth {
        let long_jobs: Vec<JobId> = ledger
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.tool == "long_job")
            .map(|(i, _)| JobId(ledger.jobs_base + i as u32))
            .collect();
        let judged = long_jobs.last().copied();
        let sent: std::collections::BTreeSet<u32> =
            ledger.sends.iter().map(|send| send.event.0).collect();
        let mut produced_steps = Vec::new();
        let mut never_sent_steps = Vec::new();
        for (i, event) in ledger.events.iter().enumerate() {
            if let Payload::Progress { job, step, .. } = event.payload
                && Some(job) == judged
            {
                produced_steps.push(step);
                if !sent.contains(&(ledger.events_base + i as u32)) {
                    never_sent_steps.push(step);
                }
            }
        }
        let job_end = judged.and_then(|j| ledger.job(j).ended.map(|(_, end)| end));
        Truth {
            jobs: long_jobs.len(),
            produced_steps,
            never_sent_steps,
            job_end,
            ledger,
            faults_fired,
            now_ms,
        }
    }

    /// How each resumption's cursor was resolved, in order.
    pub fn resolutions(&self) -> impl Iterator<Item = &CursorResolution> {
        self.ledger.resumptions.iter().map(|r| &r.resolution)
    }

    /// The ledger's JSON: the same bytes for the same case, run after run.
    pub fn ledger_json(&self) -> String {
        serde_json::to_string(&self.ledger).expect("a ledger always serializes")
    }

    /// SHA-256 of [`Truth::ledger_json`].
    pub fn ledger_sha256(&self) -> String {
        faultline_sim::sha256_hex(&self.ledger_json())
    }
}

/// One run: the verdict, what the client said, what the server knows, how to reproduce.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The run in one word, from [`Outcome::verdicts`].
    pub verdict: Verdict,
    /// Every verdict of the one judge (`faultline_verdicts::judge`, the judge of
    /// `faultline run` and `faultline grade`), with its evidence: besides what
    /// [`Outcome::verdict`] sums up, the harm that loses nothing
    /// (`retry_amplification`, `zombie_session`, `reinit_collision`, ...).
    pub verdicts: Vec<JudgeVerdict>,
    /// What the client returned (`None` if it errored or hung).
    pub observed: Option<Observed>,
    pub truth: Truth,
    /// The scenario the server played (knobs + faults + a description of the call).
    pub scenario: Scenario,
    /// Wall time the client took (only a hang's is reported).
    pub elapsed: Duration,
}

impl Outcome {
    /// `false` for `silent_gap`, any other loss or harm (`duplicate`, `out_of_order`,
    /// `cursor_reuse`, `reconnect_loop`, ...) and `hung` (the application got neither
    /// everything nor an error); `true` for `clean`, `untested` and `surfaced`.
    pub fn no_silent_loss(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Clean | Verdict::Untested { .. } | Verdict::Surfaced { .. }
        )
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
            "faultline serve --scenario {scenario_file} --control --time-scale auto --auto-grace-ms never --seed {}",
            self.scenario.seed
        )
    }

    /// A report for a failing property: the verdict and its evidence, the knobs and
    /// faults in RON, and the command that reproduces the server side.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "verdict: {}", self.verdict.name());
        match &self.verdict {
            Verdict::Clean => {}
            Verdict::Failure { summary, .. } => {
                let _ = writeln!(out, "  {summary}");
            }
            Verdict::Untested { reasons } => {
                for reason in reasons {
                    let _ = writeln!(out, "  {reason}");
                }
            }
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
        let _ = writeln!(out, "the judge's verdicts:");
        for v in &self.verdicts {
            let _ = writeln!(
                out,
                "  {} at {}: {}",
                v.kind.name(),
                vtime(v.at_ms),
                v.summary
            );
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
            "server produced: {} long_job job(s); judged job: steps {} (never sent: {}), ended {:?}",
            self.truth.jobs,
            ranges(&self.truth.produced_steps),
            ranges(&self.truth.never_sent_steps),
            self.truth.job_end
        );
        for fired in &self.truth.faults_fired {
            let _ = writeln!(
                out,
                "  fault fired at {}: {}",
                vtime(fired.at_ms),
                fired.note
            );
        }
        for session in &self.truth.ledger.sessions {
            if let Some((at_ms, cause)) = session.died {
                let _ = writeln!(
                    out,
                    "  session {} died at {}: {cause:?}",
                    faultline_sim::short_id(&session.wire_id),
                    vtime(at_ms)
                );
            }
        }
        let resumptions = &self.truth.ledger.resumptions;
        for r in resumptions.iter().take(5) {
            let _ = writeln!(
                out,
                "  resumption at {}: Last-Event-ID {} -> {:?}",
                vtime(r.at_ms),
                r.cursor,
                r.resolution
            );
        }
        if resumptions.len() > 5 {
            let _ = writeln!(out, "  ... {} more resumptions", resumptions.len() - 5);
        }
        let answers = &self.truth.ledger.answers;
        let _ = writeln!(out, "  {} HTTP answers; last ones:", answers.len());
        for a in answers.iter().skip(answers.len().saturating_sub(6)) {
            let _ = writeln!(
                out,
                "    {} {:?} {} -> {}",
                vtime(a.at_ms),
                a.method,
                a.rpc_method.as_deref().unwrap_or(""),
                a.status
            );
        }
        let _ = writeln!(out, "ledger_sha256: {}", self.truth.ledger_sha256());
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

/// `1..=3, 7` style (the simulator's spelling of id ranges), or `none`.
fn ranges(steps: &[u32]) -> String {
    let mut sorted: Vec<u64> = steps.iter().map(|&s| u64::from(s)).collect();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return "none".into();
    }
    faultline_sim::IdRanges::from_sorted(sorted).to_string()
}

/// Joins what the client reported with the ledger, by the one judge of `faultline run`
/// and `faultline grade` (`faultline_verdicts::judge`): the client is judged as a real
/// client, from what its application was handed; `scenario` says what the case meant to
/// exercise. Returns the run in one word and every verdict.
pub fn judge(
    client: Option<Result<Observed, String>>,
    truth: &Truth,
    scenario: &Scenario,
    elapsed: Duration,
) -> (Verdict, Vec<JudgeVerdict>) {
    let context = ClientContext {
        call: CallSpec {
            tool: "long_job".into(),
            arguments: serde_json::Value::Null,
            progress: true,
        },
        followup_echo: 0,
        lists_tools: false,
        use_tasks: false,
    };
    let report = match &client {
        Some(Ok(observed)) => Ok(ClientReport {
            progress: observed.progress.clone(),
            result: observed.result.clone(),
            error: observed.error.clone(),
            // The harness's call asks for progress and nothing else.
            supports: Supports {
                progress: true,
                notifications: false,
            },
            ..ClientReport::default()
        }),
        Some(Err(error)) => Ok(ClientReport {
            error: Some(error.clone()),
            ..ClientReport::default()
        }),
        None => Err(MissingReport::Hung {
            waited_ms: Some(elapsed.as_millis() as u64),
        }),
    };
    let observation = Observation::real(
        &truth.ledger,
        exercise(scenario, &truth.faults_fired),
        &context,
        report.as_ref(),
    );
    let verdicts = faultline_verdicts::judge(&observation, Words::Written);
    let summary = match client {
        None => Verdict::Hung { after: elapsed },
        Some(Ok(observed)) => sum_up(&verdicts, observed.error),
        Some(Err(error)) => sum_up(&verdicts, Some(error)),
    };
    (summary, verdicts)
}

/// The run in one word: a silent gap first, then any other loss or harm (a client that
/// failed loudly in the end may still have applied a dead session's replay, or a step
/// twice, on the way: the judge of `faultline grade` fails it too), then the client's
/// error (`surfaced`), then `untested`, else `clean`.
fn sum_up(verdicts: &[JudgeVerdict], error: Option<String>) -> Verdict {
    if let Some(gap) = verdicts.iter().find(|v| v.kind == VerdictKind::SilentGap)
        && let Evidence::Values(lost) = &gap.evidence
    {
        return Verdict::SilentGap {
            missing_steps: lost.missing_progress.clone(),
            result_missing: lost.result_missing,
        };
    }
    if let Some(failure) = verdicts.iter().find(|v| v.kind.is_failure()) {
        return Verdict::Failure {
            kind: failure.kind,
            summary: failure.summary.clone(),
        };
    }
    if let Some(error) = error {
        return Verdict::Surfaced { error };
    }
    if let Some(untested) = verdicts.iter().find(|v| v.kind == VerdictKind::Untested)
        && let Evidence::Untested(u) = &untested.evidence
    {
        return Verdict::Untested {
            reasons: u.reasons.clone(),
        };
    }
    Verdict::Clean
}

/// What a case meant to exercise: its one call, and its faults that fire at a moment
/// (the standing ones, in force all along, fire at none), with how many fired.
fn exercise(scenario: &Scenario, fired: &[FiredFault]) -> Exercise {
    let faults = faultline_scenario::FaultsExercised::of(scenario, fired);
    Exercise {
        calls_planned: 1,
        faults_planned: faults.planned,
        faults_fired: faults.fired,
        faults_unmet: faults.unmet,
        faults_cut_nothing: faults.cut_nothing,
        ..Exercise::default()
    }
}

/// Runs one client against one live server configuration.
#[derive(Debug, Clone)]
pub struct Harness {
    knobs: ServerKnobs,
    faults: Vec<Fault>,
    quiet_marker: bool,
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
            quiet_marker: false,
            timeout: DEFAULT_TIMEOUT,
            seed: 1,
            steps: 20,
            interval_ms: 1_000,
        }
    }

    /// A well-behaved server and no faults: the baseline a client must pass before any
    /// fault is worth drawing (the server `faultline serve` runs without a scenario).
    pub fn well_behaved() -> Harness {
        Harness::new(Config::well_behaved(1).knobs, Vec::new())
    }

    /// A scenario file's knobs, faults and seed, and its first `long_job` call's steps and
    /// interval (see [`Harness::call`]): a case saved with [`Outcome::write_scenario`]
    /// replays as it ran.
    pub fn from_scenario(scenario: &Scenario) -> Harness {
        let mut h = Harness::new(scenario.server.clone(), scenario.faults.clone());
        h.seed = scenario.seed;
        let first_job = scenario.workload.iter().find_map(|w| match w {
            Work::CallTool {
                tool: Tool::LongJob { steps, interval },
                ..
            } => Some((steps.lo, interval.ms())),
            _ => None,
        });
        if let Some((steps, interval_ms)) = first_job {
            h.steps = u32::try_from(steps).unwrap_or(u32::MAX);
            h.interval_ms = interval_ms;
        }
        h
    }

    /// Send an SSE event of type `faultline.quiet` on every open stream whenever the
    /// server goes quiet (default off; see the crate docs and
    /// [`faultline_server::QUIET_MARKER`]).
    pub fn quiet_marker(mut self, on: bool) -> Harness {
        self.quiet_marker = on;
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
            fleet: Default::default(),
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
    ///
    /// The runtime has one thread: the client's tasks run in the order they were woken,
    /// so a task the client spawned before its call returned (a notification handler,
    /// say) has run by the time the code after the call does.
    pub fn run<F, Fut, E>(&self, client: F) -> Outcome
    where
        F: FnOnce(String) -> Fut,
        Fut: Future<Output = Result<Observed, E>> + Send + 'static,
        E: fmt::Display + Send + 'static,
    {
        let scenario = self.scenario();
        let config = Config::from_scenario(scenario.clone())
            .with_control(true)
            .with_auto_time(faultline_server::NO_GRACE)
            .with_quiet_marker(self.quiet_marker);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let timeout = self.timeout;
        let (reported, truth, elapsed) = runtime.block_on(async move {
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
            let app = &running.app;
            let (ledger, now_ms) =
                app.with_engine(|e| (e.server().ledger().clone(), e.server().now_ms()));
            let truth = Truth::new(ledger, app.fired_faults(), now_ms);
            (reported, truth, elapsed)
        });
        // Aborts the server, the ticker and whatever the client left running.
        runtime.shutdown_timeout(Duration::from_millis(200));
        let observed = reported.as_ref().and_then(|r| r.as_ref().ok()).cloned();
        let (verdict, verdicts) = judge(reported, &truth, &scenario, elapsed);
        Outcome {
            verdict,
            verdicts,
            observed,
            truth,
            scenario,
            elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_case_replays_with_its_call() {
        let h = Harness::well_behaved().call(7, 30_000).seed(9);
        let replayed = Harness::from_scenario(&h.scenario());
        assert_eq!((replayed.steps, replayed.interval_ms), (7, 30_000));
        assert_eq!(replayed.seed, 9);
        assert_eq!(replayed.scenario().to_ron(), h.scenario().to_ron());
    }

    #[test]
    fn the_2026_faults_reach_the_live_harness_on_call_zero() {
        use faultline_model::ListName;
        use faultline_scenario::CutAt;
        let cut = Fault::CutCall {
            call: 3,
            at: CutAt::AfterProgress(PickCount::fixed(2)),
            away: None,
        };
        let change = Fault::ChangeList {
            at: PickDuration::fixed(DurationMs(5_000)),
            list: ListName::Tools,
            notify: true,
            on_replica: None,
        };
        let stale = Fault::StaleTask {
            at: PickDuration::fixed(DurationMs(1_000)),
            holds_session_from: DurationMs::ZERO,
        };
        let kept = live_faults(vec![cut, change.clone(), stale]);
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(
            matches!(kept[0], Fault::CutCall { call: 0, .. }),
            "{kept:?}"
        );
        assert_eq!(format!("{:?}", kept[1]), format!("{change:?}"));
    }

    #[test]
    fn live_faults_keep_only_server_side_faults_on_call_zero() {
        let mut any = false;
        for seed in 0..200 {
            let faults = faults_for_seed(seed);
            for f in &faults {
                any = true;
                match f {
                    Fault::Drop { stream, .. } => {
                        assert!(matches!(
                            stream,
                            StreamSel::Any | StreamSel::Standalone | StreamSel::Call(0)
                        ));
                    }
                    Fault::Restart { .. } => {}
                    Fault::Gc { .. } => {}
                    Fault::ReplicaDown { .. }
                    | Fault::RollingDeploy { .. }
                    | Fault::StickyLost { .. }
                    | Fault::Scale { .. } => {
                        panic!("the swarm draws no fleet faults yet")
                    }
                    Fault::StaleTask { .. } => panic!("StaleTask is client-side"),
                    Fault::Proxy502 { .. } | Fault::IdleProxySse { .. } => {
                        panic!("the swarm draws no proxy faults")
                    }
                    Fault::CutCall { .. }
                    | Fault::ChangeList { .. }
                    | Fault::DropListen { .. }
                    | Fault::IdleProxy { .. }
                    | Fault::PurgeTasks { .. }
                    | Fault::RollEra { .. } => {
                        panic!("the swarm draws no 2026-07-28 faults")
                    }
                }
            }
            // The reproduction scenario must load with `faultline serve --scenario`.
            let h = Harness::new(knobs_for_seed(seed), faults);
            let text = h.scenario().to_ron();
            Scenario::parse(&text, "testkit.ron").unwrap_or_else(|e| panic!("{e}\n{text}"));
        }
        assert!(any);
    }

    fn judged(kind: VerdictKind, evidence: Evidence) -> JudgeVerdict {
        JudgeVerdict {
            kind,
            at_ms: 0,
            summary: format!("{} found", kind.name()),
            evidence,
        }
    }

    #[test]
    fn the_one_word_is_the_gap_then_any_failure_then_untested() {
        let gap = judged(
            VerdictKind::SilentGap,
            Evidence::Values(faultline_verdicts::ValuesLost {
                missing_progress: vec![3, 4],
                missing_notifications: vec![],
                result_missing: true,
                result_pending: false,
                outcome_unreported: false,
                result_not_sent: false,
                produced_progress: 4,
                produced_notifications: 0,
                result_produced: true,
            }),
        );
        let duplicate = judged(
            VerdictKind::Duplicate,
            Evidence::RepeatedValues {
                progress: vec![2],
                notifications: vec![],
            },
        );
        let untested = judged(
            VerdictKind::Untested,
            Evidence::Untested(faultline_verdicts::untested::Untested {
                reasons: vec!["no fault fired".into()],
                calls_planned: 1,
                calls_made: 1,
                faults_planned: 1,
                faults_fired: 0,
            }),
        );
        let retries = judged(VerdictKind::RetryAmplification, Evidence::None);
        assert_eq!(
            sum_up(&[duplicate.clone(), gap], None),
            Verdict::SilentGap {
                missing_steps: vec![3, 4],
                result_missing: true
            }
        );
        assert_eq!(
            sum_up(&[retries.clone(), duplicate.clone()], None),
            Verdict::Failure {
                kind: VerdictKind::Duplicate,
                summary: "duplicate found".into()
            }
        );
        assert_eq!(
            sum_up(std::slice::from_ref(&untested), None).name(),
            "untested"
        );
        // A loud end does not hide what was misapplied on the way; it does hide nothing else.
        assert_eq!(
            sum_up(&[duplicate], Some("boom".into())).name(),
            "duplicate"
        );
        assert_eq!(sum_up(&[untested], Some("boom".into())).name(), "surfaced");
        // Harm without loss is in the verdicts, not in the one word.
        assert_eq!(sum_up(&[retries], None), Verdict::Clean);
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1..=3, 5, 7..=8");
    }

    #[test]
    fn no_answer_is_hung_and_an_error_surfaced() {
        let truth = Truth::default();
        let scenario = Harness::well_behaved().scenario();
        let d = Duration::from_secs(10);
        let (hung, verdicts) = judge(None, &truth, &scenario, d);
        assert_eq!(hung, Verdict::Hung { after: d });
        assert!(verdicts.iter().any(|v| v.kind == VerdictKind::Hung));
        let (surfaced, _) = judge(Some(Err("boom".into())), &truth, &scenario, d);
        assert_eq!(surfaced.name(), "surfaced");
    }
}
