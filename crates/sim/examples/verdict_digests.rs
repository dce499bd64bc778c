//! One line per explored seed, era, server honesty and client, with the SHA-256 of the
//! run's worded verdicts (a development aid): a refactor of the simulator or the oracle that
//! must change no verdict prints the same lines before and after it.
//!
//! `cargo run --release -p faultline-sim --example verdict_digests -- 8000 > after.txt`,
//! the same on the commit before as `before.txt`, then `cmp before.txt after.txt`.
use faultline_sim::explore::scenario_for_era;
use faultline_sim::swarm_era::SwarmEra;
use faultline_sim::{ClientModel, run_untraced, sha256_hex};

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let eras = [
        (SwarmEra::Legacy, "legacy"),
        (SwarmEra::Modern, "modern"),
        (SwarmEra::Migration, "migration"),
        (SwarmEra::Mixed, "mixed"),
    ];
    for (era, name) in eras {
        for dishonest in [false, true] {
            for client in [ClientModel::Naive, ClientModel::Guarded] {
                for seed in 0..seeds {
                    let scenario = scenario_for_era(seed, dishonest, era, &[])
                        .expect("a drawn scenario with no pins");
                    let outcome = run_untraced(&scenario, seed, client);
                    let verdicts =
                        serde_json::to_string(&outcome.verdicts).expect("verdicts serialize");
                    println!(
                        "{name} dishonest={dishonest} {} {seed} {}",
                        client.name(),
                        sha256_hex(&verdicts)
                    );
                }
            }
        }
    }
}
