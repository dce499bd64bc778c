//! A reconnect loop shrinks like any other verdict: the shrinker keeps what the loop needs
//! (the client's habit of reconnecting for ever, the empty `200` for an unresumable
//! cursor) and runs each candidate to the scenario's own horizon, not to the day-long
//! one it gives runs that end by themselves.

use std::path::Path;

use faultline_scenario::{ClientHabits, ClientModel, Scenario, SdkClient, VerdictKind};
use faultline_sim::explore::signature_of;
use faultline_sim::shrink::shrink;

fn reconnect_forever() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/field/rmcp_958_reconnect_forever.ron");
    Scenario::load(&path).expect("the bundled loop scenario")
}

#[test]
fn a_reconnect_loop_shrinks_and_keeps_its_cause() {
    let s = reconnect_forever();
    let kind = VerdictKind::ReconnectLoop;
    let before = faultline_sim::run_untraced(&s, s.seed, ClientModel::Naive);
    assert!(before.has(kind));
    let signature = signature_of(kind, &s.server, &s.fleet);
    let shrunk = shrink(&s, ClientModel::Naive, kind, &signature);
    let after = faultline_sim::run_untraced(&shrunk, shrunk.seed, ClientModel::Naive);
    assert!(after.has(kind), "{}", shrunk.to_ron());
    // The habit is the cause: it stays.
    assert_eq!(
        shrunk.client.habits.like,
        Some(SdkClient::Rmcp311),
        "{}",
        shrunk.to_ron()
    );
    // The run is as long as the scenario said, no longer.
    assert_eq!(shrunk.horizon, s.horizon, "{}", shrunk.to_ron());
    // And with the default habit the same scenario has no loop: the habit is needed.
    let mut given_up = shrunk.clone();
    given_up.client.habits = ClientHabits::default();
    let given_up = faultline_sim::run_untraced(&given_up, given_up.seed, ClientModel::Naive);
    assert!(!given_up.has(kind));
}
