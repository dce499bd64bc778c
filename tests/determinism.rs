//! Same scenario and seed, two processes: identical trace files and `trace_sha256`.

use std::process::Command;

fn run(scenario: &str, client: &str, seed: &str, trace: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args([
            "run", scenario, "--client", client, "--seed", seed, "--format", "json", "--trace",
        ])
        .arg(trace)
        .output()
        .expect("faultline runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    report["trace_sha256"].as_str().expect("sha").to_string()
}

#[test]
fn two_processes_produce_identical_traces() {
    let dir = std::env::temp_dir().join(format!("faultline-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for scenario in [
        "scenarios/behavior_a.ron",
        "scenarios/behavior_b.ron",
        "scenarios/replay_404_cascade.ron",
    ] {
        for client in ["naive", "guarded"] {
            let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
            let sha_a = run(scenario, client, "1234", &a);
            let sha_b = run(scenario, client, "1234", &b);
            assert_eq!(sha_a, sha_b, "{scenario} {client}");
            let bytes = std::fs::read(&a).unwrap();
            assert_eq!(
                bytes,
                std::fs::read(&b).unwrap(),
                "{scenario} {client}: trace files differ"
            );
            assert!(!bytes.is_empty());
            // The file starts with its header; the printed hash covers the entries, i.e.
            // every line after the header (a path typed differently must not change it).
            let text = String::from_utf8(bytes).unwrap();
            let (header, entries) = text.split_once('\n').unwrap();
            let header: serde_json::Value = serde_json::from_str(header).unwrap();
            let h = &header["header"];
            assert_eq!(h["scenario_path"], scenario, "{header}");
            assert_eq!(
                (h["seed"].as_u64(), h["client"].as_str()),
                (Some(1234), Some(client))
            );
            let digest = {
                use std::fmt::Write;
                let d = <sha2::Sha256 as sha2::Digest>::digest(entries.as_bytes());
                d.iter().fold(String::new(), |mut s, b| {
                    let _ = write!(s, "{b:02x}");
                    s
                })
            };
            assert_eq!(digest, sha_a);
        }
    }
}

#[test]
fn a_different_seed_changes_the_session_ids_and_so_the_trace() {
    let dir = std::env::temp_dir().join(format!("faultline-det2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = run(
        "scenarios/behavior_a.ron",
        "naive",
        "1",
        &dir.join("a.jsonl"),
    );
    let b = run(
        "scenarios/behavior_a.ron",
        "naive",
        "2",
        &dir.join("b.jsonl"),
    );
    assert_ne!(a, b);
}

#[test]
fn a_trace_file_reads_back_into_the_same_entries() {
    let dir = std::env::temp_dir().join(format!("faultline-det3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.jsonl");
    run("scenarios/replay_404_cascade.ron", "guarded", "7", &path);
    let text = std::fs::read_to_string(&path).unwrap();
    let trace = faultline_sim::from_jsonl(&text).expect("every line parses");
    let header = trace
        .header
        .as_ref()
        .expect("the file starts with a header");
    assert_eq!(header.scenario, "replay_404_cascade");
    assert_eq!(
        header.scenario_path.as_deref(),
        Some("scenarios/replay_404_cascade.ron")
    );
    assert_eq!(
        (header.seed, header.client),
        (7, faultline_sim::ClientModel::Guarded)
    );
    assert_eq!(
        trace.to_jsonl(),
        text,
        "read back and written again: same bytes"
    );
    let bad =
        faultline_sim::from_jsonl("{\"at_ms\":0,\"what\":\"fault\",\"fault\":\"x\"}\nnot json\n")
            .unwrap_err();
    assert_eq!(bad.line, 2);
    assert!(bad.to_string().starts_with("line 2:"), "{bad}");
}

#[test]
fn the_hash_does_not_depend_on_how_the_scenario_path_was_typed() {
    let dir = std::env::temp_dir().join(format!("faultline-det4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    let sha_a = run("scenarios/behavior_b.ron", "naive", "3", &a);
    let sha_b = run("./scenarios/../scenarios/behavior_b.ron", "naive", "3", &b);
    assert_eq!(sha_a, sha_b);
    let (a, b) = (
        std::fs::read_to_string(a).unwrap(),
        std::fs::read_to_string(b).unwrap(),
    );
    assert_ne!(
        a.lines().next(),
        b.lines().next(),
        "the headers name the paths"
    );
    assert_eq!(a.split_once('\n').unwrap().1, b.split_once('\n').unwrap().1);
}
