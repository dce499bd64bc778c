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
            .map(|e| match e.what {
                ReplicaChange::Down { until_ms } => (e.at_ms, e.replica, until_ms),
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
