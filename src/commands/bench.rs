//! `faultline bench`: how fast the simulator is, measured, never assumed.
//!
//! Reports the median wall time of each bundled incident (with and without recording the
//! trace) and nanoseconds per simulated event. Simulated events are everything the model
//! produced or answered: SSE events, HTTP answers, and client applications.
//!
//! Each figure comes with a floor measured in the same run, interleaved with it: the
//! cheapest discrete-event loop that could play as many events (a binary heap of
//! `(time, seq)` and a ChaCha8 stream choosing each next delay, nothing else). On a shared
//! or throttled machine absolute times drift; the ratio to the floor does much less.
//!
//! Last comes the explorer on one core (`explore --no-shrink --jobs 1`, the naive client),
//! the 2025 era and then `--era mixed`, each in passes interleaved with the floor: its cost
//! per seed in floor steps is the figure to compare across machines and runs (issue 33's
//! targets: at most 800 for the 2025 era, 1,600 mixed).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use faultline_sim::ClientModel;
use faultline_sim::swarm_era::SwarmEra;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

#[derive(Args)]
pub struct BenchArgs {
    /// Scenarios to measure, as files or bundled names (default: the three bundled
    /// incidents behavior_a, behavior_b and replay_404_cascade, from any directory).
    pub scenarios: Vec<PathBuf>,
    /// Repetitions per scenario (the median is reported).
    #[arg(long, default_value_t = 200)]
    pub reps: u32,
    /// Swarm seeds the explorer rows run, from 0, in each of their passes (0 leaves the
    /// rows out).
    #[arg(long, default_value_t = 2000)]
    pub explore_seeds: u64,
}

/// Passes of the explorer row over its seeds.
const EXPLORE_PASSES: u32 = 5;
/// Floor steps timed before each pass.
const FLOOR_STEPS: u64 = 20_000;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    xs[xs.len() / 2]
}

/// The floor: `events` steps of a bare event loop (pop the earliest of 16 pending
/// `(time, seq)` entries, draw a delay from ChaCha8, push the next). Returns a checksum so
/// that the work cannot be optimized away.
fn bare_loop(events: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut heap = BinaryHeap::with_capacity(17);
    for seq in 0..16 {
        heap.push(Reverse((rng.next_u64() % 1000, seq)));
    }
    let mut checksum = 0;
    for seq in 16..16 + events {
        let Reverse((at, _)) = heap.pop().expect("16 pending");
        checksum ^= at;
        heap.push(Reverse((at + 1 + rng.next_u64() % 1000, seq)));
    }
    checksum
}

pub fn bench(args: BenchArgs) -> ExitCode {
    let paths = if args.scenarios.is_empty() {
        crate::bundled::BENCH_DEFAULT
            .iter()
            .map(PathBuf::from)
            .collect()
    } else {
        args.scenarios
    };
    let reps = args.reps.max(1);
    println!(
        "{:<22} {:>8} {:>10} {:>12} {:>12} {:>9} {:>11} {:>9}",
        "scenario",
        "client",
        "sim events",
        "median (µs)",
        "traced (µs)",
        "ns/event",
        "floor ns/ev",
        "x floor"
    );
    for path in paths {
        let scenario = match crate::bundled::load(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let probe = faultline_sim::run_untraced(&scenario, scenario.seed, client);
            let ledger = &probe.result.ledger;
            let events = (ledger.events.len()
                + ledger.answers.len()
                + probe.result.record.applied.len()) as f64;
            let mut untraced = Vec::with_capacity(reps as usize);
            let mut traced = Vec::with_capacity(reps as usize);
            let mut floor = Vec::with_capacity(reps as usize);
            for _ in 0..reps {
                let t = Instant::now();
                std::hint::black_box(bare_loop(std::hint::black_box(events as u64)));
                floor.push(t.elapsed().as_secs_f64() * 1e9 / events);
                let t = Instant::now();
                let o = faultline_sim::run_untraced(&scenario, scenario.seed, client);
                untraced.push(t.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(o);
                let t = Instant::now();
                let o = faultline_sim::run(&scenario, scenario.seed, client);
                traced.push(t.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(o);
            }
            let m = median(untraced);
            let per_event = m * 1e3 / events;
            let floor = median(floor);
            println!(
                "{:<22} {:>8} {:>10} {:>12.1} {:>12.1} {:>9.1} {:>11.1} {:>9.2}",
                scenario.name,
                client.name(),
                events,
                m,
                median(traced),
                per_event,
                floor,
                per_event / floor
            );
        }
    }
    if args.explore_seeds > 0 {
        bench_explorer(args.explore_seeds, SwarmEra::Legacy);
        bench_explorer(args.explore_seeds, SwarmEra::Mixed);
    }
    ExitCode::SUCCESS
}

/// An explorer row: `EXPLORE_PASSES` passes over the same seeds of `era`, each after a
/// floor measurement; the fastest pass and the fastest floor are reported (on a shared
/// machine the minimum is the steadiest estimate of what the code costs).
fn bench_explorer(seeds: u64, era: SwarmEra) {
    let mut pass_us = Vec::new();
    let mut floor_ns = Vec::new();
    for _ in 0..EXPLORE_PASSES {
        let t = Instant::now();
        std::hint::black_box(bare_loop(std::hint::black_box(FLOOR_STEPS)));
        floor_ns.push(t.elapsed().as_secs_f64() * 1e9 / FLOOR_STEPS as f64);
        let mut agg =
            faultline_sim::explore::Aggregate::new(ClientModel::Naive, false).with_era(era);
        let t = Instant::now();
        for seed in 0..seeds {
            faultline_sim::explore::explore_seed(&mut agg, seed, &[])
                .expect("a drawn scenario with no pins");
        }
        pass_us.push(t.elapsed().as_secs_f64() * 1e6 / seeds as f64);
        std::hint::black_box(agg);
    }
    let fastest = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let (us, floor) = (fastest(&pass_us), fastest(&floor_ns));
    println!(
        "\nexplorer, one core ({}, naive client, seeds 0..{seeds}, fastest of {EXPLORE_PASSES} passes):",
        match era {
            SwarmEra::Legacy => "2025 era".to_string(),
            other => format!("--era {}", other.name()),
        }
    );
    println!(
        "  {us:.1} µs per seed ({:.0} seeds/s, median pass {:.1} µs), floor {floor:.1} ns/step: {:.0} floor steps per seed",
        1e6 / us,
        median(pass_us.clone()),
        us * 1e3 / floor
    );
}
