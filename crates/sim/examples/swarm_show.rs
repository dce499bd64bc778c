//! Prints the swarm scenario of a seed as RON: `cargo run -p faultline-sim --example swarm_show -- 18`.
use faultline_sim::swarm::{SwarmOptions, generate};

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(0);
    println!(
        "{}",
        generate(
            seed,
            SwarmOptions {
                fleets: std::env::var("FLEETS").is_ok(),
                ..SwarmOptions::default()
            }
        )
        .to_ron()
    );
}
