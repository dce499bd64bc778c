//! Unworded runs (`Words::Skipped`, as the explorer and the shrinker judge) differ from
//! worded ones only in their sentences: checked on every bundled scenario.

use std::path::{Path, PathBuf};

use faultline_scenario::{ClientModel, Scenario};

use crate::{Policy, RunOutcome, run_sim};

use faultline_verdicts::Words;

/// Every scenario file the repository bundles.
fn bundled() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("field"), root.join("grade")] {
        for entry in std::fs::read_dir(&dir).expect("the scenarios directory") {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|e| e == "ron") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn run(scenario: &Scenario, client: ClientModel, words: Words) -> RunOutcome {
    run_sim(
        scenario,
        scenario.seed,
        client,
        Policy::for_run(client, &scenario.client),
        false,
        words,
    )
}

/// Skipping the words changes nothing but the words: the same verdicts, at the same
/// times, with the same evidence, for every bundled scenario and both clients.
#[test]
fn unworded_runs_judge_the_same_and_say_nothing() {
    let files = bundled();
    assert!(files.len() > 20, "found only {} scenarios", files.len());
    for path in files {
        let scenario = Scenario::load(&path).expect("a bundled scenario parses");
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let worded = run(&scenario, client, Words::Written).verdicts;
            let unworded = run(&scenario, client, Words::Skipped).verdicts;
            let shown = path.display();
            assert_eq!(worded.len(), unworded.len(), "{shown} {client:?}");
            for (w, u) in worded.iter().zip(&unworded) {
                assert_eq!((w.kind, w.at_ms), (u.kind, u.at_ms), "{shown} {client:?}");
                assert_eq!(
                    serde_json::to_string(&w.evidence).expect("evidence serializes"),
                    serde_json::to_string(&u.evidence).expect("evidence serializes"),
                    "{shown} {client:?} {:?}",
                    w.kind
                );
                assert!(!w.summary.is_empty(), "{shown} {client:?} {:?}", w.kind);
                assert!(u.summary.is_empty(), "{shown} {client:?}: {}", u.summary);
            }
        }
    }
}
