//! The simulator steps over event-log expiry (the engine runs it whenever it next moves);
//! a driver that steps on every deadline must see the very same run: trace, ledger,
//! verdicts and end time, over swarm scenarios and the bundled incidents.

use faultline_model::{ConnId, HttpRequest, Ledger, Output};
use faultline_scenario::{Emitted, Engine};
use faultline_sim::swarm::{SwarmOptions, generate};
use faultline_sim::{ClientModel, Link, Policy, RunOutcome, Scenario, SimLink, run_over};

/// The simulator's link, stepping on every deadline the engine has, log expiry included.
struct EveryDeadline(SimLink);

impl Link for EveryDeadline {
    fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        self.0.with_engine(f)
    }
    fn next_due(&self) -> Option<u64> {
        self.0.with_engine(Engine::next_due)
    }
    fn advance_to(&mut self, now: u64, out: &mut Vec<Emitted>) {
        self.0.advance_to(now, out)
    }
    fn handle(&mut self, conn: ConnId, request: HttpRequest, now: u64, out: &mut Vec<Emitted>) {
        self.0.handle(conn, request, now, out)
    }
    fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>) {
        self.0.disconnect(conn, now, out)
    }
    fn receive(&mut self, output: &Output) -> bool {
        self.0.receive(output)
    }
    fn final_ledger(&mut self) -> Ledger {
        self.0.final_ledger()
    }
}

fn both(scenario: &Scenario, seed: u64, client: ClientModel) -> (RunOutcome, RunOutcome) {
    let link = |s: &Scenario| {
        let armed = faultline_scenario::arm(s, seed);
        SimLink::new(Engine::new(s.server.clone(), &armed))
    };
    let (stepped_over, _) = run_over(
        scenario,
        seed,
        client,
        Policy::of(client),
        link(scenario),
        true,
    );
    let (every, _) = run_over(
        scenario,
        seed,
        client,
        Policy::of(client),
        EveryDeadline(link(scenario)),
        true,
    );
    (stepped_over, every)
}

fn assert_same(scenario: &Scenario, seed: u64, client: ClientModel) {
    let (a, b) = both(scenario, seed, client);
    let what = format!("{} seed {seed} client {}", scenario.name, client.name());
    assert_eq!(a.result.end_ms, b.result.end_ms, "end time of {what}");
    assert_eq!(a.trace_jsonl(), b.trace_jsonl(), "trace of {what}");
    assert_eq!(a.ledger_json(), b.ledger_json(), "ledger of {what}");
    assert_eq!(
        format!("{:?}", a.verdicts),
        format!("{:?}", b.verdicts),
        "verdicts of {what}"
    );
}

#[test]
fn stepping_over_log_expiry_changes_nothing_on_swarm_scenarios() {
    for seed in 0..400 {
        for options in [
            SwarmOptions::default(),
            SwarmOptions {
                faults: true,
                honest_advertisement: false,
                fleets: true,
                ..Default::default()
            },
        ] {
            let scenario = generate(seed, options);
            for client in [ClientModel::Naive, ClientModel::Guarded] {
                assert_same(&scenario, seed, client);
            }
        }
    }
}

#[test]
fn stepping_over_log_expiry_changes_nothing_on_the_incidents() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    for name in ["behavior_a", "behavior_b", "replay_404_cascade"] {
        let path = format!("{dir}/{name}.ron");
        let text = std::fs::read_to_string(&path).expect("bundled scenario");
        let scenario = Scenario::parse(&text, &path).expect("valid scenario");
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            assert_same(&scenario, scenario.seed, client);
        }
    }
}
