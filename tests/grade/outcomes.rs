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
    assert_eq!(
        verdicts[0]["kind"], "untested",
        "it never called: {verdicts}\n{stderr}"
    );
    assert_eq!(code, 1);
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
