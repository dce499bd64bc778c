//! What grade says of runs that are not a plain judgement of what was lost (issue 31): a
//! client that crashes or prints no report that reads, one that declares what it cannot
//! do, one that hands progress over out of order, one that speaks the other era. Each is
//! that scenario's verdict, with its evidence; the rest of the run is graded as ever.

use serde_json::Value;

use super::{CAREFUL, grade};

/// `grade --format json` on `scenarios`: (exit code, the document, stderr).
fn graded(command: &str, scenarios: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["--command", command, "--format", "json"];
    for s in scenarios {
        args.extend(["--scenario", s]);
    }
    let (code, stdout, stderr) = grade(&args);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}), exit {code}: {stdout}\n{stderr}"));
    (code, report, stderr)
}

/// Each scenario's verdict kinds, in order.
fn kinds(report: &Value) -> Vec<(String, Vec<String>)> {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|run| {
            let kinds = run["verdicts"]
                .as_array()
                .expect("verdicts")
                .iter()
                .map(|v| v["kind"].as_str().expect("a kind").to_string())
                .collect();
            (run["scenario"].as_str().expect("a name").to_string(), kinds)
        })
        .collect()
}

fn named<'a>(name: &str, list: &'a [(String, Vec<String>)]) -> Vec<&'a str> {
    list.iter()
        .find(|(s, _)| s == name)
        .map(|(_, k)| k.iter().map(String::as_str).collect())
        .unwrap_or_else(|| panic!("{name} was graded: {list:?}"))
}

/// The AI SDK on `replica_down` (exit 13, "unsettled top-level await") ended the whole
/// grade with exit 2 and an empty JSON document. A crash is that scenario's verdict, with
/// its exit status and stderr; the scenarios around it are graded as ever.
#[test]
fn a_client_that_crashes_on_one_scenario_is_that_scenarios_verdict() {
    let command = r#"python3 tests/grade/toy_client.py --careful $([ "$FAULTLINE_SCENARIO" = drop_reset ] && echo --crash)"#;
    let (code, report, stderr) = graded(command, &["baseline", "drop_reset", "drop_close"]);
    assert_eq!(code, 1, "a crash is no pass: {report}\n{stderr}");
    let list = kinds(&report);
    assert_eq!(named("baseline", &list), ["clean"], "{report}");
    assert_eq!(named("drop_close", &list), ["clean"], "{report}");
    assert_eq!(named("drop_reset", &list), ["crashed"], "{report}");
    let crashed = &report["scenarios"][1]["verdicts"][0];
    assert_eq!(crashed["exit_status"], 13, "{crashed}");
    assert!(
        crashed["stderr_tail"]
            .as_str()
            .is_some_and(|s| s.contains("unsettled top-level await")),
        "{crashed}"
    );
    assert!(
        crashed["why"].as_str().unwrap().contains("exited 13"),
        "{crashed}"
    );
    assert_eq!(report["no_report"], serde_json::json!(["drop_reset"]));
}

/// A client that exits 0 with a last line that is not JSON: `bad_report`, not exit 2.
#[test]
fn a_report_that_does_not_parse_is_bad_report() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --bad-report",
        &["baseline"],
    );
    assert_eq!(code, 1, "{report}\n{stderr}");
    let verdict = &report["scenarios"][0]["verdicts"][0];
    assert_eq!(verdict["kind"], "bad_report", "{verdict}");
    assert!(
        verdict["report_problem"]
            .as_str()
            .is_some_and(|p| p.contains("not JSON")),
        "{verdict}"
    );
    assert_eq!(report["scenarios"][0]["client_report"], Value::Null);
}

/// What SDK adapters print most naturally (the whole `CallToolResult`, the error object)
/// ended the whole grade with exit 2: read for their text, they are judged.
#[test]
fn sdk_objects_in_a_report_are_judged_not_refused() {
    let printed = r#"{"progress": [], "result": {"content": [{"type": "text", "text": "x"}]}, "error": {"code": -32001, "message": "Request timed out"}}"#;
    let command = format!("python3 -c 'print({printed:?})'");
    let (code, report, stderr) = graded(&command, &["baseline"]);
    let verdicts = &report["scenarios"][0]["verdicts"];
    // Read, not refused: the result's text is the report's, and it is a result no call
    // was ever answered with (the client never called): a claim the ledger rules out.
    assert_eq!(
        report["scenarios"][0]["client_report"]["result"]["content"][0]["text"], "x",
        "{report}"
    );
    assert_eq!(
        verdicts[0]["kind"], "bad_report",
        "it never called, yet reports a result: {verdicts}\n{stderr}"
    );
    assert!(
        verdicts[0]["why"]
            .as_str()
            .is_some_and(|w| w.contains("a result, while no call reached the server")),
        "{verdicts}"
    );
    assert_eq!(code, 1);
}

/// A report that claims what the server never sent (progress steps no job produced) is
/// `bad_report` with the claims, not `clean`: a client that lost values and one that made
/// them up would otherwise read alike. The report is kept beside it.
#[test]
fn a_report_of_values_never_sent_is_bad_report() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --invent",
        &["baseline"],
    );
    assert_eq!(code, 1, "an untrue report is no pass: {report}\n{stderr}");
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    let v = &verdicts[0];
    assert_eq!(v["kind"], "bad_report", "{v}");
    assert_eq!(v["ended"], "untrue", "{v}");
    // Claimed values as reported (numbers, whole here).
    let claimed: Vec<u64> = v["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap() as u64)
        .collect();
    let produced: Vec<u64> = v["sent_progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    // Exactly the invented steps: every one the ledger lacks, none it has.
    let expected: Vec<u64> = (1..=100).filter(|p| !produced.contains(p)).collect();
    assert!(!produced.is_empty() && !expected.is_empty(), "{v}");
    assert_eq!(claimed, expected, "{v}");
    assert!(
        v["why"]
            .as_str()
            .is_some_and(|w| w.contains("the report claims what the server never sent")),
        "{v}"
    );
}

/// An error beside the call's result is not the call failing: the clean sentence says
/// the result came, and the error besides.
#[test]
fn an_error_beside_the_result_is_not_a_failed_call() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --also-error",
        &["baseline"],
    );
    let v = &report["scenarios"][0]["verdicts"][0];
    assert_eq!(v["kind"], "clean", "{v}\n{stderr}");
    let why = v["why"].as_str().unwrap();
    assert!(
        why.contains("the call's result with it; the application also saw an error")
            && !why.contains("failed loudly"),
        "{why}"
    );
    assert_eq!(code, 0);
}

/// A client without a progress handler says so (`supports.progress: false`): a scenario
/// whose faults are timed by the call's progress is `not_applicable`, one that is not is
/// judged on the result, and `not_applicable` is no failure.
#[test]
fn a_client_without_a_progress_handler_that_says_so_is_not_applicable() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --no-progress",
        &["baseline", "drop_reset"],
    );
    let list = kinds(&report);
    assert_eq!(named("baseline", &list), ["clean"], "{report}");
    assert_eq!(named("drop_reset", &list), ["not_applicable"], "{report}");
    let verdict = &report["scenarios"][1]["verdicts"][0];
    assert_eq!(
        verdict["unsupported"],
        serde_json::json!(["progress"]),
        "{verdict}"
    );
    assert_eq!(report["not_applicable"], serde_json::json!(["drop_reset"]));
    assert_eq!(
        code, 0,
        "not_applicable is not a failure: {report}\n{stderr}"
    );
    // A declaration the report's own progress values contradict does not stand: the
    // careful client that handled progress is judged as one that can.
    let (_, report, _) = graded(
        "python3 tests/grade/toy_client.py --careful --declare-no-progress",
        &["drop_reset"],
    );
    assert_eq!(named("drop_reset", &kinds(&report)), ["clean"], "{report}");
    // Without the declaration the same client is a mis-wired one: `untested`.
    let (code, report, _) = graded(
        r#"python3 -c 'print("{\"progress\": [], \"result\": null, \"error\": null}")'"#,
        &["drop_reset"],
    );
    assert_eq!(named("drop_reset", &kinds(&report)), ["untested"]);
    assert_eq!(code, 1);
}

/// rmcp's client hands progress over as `[2, 1, 3, 4, 5]`: every value arrived, so a
/// judge that counts values calls it clean. Out of order is a verdict of its own.
#[test]
fn progress_handed_over_out_of_order_is_out_of_order() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --reorder",
        &["baseline"],
    );
    assert_eq!(code, 1, "{report}\n{stderr}");
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert_eq!(kinds, ["out_of_order"], "{verdicts:?}");
    let evidence = &verdicts[0];
    assert_eq!(evidence["first_at"], 1, "{evidence}");
    assert_eq!(evidence["value"], 1.0, "{evidence}");
    assert_eq!(evidence["after"], 2.0, "{evidence}");
    assert_eq!(evidence["handed"][0], 2.0, "{evidence}");
}

/// A client that negotiates 2026-07-28, graded on the 2025 set, got `clean` on scenarios
/// that tested nothing of it. grade reads the era it spoke from the ledger and says the
/// set did not apply; the era-probing scenario, in both sets, still applies.
#[test]
fn a_client_of_the_other_era_is_told_the_set_did_not_apply() {
    let (code, report, stderr) = graded(
        "python3 tests/grade/toy_client.py --careful --modern",
        &["baseline", "drop_reset", "rolling_era_rollback"],
    );
    assert_eq!(code, 1, "{report}\n{stderr}");
    let list = kinds(&report);
    assert_eq!(named("baseline", &list), ["other_era"], "{report}");
    assert_eq!(named("drop_reset", &list), ["other_era"], "{report}");
    assert!(
        !named("rolling_era_rollback", &list).contains(&"other_era"),
        "{report}"
    );
    let verdict = &report["scenarios"][0]["verdicts"][0];
    assert_eq!(verdict["client_era"], "2026-07-28", "{verdict}");
    assert_eq!(verdict["scenario_era"], "2025-11-25", "{verdict}");
    assert_eq!(verdict["grade_with"], "modern", "{verdict}");
    assert_eq!(verdict["judged"][0]["kind"], "clean", "{verdict}");
    // The text says it plainly, once.
    let (_, text, _) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --careful --modern",
        "--scenario",
        "baseline",
    ]);
    assert!(
        text.contains("the client spoke 2026-07-28: this set did not apply to it")
            && text.contains("--era modern"),
        "{text}"
    );
    // And the 2025 client is not told so on the 2025 set.
    let (_, report, _) = graded(CAREFUL, &["baseline"]);
    assert_eq!(named("baseline", &kinds(&report)), ["clean"]);
}

/// A client that ran, then exited 127 (its own status: a wrapper's, a missing
/// subcommand's) ended the whole grade as "the command was not found", with the scenarios
/// already graded thrown away. Only the shell's 127 before anything ran is that: this run
/// is judged on its report, and every scenario is graded.
#[test]
fn a_client_that_exits_127_after_running_is_judged() {
    let (code, report, stderr) = graded(
        // grade appends the URL: the function passes it on, then exits 127.
        r#"f() { python3 tests/grade/toy_client.py --careful "$@"; exit 127; }; f"#,
        &["baseline", "drop_close"],
    );
    assert_ne!(code, 2, "not bad input: {report}\n{stderr}");
    let list = kinds(&report);
    assert_eq!(named("baseline", &list), ["clean"], "{report}");
    assert_eq!(named("drop_close", &list), ["clean"], "{report}");
}

/// A client that printed its report and exited, leaving something it started holding its
/// stdout (a helper in the background), was graded `hung` at the timeout with its report
/// thrown away: grade waited for the pipe to close, not for the client to exit. It is
/// judged on its report.
#[test]
fn a_client_that_exits_leaving_its_stdout_open_is_judged_on_its_report() {
    let command = r#"f() { python3 tests/grade/toy_client.py --careful "$@"; sleep 600 & }; f"#;
    let (code, stdout, stderr) = grade(&[
        "--command",
        command,
        "--format",
        "json",
        "--timeout-s",
        "20",
        "--scenario",
        "baseline",
    ]);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}), exit {code}: {stdout}\n{stderr}"));
    assert_eq!(named("baseline", &kinds(&report)), ["clean"], "{report}");
    assert!(
        report["scenarios"][0]["client_report"].is_object(),
        "{report}"
    );
    assert_eq!(code, 0, "{report}\n{stderr}");
}
