//! What a 2026-07-28 scenario may say: `place_order` and `CutCall` need a modern client,
//! `CutCall` needs a call with a stream to cut (and progress, to count it), and a modern
//! client has no standalone stream or session for `Notify` and `StaleTask`. Each refusal
//! names the item and why, at its line.

use faultline_scenario::{ArmedTrigger, Scenario, StreamSel, arm};

fn parse(client: &str, workload: &str, faults: &str) -> Result<Scenario, String> {
    let text = format!(
        "Scenario(name: \"t\", summary: \"t\", client: ({client}),\n workload: [{workload}],\n faults: [{faults}])"
    );
    Scenario::parse(&text, "t.ron").map_err(|e| e.to_string())
}

const ORDER: &str =
    r#"CallTool(at: "1s", tool: PlaceOrder(steps: 3, interval: "100ms", commit_step: Some(2)))"#;

#[test]
fn a_modern_cut_after_progress_arms_as_an_after_event_on_its_call() {
    let s = parse(
        "era: Modern",
        ORDER,
        "CutCall(call: 0, at: AfterProgress(2), away: Some(\"1s\"))",
    )
    .expect("valid");
    let armed = arm(&s, 1);
    assert_eq!(
        armed.faults[0].trigger,
        ArmedTrigger::AfterEvent {
            n: 2,
            on: StreamSel::Call(0)
        }
    );
    assert_eq!(armed.faults[0].away_ms, Some(1_000));
    let (name, args) = armed.calls[0].tool.wire_call(0);
    assert_eq!(name, "place_order");
    assert_eq!(
        args,
        serde_json::json!({"order": "call-0", "steps": 3, "interval_ms": 100, "commit_step": 2})
    );
    let at = parse(
        "era: Modern",
        ORDER,
        "CutCall(call: 0, at: At(\"1s150ms\"))",
    )
    .expect("valid");
    assert_eq!(arm(&at, 1).faults[0].trigger, ArmedTrigger::At(1_150));
    // The era is written only when it is not the default.
    assert!(s.to_ron().contains("era: Modern"));
    assert!(!parse("", "", "").expect("valid").to_ron().contains("era"));
}

#[test]
fn modern_only_items_need_a_modern_client() {
    let err = parse("", ORDER, "").expect_err("refused");
    assert!(
        err.contains("t.ron:2:") && err.contains("set client: (era: Modern)"),
        "{err}"
    );
    let job = r#"CallTool(at: "1s", tool: LongJob(steps: 3, interval: "1s"))"#;
    let err = parse("", job, "CutCall(call: 0, at: AfterProgress(1))").expect_err("refused");
    assert!(
        err.contains("t.ron:3:") && err.contains("use Drop for a 2025 stream"),
        "{err}"
    );
}

#[test]
fn a_cut_needs_a_streaming_call_that_exists_and_reports_progress() {
    let echo = r#"CallTool(at: "1s", tool: Echo(text: "hi"))"#;
    for (workload, fault, why) in [
        (
            ORDER,
            "CutCall(call: 1, at: AfterProgress(1))",
            "Call(1) names a call the workload does not have",
        ),
        (echo, "CutCall(call: 0, at: At(\"2s\"))", "no stream to cut"),
        (
            ORDER,
            "CutCall(call: 0, at: AfterProgress(0))",
            "AfterProgress counts from 1",
        ),
        (
            r#"CallTool(at: "1s", tool: PlaceOrder(steps: 3, interval: "1s"), progress: false)"#,
            "CutCall(call: 0, at: AfterProgress(1))",
            "AfterProgress never fires",
        ),
    ] {
        let err = parse("era: Modern", workload, fault).expect_err(why);
        assert!(err.contains(why), "{err}");
    }
    let err = parse(
        "era: Modern",
        r#"CallTool(at: "1s", tool: PlaceOrder(steps: 3, interval: "1s", commit_step: Some(4)))"#,
        "",
    )
    .expect_err("refused");
    assert!(
        err.contains("commit_step must be from 1 to steps (3), not 4"),
        "{err}"
    );
}

#[test]
fn a_modern_client_has_no_standalone_stream_and_no_session() {
    let err = parse(
        "era: Modern",
        r#"Notify(from: "1s", every: "1s", count: 3)"#,
        "",
    )
    .expect_err("refused");
    assert!(err.contains("does not open"), "{err}");
    let err = parse(
        "era: Modern",
        ORDER,
        r#"StaleTask(at: "2s", holds_session_from: "1s")"#,
    )
    .expect_err("refused");
    assert!(err.contains("has no session"), "{err}");
}

#[test]
fn a_listen_drop_needs_a_modern_client_that_lists_tools_and_a_list_change_arms_at_its_time() {
    let echo = r#"CallTool(at: "30s", tool: Echo(text: "hi"))"#;
    let faults =
        r#"DropListen(when: At("10s"), away: Some("15s")), ChangeList(at: "20s", notify: false)"#;
    let s = parse("era: Modern, lists_tools: true", echo, faults).expect("valid");
    let armed = arm(&s, 1);
    assert_eq!(armed.faults[0].trigger, ArmedTrigger::At(10_000));
    assert_eq!(armed.faults[0].away_ms, Some(15_000));
    assert_eq!(armed.faults[1].trigger, ArmedTrigger::At(20_000));
    assert!(s.to_ron().contains("lists_tools: true"));
    assert!(
        !parse("era: Modern", echo, "")
            .expect("valid")
            .to_ron()
            .contains("lists_tools")
    );
    for client in ["", "era: Modern"] {
        let err = parse(client, echo, r#"DropListen(when: At("10s"))"#).expect_err("refused");
        assert!(
            err.contains("t.ron:3:") && err.contains("lists_tools: true"),
            "{err}"
        );
    }
}
