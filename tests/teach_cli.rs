//! `render` and `explain` through the binary: the commands of issue 5 as a user types them,
//! and their exit codes (2 on bad input, with the line number of a bad trace line).

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_faultline"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faultline-teach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn trace_of(scenario: &str, name: &str) -> PathBuf {
    trace_with(scenario, &[], name)
}

fn trace_with(scenario: &str, flags: &[&str], name: &str) -> PathBuf {
    let trace = tmp(name);
    let out = bin()
        .args(["run", scenario])
        .args(flags)
        .arg("--trace")
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.code() != Some(2), "{out:?}");
    trace
}

#[test]
fn render_writes_svg_and_html_from_a_trace_file() {
    let trace = trace_of("scenarios/replay_404_cascade.ron", "cascade.jsonl");
    for ext in ["svg", "html"] {
        let out_path = tmp(&format!("cascade.{ext}"));
        let out = bin()
            .arg("render")
            .arg(&trace)
            .arg("-o")
            .arg(&out_path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = std::fs::read_to_string(&out_path).unwrap();
        assert!(text.contains("data-harm=\"dead-session\""), "{ext}");
        assert!(text.contains("client: stale-1"), "{ext}");
    }
    // With the scenario, the verdicts are pinned.
    let out_path = tmp("cascade-verdicts.svg");
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args(["--scenario", "scenarios/replay_404_cascade.ron", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let svg = std::fs::read_to_string(&out_path).unwrap();
    for kind in ["zombie_session", "retry_amplification", "reinit_collision"] {
        assert!(svg.contains(&format!("data-kind=\"{kind}\"")), "{kind}");
    }
}

/// The trace's header names the run, so `render` needs neither `--seed` nor `--client`
/// to pin the verdicts of a run that used other ones than the scenario's.
#[test]
fn render_takes_the_seed_and_client_from_the_trace_header() {
    let trace = trace_with(
        "scenarios/behavior_b.ron",
        &["--client", "guarded", "--seed", "11"],
        "b-guarded.jsonl",
    );
    let first = std::fs::read_to_string(&trace).unwrap();
    let first = first.lines().next().unwrap();
    assert!(first.starts_with(r#"{"header":{"#), "{first}");
    let out_path = tmp("b-guarded.svg");
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args(["--scenario", "scenarios/behavior_b.ron", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let svg = std::fs::read_to_string(&out_path).unwrap();
    assert!(svg.contains(r#"data-kind="detected""#));
    assert!(svg.contains("behavior_b (seed 11, guarded client)"));
    // It says what it wrote.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&out_path.display().to_string()), "{said}");
    assert!(
        said.contains("behavior_b (seed 11, guarded client)"),
        "{said}"
    );
    assert!(said.contains("verdicts pinned: detected"), "{said}");
    // Without --scenario: the header still names the run, and says how to pin verdicts.
    let out = bin()
        .arg("render")
        .arg(&trace)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let svg = std::fs::read_to_string(&out_path).unwrap();
    assert!(svg.contains("behavior_b (seed 11, guarded client)"));
    // Without --scenario the header's scenario is re-run, and it reproduces the trace:
    // the verdicts are pinned all the same.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("verdicts pinned: detected"), "{said}");
    assert!(said.contains("(re-ran scenarios/behavior_b.ron"), "{said}");
    assert!(svg.contains(r#"data-kind="detected""#));
    // A trace that is not what the scenario gives (an entry left out) is drawn unpinned,
    // and render says why.
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(lines.len() / 2);
    let edited = tmp("b-guarded-edited.jsonl");
    std::fs::write(&edited, lines.join("\n")).unwrap();
    let out = bin()
        .arg("render")
        .arg(&edited)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("scenarios/behavior_b.ron, which the trace's header names, is gone or gives another run: add --scenario FILE to pin them"),
        "{said}"
    );
    assert!(
        !std::fs::read_to_string(&out_path)
            .unwrap()
            .contains("data-kind=")
    );
    // An explicit flag still wins over the header (and here names another run).
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args([
            "--scenario",
            "scenarios/behavior_b.ron",
            "--client",
            "naive",
            "-o",
        ])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A trace written before headers existed still renders, with the flags spelled out.
    let text = std::fs::read_to_string(&trace).unwrap();
    let old = tmp("b-guarded-no-header.jsonl");
    std::fs::write(&old, text.split_once('\n').unwrap().1).unwrap();
    let out = bin()
        .arg("render")
        .arg(&old)
        .args([
            "--scenario",
            "scenarios/behavior_b.ron",
            "--client",
            "guarded",
        ])
        .args(["--seed", "11", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // A header naming another scenario is refused before anything is simulated.
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args(["--scenario", "scenarios/behavior_a.ron", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is a trace of scenario \"behavior_b\""),
        "{out:?}"
    );
}

#[test]
fn render_refuses_bad_input_with_exit_2() {
    let trace = trace_of("scenarios/behavior_a.ron", "a.jsonl");
    // A malformed line: named by number.
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"at_ms\": oops}";
    let bad = tmp("bad.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let out = bin()
        .arg("render")
        .arg(&bad)
        .args(["-o"])
        .arg(tmp("bad.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3:"), "{err}");
    // An output that is neither .svg nor .html.
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args(["-o"])
        .arg(tmp("a.png"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // A missing trace file.
    let out = bin()
        .args(["render", "/nonexistent/trace.jsonl", "-o"])
        .arg(tmp("x.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Verdicts of another run are refused.
    let out = bin()
        .arg("render")
        .arg(&trace)
        .args([
            "--scenario",
            "scenarios/behavior_a.ron",
            "--seed",
            "99",
            "-o",
        ])
        .arg(tmp("mismatch.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not the trace of"));
    // A header anywhere but on the first line, named by number.
    let good: Vec<&str> = text.lines().collect();
    let misplaced = tmp("misplaced.jsonl");
    let moved = [good[1], good[2], good[0]].join("\n");
    std::fs::write(&misplaced, moved).unwrap();
    let out = bin()
        .arg("render")
        .arg(&misplaced)
        .args(["-o"])
        .arg(tmp("misplaced.svg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3: a trace header belongs on the first line only"),
        "{err}"
    );
}

#[test]
fn explain_tells_each_seed_incident() {
    for (scenario, must) in [
        (
            "scenarios/behavior_a.ron",
            ["silent_gap", "contiguity check"],
        ),
        (
            "scenarios/behavior_b.ron",
            ["cursor_reuse", "monotonic-id capability gating"],
        ),
        (
            "scenarios/replay_404_cascade.ron",
            ["zombie_session", "liveness probe after replay"],
        ),
    ] {
        let out = bin().args(["explain", scenario]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for m in must {
            assert!(text.contains(m), "{scenario}: {m}\n{text}");
        }
        assert!(text.contains("The guarded client on the same server and seed gets: detected"));
    }
    let out = bin()
        .args(["explain", "scenarios/nope.ron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
