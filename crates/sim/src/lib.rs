//! # faultline-sim
//!
//! Drives the engine ([`faultline_scenario::Engine`]: the server model with a scenario
//! armed on it) against a modelled client, on virtual time, from one seed; then asks the
//! [oracle](judge) what was lost and why.
//!
//! ```text
//! scenario ─▶ arm(seed) ─▶ engine ⇄ link ⇄ client model ─▶ ledger + client record ─▶ oracle ─▶ report
//! ```
//!
//! A run is a pure function of (scenario, seed, client model): same inputs, same trace bytes,
//! in any process on any machine.

mod client;
mod client_side;
mod conn_map;
mod era_probe;
pub mod explore;
pub mod failure_map;
mod fold;
mod legacy_tools_list;
mod link;
mod modern_client;
mod report;
mod scheduler;
pub mod shrink;
pub mod swarm;
pub mod swarm_era;
mod swarm_fleet;
mod swarm_migration;
mod swarm_modern;
mod trace;
#[cfg(test)]
mod unworded_runs;
mod world;

pub use client::{Fate, Policy};
pub use faultline_scenario::{
    ClientConfig, ClientEra, ClientModel, CutAt, Expectation, Fault, PickCount, PickDuration,
    Scenario, ScenarioError, StreamSel, Tool, Trigger, Work,
};
use faultline_verdicts::Words;
pub use faultline_verdicts::client_error::{
    CallCutError, ClientError, ResumptionCursorError, SessionResumptionError, TaskLostError,
};
pub use faultline_verdicts::client_record::{ClientRecord, ErrorScope, RequestRecord, Task};
pub use faultline_verdicts::spell::{short_id, vtime};
pub use faultline_verdicts::verdict::{Evidence, IdRanges, MisroutedNote, Verdict, VerdictKind};
/// The client's record and the verdicts are the judge's types (`faultline-verdicts`),
/// named here as the simulator's own modules always named them.
use faultline_verdicts::{client_error, client_record, verdict};
pub use fold::{EventRun, Folded, fold_trace, payload_label};
pub use link::{Link, SimLink};
pub use report::{json_report, text_report};
pub use trace::{
    Trace, TraceEntry, TraceError, TraceHeader, TraceWhat, from_jsonl, sha256_hex, to_jsonl,
};
pub use world::RunResult;

/// One finished run with its verdicts.
#[derive(Debug)]
pub struct RunOutcome {
    pub scenario: String,
    pub seed: u64,
    pub client: ClientModel,
    pub result: RunResult,
    pub verdicts: Vec<Verdict>,
}

impl RunOutcome {
    pub fn has(&self, kind: VerdictKind) -> bool {
        self.verdicts.iter().any(|v| v.kind == kind)
    }

    pub fn kinds(&self) -> Vec<VerdictKind> {
        let mut kinds: Vec<VerdictKind> = self.verdicts.iter().map(|v| v.kind).collect();
        kinds.dedup();
        kinds
    }

    /// The trace's entries as JSON lines, without the header line of a trace file.
    pub fn trace_jsonl(&self) -> String {
        to_jsonl(&self.result.trace)
    }

    /// The header of this run's trace file; `scenario_path` is the scenario file as the
    /// user named it, if the scenario came from one.
    pub fn trace_header(&self, scenario_path: Option<&str>) -> TraceHeader {
        TraceHeader {
            scenario: self.scenario.clone(),
            scenario_path: scenario_path.map(str::to_string),
            seed: self.seed,
            client: self.client,
        }
    }

    /// The text of a trace file: the header line, then [`trace_jsonl`](Self::trace_jsonl).
    pub fn trace_file(&self, scenario_path: Option<&str>) -> String {
        format!(
            "{}\n{}",
            self.trace_header(scenario_path).to_line(),
            self.trace_jsonl()
        )
    }

    /// SHA-256 (lowercase hex) of the trace's entries, [`trace_jsonl`](Self::trace_jsonl):
    /// the run's fingerprint, a function of (scenario, seed, client model) alone. It does
    /// **not** cover a trace file's header line, which records the scenario file's path as
    /// it was typed; for a file written by `faultline run --trace FILE` it is the hash of
    /// every line after the first (`tail -n +2 FILE | sha256sum`).
    pub fn trace_sha256(&self) -> String {
        sha256_hex(&self.trace_jsonl())
    }

    /// The server's ground truth as JSON: the bytes `ledger_sha256` digests.
    pub fn ledger_json(&self) -> String {
        serde_json::to_string(&self.result.ledger).expect("a ledger always serializes")
    }

    /// SHA-256 of the ledger's JSON: equal for a simulated and a live run of the same
    /// scenario, seed and client.
    pub fn ledger_sha256(&self) -> String {
        sha256_hex(&self.ledger_json())
    }
}

/// Runs `scenario` with `seed` against the `client` model, recording the full trace.
pub fn run(scenario: &Scenario, seed: u64, client: ClientModel) -> RunOutcome {
    run_with_policy(
        scenario,
        seed,
        client,
        Policy::for_run(client, &scenario.client),
    )
}

/// Runs with a custom set of guards (e.g. the guarded client minus one guard, to show
/// what that guard prevents). `client` only labels the outcome.
pub fn run_with_policy(
    scenario: &Scenario,
    seed: u64,
    client: ClientModel,
    policy: Policy,
) -> RunOutcome {
    run_sim(scenario, seed, client, policy, true, Words::Written)
}

/// A simulated run: the scenario is armed once, for the engine and the client alike.
fn run_sim(
    scenario: &Scenario,
    seed: u64,
    client: ClientModel,
    policy: Policy,
    traced: bool,
    words: Words,
) -> RunOutcome {
    let armed = faultline_scenario::arm(scenario, seed);
    let engine = faultline_scenario::Engine::new(scenario.server.clone(), &armed);
    // A fault's note is read only by the trace.
    let engine = if traced {
        engine
    } else {
        engine.without_notes()
    };
    let link = SimLink::new(engine);
    let (result, _) = run_armed(scenario, &armed, policy, link, traced);
    finish(scenario, seed, client, result, words)
}

/// Runs over any [`Link`] (the simulator's, or `run --live`'s real sockets) and returns
/// the link too, for what it learned on the way (a live link's errors).
pub fn run_over<L: Link>(
    scenario: &Scenario,
    seed: u64,
    client: ClientModel,
    policy: Policy,
    link: L,
    traced: bool,
) -> (RunOutcome, L) {
    let armed = faultline_scenario::arm(scenario, seed);
    let (result, link) = run_armed(scenario, &armed, policy, link, traced);
    (finish(scenario, seed, client, result, Words::Written), link)
}

fn run_armed<L: Link>(
    scenario: &Scenario,
    armed: &faultline_scenario::Armed,
    policy: Policy,
    link: L,
    traced: bool,
) -> (RunResult, L) {
    let mut world = world::World::new(scenario, armed, policy, link);
    if !traced {
        world = world.without_trace();
    }
    world.run()
}

/// Like [`run`] without recording a trace: for benchmarks and bulk exploration.
pub fn run_untraced(scenario: &Scenario, seed: u64, client: ClientModel) -> RunOutcome {
    run_sim(
        scenario,
        seed,
        client,
        Policy::for_run(client, &scenario.client),
        false,
        Words::Written,
    )
}

/// Like [`run_untraced`], with every verdict's `summary` left empty: for the explorer and
/// the shrinker, which read only kinds and evidence (see [`words`]).
pub(crate) fn run_unworded(scenario: &Scenario, seed: u64, client: ClientModel) -> RunOutcome {
    run_sim(
        scenario,
        seed,
        client,
        Policy::for_run(client, &scenario.client),
        false,
        Words::Skipped,
    )
}

fn finish(
    scenario: &Scenario,
    seed: u64,
    client: ClientModel,
    result: RunResult,
    words: Words,
) -> RunOutcome {
    let verdicts = faultline_verdicts::judge(
        &faultline_verdicts::Observation::modelled(&result.ledger, &result.record),
        words,
    );
    RunOutcome {
        scenario: scenario.name.clone(),
        seed,
        client,
        result,
        verdicts,
    }
}

/// How a run measured up to the scenario's `expect` block for its client model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectationCheck {
    /// False when the scenario says nothing about this client model.
    pub stated: bool,
    pub missing: Vec<VerdictKind>,
    pub forbidden: Vec<VerdictKind>,
}

impl ExpectationCheck {
    pub fn holds(&self) -> bool {
        self.missing.is_empty() && self.forbidden.is_empty()
    }
}

pub fn check_expectation(scenario: &Scenario, outcome: &RunOutcome) -> ExpectationCheck {
    let Some(expect) = scenario.expect.get(&outcome.client) else {
        return ExpectationCheck {
            stated: false,
            missing: vec![],
            forbidden: vec![],
        };
    };
    ExpectationCheck {
        stated: true,
        missing: expect
            .must
            .iter()
            .copied()
            .filter(|k| !outcome.has(*k))
            .collect(),
        forbidden: expect
            .must_not
            .iter()
            .copied()
            .filter(|k| outcome.has(*k))
            .collect(),
    }
}
