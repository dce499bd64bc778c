//! Field reports from public SDK issues and source, reproduced: rmcp's 16-event window,
//! rust-sdk#958, replicas behind a load balancer (round robin; sticky with a shared store;
//! cookie affinity that a client without a cookie jar defeats; a replica that goes down; a
//! shared event store keyed by stream that replays another session's events),
//! a cut 2026-07-28 call re-issued (tya5/reyn#2600, smg-project/smg#2441), and a leftover
//! GET stream hiding a deploy's tool change (akutishevsky/nutrition-mcp#31).

use std::process::Command;

use faultline_scenario::ClientModel;

fn run(scenario: &str, client: &str, trace: Option<&std::path::Path>) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_faultline"));
    cmd.args(["run", scenario, "--client", client, "--format", "json"]);
    if let Some(t) = trace {
        cmd.arg("--trace").arg(t);
    }
    let out = cmd.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn the_replay_window_skips_what_fell_out_of_it_silently() {
    let report = run("scenarios/field/rmcp_window_gap.ron", "naive", None);
    let gap = verdict(&report, "silent_gap");
    assert_eq!(
        gap["evidence"]["ids"],
        serde_json::json!([[11, 29]]),
        "between cursor 10 and the window's first id 30 (45 events exist at T+45s)"
    );
    let guarded = run("scenarios/field/rmcp_window_gap.ron", "guarded", None);
    assert!(
        guarded["verdicts"]
            .to_string()
            .contains("did not negotiate monotonic event IDs"),
        "rmcp advertises nothing about its ids: {guarded}"
    );
}

#[test]
fn an_empty_200_makes_the_naive_client_reconnect_with_the_same_cursor_until_it_gives_up() {
    let (report, text) = run_traced("scenarios/field/rmcp_958_empty_200.ron", "naive", "958");
    let same_cursor = text
        .lines()
        .filter(|l| l.contains(r#""what":"request""#) && l.contains(r#""last_event_id":"5""#))
        .count();
    assert!(
        same_cursor >= 5,
        "reconnected {same_cursor} times with Last-Event-ID 5"
    );
    assert_eq!(kinds(&report), vec!["surfaced_loss"]);
}

fn kinds(report: &serde_json::Value) -> Vec<&str> {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect()
}

/// The report's first verdict of `kind`.
fn verdict<'a>(report: &'a serde_json::Value, kind: &str) -> &'a serde_json::Value {
    report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {report}"))
}

/// Runs `scenario` with a trace file named by `tag`; returns the report and the trace.
fn run_traced(scenario: &str, client: &str, tag: &str) -> (serde_json::Value, String) {
    let trace = std::env::temp_dir().join(format!("faultline-{tag}-{}.jsonl", std::process::id()));
    let report = run(scenario, client, Some(&trace));
    let text = std::fs::read_to_string(&trace).unwrap();
    let _ = std::fs::remove_file(&trace);
    (report, text)
}

/// The naive client's report on a 2026-07-28 field scenario whose one verdict is `kind`;
/// returns the report and that verdict's evidence (whose `type` is `kind`).
fn naive_alone_shows(scenario: &str, kind: &str) -> (serde_json::Value, serde_json::Value) {
    let naive = run(scenario, "naive", None);
    assert_eq!(kinds(&naive), vec![kind], "{naive}");
    let evidence = naive["verdicts"][0]["evidence"].clone();
    assert_eq!(evidence["type"], kind);
    (naive, evidence)
}

/// The naive client's report on a variant of `scenario` with `from` replaced by `to`
/// (written as `name`.ron). The scenario's expectation need not hold for the variant (exit
/// 1): the report is read regardless.
fn naive_run_of_variant(scenario: &str, from: &str, to: &str, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(scenario).expect("read");
    let variant = text.replace(from, to);
    assert_ne!(variant, text, "{scenario} says {from}");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.ron"));
    std::fs::write(&path, variant).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args([
            "run",
            path.to_str().unwrap(),
            "--client",
            "naive",
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    serde_json::from_slice(&out.stdout).expect("json")
}

/// The guarded client's report on `scenario`, whose verdicts must be exactly `expected`.
fn guarded_shows(scenario: &str, expected: &[&str]) -> serde_json::Value {
    let guarded = run(scenario, "guarded", None);
    assert_eq!(kinds(&guarded), expected, "{guarded}");
    guarded
}

/// The first typed error the guarded client's `detected` verdict names.
fn first_error(report: &serde_json::Value) -> &str {
    report["verdicts"][0]["evidence"]["errors"][0]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {report}"))
}

const LOSSES: [&str; 5] = [
    "silent_gap",
    "cursor_reuse",
    "quarantine_violation",
    "foreign_event",
    "duplicate",
];

#[test]
fn round_robin_over_per_replica_stores_misroutes_the_live_session() {
    let naive = run("scenarios/field/replicas_round_robin.ron", "naive", None);
    let evidence = &verdict(&naive, "misrouted_session")["evidence"];
    assert_eq!(evidence["held_by"], 0, "initialize went to r0");
    let first = &evidence["requests"][0];
    assert_eq!(first["method"], "POST notifications/initialized");
    assert_eq!(first["answered_by"], 1);
    assert_eq!(first["status"], 404);
    assert_eq!(naive["expectation"]["holds"], true);
}

#[test]
fn the_guarded_client_behind_round_robin_loses_nothing_silently_and_stops_before_the_horizon() {
    let (guarded, text) = run_traced("scenarios/field/replicas_round_robin.ron", "guarded", "rr");
    assert!(
        text.contains("gave up after 3 re-initializations without progress"),
        "the client says why it stopped"
    );
    let kinds = kinds(&guarded);
    let sessions = kinds.iter().filter(|k| **k == "misrouted_session").count();
    assert_eq!(
        sessions, 4,
        "the first session and 3 re-initializations, each misrouted"
    );
    for loss in LOSSES {
        assert!(!kinds.contains(&loss), "{loss} in {kinds:?}");
    }
    let horizon_ms = 3_600_000;
    let end = guarded["end_ms"].as_u64().unwrap();
    assert!(end < horizon_ms, "ended at {end} ms, not at the horizon");
    assert_eq!(guarded["expectation"]["holds"], true);
}

#[test]
fn sticky_session_ids_over_a_shared_store_behave_as_one_server() {
    for client in ["naive", "guarded"] {
        let report = run("scenarios/field/replicas_sticky_session.ron", client, None);
        assert_eq!(kinds(&report), vec!["clean"], "{client}");
        assert_eq!(report["expectation"]["holds"], true);
    }
}

/// The naive 2026-07-28 client re-issues the cut `place_order` with a new request id and
/// the order is committed twice; the evidence names both commits, the cut and the
/// re-issue. The guarded client does not re-issue it: one commit, a typed CallCutError.
#[test]
fn a_cut_place_order_re_issued_commits_twice_and_the_guarded_client_does_not_re_issue() {
    let scenario = "scenarios/field/reissue_duplicate_effect.ron";
    let (_, evidence) = naive_alone_shows(scenario, "duplicate_effect");
    assert_eq!(evidence["order"], "call-0");
    assert_eq!(evidence["cut_at_ms"], 3_000, "cut right after progress 2");
    assert_eq!(evidence["reissued_at_ms"], serde_json::json!([4_000]));
    let commits = evidence["commits"].as_array().expect("commits");
    let seen: Vec<(u64, u64)> = commits
        .iter()
        .map(|c| {
            (
                c["request_id"].as_u64().unwrap(),
                c["at_ms"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, vec![(1, 3_000), (2, 6_000)], "{evidence}");
    assert_eq!(commits[0]["stream_cut_ms"], 3_000);
    let guarded = guarded_shows(scenario, &["detected"]);
    assert!(
        first_error(&guarded).starts_with("CallCutError: tools/call place_order (call-0"),
        "{guarded}"
    );
}

/// ecto/vcad#745: a restart with an in-memory task store loses the task id the client
/// polls. The naive client takes the -32602 for the end of the work (lost_task, with the
/// task, the restart and the poll that missed as evidence); the guarded client raises a
/// typed TaskLostError.
#[test]
fn a_task_lost_in_a_restart_is_lost_silently_by_the_naive_client_only() {
    let scenario = "scenarios/field/tasks_lost_on_restart.ron";
    let (naive, evidence) = naive_alone_shows(scenario, "lost_task");
    assert_eq!(evidence["how"], "restart");
    assert_eq!(evidence["lost_at_ms"], 2_500);
    assert_eq!(evidence["created_ms"], 0);
    assert_eq!(evidence["tool"], "long_job");
    assert_eq!(evidence["work_ended"], serde_json::json!([2_500, "killed"]));
    assert_eq!(evidence["misses"][0]["at_ms"], 3_000);
    assert_eq!(evidence["misses"][0]["method"], "tasks/get");
    assert_eq!(naive["verdicts"][0]["at_ms"], 3_000);
    let guarded = guarded_shows(scenario, &["detected"]);
    assert!(
        first_error(&guarded).starts_with("TaskLostError: tools/call long_job (call-0"),
        "{guarded}"
    );
}

#[test]
fn a_client_that_drops_the_affinity_cookie_is_misrouted_and_one_that_keeps_it_is_not() {
    let naive = run("scenarios/field/sticky_cookie_dropped.ron", "naive", None);
    let misrouted = verdict(&naive, "misrouted_session");
    assert_eq!(misrouted["evidence"]["held_by"], 0, "initialize went to r0");
    assert_eq!(misrouted["evidence"]["requests"][0]["answered_by"], 1);
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = guarded_shows("scenarios/field/sticky_cookie_dropped.ron", &["clean"]);
    assert_eq!(guarded["expectation"]["holds"], true);
}

#[test]
fn a_replica_down_loses_its_sessions_and_the_balancer_fails_over() {
    let (naive, text) = run_traced("scenarios/field/replica_down.ron", "naive", "down");
    assert!(text.contains("replica r2 down for 10m"), "the fault fired");
    assert!(
        text.contains("ReplicaDown"),
        "the session died with its replica"
    );
    let kinds_naive = kinds(&naive);
    assert!(kinds_naive.contains(&"retry_amplification"), "{naive}");
    assert!(
        !kinds_naive.contains(&"misrouted_session"),
        "a dead session is not a misroute: {naive}"
    );
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = guarded_shows("scenarios/field/replica_down.ron", &["detected"]);
    assert_eq!(guarded["expectation"]["holds"], true);
}

#[test]
fn a_rolling_deploy_misroutes_a_live_session_while_its_replica_restarts() {
    let (naive, text) = run_traced("scenarios/field/rolling_deploy.ron", "naive", "deploy");
    for step in [
        "r0 down for 3s (1 of 3",
        "r1 down for 3s (2 of 3",
        "r2 down for 3s (3 of 3",
    ] {
        assert!(text.contains(step), "the deploy reached {step}");
    }
    let kinds_naive = kinds(&naive);
    assert!(kinds_naive.contains(&"misrouted_session"), "{naive}");
    assert!(
        !kinds_naive.contains(&"retry_amplification"),
        "its retries went to a session alive on r1: misroutes, not retries into a dead session: {naive}"
    );
    let misrouted = verdict(&naive, "misrouted_session");
    assert_eq!(
        misrouted["evidence"]["requests"].as_array().map(Vec::len),
        Some(2),
        "the GET and its retry, both misrouted: {misrouted}"
    );
    assert_eq!(misrouted["evidence"]["held_by"], 1, "the session is r1's");
    assert_eq!(misrouted["evidence"]["requests"][0]["answered_by"], 2);
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = run("scenarios/field/rolling_deploy.ron", "guarded", None);
    let kinds_guarded = kinds(&guarded);
    assert!(kinds_guarded.contains(&"detected"), "{guarded}");
    for loss in [
        "silent_gap",
        "duplicate",
        "cursor_reuse",
        "foreign_event",
        "surfaced_loss",
    ] {
        assert!(!kinds_guarded.contains(&loss), "{guarded}");
    }
    assert_eq!(guarded["expectation"]["holds"], true);
}

#[test]
fn a_store_keyed_by_stream_replays_the_tenants_notifications_into_the_clients_stream() {
    let naive = run(
        "scenarios/field/shared_store_cross_session.ron",
        "naive",
        None,
    );
    assert!(kinds(&naive).contains(&"foreign_event"), "{naive}");
    assert_eq!(naive["expectation"]["holds"], true);

    let (guarded, text) = run_traced(
        "scenarios/field/shared_store_cross_session.ron",
        "guarded",
        "xs",
    );
    let events: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["what"] == "event")
        .collect();
    // The client's first session is the ledger's first one the client's events belong to
    // (the tenant joined first, at 1s, and its session is key 0).
    let own = events[0]["session"].clone();
    let foreign: Vec<&serde_json::Value> = events.iter().filter(|e| e["session"] != own).collect();
    assert!(
        !foreign.is_empty(),
        "the replay carried the tenant's events"
    );
    assert_eq!(
        foreign[0]["fate"], "quarantined",
        "the first foreign event is quarantined: {}",
        foreign[0]
    );
    assert!(
        !foreign
            .iter()
            .any(|e| e["fate"] == "applied" && e["session"] != own && e["replay"] == true),
        "no replayed foreign event is applied"
    );
    assert!(
        text.contains("tagged for another session"),
        "the error says why"
    );
    let kinds_guarded = kinds(&guarded);
    assert_eq!(kinds_guarded, vec!["detected"], "{guarded}");
    for loss in LOSSES {
        assert!(!kinds_guarded.contains(&loss), "{guarded}");
    }
}

/// pi-mcp-adapter#468 on 2026-07-28: the listen stream drops, the tools list changes while
/// the client is not listening, and the naive client (no re-listen, a list kept for a day)
/// calls from the old list: `missed_change`, with the change, the window the listen was
/// down and the call. The guarded client listens again, lists again and is clean.
#[test]
fn a_list_change_while_the_listen_stream_is_down_is_missed_by_the_naive_client_only() {
    let scenario = "scenarios/field/listen_missed_change.ron";
    let (naive, evidence) = naive_alone_shows(scenario, "missed_change");
    assert_eq!(evidence["list"], "tools");
    assert_eq!(evidence["version_used"], 1);
    assert_eq!(evidence["version_current"], 2);
    assert_eq!(evidence["changed_at_ms"], 20_000);
    assert_eq!(evidence["listen_down_from_ms"], 10_000);
    assert_eq!(evidence["listen_down_to_ms"], serde_json::Value::Null);
    assert_eq!(evidence["used_at_ms"], 30_000);
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = guarded_shows(scenario, &["clean"]);
    assert_eq!(guarded["expectation"]["holds"], true);
}

/// akutishevsky/nutrition-mcp#31: a sessionless 2025 server still serves a GET stream that
/// carries nothing and dies on every deploy. The naive client reconnects it, keeps its
/// tools list and calls from version 1 after the deploy made version 2 (missed_change,
/// through the GET stream, never back); the guarded client lists before each call on a
/// sessionless server and loses nothing. With the fix (GET answered 405) the naive client
/// never had a channel and is not judged.
#[test]
fn a_leftover_get_stream_hides_the_deploys_tool_change_from_the_naive_client() {
    let scenario = "scenarios/field/leftover_get_after_deploy.ron";
    let naive = run(scenario, "naive", None);
    assert_eq!(kinds(&naive), vec!["missed_change"], "{naive}");
    let evidence = &naive["verdicts"][0]["evidence"];
    assert_eq!(evidence["version_used"], 1);
    assert_eq!(evidence["version_current"], 2);
    assert_eq!(evidence["changed_at_ms"], 35_000);
    assert_eq!(
        evidence["listen_down_from_ms"], 30_000,
        "the deploy's restart"
    );
    assert_eq!(evidence["listen_down_to_ms"], serde_json::Value::Null);
    assert_eq!(evidence["via_standalone_stream"], true);
    assert_eq!(evidence["used_at_ms"], 60_000);
    let guarded = run(scenario, "guarded", None);
    assert!(
        !kinds(&guarded).contains(&"missed_change") && guarded["expectation"]["holds"] == true,
        "{guarded}"
    );

    let fixed = naive_run_of_variant(
        scenario,
        "legacy_get: ServeStream",
        "legacy_get: Refuse405",
        "nutrition_fixed",
    );
    assert_eq!(kinds(&fixed), vec!["clean"], "{fixed}");
}

/// modelcontextprotocol/rust-sdk#1040: a legacy server answers the era probe 400 -32000.
/// The naive client (falls back only on -32601) stays on 2026-07-28 and its calls fail
/// (era_mismatch, with the probe, its answer and the failed calls as evidence); the
/// guarded client follows the spec's rule, falls back to `initialize` and is clean.
#[test]
fn a_misread_era_probe_keeps_the_naive_client_in_the_wrong_era() {
    let scenario = "scenarios/field/era_probe_fallback.ron";
    let (naive, evidence) = naive_alone_shows(scenario, "era_mismatch");
    assert_eq!(evidence["client_era"], "modern");
    assert_eq!(evidence["server_era"], "LegacyOnly");
    assert_eq!(evidence["probe"]["status"], 400);
    assert_eq!(evidence["probe"]["rpc_error"], -32000);
    assert_eq!(evidence["failed"].as_array().unwrap().len(), 2);
    assert_eq!(evidence["failed"][0]["rpc_method"], "tools/call");
    assert_eq!(evidence["reprobed"], false);
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = guarded_shows(scenario, &["clean"]);
    assert_eq!(guarded["expectation"]["holds"], true);
}

/// A fleet whose replicas each have their own event bus: a tool added through r1 is
/// announced to r1's listens only, and the client listens on r0. The naive client (a list
/// kept for a day) calls from the old list: missed_change, naming r1 and a listen that
/// never went down. The guarded client honours `ttlMs` and lists again: clean. With a
/// shared bus the naive client hears the change and is clean too.
#[test]
fn a_change_announced_on_another_replicas_bus_is_missed_by_the_naive_client() {
    let scenario = "scenarios/field/per_replica_bus_missed_change.ron";
    let (naive, evidence) = naive_alone_shows(scenario, "missed_change");
    assert_eq!(evidence["published_elsewhere"], 1);
    assert_eq!(evidence["changed_at_ms"], 30_000);
    assert_eq!(evidence["listen_down_from_ms"], 30_000);
    assert_eq!(evidence["listen_down_to_ms"], 30_000);
    assert_eq!(evidence["version_used"], 1);
    assert_eq!(evidence["version_current"], 2);
    assert_eq!(evidence["used_at_ms"], 120_000);
    assert_eq!(naive["expectation"]["holds"], true);
    let guarded = guarded_shows(scenario, &["clean"]);
    assert_eq!(guarded["expectation"]["holds"], true);

    let shared = naive_run_of_variant(
        scenario,
        "notifications: SameReplica",
        "notifications: AllReplicas",
        "shared_bus",
    );
    assert_eq!(kinds(&shared), vec!["clean"], "{shared}");
}

/// A rolling deploy rolls a dual-era fleet back to 2025 one replica at a time. The naive
/// client cached 2026-07-28 for an hour: its calls to the rolled-back replica fail from
/// the first step, all of them after the last (era_mismatch naming the replica the deploy
/// moved first, four failed calls, no re-probe). The guarded client probes again on every
/// failure, is told 2026-07-28 by the replica not yet rolled, and falls back once a probe
/// meets a 2025-only replica, running its failed calls again (clean).
#[test]
fn a_rolling_era_rollback_strands_the_client_that_cached_the_era() {
    let scenario = "scenarios/field/rolling_era_rollback.ron";
    let (naive, evidence) = naive_alone_shows(scenario, "era_mismatch");
    assert_eq!(evidence["client_era"], "modern");
    assert_eq!(evidence["server_era"], "LegacyOnly");
    let failed: Vec<u64> = evidence["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["at_ms"].as_u64().unwrap())
        .collect();
    // 11s went to r1, still dual-era; from 27s both replicas are 2025-only.
    assert_eq!(failed, vec![10_000, 20_000, 30_000, 31_000]);
    assert_eq!(evidence["reprobed"], false);
    assert_eq!(
        evidence["era_changes"],
        serde_json::json!([[5_000, "DualStatefulLegacy", "LegacyOnly (replica r0)"]])
    );
    assert_eq!(naive["expectation"]["holds"], true);

    let (guarded, text) = run_traced(scenario, "guarded", "rer");
    assert_eq!(kinds(&guarded), vec!["clean"], "{guarded}");
    let probes = text.matches("server/discover").count();
    assert!(
        probes >= 4,
        "the guarded client probed again after each failure ({probes} probes)"
    );
    assert_eq!(guarded["expectation"]["holds"], true);
}

/// baruchiro/paperless-mcp#154: a server speaking 2025 without sessions and a client that
/// requires `Mcp-Session-Id`. The naive client stops after `initialize` (era_mismatch:
/// "server speaks sessionless 2025; client required a session"); the guarded one works
/// sessionless and is clean.
#[test]
fn a_sessionless_2025_server_is_dropped_only_by_the_client_that_requires_a_session() {
    let scenario = "scenarios/field/stateless_strict_gateway.ron";
    let naive = run(scenario, "naive", None);
    assert_eq!(kinds(&naive), vec!["era_mismatch"], "{naive}");
    let verdict = &naive["verdicts"][0];
    assert!(
        verdict["summary"]
            .as_str()
            .unwrap()
            .starts_with("server speaks sessionless 2025; client required a session"),
        "{verdict}"
    );
    assert_eq!(verdict["evidence"]["sessionless"], true);
    assert_eq!(verdict["evidence"]["server_era"], "DualStatelessLegacy");
    assert_eq!(verdict["evidence"]["failed"][0]["rpc_method"], "initialize");
    guarded_shows(scenario, &["clean"]);
}

/// RollEra: the server is redeployed from 2025 only to 2026-07-28 only. Both clients probe
/// (a 404 -32601 answer: both fall back) and start on 2025. After the roll the naive client,
/// its era cached for an hour, keeps sending 2025 requests (era_mismatch naming the roll);
/// the guarded client reads the 400 to its call and to the ping that checks its session
/// as a session gone (a typed error), probes again and finishes in 2026-07-28.
#[test]
fn an_era_roll_strands_the_client_that_never_probes_again() {
    let text = r#"Scenario(
    name: "roll_era",
    summary: "A deploy switches the server from 2025 only to 2026-07-28 only.",
    seed: 5,
    server: (era: LegacyOnly, legacy_probe_answer: NotFound),
    client: (model: Naive, era: Auto(era_cache: "1h"), standalone_stream: false),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "before")),
        CallTool(at: "10s", tool: Echo(text: "after")),
    ],
    faults: [
        RollEra(when: At("5s"), to: ModernOnly),
    ],
    horizon: Some("1h"),
)"#;
    let file = std::env::temp_dir().join(format!("faultline-roll-era-{}.ron", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let scenario = file.to_str().unwrap();
    let (_, evidence) = naive_alone_shows(scenario, "era_mismatch");
    assert_eq!(evidence["client_era"], "legacy");
    assert_eq!(evidence["server_era"], "ModernOnly");
    assert_eq!(
        evidence["era_changes"],
        serde_json::json!([[5_000, "LegacyOnly", "ModernOnly"]])
    );
    assert_eq!(evidence["reprobed"], false);
    let guarded = guarded_shows(scenario, &["detected"]);
    assert_eq!(
        guarded["verdicts"][0]["evidence"]["recovered_calls"],
        serde_json::json!(["call-1"]),
        "{guarded}"
    );
    std::fs::remove_file(&file).ok();
}

/// A bundled field scenario run in simulation, for tests that read its ledger.
fn simulate(path: &str, client: faultline_sim::ClientModel) -> faultline_sim::RunOutcome {
    let scenario = faultline_sim::Scenario::load(std::path::Path::new(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    faultline_sim::run(&scenario, scenario.seed, client)
}

/// Every idle-proxy cut of `ledger` as (conn, cut at, last bytes, idle), checked against
/// the ledger: the last bytes are the last event sent on that connection (no keep-alive
/// here), the cut comes exactly `idle` after them, and it ends a listen stream.
fn idle_cuts(ledger: &faultline_model::Ledger) -> Vec<(u64, u64, u64, u64)> {
    ledger
        .cuts
        .iter()
        .map(|cut| {
            let faultline_model::CutReason::IdleProxy {
                idle_ms,
                last_bytes_ms,
            } = cut.reason
            else {
                panic!("not an idle proxy's cut: {cut:?}");
            };
            let last_send = ledger
                .sends
                .iter()
                .filter(|s| s.conn == cut.conn)
                .map(|s| s.at_ms)
                .max()
                .expect("the listen's acknowledgement was sent");
            assert_eq!(last_bytes_ms, last_send, "{cut:?}");
            assert_eq!(cut.at_ms, last_bytes_ms + idle_ms, "{cut:?}");
            let stream = cut.stream.expect("a listen stream");
            assert!(ledger.listens.iter().any(|l| l.stream == stream), "{cut:?}");
            assert_eq!(ledger.stream(stream).closed_ms, Some(cut.at_ms));
            (cut.conn.0, cut.at_ms, last_bytes_ms, idle_ms)
        })
        .collect()
}

/// modelcontextprotocol/go-sdk#1232: no keep-alive, and a proxy resets listen streams quiet
/// for 60 s. The naive client's listen (acknowledged at 0 s, nothing since) is cut at
/// exactly 60 s, it never listens again, and its second call comes from the list the 2 min
/// change made stale (missed_change, the listen down since the cut). The guarded client
/// is cut every quiet minute too, listens again each time, hears the change and is clean.
#[test]
fn an_idle_proxy_cuts_a_quiet_listen_at_its_last_bytes_plus_the_timeout() {
    let scenario = "scenarios/field/idle_proxy_cuts_listen.ron";
    let naive = simulate(scenario, faultline_sim::ClientModel::Naive);
    let cuts = idle_cuts(&naive.result.ledger);
    assert_eq!(
        cuts,
        vec![(1, 60_000, 0, 60_000)],
        "one cut, the first listen's"
    );
    let (report, evidence) = naive_alone_shows(scenario, "missed_change");
    assert_eq!(evidence["version_used"], 1);
    assert_eq!(evidence["version_current"], 2);
    assert_eq!(evidence["changed_at_ms"], 120_000);
    assert_eq!(
        evidence["listen_down_from_ms"], 60_000,
        "down since the proxy's cut"
    );
    assert_eq!(evidence["listen_down_to_ms"], serde_json::Value::Null);
    assert_eq!(evidence["used_at_ms"], 150_000);
    assert_eq!(report["expectation"]["holds"], true);
    let (_, trace) = run_traced(scenario, "naive", "idle-proxy");
    assert!(
        trace.contains("idle proxy resets the listen stream on conn 1 (no bytes for 1m)"),
        "the cut is in the trace"
    );
    assert!(
        !trace.contains("keep_alive"),
        "no keep-alive without the knob"
    );

    let guarded = simulate(scenario, faultline_sim::ClientModel::Guarded);
    let cuts = idle_cuts(&guarded.result.ledger);
    assert!(cuts.len() >= 3, "cut every quiet minute: {cuts:?}");
    assert_eq!(
        guarded.result.ledger.listens.len(),
        cuts.len() + 1,
        "listened again after every cut"
    );
    let report = guarded_shows(scenario, &["clean"]);
    assert_eq!(report["expectation"]["holds"], true);
}

/// The fix: keep-alives every 15 s, shorter than the proxy's 60 s. Nothing is cut, the
/// change reaches both clients and both are clean. With keep-alives every 90 s (longer than
/// the timeout) the naive client's listen is cut at 60 s as before and it misses the change.
#[test]
fn keep_alives_shorter_than_the_proxys_timeout_keep_the_listen_open() {
    let scenario = "scenarios/field/idle_proxy_keepalive.ron";
    for client in [
        faultline_sim::ClientModel::Naive,
        faultline_sim::ClientModel::Guarded,
    ] {
        let outcome = simulate(scenario, client);
        let ledger = &outcome.result.ledger;
        assert!(ledger.cuts.is_empty(), "{client:?}: {:?}", ledger.cuts);
        assert_eq!(ledger.listens.len(), 1, "{client:?}: one listen, never cut");
        // Bytes every 15 s: comments at 15 s .. 2 min, the change at 2 min, then comments
        // 15 s apart from it to the 5 min horizon.
        let comments: Vec<u64> = outcome
            .result
            .trace
            .iter()
            .filter(|e| matches!(e.what, faultline_sim::TraceWhat::KeepAlive { conn: 1 }))
            .map(|e| e.at_ms)
            .collect();
        let expected: Vec<u64> = (1..=8)
            .map(|k| k * 15_000)
            .chain((1..=12).map(|k| 120_000 + k * 15_000))
            .collect();
        assert_eq!(comments, expected, "{client:?}");
        assert_eq!(ledger.listens[0].keepalives as usize, comments.len());
    }
    let naive = run(scenario, "naive", None);
    assert_eq!(kinds(&naive), vec!["clean"], "{naive}");
    assert_eq!(naive["expectation"]["holds"], true);
    guarded_shows(scenario, &["clean"]);

    let text = std::fs::read_to_string(scenario).expect("read");
    let too_long = text.replace(
        r#"listen_keepalive: Some("15s")"#,
        r#"listen_keepalive: Some("90s")"#,
    );
    assert_ne!(too_long, text);
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("keepalive_90s.ron");
    std::fs::write(&path, too_long).expect("write");
    let scenario = faultline_sim::Scenario::load(&path).expect("valid");
    let naive = faultline_sim::run(&scenario, scenario.seed, faultline_sim::ClientModel::Naive);
    assert_eq!(
        idle_cuts(&naive.result.ledger),
        vec![(1, 60_000, 0, 60_000)],
        "a keep-alive due at 90 s comes too late"
    );
    assert_eq!(naive.result.ledger.listens[0].keepalives, 0);
    assert!(
        naive.has(faultline_sim::VerdictKind::MissedChange),
        "{:?}",
        naive.kinds()
    );
}

/// The three ends of a listen (`DropListen.end`, the spec's pages disagree:
/// modelcontextprotocol#3348): a reset, the listen's `complete` result, or
/// `notifications/cancelled`. The guarded client takes each as "not listening any more",
/// listens again and lists again (clean); the naive client never listens again and misses
/// the change made while it was not listening.
#[test]
fn every_way_a_listen_ends_is_a_drop_for_the_guarded_client() {
    let text = std::fs::read_to_string("scenarios/field/listen_missed_change.ron").expect("read");
    for end in ["Reset", "Complete", "Cancelled"] {
        let changed = text.replace(
            r#"DropListen(when: At("10s"), away: Some("15s"))"#,
            &format!(r#"DropListen(when: At("10s"), end: {end}, away: Some("15s"))"#),
        );
        assert_ne!(changed, text);
        let scenario = faultline_sim::Scenario::parse(&changed, "t.ron").expect("valid");
        let naive = faultline_sim::run(&scenario, scenario.seed, faultline_sim::ClientModel::Naive);
        assert_eq!(
            naive.kinds(),
            vec![faultline_sim::VerdictKind::MissedChange],
            "{end}"
        );
        let guarded = faultline_sim::run(
            &scenario,
            scenario.seed,
            faultline_sim::ClientModel::Guarded,
        );
        assert_eq!(
            guarded.kinds(),
            vec![faultline_sim::VerdictKind::Clean],
            "{end}"
        );
        let ledger = &guarded.result.ledger;
        assert_eq!(ledger.listens.len(), 2, "{end}: listened again");
        assert_eq!(ledger.listens[1].opened_ms, 25_000, "{end}: back from away");
        let first = ledger.listens[0].stream;
        assert_eq!(ledger.stream(first).closed_ms, Some(10_000), "{end}");
        let last_on_first = ledger
            .events
            .iter()
            .rev()
            .find(|e| e.stream == first)
            .map(|e| e.payload);
        let ended = matches!(
            last_on_first,
            Some(faultline_model::Payload::ListenEnded { .. })
        );
        assert_eq!(ended, end != "Reset", "{end}: {last_on_first:?}");
    }
}

/// The field, retold: at least 35 scenarios of `scenarios/field/` written for a public
/// report's client habits, each citing its report by URL, stating what both clients must
/// get, and listed in `docs/field-reports.md` (every bundled scenario runs for both clients
/// in `bundled_scenarios.rs`, and live in `live_equals_sim.rs`).
#[test]
fn at_least_35_public_reports_are_reproduced_with_their_clients_habits() {
    let listing = std::fs::read_to_string("docs/field-reports.md").expect("the list");
    let mut reproduced = Vec::new();
    for entry in std::fs::read_dir("scenarios/field").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let scenario = faultline_scenario::Scenario::parse(&text, &path.display().to_string())
            .expect("parses");
        if scenario.client.habits.is_empty() {
            continue;
        }
        let comments: String = text
            .lines()
            .filter(|l| l.trim_start().starts_with("//"))
            .collect();
        assert!(
            comments.contains("https://github.com/")
                && (comments.contains("/issues/") || comments.contains("/pull/")),
            "{}: cite the report by URL",
            path.display()
        );
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            assert!(
                scenario.expect.contains_key(&client),
                "{}: say what the {} client gets",
                path.display(),
                client.name()
            );
        }
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            listing.contains(&format!("../scenarios/field/{file}")),
            "{file} is not in docs/field-reports.md"
        );
        reproduced.push(file);
    }
    assert!(reproduced.len() >= 35, "{reproduced:?}");
}

/// `run --like SDK` gives the naive client an SDK client's habits: on rmcp's empty-200
/// server the naive client gives up loudly, and with rmcp's own habits it loops for ever
/// (`rmcp_958_reconnect_forever` is that run as a scenario). The guarded client takes none.
#[test]
fn like_gives_the_naive_client_an_sdk_clients_habits() {
    let scenario = "scenarios/field/rmcp_958_empty_200.ron";
    let plain = run(scenario, "naive", None);
    assert!(!kinds(&plain).contains(&"reconnect_loop"), "{plain}");
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["run", scenario, "--like", "rmcp-3.11", "--format", "json"])
        .output()
        .expect("runs");
    let like: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(kinds(&like).contains(&"reconnect_loop"), "{like}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty() || stderr.contains("--like rmcp-3.11"),
        "the reproduce command names the habits: {stderr}"
    );
    let refused = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["run", scenario, "--client", "guarded", "--like", "ts-1"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    let unknown = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["run", scenario, "--like", "go-1"])
        .output()
        .expect("runs");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("rmcp-3.11"));
}

/// The SDK presets are 2025 clients: `--like` on a scenario whose client speaks
/// 2026-07-28 only is refused with the reason, as is `grade --like` on the 2026-07-28 set.
#[test]
fn like_refuses_a_scenario_whose_client_speaks_2026_07_28_only() {
    let modern = "scenarios/field/reissue_duplicate_effect.ron";
    let refused = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["run", modern, "--like", "ts-1"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("2025 client"), "{stderr}");
    let refused = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["grade", "--like", "python-2", "--era", "modern"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--era legacy"));
}

/// `grade --like SDK` grades the naive client with that SDK client's habits as `grade`
/// grades a real one: the same table, named for the preset, with no command to run.
#[test]
fn grade_like_grades_the_preset_on_the_default_set() {
    let out = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["grade", "--like", "rmcp-3.11", "--format", "json"])
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        report["command"]
            .as_str()
            .unwrap()
            .contains("--like rmcp-3.11"),
        "{report}"
    );
    let scenarios = report["scenarios"].as_array().unwrap();
    assert!(
        scenarios.len() >= 20,
        "the default set: {}",
        scenarios.len()
    );
    let verdicts_of = |name: &str| -> Vec<String> {
        scenarios
            .iter()
            .find(|s| s["scenario"] == name)
            .unwrap_or_else(|| panic!("{name} graded"))["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["kind"].as_str().unwrap().to_string())
            .collect()
    };
    // rmcp's habit on an unresumable cursor: resumed for ever, the call never ends.
    assert!(verdicts_of("rmcp_hang_400_on_resume").contains(&"hung".to_string()));
    assert_eq!(verdicts_of("baseline"), ["clean"]);
    assert_eq!(out.status.code(), Some(1), "a hung run fails the grade");
    // Its replay is the simulated run, not a server to point a client at.
    let text = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["grade", "--like", "ts-1", "--scenario", "behavior_b"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("replay behavior_b: faultline run behavior_b --like ts-1\n"),
        "{text}"
    );
    let both = Command::new(env!("CARGO_BIN_EXE_faultline"))
        .args(["grade", "--like", "ts-1", "--command", "true"])
        .output()
        .expect("runs");
    assert_eq!(both.status.code(), Some(2), "one client at a time");
}

/// executor PR#1345: a call's every stream is cut before it carries an id. No client gets
/// the result; the guarded one stops re-issuing once its reconnects make no progress (no
/// job left running for ever), and the server's priming event (PR#1351) is the fix: with it
/// the naive client resumes after the cut and loses nothing.
#[test]
fn a_call_cut_before_any_id_loses_its_result_until_the_server_primes_its_streams() {
    let scenario = "scenarios/field/executor_1345_dead_pipe.ron";
    let (guarded, text) = run_traced(scenario, "guarded", "executor_1345");
    assert!(
        text.contains("gave up resuming after 5 reconnects without progress"),
        "the guarded client says why it stopped"
    );
    let lost = kinds(&guarded);
    assert!(lost.iter().all(|k| *k == "surfaced_loss"), "{lost:?}");
    assert!(
        guarded["end_ms"].as_u64().unwrap() < 600_000,
        "it stops before the horizon"
    );
    assert_eq!(guarded["expectation"]["holds"], true);
    let primed = naive_run_of_variant(
        scenario,
        "priming_events: false",
        "priming_events: true",
        "executor_1345_primed",
    );
    assert_eq!(kinds(&primed), vec!["clean"], "{primed}");
}
