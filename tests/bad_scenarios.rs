//! Malformed scenario files exit 2 with the file, line, column and a sentence.

use std::process::Command;

fn run_text(name: &str, text: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("faultline-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .arg("run")
        .arg(&path)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

const HEAD: &str = "Scenario(\n    name: \"x\",\n    summary: \"y\",\n";

#[test]
fn syntax_error_names_line_and_column() {
    let (code, err) = run_text(
        "syntax.ron",
        &format!("{HEAD}    server: (id_scheme: PerStream,,),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("syntax.ron:4:"), "{err}");
}

#[test]
fn unknown_field_is_named_with_the_fields_that_exist() {
    let (code, err) = run_text(
        "unknown.ron",
        &format!("{HEAD}    server: (sesion_idle_ttl: Some(\"30m\")),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("unknown.ron:4:"), "{err}");
    assert!(err.contains("unknown field `sesion_idle_ttl`"), "{err}");
    assert!(
        err.contains("session_idle_ttl"),
        "lists the real fields: {err}"
    );
}

#[test]
fn zero_ttl_is_rejected_with_a_reason() {
    let (code, err) = run_text(
        "zero.ron",
        &format!("{HEAD}    server: (\n        event_log_ttl: Some(\"0s\"),\n    ),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("zero.ron:5:"), "{err}");
    assert!(err.contains("zero makes no sense"), "{err}");
}

#[test]
fn negative_duration_is_rejected() {
    let (code, err) = run_text(
        "neg.ron",
        &format!("{HEAD}    server: (session_idle_ttl: Some(\"-5m\")),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("neg.ron:4:"), "{err}");
    assert!(err.contains("invalid duration"), "{err}");
}

#[test]
fn a_number_without_a_unit_is_rejected() {
    let (code, err) = run_text(
        "unit.ron",
        &format!("{HEAD}    server: (session_idle_ttl: Some(\"30\")),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("needs a unit"), "{err}");
}

#[test]
fn a_fault_naming_a_call_that_does_not_exist_is_rejected() {
    let (code, err) = run_text(
        "call.ron",
        &format!("{HEAD}    faults: [Drop(when: AfterEvent(n: 3, on: Call(2)), mode: Reset)],\n)"),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("Call(2) names a call the workload does not have"),
        "{err}"
    );
    assert!(err.contains("call.ron:4:14:"), "points at the fault: {err}");
}

#[test]
fn a_later_fault_naming_a_missing_call_is_pointed_at() {
    let (code, err) = run_text(
        "call2.ron",
        &format!(
            "{HEAD}    faults: [\n        Gc(when: At(\"1m\")), // Call(5) in a comment\n        Drop(when: AfterEvent(n: 3, on: Call(5)), mode: Reset),\n    ],\n)"
        ),
    );
    assert_eq!(code, 2);
    assert!(err.contains("call2.ron:6:9: faults[1]: Call(5)"), "{err}");
}

#[test]
fn a_bad_enum_value_lists_the_values_the_field_takes() {
    let (code, err) = run_text(
        "enum.ron",
        &format!("{HEAD}    server: (id_scheme: 42),\n)"),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "enum.ron:4:25: id_scheme: expected one of SessionMonotonic, PerStream, PerGeneration, Constant; found `42`"
        ),
        "{err}"
    );
    assert!(
        !err.contains("r#"),
        "no advice about raw identifiers: {err}"
    );
}

#[test]
fn a_quoted_enum_value_is_told_to_drop_the_quotes() {
    let (code, err) = run_text(
        "quoted.ron",
        &format!("{HEAD}    client: (model: \"Naive\"),\n)"),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "model: expected one of Naive, Guarded; found `\"Naive\"` (write the name bare"
        ),
        "{err}"
    );
}

#[test]
fn a_wrong_value_type_names_its_field() {
    let (code, err) = run_text(
        "bool.ron",
        &format!("{HEAD}    server: (get_validates_session: 42),\n)"),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("bool.ron:4:36: get_validates_session: expected boolean"),
        "{err}"
    );
}

#[test]
fn an_empty_file_is_called_empty() {
    for text in ["", "\n  // only a comment\n"] {
        let (code, err) = run_text("empty.ron", text);
        assert_eq!(code, 2);
        assert!(err.contains("empty.ron: the file is empty"), "{err}");
        assert!(!err.contains("Expected opening"), "{err}");
    }
}

#[test]
fn a_bad_verdict_name_lists_each_verdict_once() {
    let (code, err) = run_text(
        "verdict.ron",
        &format!("{HEAD}    expect: {{ Naive: (must: [SilentGapp]) }},\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("unknown variant `SilentGapp`"), "{err}");
    let listed = err
        .split("expected one of: ")
        .nth(1)
        .expect("a list")
        .trim();
    let names: Vec<&str> = listed.split(", ").collect();
    assert_eq!(names.len(), faultline_sim::VerdictKind::ALL.len(), "{err}");
    assert!(names.contains(&"silent_gap"), "{err}");
    assert!(!names.contains(&"SilentGap"), "{err}");
}

#[test]
fn a_missing_file_is_bad_input() {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["run", "/nonexistent/x.ron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the scenario"));
}

#[test]
fn a_fleet_out_of_range_or_an_unknown_balancer_is_refused() {
    let (code, err) = run_text(
        "zero_replicas.ron",
        &format!("{HEAD}    fleet: (replicas: 0),\n)"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("fleet.replicas: 0 is out of range"), "{err}");
    let (code, err) = run_text(
        "cookie.ron",
        &format!("{HEAD}    fleet: (replicas: 2, balancer: LeastConnections),\n)"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cookie.ron:4:"), "{err}");
    assert!(
        err.contains("StickySessionId") && err.contains("ClientAddress"),
        "lists the balancers that exist: {err}"
    );
}

#[test]
fn a_replica_down_of_a_replica_the_fleet_lacks_is_refused_at_its_line() {
    let (code, err) = run_text(
        "down.ron",
        &format!(
            "{HEAD}    fleet: (replicas: 2),\n    faults: [\n        ReplicaDown(when: At(\"1s\"), replica: 2, down: \"10s\"),\n    ],\n)"
        ),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("down.ron:6:9: faults[0]"), "{err}");
    assert!(err.contains("replica 2, but the fleet has 2"), "{err}");
}

#[test]
fn a_rolling_deploy_with_an_impossible_value_is_refused_at_its_line() {
    for (fleet, every, down, says) in [
        ("(replicas: 3)", "0s", "3s", "every replica down at once"),
        ("(replicas: 3)", "4s", "0s", "restarts nothing"),
        ("(replicas: 1)", "4s", "3s", "needs a fleet"),
    ] {
        let (code, err) = run_text(
            "deploy.ron",
            &format!(
                "{HEAD}    fleet: {fleet},\n    faults: [\n        RollingDeploy(when: At(\"1s\"), every: \"{every}\", down: \"{down}\"),\n    ],\n)"
            ),
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("deploy.ron:6:9: faults[0]"), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_scale_with_an_impossible_value_is_refused_at_its_line() {
    for (fleet, to, says) in [
        ("(replicas: 3)", 0, "leaves no replica"),
        ("(replicas: 3)", 17, "to: 17 is out of range"),
        ("(replicas: 1)", 2, "Scale needs a fleet"),
    ] {
        let (code, err) = run_text(
            "scale.ron",
            &format!(
                "{HEAD}    fleet: {fleet},\n    faults: [\n        Scale(when: At(\"1s\"), to: {to}),\n    ],\n)"
            ),
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("scale.ron:6:9: faults[0]"), "{err}");
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn a_tenant_every_zero_is_refused_at_its_line() {
    let (code, err) = run_text(
        "tenant.ron",
        &format!(
            "{HEAD}    workload: [\n        Tenant(at: \"1s\", every: \"0s\", count: 3),\n    ],\n)"
        ),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("tenant.ron:5:9: workload[0]"), "{err}");
    assert!(err.contains("positive period"), "{err}");
}

#[test]
fn an_event_store_that_does_not_exist_lists_the_ones_that_do() {
    let (code, err) = run_text(
        "store.ron",
        &format!("{HEAD}    fleet: (replicas: 2, event_store: Shared(by: Tenant)),\n)"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("store.ron:4:"), "{err}");
    assert!(err.contains("Session") && err.contains("Stream"), "{err}");
}

/// An optional value may be written bare (`event_log_ttl: "1h"`, as `Some("1h")`), and a
/// number where a duration string belongs names the field and the unit it needs.
#[test]
fn an_optional_duration_may_be_bare_and_a_number_says_how_to_write_it() {
    let (code, err) = run_text(
        "bare_option.ron",
        &format!("{HEAD}    server: (event_log_ttl: \"1h\"),\n)"),
    );
    assert_eq!(code, 0, "a bare optional value reads as `Some`: {err}");
    let (code, err) = run_text(
        "number_duration.ron",
        &format!("{HEAD}    server: (event_log_ttl: Some(3600)),\n)"),
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("event_log_ttl: expected a string; found `3600`") && err.contains("\"1h\""),
        "{err}"
    );
}

/// A scenario without its `name` is told at the `Scenario(` that lacks it, not at the end
/// of the file where ron noticed.
#[test]
fn a_missing_name_points_at_the_scenario_that_lacks_it() {
    let (code, err) = run_text(
        "no_name.ron",
        "// a lesson\nScenario(\n    summary: \"y\",\n    server: (),\n\n\n)\n",
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("no_name.ron:2:1: missing field `name` in Scenario"),
        "{err}"
    );
}

#[test]
fn a_server_block_starts_from_a_profile_and_an_unknown_one_is_named_with_the_known() {
    let (code, err) = run_text(
        "profile.ron",
        &format!("{HEAD}    server: (\n        profile: \"rmcp-9\",\n    ),\n)"),
    );
    assert_eq!(code, 2);
    assert!(err.contains("profile.ron:5:"), "{err}");
    assert!(
        err.contains("rmcp-3.11") && err.contains("python-2.3-store"),
        "{err}"
    );
}

/// A call the workload times at or after the horizon would never be made: the file says
/// a call the run never has.
#[test]
fn a_call_after_the_horizon_is_refused_where_it_stands() {
    let (code, err) = run_text(
        "late.ron",
        &format!(
            "{HEAD}    workload: [\n        CallTool(at: \"1m\", tool: Echo(text: \"a\")),\n        CallTool(at: \"2h\", tool: Echo(text: \"b\")),\n    ],\n    horizon: Some(\"1h\"),\n)"
        ),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("late.ron:6:"), "{err}");
    assert!(
        err.contains("workload[1]: CallTool at 2h is at or after the horizon (1h)"),
        "{err}"
    );
}
