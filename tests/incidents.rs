//! The three incidents, end to end through the `faultline` binary: each verdict is
//! checked against its evidence and the incident reports' numbers, for both client models.

use std::process::Command;

use serde_json::Value;

fn faultline(args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(args)
        .output()
        .expect("faultline runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn run_json(scenario: &str, client: &str) -> Value {
    let (code, json, stderr) =
        faultline(&["run", scenario, "--client", client, "--format", "json"]);
    assert_eq!(
        code, 0,
        "{scenario} --client {client} must meet its expectation; stderr: {stderr}\n{json:#}"
    );
    json
}

fn verdicts<'a>(report: &'a Value, kind: &str) -> Vec<&'a Value> {
    report["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .filter(|v| v["kind"] == kind)
        .collect()
}

fn kinds(report: &Value) -> Vec<String> {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_string())
        .collect()
}

const LOSS: [&str; 5] = [
    "silent_gap",
    "cursor_reuse",
    "quarantine_violation",
    "foreign_event",
    "duplicate",
];

fn assert_guarded_detects(report: &Value) {
    let kinds = kinds(report);
    assert!(kinds.contains(&"detected".to_string()), "{kinds:?}");
    for loss in LOSS {
        assert!(
            !kinds.contains(&loss.to_string()),
            "guarded client lost data: {kinds:?}"
        );
    }
}

#[test]
fn behavior_a_naive_client_drops_events_1_to_41_of_the_fresh_stream_including_the_result() {
    let report = run_json("scenarios/behavior_a.ron", "naive");
    let gaps = verdicts(&report, "silent_gap");
    assert_eq!(gaps.len(), 1, "{report:#}");
    let e = &gaps[0]["evidence"];
    assert_eq!(
        e["ids"],
        serde_json::json!([[1, 41]]),
        "the fresh stream's ids 1..=41"
    );
    assert_eq!(e["count"], 41);
    assert_eq!(
        e["skipped_as_seen"],
        serde_json::json!([[1, 41]]),
        "all delivered, all discarded as <= cursor 41"
    );
    assert_eq!(e["never_delivered"], serde_json::json!([]));
    assert_eq!(
        e["lost_results"],
        serde_json::json!(["call-0"]),
        "the terminal result is among them"
    );
    assert_eq!(
        e["generation"], 1,
        "same session generation: this is a reset, not a restart"
    );
    assert!(verdicts(&report, "detected").is_empty());
}

#[test]
fn behavior_a_guarded_client_detects_the_reset_and_recovers_the_call() {
    let report = run_json("scenarios/behavior_a.ron", "guarded");
    assert_guarded_detects(&report);
    let detected = &verdicts(&report, "detected")[0]["evidence"];
    let errors = detected["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            // The fresh stream replays nothing after cursor 41: Behavior A's report's
            // `first_replayed_id is None` branch ("buffer likely expired").
            .any(|e| {
                let e = e.as_str().unwrap();
                e.starts_with("ResumptionCursorError") && e.contains("cursor 41")
            }),
        "{errors:?}"
    );
    assert_eq!(detected["recovered_calls"], serde_json::json!(["call-0"]));
}

#[test]
fn behavior_b_naive_client_has_its_cursor_41_honoured_against_generation_2() {
    let report = run_json("scenarios/behavior_b.ron", "naive");
    let reuse = verdicts(&report, "cursor_reuse");
    assert_eq!(reuse.len(), 1, "{report:#}");
    let e = &reuse[0]["evidence"];
    assert_eq!(e["cursor"], "41");
    assert_eq!(e["minted_in_generation"], 1);
    assert_eq!(e["honoured_in_generation"], 2);
    let gaps = verdicts(&report, "silent_gap");
    assert_eq!(gaps.len(), 1);
    assert_eq!(gaps[0]["evidence"]["generation"], 2);
    assert_eq!(
        gaps[0]["evidence"]["ids"],
        serde_json::json!([[1, 41]]),
        "generation 2's events 1..=41 never reach the client"
    );
}

#[test]
fn behavior_b_guarded_client_refuses_the_unadvertised_cursor() {
    let report = run_json("scenarios/behavior_b.ron", "guarded");
    assert_guarded_detects(&report);
    let errors = verdicts(&report, "detected")[0]["evidence"]["errors"].to_string();
    assert!(
        errors.contains("did not negotiate monotonic event IDs"),
        "{errors}"
    );
}

#[test]
fn cascade_naive_client_reproduces_the_seed_timeline() {
    let report = run_json("scenarios/replay_404_cascade.ron", "naive");
    let min = 60_000;
    let zombie = verdicts(&report, "zombie_session");
    assert_eq!(zombie.len(), 1, "{report:#}");
    let z = &zombie[0]["evidence"];
    assert_eq!(z["cursor"], "4471");
    assert_eq!(z["replay_at_ms"], 6 * min, "reconnect at T+6");
    assert_eq!(
        z["replayed_ids"],
        serde_json::json!([[4472, 4473]]),
        "the replay of 4472 and 4473 after cursor 4471, by id"
    );
    assert_eq!(z["session_died_at_ms"], 31 * min, "expiry at T+31");
    assert_eq!(z["rejected_at_ms"], 33 * min, "tools/call 404 at T+33");
    assert_eq!(z["status"], 404);

    let amp = verdicts(&report, "retry_amplification");
    assert_eq!(amp.len(), 1);
    let requests = amp[0]["evidence"]["requests"].as_array().unwrap();
    let main_retries = requests.iter().filter(|r| r["task"] == "main").count();
    assert_eq!(
        main_retries, 3,
        "three retries against the dead session: {requests:#?}"
    );
    assert!(requests.iter().all(|r| r["status"] == 404));

    let collision = verdicts(&report, "reinit_collision");
    assert_eq!(collision.len(), 1);
    let stale = collision[0]["evidence"]["requests"].as_array().unwrap();
    assert!(
        stale
            .iter()
            .all(|r| r["task"].as_str().unwrap().starts_with("stale")),
        "{stale:#?}"
    );
    assert!(
        verdicts(&report, "silent_gap").is_empty(),
        "all 4473 events were applied"
    );
    assert_eq!(report["events_applied"], 4473);
}

#[test]
fn cascade_guarded_client_probes_then_rebuilds_without_retrying_a_dead_session() {
    let report = run_json("scenarios/replay_404_cascade.ron", "guarded");
    assert_guarded_detects(&report);
    for harm in ["zombie_session", "retry_amplification", "reinit_collision"] {
        assert!(verdicts(&report, harm).is_empty(), "{harm}: {report:#}");
    }
    let detected = &verdicts(&report, "detected")[0]["evidence"];
    assert!(
        detected["errors"]
            .to_string()
            .contains("SessionResumptionError")
    );
    assert_eq!(detected["recovered_calls"], serde_json::json!(["call-0"]));
}

#[test]
fn an_expectation_that_does_not_hold_exits_1_and_prints_the_reproduction() {
    let dir = std::env::temp_dir().join(format!("faultline-expect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wrong.ron");
    let text = std::fs::read_to_string("scenarios/behavior_a.ron")
        .unwrap()
        .replace(
            "Naive: (must: [SilentGap], must_not: [Detected, Clean]),",
            "Naive: (must: [Clean], must_not: [SilentGap]),",
        );
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = faultline(&["run", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("reproduce with: cargo run --release -- run"),
        "{stderr}"
    );
    assert!(stderr.contains("--seed 41 --client naive"), "{stderr}");
}
