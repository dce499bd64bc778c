//! The scenarios are compiled into the binary: `bench`, `run NAME`, `explain NAME` and
//! `render --scenario NAME` work from a directory that has no `scenarios/`, and a file that
//! exists wins over a bundled name.

use std::path::PathBuf;
use std::process::Command;

/// An empty directory of its own, far from the repository.
fn elsewhere(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faultline-bundled-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn faultline_in(dir: &PathBuf, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn bench_runs_the_bundled_incidents_from_any_directory() {
    let dir = elsewhere("bench");
    let (code, stdout, stderr) =
        faultline_in(&dir, &["bench", "--reps", "1", "--explore-seeds", "40"]);
    assert_eq!(code, 0, "{stderr}");
    for name in ["behavior_a", "behavior_b", "replay_404_cascade"] {
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with(name)).count(),
            2,
            "{name}, naive and guarded:\n{stdout}"
        );
    }
    // The explorer rows, the 2025 era's and the mixed era's: a cost per seed, and that
    // cost in floor steps.
    assert!(
        stdout.contains("explorer, one core (2025 era")
            && stdout.contains("explorer, one core (--era mixed")
            && stdout.contains("seeds 0..40"),
        "{stdout}"
    );
    let steps: Vec<f64> = stdout
        .lines()
        .filter_map(|l| l.strip_suffix(" floor steps per seed"))
        .filter_map(|l| l.rsplit(' ').next())
        .filter_map(|n| n.parse::<f64>().ok())
        .collect();
    assert!(
        steps.len() == 2 && steps.iter().all(|&s| s > 0.0),
        "{stdout}"
    );
}

#[test]
fn bench_can_leave_the_explorer_row_out() {
    let dir = elsewhere("bench-no-explorer");
    let (code, stdout, stderr) = faultline_in(
        &dir,
        &["bench", "--reps", "1", "--explore-seeds", "0", "behavior_b"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("explorer"), "{stdout}");
}

#[test]
fn run_and_explain_take_a_bundled_name_from_any_directory() {
    let dir = elsewhere("run");
    let (code, stdout, stderr) = faultline_in(&dir, &["run", "behavior_a"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("faultline run: behavior_a (seed 41, client naive)"),
        "{stdout}"
    );
    assert!(stdout.contains("silent_gap"), "{stdout}");
    // The repository path of a bundled scenario works too, as the README writes it.
    let (code, _, stderr) = faultline_in(&dir, &["run", "scenarios/field/rmcp_window_gap.ron"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = faultline_in(&dir, &["explain", "replay_404_cascade"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("replay_404_cascade (seed 7, naive client)"),
        "{stdout}"
    );
}

#[test]
fn render_pins_verdicts_with_a_bundled_name() {
    let dir = elsewhere("render");
    let (code, _, stderr) = faultline_in(&dir, &["run", "behavior_b", "--trace", "b.jsonl"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = faultline_in(
        &dir,
        &[
            "render",
            "b.jsonl",
            "-o",
            "b.svg",
            "--scenario",
            "behavior_b",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let pinned = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("verdicts pinned:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(pinned.contains("cursor_reuse"), "{stdout}");
    assert!(dir.join("b.svg").exists());
}

#[test]
fn a_file_that_exists_wins_over_a_bundled_name() {
    let dir = elsewhere("local");
    std::fs::write(
        dir.join("behavior_a"),
        "Scenario(name: \"my_own_behavior_a\", summary: \"a local file\")",
    )
    .unwrap();
    let (code, stdout, stderr) = faultline_in(&dir, &["run", "behavior_a"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("faultline run: my_own_behavior_a"),
        "{stdout}"
    );
}

#[test]
fn an_unknown_name_lists_the_bundled_ones() {
    let dir = elsewhere("unknown");
    let (code, _, stderr) = faultline_in(&dir, &["run", "behavior_c"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read the scenario"), "{stderr}");
    assert!(
        stderr.contains("nor is it a bundled scenario (behavior_a, behavior_b"),
        "{stderr}"
    );
}

#[test]
fn scenarios_lists_every_bundled_name_with_its_summary() {
    let dir = elsewhere("list");
    let (code, stdout, stderr) = faultline_in(&dir, &["scenarios"]);
    assert_eq!(code, 0, "{stderr}");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for sub in ["scenarios", "scenarios/field"] {
        for entry in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ron") {
                let name = path.file_stem().unwrap().to_string_lossy().to_string();
                let line = stdout
                    .lines()
                    .find(|l| l.starts_with(&format!("{name} ")))
                    .unwrap_or_else(|| panic!("{name} not listed:\n{stdout}"));
                let text = std::fs::read_to_string(&path).unwrap();
                let summary = text
                    .split("summary: \"")
                    .nth(1)
                    .and_then(|s| s.split('"').next())
                    .unwrap();
                assert!(line.ends_with(summary), "{line}");
            }
        }
    }
}

/// Every scenario file holds its own `expect` block for both modelled clients: the check
/// `.ci/run` once made with a `faultline run` per file and client.
#[test]
fn every_scenario_file_holds_its_expect_block_for_both_clients() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in ["scenarios", "scenarios/field", "scenarios/grade"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .collect();
        files.sort();
        for file in files {
            let scenario = faultline_sim::Scenario::load(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            for client in [
                faultline_sim::ClientModel::Naive,
                faultline_sim::ClientModel::Guarded,
            ] {
                checked += 1;
                let outcome = faultline_sim::run(&scenario, scenario.seed, client);
                if !faultline_sim::check_expectation(&scenario, &outcome).holds() {
                    failures.push(format!(
                        "{} --client {}: the expectation fails; reproduce with: cargo run --release -- run {} --client {}",
                        file.display(),
                        client.name(),
                        file.display(),
                        client.name()
                    ));
                }
            }
        }
    }
    assert!(checked >= 60, "checked only {checked} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Outside a clone, the command that reproduces a failed run is the installed binary's
/// (`faultline run …`), not a `cargo run` that only works inside one.
#[test]
fn outside_a_clone_the_reproduction_is_the_installed_command() {
    let dir = elsewhere("reproduce");
    let text = std::fs::read_to_string("scenarios/behavior_a.ron")
        .unwrap()
        .replace(
            "Naive: (must: [SilentGap], must_not: [Detected, Clean]),",
            "Naive: (must: [Clean], must_not: [SilentGap]),",
        );
    std::fs::write(dir.join("wrong.ron"), text).unwrap();
    let (code, stdout, _) = faultline_in(&dir, &["run", "wrong.ron"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("reproduce: faultline run wrong.ron --seed 41 --client naive"),
        "{stdout}"
    );
}
