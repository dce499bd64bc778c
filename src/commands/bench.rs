//! `faultline bench`: how fast the simulator is, measured, never assumed.
//!
//! Reports the median wall time of each bundled incident (with and without recording the
//! trace) and simulated protocol events per second. Simulated events are everything the
//! model produced or answered: SSE events, HTTP answers, and client applications.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use faultline_sim::{ClientModel, Scenario};

#[derive(Args)]
pub struct BenchArgs {
    /// Scenario files to measure (default: the three seed incidents).
    pub scenarios: Vec<PathBuf>,
    /// Repetitions per scenario (the median is reported).
    #[arg(long, default_value_t = 200)]
    pub reps: u32,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    xs[xs.len() / 2]
}

pub fn bench(args: BenchArgs) -> ExitCode {
    let paths = if args.scenarios.is_empty() {
        ["behavior_a", "behavior_b", "replay_404_cascade"]
            .iter()
            .map(|n| PathBuf::from(format!("scenarios/{n}.ron")))
            .collect()
    } else {
        args.scenarios
    };
    let reps = args.reps.max(1);
    println!(
        "{:<22} {:>8} {:>10} {:>14} {:>14} {:>12}",
        "scenario", "client", "sim events", "median (µs)", "traced (µs)", "ns/event"
    );
    for path in paths {
        let scenario = match Scenario::load(&path) {
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
            for _ in 0..reps {
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
            println!(
                "{:<22} {:>8} {:>10} {:>14.1} {:>14.1} {:>12.1}",
                scenario.name,
                client.name(),
                events,
                m,
                median(traced),
                m * 1e3 / events
            );
        }
    }
    ExitCode::SUCCESS
}
