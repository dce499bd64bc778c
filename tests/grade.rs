//! `faultline grade` end to end: the real binary grades hand-written clients (Python,
//! standard library only: `tests/grade/toy_client.py`) over loopback, and each verdict is
//! checked against the evidence (the client's report and the server's ledger).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[path = "grade/outcomes.rs"]
mod outcomes;
#[path = "grade/time_scale.rs"]
mod time_scale;

fn grade(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("grade")
        .args(args)
        .output()
        .expect("faultline runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const BROKEN: &str = "python3 tests/grade/toy_client.py --broken";
const CAREFUL: &str = "python3 tests/grade/toy_client.py --careful";

#[test]
fn a_client_that_dedups_by_cursor_loses_behavior_a_silently() {
    let ledgers = std::env::temp_dir().join(format!("faultline-grade-{}", std::process::id()));
    let (code, stdout, stderr) = grade(&[
        "--command",
        BROKEN,
        "--scenario",
        "behavior_a",
        "--format",
        "json",
        "--ledgers",
        ledgers.to_str().unwrap(),
    ]);
    assert_eq!(
        code, 1,
        "something was lost silently: exit 1\n{stdout}\n{stderr}"
    );
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["lost_silently"], true);
    let run = &report["scenarios"][0];
    assert_eq!(run["scenario"], "behavior_a");
    let gap = run["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["kind"] == "silent_gap")
        .unwrap_or_else(|| panic!("silent_gap expected: {run}"));
    // The evidence: what is missing is exactly what the server produced and the client
    // did not report.
    let ledger: Value = serde_json::from_str(
        &std::fs::read_to_string(ledgers.join("behavior_a.ledger.json")).expect("the ledger"),
    )
    .unwrap();
    let produced: Vec<u64> = ledger["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["payload"]["type"] == "progress")
        .map(|e| e["payload"]["step"].as_u64().unwrap())
        .collect();
    let reported: Vec<u64> = run["client_report"]["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap().round() as u64)
        .collect();
    let missing: Vec<u64> = gap["missing_progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = produced
        .iter()
        .copied()
        .filter(|s| !reported.contains(s))
        .collect();
    assert!(!missing.is_empty(), "{gap}");
    assert_eq!(missing, expected, "{gap}");
    assert_eq!(gap["result_missing"], true, "{gap}");
    assert_eq!(run["client_report"]["result"], Value::Null);
    assert_eq!(run["client_report"]["error"], Value::Null);
    assert_eq!(
        run["ledger_sha256"].as_str().map(str::len),
        Some(64),
        "{run}"
    );
    let _ = std::fs::remove_dir_all(&ledgers);
    // The text report says how to replay the run: the grading server, by name.
    let (code, stdout, _) = grade(&["--command", BROKEN, "--scenario", "behavior_a"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains(
            "replay behavior_a: faultline serve --scenario behavior_a --grading --control"
        ),
        "{stdout}"
    );
}

#[test]
fn a_careful_client_loses_nothing_silently_on_the_default_set() {
    let (code, stdout, stderr) = grade(&["--command", CAREFUL, "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["lost_silently"], false);
    // The toy client never opens the standalone GET, so Behavior B's restart (after the
    // 41st event of that stream) never fires, the cascade's drop of that stream cuts
    // nothing, and shared_store_cross_session has no standalone stream to resume: those
    // runs did not test what they plan, and say so, and a grade that left something
    // untested is no pass.
    assert_eq!(
        report["untested"],
        serde_json::json!([
            "behavior_b",
            "replay_404_cascade",
            "shared_store_cross_session"
        ]),
        "{stdout}"
    );
    assert_eq!(code, 1, "untested is no pass\n{stdout}\n{stderr}");
    let runs = report["scenarios"].as_array().unwrap();
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    for must in [
        "baseline",
        "drop_close",
        "drop_reset",
        "drop_twice",
        "restart_mid_call",
        "session_expiry_mid_call",
        "evicted_buffer",
        "behavior_a",
        "behavior_b",
        "replay_404_cascade",
        "sticky_cookie_dropped",
        "replica_down",
        "shared_store_cross_session",
        "rolling_deploy",
    ] {
        assert!(
            names.contains(&must),
            "{must} is in the default set: {names:?}"
        );
    }
    for modern in MODERN_SCENARIOS {
        assert!(
            !names.contains(&modern),
            "{modern} is a 2026-07-28 scenario, not in the 2025 default set: {names:?}"
        );
    }
    for probing in ERA_PROBING_SCENARIOS {
        assert!(
            names.contains(&probing),
            "{probing} probes for the era: in both default sets: {names:?}"
        );
    }
    for run in runs {
        let kinds: Vec<&str> = run["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["kind"].as_str().unwrap())
            .collect();
        assert!(
            !kinds.contains(&"silent_gap") && !kinds.contains(&"hung"),
            "{run}"
        );
        // A loss it reported is a loss the server's ledger shows, and it said so.
        if kinds.contains(&"surfaced_loss") {
            assert!(run["client_report"]["error"].is_string(), "{run}");
        }
    }
    let baseline = runs.iter().find(|r| r["scenario"] == "baseline").unwrap();
    assert_eq!(baseline["verdicts"][0]["kind"], "clean", "{baseline}");
    assert_eq!(
        baseline["client_report"]["progress"]
            .as_array()
            .map(Vec::len),
        Some(20)
    );
}

/// The bundled 2026-07-28 scenarios whose application fits the client contract.
const MODERN_SCENARIOS: [&str; 6] = [
    "reissue_duplicate_effect",
    "listen_missed_change",
    "tasks_lost_on_restart",
    "per_replica_bus_missed_change",
    "idle_proxy_cuts_listen",
    "idle_proxy_keepalive",
];

/// The bundled scenarios whose modelled client probes for the era (`era: Auto`) and whose
/// application fits the client contract: in both default sets.
const ERA_PROBING_SCENARIOS: [&str; 1] = ["rolling_era_rollback"];

/// `--era modern` is the 2026-07-28 default set: the modern scenarios, graded like any
/// other, and the era-probing ones.
#[test]
fn the_modern_era_grades_the_2026_scenarios() {
    let (_, stdout, stderr) = grade(&["--command", CAREFUL, "--era", "modern", "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {stdout}\n{stderr}"));
    let runs = report["scenarios"].as_array().unwrap();
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    // The bundled order: the era-probing scenario stands between the modern ones.
    let expected = [
        "reissue_duplicate_effect",
        "listen_missed_change",
        "tasks_lost_on_restart",
        "rolling_era_rollback",
        "per_replica_bus_missed_change",
        "idle_proxy_cuts_listen",
        "idle_proxy_keepalive",
    ];
    assert_eq!(names, expected, "{stdout}");
    let mut both: Vec<&str> = MODERN_SCENARIOS
        .into_iter()
        .chain(ERA_PROBING_SCENARIOS)
        .collect();
    both.sort_unstable();
    let mut sorted = expected.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, both);
    // The toy client speaks 2025: the 2026-07-28 scenarios did not apply to it, and grade
    // says so in place of what it found (it has no `place_order`, a 2026-07-28 tool).
    let order = &runs[0];
    assert_eq!(order["verdicts"][0]["kind"], "other_era", "{order}");
    assert_eq!(
        order["verdicts"][0]["judged"][0]["kind"], "surfaced_loss",
        "{order}"
    );
    assert!(
        order["client_report"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("place_order")),
        "{order}"
    );
    for run in runs {
        let era_probing = ERA_PROBING_SCENARIOS.contains(&run["scenario"].as_str().unwrap());
        assert_eq!(
            run["verdicts"][0]["kind"] == "other_era",
            !era_probing,
            "{run}"
        );
    }
}

#[test]
fn bad_input_exits_2_with_a_sentence() {
    // A client that prints no JSON report is that scenario's `bad_report`
    // (`outcomes::a_report_that_does_not_parse_is_bad_report`), not bad input to grade.
    let cases: [(&[&str], &str); 2] = [
        (&["--command", "no-such-client-binary-xyz"], "not found"),
        (&["--command", "  "], "--command is empty"),
    ];
    for (args, says) in cases {
        let (code, stdout, stderr) = grade(args);
        assert_eq!(code, 2, "{args:?}\n{stdout}\n{stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let bad = std::env::temp_dir().join(format!("faultline-grade-bad-{}.ron", std::process::id()));
    std::fs::write(
        &bad,
        "Scenario(\n    name: \"x\",\n    summary: \"x\",\n    seed: \"one\",\n)\n",
    )
    .unwrap();
    let (code, _, stderr) = grade(&["--command", CAREFUL, "--scenario", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(":4:"), "file:line:col: {stderr}");
    let _ = std::fs::remove_file(&bad);
    let (code, _, stderr) = grade(&[]);
    assert_eq!(code, 2, "no --command: {stderr}");
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/grade/toy_client.py")
            .exists()
    );
}

/// `--html`: one self-contained page; each run that was not clean gets its evidence, the
/// command that replays it and its diagram, whose harmed rows are exactly the events the
/// judge found missing.
#[test]
fn the_html_card_draws_each_failing_run_with_its_losses_and_replay_command() {
    let dir = std::env::temp_dir().join(format!("faultline-card-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let card = dir.join("card.html");
    let (code, stdout, stderr) = grade(&[
        "--command",
        BROKEN,
        "--scenario",
        "behavior_a",
        "--scenario",
        "baseline",
        "--format",
        "json",
        "--html",
        card.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let html = std::fs::read_to_string(&card).expect("the card was written");
    let _ = std::fs::remove_dir_all(&dir);

    assert!(html.starts_with("<!DOCTYPE html>"), "{html:.200}");
    // Self-contained: nothing is loaded from anywhere.
    for fetch in ["src=", "href=\"http", "@import", "url(http"] {
        assert!(!html.contains(fetch), "the card loads `{fetch}`");
    }
    // A failing run has a section; a clean one is only in the table. The card follows
    // the report's verdicts, whatever they are.
    assert!(html.contains(r#"<section class="run" id="behavior-a">"#));
    for graded in report["scenarios"].as_array().unwrap() {
        let name = graded["scenario"].as_str().unwrap();
        let clean = graded["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["kind"] == "clean");
        let section = format!(r#"id="{}""#, name.replace('_', "-"));
        assert_eq!(
            html.contains(&section),
            !clean,
            "{name}: a section exactly when the run was not clean: {graded}\n{stderr}"
        );
    }
    assert!(
        html.contains(">baseline</td>"),
        "the table lists every scenario"
    );
    assert!(html.contains("faultline serve --scenario behavior_a --grading --control"));
    assert!(html.contains("FAULTLINE_SCENARIO=behavior_a FAULTLINE_CONTEXT="));

    // The harmed rows of the diagram carry exactly the events the judge found missing.
    let gap = report["scenarios"][0]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["kind"] == "silent_gap")
        .expect("silent_gap");
    // The result has a row only if it was produced: a client that reports while the job
    // still runs (its own wall-clock timer, on a loaded machine) owes a result the
    // ledger never holds.
    let missing = gap["missing_progress"].as_array().unwrap().len()
        + usize::from(gap["result_missing"] == true && gap["result_produced"] == true);
    let harmed: usize = html
        .split("<g class=\"row harm harm-")
        .skip(1)
        .filter(|row| row.starts_with("lost") || row.starts_with("never-delivered"))
        .map(|row| {
            let count = row.split("data-count=\"").nth(1).expect("a count");
            count[..count.find('"').unwrap()].parse::<usize>().unwrap()
        })
        .sum();
    assert!(missing > 0);
    assert_eq!(harmed, missing, "harmed rows vs the verdict's evidence");
    assert!(
        html.contains(r#"data-verdicts="silent_gap""#),
        "the verdict is pinned to its first harmed row"
    );
}

/// A client that never reports is `hung`, and everything it started dies with it (its
/// process group), not only the shell grade started: a grandchild left running would
/// hold the terminal, ports and files of whoever ran grade.
#[test]
fn a_hung_client_is_killed_with_everything_it_started() {
    let dir = std::env::temp_dir().join(format!("faultline-hung-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("grandchild.pid");
    let command = format!("sleep 300 & echo $! > {}; sleep 300; :", pid_file.display());
    let (code, stdout, stderr) = grade(&[
        "--command",
        &command,
        "--scenario",
        "baseline",
        "--timeout-s",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "hung is a silent loss\n{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let hung = &report["scenarios"][0]["verdicts"][0];
    assert_eq!(hung["kind"], "hung");
    // With the time it waited: a client without a timeout costs that on every scenario.
    assert_eq!(hung["waited_ms"], 1000, "{hung}");
    assert!(
        hung["why"].as_str().unwrap().contains("within 1 s"),
        "{hung}"
    );
    assert_eq!(report["hung"], serde_json::json!(["baseline"]));
    let (_, text, _) = grade(&[
        "--command",
        "sleep 300; :",
        "--scenario",
        "baseline",
        "--timeout-s",
        "1",
    ]);
    assert!(
        text.contains("1 scenario(s) hung: baseline (1 s); each cost the whole --timeout-s"),
        "{text}"
    );
    let pid = std::fs::read_to_string(&pid_file).expect("the client wrote its grandchild's pid");
    let stat = Path::new("/proc").join(pid.trim()).join("stat");
    // SIGKILL is sent before grade exits; the reaper may take a moment to collect it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let gone = loop {
        let state = std::fs::read_to_string(&stat)
            .ok()
            .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().chars().next()))
            .flatten();
        if matches!(state, None | Some('Z') | Some('X')) {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
        std::thread::yield_now();
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        gone,
        "the client's grandchild (pid {}) outlived grade",
        pid.trim()
    );
}

/// rust-sdk#958 with a real client: one whose resume counter resets on every clean end of
/// stream meets an empty 200 for its cursor and resumes with the same `Last-Event-ID`
/// without end. `grade` judges the loop from the ledger by the rule `run` uses for the
/// modelled client that does the same (`scenarios/field/rmcp_958_reconnect_forever.ron`),
/// and the missing report as `hung`.
#[test]
fn a_client_that_reconnects_forever_is_a_reconnect_loop() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --loops",
        "--scenario",
        "rmcp_958_empty_200",
        "--timeout-s",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "a loop is harm\n{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert!(kinds.contains(&"hung"), "{kinds:?}");
    let looped = verdicts
        .iter()
        .find(|v| v["kind"] == "reconnect_loop")
        .unwrap_or_else(|| panic!("reconnect_loop expected: {kinds:?}\n{stderr}"));
    assert_eq!(looped["method"], "GET");
    // The fifth event's id as rmcp spells it (`<index>/<request>`; the scenario's server is
    // the rmcp-3.11 profile), sent back as it was received.
    assert_eq!(
        looped["cursor"], "5/0",
        "the same cursor every time: {looped}"
    );
    assert!(looped["attempts"].as_u64().unwrap() >= 10, "{looped}");
    assert_eq!(looped["statuses"], serde_json::json!([200]), "{looped}");
    assert!(!kinds.contains(&"clean"), "{kinds:?}");
}

/// A client that takes a cut stream for the end of its call and reports success with no
/// result lost the result silently: the server was still at work on the call when the
/// client left (the grading clock stops with it, so the job never finished in the
/// ledger), and the application was told nothing. Graded `silent_gap`, never `clean`.
#[test]
fn a_client_that_never_resumes_loses_the_result_silently() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --careful --never-resume",
        "--scenario",
        "drop_close",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "a silent loss\n{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    let gap = verdicts
        .iter()
        .find(|v| v["kind"] == "silent_gap")
        .unwrap_or_else(|| panic!("silent_gap expected: {verdicts:?}\n{stderr}"));
    assert_eq!(gap["result_missing"], true, "{gap}");
    assert!(
        !verdicts.iter().any(|v| v["kind"] == "clean"),
        "{verdicts:?}"
    );
}

/// The same client, handing its application an empty result when the stream ends (as a
/// client that resolves a pending request on stream end does), was `clean`: "everything
/// produced reached the application", over a result the server never sent. The call's
/// real outcome was lost behind it: `silent_gap`, with `result_not_sent`.
#[test]
fn a_client_that_resolves_a_cut_call_lost_its_outcome_behind_a_result_never_sent() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --careful --never-resume --resolve-on-cut",
        "--scenario",
        "drop_close",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "a silent loss\n{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(
        report["scenarios"][0]["client_report"]["result"], "",
        "{report}"
    );
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert_eq!(kinds, ["silent_gap"], "{verdicts:?}\n{stderr}");
    assert_eq!(verdicts[0]["result_not_sent"], true, "{}", verdicts[0]);
    assert!(
        verdicts[0]["why"]
            .as_str()
            .is_some_and(|w| w.contains("a result the server never sent")),
        "{}",
        verdicts[0]
    );
}

/// A client that fails the call loudly when its stream is cut, and exits, gave up on a
/// result the server was still at work on. The grading clock stops with the client, so
/// the job never finished in its ledger; the simulator's run goes on to the horizon and
/// produces the result the modelled client no longer waits for. One judge: both are
/// `surfaced_loss` (it was `clean`, "nothing produced was lost", for the real client
/// alone).
#[test]
fn a_client_that_fails_loudly_at_the_cut_lost_the_result_and_said_so() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --careful --fail-on-cut",
        "--scenario",
        "drop_close",
        "--format",
        "json",
    ]);
    assert_eq!(
        code, 0,
        "a loss the application was told of\n{stdout}\n{stderr}"
    );
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let run = &report["scenarios"][0];
    assert!(
        run["client_report"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("SSE stream ended without a response")),
        "{run}"
    );
    let verdicts = run["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert_eq!(kinds, ["surfaced_loss"], "{verdicts:?}\n{stderr}");
    assert_eq!(verdicts[0]["result_missing"], true, "{}", verdicts[0]);
    assert_eq!(verdicts[0]["result_pending"], true, "{}", verdicts[0]);
    assert_eq!(verdicts[0]["result_produced"], false, "{}", verdicts[0]);

    // The modelled client with the same habit (it gives up at the first cut, loudly).
    let scenario = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/grade/drop_close.ron"),
    )
    .expect("drop_close");
    let habit =
        "client: (standalone_stream: false, habits: (like: Python2, reconnect: GiveUpAfter(0))),";
    let modelled = scenario.replace("client: (standalone_stream: false),", habit);
    assert_ne!(modelled, scenario, "the habit went in");
    let file =
        std::env::temp_dir().join(format!("faultline-fail-on-cut-{}.ron", std::process::id()));
    std::fs::write(&file, modelled).expect("a temp file");
    let sim = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args([
            "grade",
            "--like",
            "python-2",
            "--format",
            "json",
            "--scenario",
        ])
        .arg(&file)
        .output()
        .expect("faultline runs");
    let _ = std::fs::remove_file(&file);
    let sim: Value = serde_json::from_slice(&sim.stdout).expect("one JSON document");
    let sim_kinds: Vec<&str> = sim["scenarios"][0]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["kind"].as_str())
        .collect();
    assert_eq!(sim_kinds, kinds, "simulated: {sim}");
}

/// A client that never connects (a mis-wired adapter that prints an empty report) tested
/// nothing: `untested`, with the reason, never `clean`, and grade exits 1.
#[test]
fn a_client_that_never_connects_is_untested_not_clean() {
    let (code, stdout, stderr) = grade(&[
        "--command",
        r#"python3 -c 'print("{\"progress\": [], \"result\": null, \"error\": null}")'"#,
        "--scenario",
        "drop_reset",
        "--format",
        "json",
    ]);
    assert_eq!(
        code, 1,
        "a grade that tested nothing is no pass\n{stdout}\n{stderr}"
    );
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let verdicts = report["scenarios"][0]["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
    assert_eq!(kinds, ["untested"], "{verdicts:?}");
    let why = verdicts[0]["why"].as_str().unwrap();
    assert!(why.contains("never made the scenario's call"), "{why}");
    assert!(why.contains("fault(s) met the client"), "{why}");
    assert_eq!(report["untested"], serde_json::json!(["drop_reset"]));
}

/// A correct client whose standalone GET reaches the server after the cut (sent on its own
/// task before it, or, as this toy does, after it) is clean: the server's auto clock
/// waits for the client's *resumption* of the cut stream, not for any request. Taken for
/// the return, the GET let the clock run the job to its end and the 10-minute log TTL
/// drop the cursor before the real resumption arrived: `surfaced_loss` (HTTP 400).
#[test]
fn a_get_that_races_the_cut_is_not_the_clients_return() {
    let ledgers =
        std::env::temp_dir().join(format!("faultline-late-listen-{}", std::process::id()));
    let scenarios = ["drop_close", "drop_reset", "drop_twice"];
    let mut args = vec![
        "--command",
        "python3 tests/grade/toy_client.py --careful --late-listen",
        "--format",
        "json",
        "--ledgers",
    ];
    let dir = ledgers.display().to_string();
    args.push(&dir);
    for s in scenarios {
        args.extend(["--scenario", s]);
    }
    let (code, stdout, stderr) = grade(&args);
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    for (i, scenario) in scenarios.iter().enumerate() {
        let verdicts = report["scenarios"][i]["verdicts"].as_array().unwrap();
        let kinds: Vec<&str> = verdicts.iter().filter_map(|v| v["kind"].as_str()).collect();
        assert_eq!(kinds, ["clean"], "{scenario}: {verdicts:?}\n{stderr}");
        let ledger: Value = serde_json::from_str(
            &std::fs::read_to_string(ledgers.join(format!("{scenario}.ledger.json"))).unwrap(),
        )
        .unwrap();
        let resumed: Vec<&Value> = ledger["resumptions"].as_array().unwrap().iter().collect();
        let first_resume = resumed.first().expect("the client resumed")["at_ms"]
            .as_u64()
            .unwrap();
        let listen_before = ledger["answers"].as_array().unwrap().iter().any(|a| {
            a["method"] == "Get"
                && resumed.iter().all(|r| r["conn"] != a["conn"])
                && a["at_ms"].as_u64().unwrap() <= first_resume
        });
        assert!(
            listen_before,
            "{scenario}: the fresh GET reached the server before the resumption: {}",
            ledger["answers"]
        );
    }
    let _ = std::fs::remove_dir_all(&ledgers);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
}

/// A client whose second standalone GET is answered 409 (one standalone stream a session)
/// and that keeps its session has abandoned nothing, though the fleet admits another
/// client's session (a tenant, played without HTTP) a second later: the tenant is not a
/// session the graded client started. (The AI SDK, `@ai-sdk/mcp` 2.0, sends such a GET at
/// times; it was graded `session_abandoned` on `shared_store_cross_session` in those runs.)
#[test]
fn a_fleets_tenant_is_not_a_session_the_client_started() {
    let ledgers =
        std::env::temp_dir().join(format!("faultline-double-listen-{}", std::process::id()));
    let dir = ledgers.display().to_string();
    let (_, stdout, stderr) = grade(&[
        "--command",
        "python3 tests/grade/toy_client.py --careful --double-listen",
        "--scenario",
        "shared_store_cross_session",
        "--format",
        "json",
        "--ledgers",
        &dir,
    ]);
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let run = &report["scenarios"][0];
    assert_eq!(run["client_report"]["second_listen_status"], 409, "{run}");
    let ledger: Value = serde_json::from_str(
        &std::fs::read_to_string(ledgers.join("shared_store_cross_session.ledger.json")).unwrap(),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&ledgers);
    // The evidence the old rule misread: the client's 409, then a session it never named.
    let conflict_at = ledger["answers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["status"] == 409)
        .expect("the second GET was refused")["at_ms"]
        .as_u64()
        .unwrap();
    let sessions = ledger["sessions"].as_array().unwrap();
    assert_eq!(
        sessions.len(),
        2,
        "the client's and the tenant's: {sessions:?}"
    );
    assert!(sessions[1]["created_ms"].as_u64().unwrap() > conflict_at);
    let kinds: Vec<&str> = run["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["kind"].as_str())
        .collect();
    assert!(
        !kinds.contains(&"session_abandoned"),
        "{kinds:?}: {run}\n{stderr}"
    );
}
