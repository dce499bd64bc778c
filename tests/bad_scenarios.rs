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
