//! A fault that meets nothing of the client's exercised nothing: a drop of the standalone
//! stream of a client that never opened one fires at its moment and cuts no connection.
//! The run is `untested` (not `clean`), and so is one in which one of two faults met the
//! client and the other did not: `clean` would claim the client came through both.

use faultline_sim::{ClientModel, RunOutcome, VerdictKind, run};

use crate::common::scenario;

/// A call, then the faults in `faults`, against a naive client that opens the standalone
/// stream when `listens`.
fn played(listens: bool, faults: &str) -> RunOutcome {
    let s = scenario(&format!(
        r#"Scenario(
    name: "unmet",
    summary: "inline",
    seed: 1,
    horizon: Some("30m"),
    server: (session_idle_ttl: Some("2h"), event_log_ttl: Some("1h"), id_scheme: SessionMonotonic),
    client: (model: Naive, standalone_stream: {listens}),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 10, interval: "1m"))],
    faults: [{faults}],
)"#
    ));
    run(&s, s.seed, ClientModel::Naive)
}

/// [`played`]'s verdict kinds.
fn judged(listens: bool, faults: &str) -> Vec<VerdictKind> {
    let outcome = played(listens, faults);
    let fired = &outcome.result.record.exercise;
    assert_eq!(
        fired.faults_planned,
        faults.matches("Drop(").count(),
        "the faults are planned"
    );
    outcome.verdicts.iter().map(|v| v.kind).collect()
}

const STANDALONE: &str = r#"Drop(when: At("3m"), mode: Reset, stream: Standalone, away: None)"#;
const CALL: &str = r#"Drop(when: At("4m"), mode: Close, stream: Call(0), away: None)"#;

#[test]
fn a_drop_of_a_stream_the_client_never_opened_tested_nothing() {
    assert_eq!(judged(true, STANDALONE), [VerdictKind::Clean]);
    assert_eq!(judged(false, STANDALONE), [VerdictKind::Untested]);
}

#[test]
fn one_fault_of_two_unmet_leaves_the_run_untested() {
    let both = format!("{STANDALONE}, {CALL}");
    assert_eq!(judged(true, &both), [VerdictKind::Clean]);
    assert_eq!(judged(false, &both), [VerdictKind::Untested]);
    assert_eq!(judged(false, CALL), [VerdictKind::Clean]);
}

/// The reason names the fault that never met the client, by its place in `faults`, and
/// how it missed: a drop that fired and cut nothing, or a fault that never fired.
#[test]
fn the_reason_names_the_fault_that_never_met_the_client_and_how() {
    let outcome = played(false, &format!("{CALL}, {STANDALONE}"));
    assert_eq!(outcome.result.record.exercise.faults_unmet, 0b10);
    assert_eq!(outcome.result.record.exercise.faults_cut_nothing, 0b10);
    let untested = &outcome.verdicts[0];
    assert_eq!(untested.kind, VerdictKind::Untested);
    assert!(
        untested.summary.contains(
            "1 of the scenario's 2 faults never met the client: faults[1] fired and cut nothing"
        ),
        "{}",
        untested.summary
    );
    // A drop after the 30th event of a call whose job makes ten and a result: never fired.
    let never =
        r#"Drop(when: AfterEvent(on: Call(0), n: 30), mode: Close, stream: Call(0), away: None)"#;
    let outcome = played(true, &format!("{CALL}, {never}"));
    assert_eq!(outcome.result.record.exercise.faults_unmet, 0b10);
    assert_eq!(outcome.result.record.exercise.faults_cut_nothing, 0);
    let summary = &outcome.verdicts[0].summary;
    assert!(
        summary.contains("faults[1] never fired: it waited for what never came"),
        "{summary}"
    );
    assert!(!summary.contains("cut nothing"), "{summary}");
}
