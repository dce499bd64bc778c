//! Finds the slowest swarm seeds (a development aid): `cargo run --release -p faultline-sim --example swarm_timing -- 2000`
//! (with `FLEETS=1`, as the explorer draws them: half the seeds behind a fleet).
use std::time::Instant;

use faultline_sim::swarm::{SwarmOptions, generate};
use faultline_sim::{ClientModel, run_untraced};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let mut worst = Vec::new();
    let t0 = Instant::now();
    for seed in 0..n {
        let options = SwarmOptions {
            fleets: std::env::var("FLEETS").is_ok(),
            ..SwarmOptions::default()
        };
        let s = generate(seed, options);
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let t = Instant::now();
            if std::env::var("VERBOSE").is_ok() {
                eprintln!("seed {seed} {}", client.name());
            }
            let o = run_untraced(&s, seed, client);
            worst.push((
                t.elapsed().as_micros(),
                seed,
                client.name(),
                o.result.ledger.events.len(),
                o.result.end_ms,
            ));
        }
    }
    worst.sort();
    for w in worst.iter().rev().take(8) {
        println!(
            "{:>10} µs  seed {} {} events {} end {}ms",
            w.0, w.1, w.2, w.3, w.4
        );
    }
    println!("total {:?} for {} runs", t0.elapsed(), worst.len());
}
