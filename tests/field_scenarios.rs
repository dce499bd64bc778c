//! Field reports from public SDK issues and source, reproduced: rmcp's 16-event window and rust-sdk#958.

use std::process::Command;

fn run(scenario: &str, client: &str, trace: Option<&std::path::Path>) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_faultline"));
    cmd.args(["run", scenario, "--client", client, "--format", "json"]);
    if let Some(t) = trace {
        cmd.arg("--trace").arg(t);
    }
    let out = cmd.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn the_replay_window_skips_what_fell_out_of_it_silently() {
    let report = run("scenarios/field/rmcp_window_gap.ron", "naive", None);
    let gap = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["kind"] == "silent_gap")
        .expect("gap");
    assert_eq!(
        gap["evidence"]["ids"],
        serde_json::json!([[11, 25]]),
        "between cursor 10 and the window's first id 26"
    );
    let guarded = run("scenarios/field/rmcp_window_gap.ron", "guarded", None);
    assert!(
        guarded["verdicts"]
            .to_string()
            .contains("expected event 11, got 26")
    );
}

#[test]
fn an_empty_200_makes_the_naive_client_reconnect_with_the_same_cursor_until_it_gives_up() {
    let trace = std::env::temp_dir().join(format!("faultline-958-{}.jsonl", std::process::id()));
    let report = run(
        "scenarios/field/rmcp_958_empty_200.ron",
        "naive",
        Some(&trace),
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let same_cursor = text
        .lines()
        .filter(|l| l.contains(r#""what":"request""#) && l.contains(r#""last_event_id":"5""#))
        .count();
    assert!(
        same_cursor >= 5,
        "reconnected {same_cursor} times with Last-Event-ID 5"
    );
    let kinds: Vec<&str> = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["surfaced_loss"]);
}
