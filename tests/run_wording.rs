//! What `run` says in text: the scenario's summary under the title, one sentence when an
//! expectation holds on a harmed client, verdicts a newcomer can read, and the reproduce
//! command once.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .arg("run")
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
fn the_summary_is_printed_under_the_title() {
    let (code, stdout, _) = run(&["scenarios/behavior_b.ron"]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("faultline run: behavior_b")
    );
    assert_eq!(
        lines.next().unwrap(),
        "  After a restart that restores the session by id, the old cursor is honoured against the new generation's numbering: a gap the transport calls delivered."
    );
}

#[test]
fn an_expectation_that_holds_on_a_losing_client_says_so() {
    let (code, stdout, _) = run(&["scenarios/behavior_a.ron"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "  holds: the naive client loses data here (silent_gap, hung), as the scenario says it should"
        ),
        "{stdout}"
    );
    // The guarded client is not harmed: nothing to add.
    let (code, stdout, _) = run(&["scenarios/behavior_a.ron", "--client", "guarded"]);
    assert_eq!(code, 0);
    assert!(stdout.ends_with("expectation\n  holds\n"), "{stdout}");
}

#[test]
fn verdicts_say_who_sent_what_and_what_was_applied() {
    let (_, stdout, _) = run(&["scenarios/replay_404_cascade.ron"]);
    assert!(
        stdout.contains("7 request(s) went to session 5e26b79a after it answered 404/410 at T+33m (3 from main, 4 from stale-1)"),
        "{stdout}"
    );
    let (_, stdout, _) = run(&["scenarios/behavior_b.ron"]);
    let reuse = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("cursor_reuse"))
        .expect("a cursor_reuse verdict");
    assert!(reuse.contains("the server replayed"), "{reuse}");
    assert!(reuse.contains("and the client applied"), "{reuse}");
}

#[test]
fn a_failed_expectation_prints_the_reproduce_command_once() {
    let dir = std::env::temp_dir().join(format!("faultline-wording-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wrong.ron");
    let text = std::fs::read_to_string("scenarios/behavior_a.ron")
        .unwrap()
        .replace(
            "Naive: (must: [SilentGap], must_not: [Detected, Clean]),",
            "Naive: (must: [Clean], must_not: [SilentGap]),",
        );
    std::fs::write(&path, text).unwrap();
    let (code, stdout, stderr) = run(&[path.to_str().unwrap()]);
    assert_eq!(code, 1);
    let both = format!("{stdout}{stderr}");
    assert_eq!(
        both.matches("--seed 41 --client naive").count(),
        1,
        "{both}"
    );
    assert!(stderr.contains("expectation failed"), "{stderr}");
}

/// A duplicate the server made alone (a task store running an interrupted task again
/// after a restart) is not blamed on the client that expected it.
#[test]
fn a_duplicate_the_server_made_alone_is_not_blamed_on_the_client() {
    let dir = std::env::temp_dir().join(format!("faultline-wording-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rerun.ron");
    std::fs::write(
        &path,
        r#"Scenario(name: "rerun", summary: "t", seed: 378,
            server: (task_persistence: Everything),
            client: (model: Guarded, era: Modern, use_tasks: true),
            workload: [CallTool(at: "5m", tool: PlaceOrder(steps: 18, interval: "12s843ms", commit_step: Some(6)), progress: true)],
            faults: [Restart(when: At("7m"))],
            horizon: Some("1d"),
            expect: { Guarded: (must: [duplicate_effect]) })"#,
    )
    .unwrap();
    let (code, stdout, stderr) = run(&[path.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("holds: the server does work twice here on its own"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("the guarded client does work twice"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
