//! What grade's compressed clock cannot show, and `--time-scale`, which shows it: a client
//! whose own request timeout (wall time, as the TypeScript SDK's 60 s one) is shorter than
//! the scenario's job. Compressed, the 20-minute job is over in a moment and the timeout
//! never fires: `clean`, and the grade says what that clean does not cover. Paced, the
//! same client meets the wait it meets in the field and fails the call: `surfaced_loss`.
//!
//! No timed assertion: the pace is a lower bound on the run's wall time (the job's 20
//! minutes at 100 virtual ms per wall ms cannot end before 12 s), so a 5 s timeout fires
//! first however loaded the machine; compressed, the job ends well before it.

use serde_json::Value;

use super::grade;

const TIMES_OUT: &str = "python3 tests/grade/toy_client.py --careful --request-timeout-s 5";

fn only_run(stdout: &str, stderr: &str) -> Value {
    let report: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {stdout}\n{stderr}"));
    report["scenarios"][0].clone()
}

fn kinds(run: &Value) -> Vec<&str> {
    run["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .map(|v| v["kind"].as_str().expect("a kind"))
        .collect()
}

#[test]
fn a_compressed_clean_says_how_much_time_the_clients_timers_never_met() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        TIMES_OUT,
        "--scenario",
        "baseline",
        "--format",
        "json",
    ]);
    let run = only_run(&stdout, &stderr);
    assert_eq!(kinds(&run), ["clean"], "{run}");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // baseline's job: 20 steps a minute apart, all of it waited in a moment.
    let wait = &run["compressed_wait"];
    assert_eq!(wait["call_waited_ms"], 1_200_000, "{run}");
    assert_eq!(wait["wall_ms"], run["wall_ms"], "{run}");
    assert!(
        wait["wall_ms"].as_u64().expect("wall_ms") < 1_200_000,
        "{run}"
    );
    // The text report says it under the verdict.
    let (_, text, _) = grade(&["--command", TIMES_OUT, "--scenario", "baseline"]);
    assert!(
        text.contains("(time: the call waited 20m of the scenario's time, in a run of"),
        "{text}"
    );
    assert!(
        text.contains("could not fire here, and would in the field"),
        "{text}"
    );
}

#[test]
fn a_paced_clock_lets_the_clients_own_timeout_fail_the_call() {
    let card = std::env::temp_dir().join(format!("faultline-paced-{}.html", std::process::id()));
    let (code, stdout, stderr) = grade(&[
        "--command",
        TIMES_OUT,
        "--scenario",
        "baseline",
        "--time-scale",
        "100",
        "--format",
        "json",
        "--html",
        card.to_str().expect("a path"),
    ]);
    let run = only_run(&stdout, &stderr);
    assert_eq!(kinds(&run), ["surfaced_loss"], "{run}");
    assert_eq!(
        code, 0,
        "a loss the application was told of: {stdout}\n{stderr}"
    );
    let error = run["client_report"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("request timed out after 5 s"), "{run}");
    // The server was still at work when the client gave up: the job had not ended.
    let wall_ms = run["wall_ms"].as_u64().expect("wall_ms");
    assert!(wall_ms >= 5_000, "the timeout is 5 s of wall time: {run}");
    // The replay serves it at the same pace.
    let html = std::fs::read_to_string(&card).expect("the card");
    let _ = std::fs::remove_file(&card);
    assert!(
        html.contains("faultline serve --scenario baseline --grading --control --time-scale 100"),
        "{html}"
    );
}

#[test]
fn a_pace_that_is_not_a_positive_number_is_refused() {
    for bad in ["0", "-1", "nan", "inf", "fast"] {
        let flag = format!("--time-scale={bad}");
        let (code, _, stderr) = grade(&["--command", TIMES_OUT, "--scenario", "baseline", &flag]);
        assert_eq!(code, 2, "--time-scale {bad}: {stderr}");
        assert!(
            stderr.contains("positive number of virtual ms per wall ms"),
            "{stderr}"
        );
    }
    // A modelled client's timers already run on the scenario's time.
    let (code, _, stderr) = grade(&[
        "--like",
        "ts-1",
        "--scenario",
        "baseline",
        "--time-scale",
        "1",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
