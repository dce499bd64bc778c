//! The bytes of every bundled run and of the first swarm seeds, pinned.
//!
//! Determinism tests compare a run with itself (two processes, simulated and live); this
//! one compares it with yesterday's. A speed-up, a refactor or a hardening change that
//! alters any ledger or trace byte of a bundled scenario or of swarm seeds 0..200 (both
//! client models; with fleets off, then the fleet seeds among 0..100) fails here, naming
//! the runs that moved. When the change is meant (the
//! model really does something else now), bless the new digests and say why in the commit:
//!
//! ```sh
//! FAULTLINE_BLESS=1 cargo test --release --test golden_digests
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use faultline_sim::explore::{scenario_for, swarm_options};
use faultline_sim::swarm::{SwarmOptions, generate};
use faultline_sim::{ClientModel, Scenario};

const GOLDEN: &str = "tests/golden/digests.txt";
const SWARM_SEEDS: u64 = 200;
/// Of swarm seeds 0..100, those behind a fleet.
const FLEET_SEEDS: u64 = 100;

fn scenario_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["scenarios", "scenarios/field", "scenarios/grade"] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .collect();
        here.sort();
        files.extend(here);
    }
    files
}

/// `run name -> "ledger_sha256 trace_sha256"`, in a stable order.
fn digests() -> BTreeMap<String, String> {
    let clients = [
        ("naive", ClientModel::Naive),
        ("guarded", ClientModel::Guarded),
    ];
    let mut out = BTreeMap::new();
    let mut add = |name: String, scenario: &Scenario, seed: u64| {
        for (label, client) in clients {
            let outcome = faultline_sim::run(scenario, seed, client);
            out.insert(
                format!("{name} {label}"),
                format!("{} {}", outcome.ledger_sha256(), outcome.trace_sha256()),
            );
        }
    };
    for file in scenario_files() {
        let scenario = Scenario::load(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        add(file.display().to_string(), &scenario, scenario.seed);
    }
    // The swarm as it was before fleets (a seed's scenario apart from its fleet is the
    // same with fleets on), then the seeds the explorer puts behind a fleet, whose bytes
    // are pinned from the day fleets joined the swarm.
    let single = SwarmOptions {
        fleets: false,
        ..swarm_options(false)
    };
    for seed in 0..SWARM_SEEDS {
        add(format!("swarm/{seed:03}"), &generate(seed, single), seed);
    }
    for seed in 0..FLEET_SEEDS {
        let scenario = scenario_for(seed, false, &[]).expect("a swarm scenario");
        if scenario.fleet.is_multi() {
            add(format!("swarm_fleet/{seed:03}"), &scenario, seed);
        }
    }
    out
}

fn render(digests: &BTreeMap<String, String>) -> String {
    let mut text = String::from(
        "# run client ledger_sha256 trace_sha256; written by FAULTLINE_BLESS=1 cargo test --release --test golden_digests\n",
    );
    for (run, digest) in digests {
        text.push_str(&format!("{run} {digest}\n"));
    }
    text
}

fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut words = l.rsplitn(3, ' ');
            let trace = words.next()?;
            let ledger = words.next()?;
            Some((words.next()?.to_string(), format!("{ledger} {trace}")))
        })
        .collect()
}

#[test]
fn every_bundled_run_and_the_first_swarm_seeds_keep_their_bytes() {
    let now = digests();
    if std::env::var_os("FAULTLINE_BLESS").is_some() {
        std::fs::create_dir_all(Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, render(&now)).unwrap();
        return;
    }
    let text = std::fs::read_to_string(GOLDEN).unwrap_or_else(|e| {
        panic!("{GOLDEN}: {e}; write it with FAULTLINE_BLESS=1 cargo test --release --test golden_digests")
    });
    let pinned = parse(&text);
    let mut moved = Vec::new();
    for (run, digest) in &now {
        match pinned.get(run) {
            None => moved.push(format!("{run}: new (no pinned digest)")),
            Some(old) if old != digest => {
                let what = match (old.split(' ').next(), digest.split(' ').next()) {
                    (Some(a), Some(b)) if a == b => "trace",
                    _ => "ledger",
                };
                moved.push(format!("{run}: its {what} changed"))
            }
            Some(_) => {}
        }
    }
    for run in pinned.keys().filter(|r| !now.contains_key(*r)) {
        moved.push(format!("{run}: pinned, no longer run"));
    }
    assert!(
        moved.is_empty(),
        "{} of {} runs moved:\n  {}\nIf the change is meant, bless it: FAULTLINE_BLESS=1 cargo test --release --test golden_digests",
        moved.len(),
        now.len(),
        moved.join("\n  ")
    );
}

#[test]
fn the_golden_file_reads_back_as_written() {
    let mut digests = BTreeMap::new();
    digests.insert("scenarios/a b.ron naive".to_string(), "aa bb".to_string());
    digests.insert("swarm/001 guarded".to_string(), "cc dd".to_string());
    assert_eq!(parse(&render(&digests)), digests);
}
