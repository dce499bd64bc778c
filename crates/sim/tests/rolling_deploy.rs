//! `RollingDeploy` unfolds through the engine's follow-up steps (`Strike::then`): one
//! replica down per step, `every` apart, each for `down`, read back from the ledger.

use faultline_model::{ReplicaChange, ReplicaId};
use faultline_sim::{ClientModel, Scenario, run};

fn scenario(name: &str) -> Scenario {
    Scenario::load(std::path::Path::new(&format!(
        "{}/../../scenarios/{name}.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

#[test]
fn the_downs_come_every_apart_one_replica_each() {
    // rolling_deploy.ron: RollingDeploy(when: At("5s"), every: "4s", down: "3s"), 3 replicas.
    let s = scenario("field/rolling_deploy");
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = run(&s, s.seed, client);
        let downs: Vec<(u64, ReplicaId, u64)> = outcome
            .result
            .ledger
            .replica_events
            .iter()
            .filter_map(|e| match e.what {
                ReplicaChange::Down { until_ms } => Some((e.at_ms, e.replica, until_ms)),
                ReplicaChange::Removed | ReplicaChange::Added => None,
            })
            .collect();
        assert_eq!(
            downs,
            vec![
                (5_000, ReplicaId(0), 8_000),
                (9_000, ReplicaId(1), 12_000),
                (13_000, ReplicaId(2), 16_000),
            ],
            "{client:?}"
        );
    }
}

#[test]
fn an_event_triggered_deploy_still_spaces_its_steps_every_apart() {
    let text = std::fs::read_to_string(format!(
        "{}/../../scenarios/field/rolling_deploy.ron",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace(
        "RollingDeploy(when: At(\"5s\")",
        "RollingDeploy(when: AfterEvent(n: 2, on: Standalone)",
    );
    let s = Scenario::parse(&text, "event_triggered.ron").unwrap();
    let outcome = run(&s, s.seed, ClientModel::Naive);
    let at: Vec<u64> = outcome
        .result
        .ledger
        .replica_events
        .iter()
        .map(|e| e.at_ms)
        .collect();
    assert_eq!(at.len(), 3, "{at:?}");
    assert_eq!(at[1] - at[0], 4_000);
    assert_eq!(at[2] - at[1], 4_000);
}

/// `rolling_deploy.ron` with a `Scale` to `to` replicas at 7s, between the deploy's first
/// step (5s) and its second (9s).
fn scaled_deploy(to: u8) -> Scenario {
    let text = std::fs::read_to_string(format!(
        "{}/../../scenarios/field/rolling_deploy.ron",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace(
        "RollingDeploy(when: At(\"5s\"), every: \"4s\", down: \"3s\"),",
        &format!(
            "RollingDeploy(when: At(\"5s\"), every: \"4s\", down: \"3s\"),\n        Scale(when: At(\"7s\"), to: {to}),"
        ),
    );
    assert!(text.contains("Scale("), "the fault went in");
    Scenario::parse(&text, "scaled_deploy.ron").unwrap()
}

fn changes(s: &Scenario) -> Vec<(u64, u8, ReplicaChange)> {
    run(s, s.seed, ClientModel::Naive)
        .result
        .ledger
        .replica_events
        .iter()
        .map(|e| (e.at_ms, e.replica.0, e.what))
        .collect()
}

#[test]
fn a_deploy_after_a_scale_down_skips_the_removed_replicas() {
    let s = scaled_deploy(2);
    assert_eq!(
        changes(&s),
        vec![
            (5_000, 0, ReplicaChange::Down { until_ms: 8_000 }),
            (7_000, 2, ReplicaChange::Removed),
            (9_000, 1, ReplicaChange::Down { until_ms: 12_000 }),
        ],
        "r2 is gone before its turn: the deploy ends with r1"
    );
}

#[test]
fn a_deploy_after_a_scale_up_reaches_the_added_replicas() {
    let s = scaled_deploy(4);
    assert_eq!(
        changes(&s),
        vec![
            (5_000, 0, ReplicaChange::Down { until_ms: 8_000 }),
            (7_000, 3, ReplicaChange::Added),
            (9_000, 1, ReplicaChange::Down { until_ms: 12_000 }),
            (13_000, 2, ReplicaChange::Down { until_ms: 16_000 }),
            (17_000, 3, ReplicaChange::Down { until_ms: 20_000 }),
        ]
    );
}
