//! `faultline serve` as a user runs it: the first stdout line, a real request over
//! loopback, graceful shutdown on SIGINT, the exit code and sentence for bad input, and
//! the stderr lines that say which faults fired and which sessions died.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

fn faultline() -> Command {
    Command::new(env!("CARGO_BIN_EXE_faultline"))
}

/// Kills the child if a test fails before it is shut down.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_serve(args: &[&str]) -> (Served, SocketAddr) {
    let mut child = faultline()
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn faultline serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("first stdout line");
    let served = Served(child);
    let rest = line
        .trim_end()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let addr = rest
        .strip_suffix("/mcp")
        .unwrap_or_else(|| panic!("no /mcp in {line:?}"));
    (served, addr.parse().expect("socket address"))
}

/// One HTTP/1.1 request on its own connection; returns the raw response.
fn http(addr: SocketAddr, head: &str, body: &str) -> String {
    let mut tcp = TcpStream::connect(addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let request = format!(
        "{head}\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tcp.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).expect("response");
    response
}

fn wait_with_timeout(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn serve_prints_its_address_answers_mcp_and_stops_on_sigint() {
    let (mut served, addr) = spawn_serve(&["--addr", "127.0.0.1:0", "--control"]);
    assert!(addr.ip().is_loopback());

    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
    let response = http(
        addr,
        "POST /mcp HTTP/1.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json",
        init,
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response
            .to_ascii_lowercase()
            .contains("\r\nmcp-session-id: "),
        "{response}"
    );
    assert!(response.contains("\"protocolVersion\":\"2025-11-25\""));

    let ledger = http(addr, "GET /_chaos/ledger HTTP/1.1", "");
    assert!(ledger.starts_with("HTTP/1.1 200"), "{ledger}");
    assert!(ledger.contains("\"rpc_method\":\"initialize\""), "{ledger}");

    let pid = served.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill -INT");
    assert!(killed.success());
    let status = wait_with_timeout(&mut served.0, Duration::from_secs(10))
        .expect("serve exits after SIGINT");
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_refuses_bad_input_with_exit_2() {
    let out = faultline()
        .args(["serve", "--scenario", "scenarios/no_such_file.ron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no_such_file.ron"));

    let out = faultline()
        .args(["serve", "--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-non-loopback"));

    let out = faultline()
        .args(["serve", "--time-scale", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A busy port names the address and the way out, and is bad input (2), not a crash (1).
#[test]
fn serve_on_a_port_in_use_names_the_address_and_exits_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = taken.local_addr().unwrap().to_string();
    let out = faultline()
        .args(["serve", "--addr", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{addr} is already in use")),
        "{stderr}"
    );
    assert!(stderr.contains("--addr 127.0.0.1:0"), "{stderr}");
}

/// `localhost` and the IPv4-mapped loopback address are loopback; a mapped address
/// outside loopback is still refused without --allow-non-loopback.
#[test]
fn serve_accepts_localhost_and_mapped_loopback_addresses() {
    for given in ["localhost:0", "[::ffff:127.0.0.1]:0"] {
        let (served, addr) = spawn_serve(&["--addr", given]);
        assert_eq!(
            addr.ip().to_string(),
            "127.0.0.1",
            "--addr {given} listens on {addr}"
        );
        let response = http(addr, "GET /mcp HTTP/1.1\r\nAccept: text/event-stream", "");
        assert!(response.starts_with("HTTP/1.1 "), "{response}");
        drop(served);
    }
    let out = faultline()
        .args(["serve", "--addr", "[::ffff:10.0.0.1]:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-non-loopback"));
}

/// A frozen clock without the control API would never move again.
#[test]
fn serve_refuses_a_frozen_clock_without_control() {
    let out = faultline()
        .args(["serve", "--time-scale", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--time-scale 0"), "{stderr}");
    assert!(stderr.contains("--control"), "{stderr}");
}

/// `serve --grading` replays a grade: with `--time-scale N`, a grade run at that pace
/// (`grade --time-scale N`), which the control API shows; a pace must be positive.
#[test]
fn serve_grading_keeps_the_grades_pace() {
    let (served, addr) = spawn_serve(&[
        "--scenario",
        "baseline",
        "--grading",
        "--control",
        "--time-scale",
        "50",
    ]);
    let ledger = http(addr, "GET /_chaos/ledger HTTP/1.1", "");
    assert!(
        ledger.contains(r#""time_scale":"auto","pace":50.0"#),
        "{ledger}"
    );
    drop(served);
    let (served, addr) = spawn_serve(&["--scenario", "baseline", "--grading", "--control"]);
    let ledger = http(addr, "GET /_chaos/ledger HTTP/1.1", "");
    assert!(
        ledger.contains(r#""time_scale":"auto","scenario""#),
        "{ledger}"
    );
    drop(served);
    let out = faultline()
        .args([
            "serve",
            "--scenario",
            "baseline",
            "--grading",
            "--time-scale",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pace must be positive"), "{stderr}");
}

/// Starts `faultline serve ARGS`, reads its first stdout line (the address), stops it, and
/// returns that line and what it printed on stderr (the scenario's notes).
fn serve_notes(args: &[&str]) -> (String, String) {
    let mut child = faultline()
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    drop(Served(child));
    let mut notes = String::new();
    stderr.read_to_string(&mut notes).unwrap();
    (line, notes)
}

#[test]
fn serve_plays_a_scenario() {
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/behavior_a.ron");
    let (line, notes) = serve_notes(&["--scenario", scenario, "--time-scale", "0", "--control"]);
    assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");
    assert!(notes.contains("scenario behavior_a (seed 41)"), "{notes}");
    assert!(notes.contains("CallTool is client-side"), "{notes}");
    assert!(notes.contains("away: 45s is client-side"), "{notes}");
}

/// With its own clock, the server holds the client's return to the fault's `away`, and
/// says so instead of calling the away client-side.
#[test]
fn serve_with_an_auto_clock_says_the_away_is_held() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/grade/drop_close.ron"
    );
    let (_, notes) = serve_notes(&["--scenario", scenario, "--time-scale", "auto"]);
    assert!(
        notes.contains("away: 1m30s: the auto clock handles the client's return"),
        "{notes}"
    );
    assert!(!notes.contains("not applied live"), "{notes}");
}

/// POSTs `initialize` and returns the session id.
fn initialize(addr: SocketAddr) -> String {
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
    let response = http(
        addr,
        "POST /mcp HTTP/1.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json",
        init,
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
        .lines()
        .find_map(|l| {
            l.strip_prefix("mcp-session-id: ")
                .or_else(|| l.strip_prefix("Mcp-Session-Id: "))
        })
        .unwrap_or_else(|| panic!("no session id in {response}"))
        .trim()
        .to_string()
}

fn advance(addr: SocketAddr, ms: u64) {
    let response = http(
        addr,
        "POST /_chaos/clock/advance HTTP/1.1\r\nContent-Type: application/json",
        &format!("{{\"ms\": {ms}}}"),
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
}

/// SIGINT, wait for the exit, and everything the server wrote on stderr.
fn stop(mut served: Served) -> String {
    let pid = served.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill -INT");
    assert!(killed.success());
    let status = wait_with_timeout(&mut served.0, Duration::from_secs(10))
        .expect("serve exits after SIGINT");
    assert!(status.success(), "{status:?}");
    let mut stderr = String::new();
    served
        .0
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

fn cascade() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/replay_404_cascade.ron"
    )
}

/// One stderr line per fault fired (naming the session of the stream it cut) and per
/// session death, at its virtual time, in the order they happened.
#[test]
fn serve_prints_each_fault_and_each_session_death() {
    let (served, addr) = spawn_serve(&["--scenario", cascade(), "--control", "--time-scale", "0"]);
    let session = initialize(addr);
    // The standalone stream the scenario's load balancer cuts at 5m; the answer's head
    // means the server has attached it.
    let mut standalone = TcpStream::connect(addr).expect("connect");
    write!(
        standalone,
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n"
    )
    .unwrap();
    let mut head = String::new();
    BufReader::new(&standalone).read_line(&mut head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // One jump over the drop (5m) and the session's absolute TTL (30m).
    advance(addr, 31 * 60_000);
    let stderr = stop(served);

    let lines: Vec<&str> = stderr.lines().collect();
    let fault = lines
        .iter()
        .position(|l| l.starts_with("T+5m fault #0: drop (reset) of conn "))
        .unwrap_or_else(|| panic!("no fault line in\n{stderr}"));
    assert!(
        lines[fault].ends_with(&format!("[Standalone]; session {session}")),
        "{}",
        lines[fault]
    );
    let died = lines
        .iter()
        .position(|l| *l == format!("T+30m session {session} died: absolute TTL"))
        .unwrap_or_else(|| panic!("no death line in\n{stderr}"));
    assert!(fault < died, "{stderr}");
}

#[test]
fn serve_quiet_prints_no_fault_or_death_lines() {
    let (served, addr) = spawn_serve(&[
        "--scenario",
        cascade(),
        "--control",
        "--time-scale",
        "0",
        "-q",
    ]);
    initialize(addr);
    advance(addr, 31 * 60_000);
    let stderr = stop(served);
    assert!(stderr.contains("scenario replay_404_cascade"), "{stderr}");
    assert!(
        !stderr.lines().any(|l| l.starts_with("T+")),
        "--quiet, yet:\n{stderr}"
    );
}

/// One clock jump can carry a death and a later fault; they are told in time order even
/// though the fault comes out of the engine first.
#[test]
fn serve_tells_faults_and_deaths_in_virtual_time_order() {
    let scenario =
        std::env::temp_dir().join(format!("faultline-serve-order-{}.ron", std::process::id()));
    std::fs::write(
        &scenario,
        r#"Scenario(
            name: "death_then_sweep",
            summary: "An idle session dies at 1m; a GC sweep fires at 10m.",
            server: (session_idle_ttl: Some("1m")),
            faults: [Gc(when: At("10m"))],
        )"#,
    )
    .unwrap();
    let path = scenario.to_str().unwrap().to_string();
    let (served, addr) = spawn_serve(&["--scenario", &path, "--control", "--time-scale", "0"]);
    let session = initialize(addr);
    advance(addr, 11 * 60_000);
    let stderr = stop(served);
    let _ = std::fs::remove_file(&scenario);
    let told: Vec<&str> = stderr.lines().filter(|l| l.starts_with("T+")).collect();
    assert_eq!(
        told,
        vec![
            format!("T+1m session {session} died: idle TTL"),
            "T+10m fault #0: gc sweep".to_string(),
        ],
        "{stderr}"
    );
}

/// `serve --grading` is the server `faultline grade` runs: its clock is the grading clock
/// (reported as `auto`), and it prints the context the graded client was given.
#[test]
fn serve_grading_replays_a_graded_run() {
    let (served, addr) = spawn_serve(&["--scenario", "behavior_b", "--grading", "--control"]);
    let clock = http(addr, "GET /_chaos/clock HTTP/1.1", "");
    assert!(clock.contains(r#""time_scale":"auto""#), "{clock}");
    // Time does not move before the client's first call (the scenario schedules it).
    assert!(clock.contains(r#""now_ms":0"#), "{clock}");
    let stderr = stop(served);
    assert!(
        stderr.contains(
            r#"  export FAULTLINE_SCENARIO='behavior_b' FAULTLINE_CONTEXT='{"call":{"tool":"echo""#
        ),
        "{stderr}"
    );
    let refused = faultline()
        .args(["serve", "--grading"])
        .output()
        .expect("faultline runs");
    assert_eq!(refused.status.code(), Some(2), "--grading needs --scenario");
}

/// `faultline profiles` lists every profile `serve --profile` takes, one line each.
#[test]
fn profiles_lists_every_profile_on_one_line() {
    let out = faultline().arg("profiles").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "ts-1.32-store",
        "ts-1.32",
        "ts-2.4",
        "python-2.3-store",
        "python-2.3",
        "rmcp-3.11",
    ] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"));
        assert!(line.len() > name.len() + 10, "{line}");
    }
}

/// An unknown profile or a bad `--knob` is bad input: exit 2 with a sentence naming what
/// exists.
#[test]
fn serve_refuses_an_unknown_profile_or_knob_with_exit_2() {
    let out = faultline()
        .args(["serve", "--profile", "rmcp-9"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rmcp-9") && err.contains("rmcp-3.11"), "{err}");
    let out = faultline()
        .args(["serve", "--knob", "id_sheme=PerStream"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("id_scheme"), "{err}");
}

/// `--profile rmcp-3.11` answers a DELETE as rmcp does (202), and `--knob` changes one
/// knob of the profile (200 again), over real HTTP.
#[test]
fn serve_plays_a_profile_and_a_knob_varies_it() {
    let delete_status = |args: &[&str]| {
        let (served, addr) = spawn_serve(args);
        let session = initialize(addr);
        let response = http(
            addr,
            &format!("DELETE /mcp HTTP/1.1\r\nMcp-Session-Id: {session}"),
            "",
        );
        drop(served);
        response.split_whitespace().nth(1).unwrap_or("").to_string()
    };
    assert_eq!(delete_status(&[]), "200");
    assert_eq!(delete_status(&["--profile", "rmcp-3.11"]), "202");
    assert_eq!(
        delete_status(&["--profile", "rmcp-3.11", "--knob", "delete_answer=Ok200"]),
        "200"
    );
}
