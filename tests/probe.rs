//! `faultline probe URL` against `faultline serve` over real HTTP: it names the profile a
//! server was started with, infers a knob changed from the command line edge by edge,
//! writes a `server:` block a scenario file takes, and runs the explorer on those knobs.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

fn faultline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_faultline"))
}

/// Kills the server when the test ends, passed or failed.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `faultline serve ARGS` and its URL (its first stdout line says where it listens).
fn serve(args: &[&str]) -> (Served, String) {
    let mut child = faultline()
        .args(["serve", "--quiet", "--seed", "1"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn faultline serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("first stdout line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    (Served(child), url)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("faultline-probe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn probe(url: &str, extra: &[&str]) -> Output {
    let out = faultline()
        .args(["probe", url])
        .args(extra)
        .output()
        .expect("run faultline probe");
    assert!(
        out.status.success(),
        "faultline probe {url} {extra:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn the_probe_names_the_profile_a_server_runs() {
    for profile in ["rmcp-3.11", "python-2.3"] {
        let (_served, url) = serve(&["--profile", profile]);
        let dir = tmp(profile);
        let json = dir.join("probe.json");
        let out = probe(&url, &["--json", json.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(&format!("closest: {profile}")), "{text}");
        let result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(result["profiles"][0]["profile"], profile);
        assert_eq!(result["rows"].as_array().unwrap().len(), 26);
        assert_eq!(result["untested"].as_array().unwrap().len(), 0);
        // The server was left as found: both probe sessions deleted.
        let steps: Vec<&str> = result["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["step"].as_str().unwrap())
            .collect();
        assert!(steps.contains(&"delete") && steps.contains(&"delete_other"));
    }
}

#[test]
fn a_knob_changed_on_the_command_line_is_inferred_and_its_block_is_a_scenarios() {
    let (_served, url) = serve(&["--profile", "rmcp-3.11", "--knob", "delete_answer=Ok200"]);
    let dir = tmp("block");
    let block_path = dir.join("server.ron");
    let findings = dir.join("findings");
    let out = probe(
        &url,
        &[
            "--server-block",
            block_path.to_str().unwrap(),
            "--explore",
            "40",
            "--out",
            findings.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("closest: rmcp-3.11"), "{text}");
    let block = std::fs::read_to_string(&block_path).unwrap();
    assert!(block.contains("profile: \"rmcp-3.11\""), "{block}");
    assert!(block.contains("    delete_answer: Ok200,"), "{block}");
    // The explorer ran on those knobs.
    assert!(text.contains("exploring 40 seeds"), "{text}");
    assert!(findings.exists(), "no findings directory");

    // The block drops into a scenario file as its server.
    let scenario = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/field/rmcp_958_empty_200.ron"),
    )
    .unwrap();
    let line = "    server: (profile: \"rmcp-3.11\", all_answers_over_sse: false),";
    assert!(scenario.contains(line), "the scenario's server line moved");
    let server = block
        .trim_end()
        .strip_suffix("),")
        .expect("the block ends its tuple");
    let server = format!("{server}    all_answers_over_sse: false,\n),");
    let spliced = scenario.replace(line, &server);
    let file = dir.join("spliced.ron");
    std::fs::write(&file, spliced).unwrap();
    let run = faultline()
        .args(["run", file.to_str().unwrap(), "--client", "guarded"])
        .output()
        .unwrap();
    assert_ne!(
        run.status.code(),
        Some(2),
        "the spliced scenario does not read: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn an_unreachable_server_is_a_clear_error() {
    let out = faultline()
        .args(["probe", "http://127.0.0.1:1/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("initialize got no answer"), "{said}");
    let out = faultline()
        .args(["probe", "https://x/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plain HTTP"));
}
