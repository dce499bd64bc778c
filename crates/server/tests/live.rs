//! The live server over real HTTP on loopback: status codes, SSE framing, resumption,
//! and the seed incidents played from scenario files.
//!
//! Most tests freeze the virtual clock (`time_scale 0`) and move it with
//! `/_chaos/clock/advance`, so nothing depends on wall-clock timing.

use crate::common::*;
use faultline_model::{CursorResolution, DeathCause, SessionKey, UnknownCursor};
use faultline_scenario::Scenario;
use faultline_server::Config;
use serde_json::{Value, json};

const V_LATEST: &str = "2025-11-25";

#[tokio::test]
async fn initialize_notification_and_echo() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));

    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = Req::post(Some(&session), &note)
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    assert_eq!(response.status(), 202);
    assert!(body_bytes(response).await.is_empty());

    let call = rpc(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hello"}}),
    );
    let response = Req::post(Some(&session), &call)
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "content-type").as_deref(),
        Some("application/json")
    );
    let body = json_body(response).await;
    assert_eq!(body["id"], 2);
    assert_eq!(body["result"]["content"][0]["text"], "hello");
    server.shutdown().await.unwrap();
}

async fn status_and_body(req: Req, addr: std::net::SocketAddr) -> (u16, Value) {
    let response = req.send(addr).await;
    let status = response.status().as_u16();
    let bytes = body_bytes(response).await;
    let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, value)
}

#[tokio::test]
async fn bad_requests_get_the_spec_status() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let ping = rpc(5, "ping", json!({}));

    // No session header.
    let (status, body) = status_and_body(Req::post(None, &ping), addr).await;
    assert_eq!(status, 400, "{body}");
    // A session this server never minted.
    let (status, body) = status_and_body(Req::post(Some("0123456789abcdef"), &ping), addr).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], -32001);
    // A protocol version it does not speak.
    let (status, _) = status_and_body(
        Req::post(Some(&session), &ping).header("mcp-protocol-version", "1999-01-01"),
        addr,
    )
    .await;
    assert_eq!(status, 400);
    // DNS rebinding.
    let (status, _) = status_and_body(
        Req::post(Some(&session), &ping).header("origin", "http://evil.example"),
        addr,
    )
    .await;
    assert_eq!(status, 403);
    // A local origin is fine.
    let (status, _) = status_and_body(
        Req::post(Some(&session), &ping).header("origin", "http://localhost:3000"),
        addr,
    )
    .await;
    assert_eq!(status, 200);
    // Accept without text/event-stream.
    let (status, _) = status_and_body(
        Req::post(Some(&session), &ping)
            .without("accept")
            .header("accept", "application/json"),
        addr,
    )
    .await;
    assert_eq!(status, 406);
    // Not JSON.
    let (status, _) = status_and_body(
        Req::post(Some(&session), &ping)
            .without("content-type")
            .header("content-type", "text/plain"),
        addr,
    )
    .await;
    assert_eq!(status, 415);
    // Over the body limit.
    let huge = vec![b' '; faultline_server::MAX_BODY_BYTES + 1];
    let (status, body) = status_and_body(Req::post(Some(&session), &ping).body(huge), addr).await;
    assert_eq!(status, 413, "{body}");
    // A method the transport does not use.
    let response = Req::new("PUT")
        .header("mcp-session-id", &session)
        .send(addr)
        .await;
    assert_eq!(response.status(), 405);
    assert!(header(&response, "allow").is_some_and(|a| a.contains("POST")));
    // Malformed JSON.
    let (status, body) = status_and_body(
        Req::post(Some(&session), &ping).body(b"{\"jsonrpc\": \"2.0\", ".to_vec()),
        addr,
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32700, "{body}");
    // A method nobody implements: a JSON-RPC error, not an HTTP one.
    let (status, body) = status_and_body(
        Req::post(Some(&session), &rpc(9, "no/such/method", json!({}))),
        addr,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32601, "{body}");
    assert_eq!(body["id"], 9);
    // Unknown paths are not MCP.
    let response = Req::new("GET").path("/other").send(addr).await;
    assert_eq!(response.status(), 404);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn hostile_headers_get_the_models_answer_not_a_panic() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    // Garbage, overflowing and huge cursors: the well-behaved server refuses them (400).
    let long = "9".repeat(8_000);
    for cursor in ["garbage", "18446744073709551616", "-1", long.as_str()] {
        let response = Req::get(&session, Some(cursor)).send(addr).await;
        assert_eq!(response.status(), 400, "cursor {:.20}", cursor);
    }
    // Header bytes that are not UTF-8 (obs-text).
    let response = Req::get(&session, None)
        .header_bytes("last-event-id", b"\xff\xfe12")
        .send(addr)
        .await;
    assert_eq!(response.status(), 400);
    let response = Req::post(None, &rpc(1, "ping", json!({})))
        .header_bytes("mcp-session-id", b"\xc3\x28abc")
        .send(addr)
        .await;
    assert_eq!(response.status(), 404);
    // A mangled Origin is still an origin: refused, not ignored.
    let response = Req::post(Some(&session), &rpc(1, "ping", json!({})))
        .header_bytes("origin", b"http://\xfflocalhost")
        .send(addr)
        .await;
    assert_eq!(response.status(), 403);
    // The server is still healthy.
    initialize(addr, V_LATEST).await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn session_cap_gives_503() {
    let mut config = Config::well_behaved(1).with_time_scale(0.0);
    config.knobs.max_sessions = 2;
    let server = start(config).await;
    // Used sessions: a never-used one would give way to a new `initialize` (issue 29).
    for _ in 0..2 {
        let session = initialize(server.addr, V_LATEST).await;
        let used = Req::post(Some(&session), &rpc(2, "tools/list", json!({})))
            .header("mcp-protocol-version", V_LATEST)
            .send(server.addr)
            .await;
        assert_eq!(used.status(), 200);
        body_bytes(used).await;
    }
    let response = Req::post(None, &rpc(1, "initialize", json!({})))
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 503);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn control_api_is_off_by_default_and_strict_when_on() {
    let server = start(Config::well_behaved(1)).await;
    // Off: 404, with a body that says why (not a bare 404 that looks like a typo).
    for (method, path) in [
        ("GET", "/_chaos/ledger"),
        ("POST", "/_chaos/clock/advance"),
        ("GET", "/_chaos"),
    ] {
        let response = Req::new(method).path(path).send(server.addr).await;
        assert_eq!(response.status(), 404, "{method} {path}");
        let body = json_body(response).await;
        let message = body["error"].as_str().expect("an error message");
        assert!(message.contains("--control"), "{method} {path}: {body}");
    }
    server.shutdown().await.unwrap();

    let server = start_frozen().await;
    let response = Req::new("POST")
        .path("/_chaos/no/such/thing")
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 404);
    let response = Req::new("POST")
        .path("/_chaos/clock/advance")
        .header("content-type", "application/json")
        .body(b"{\"ms\": -5}".to_vec())
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(advance(server.addr, 1_500).await, 1_500);
    server.shutdown().await.unwrap();
}

/// Real time (scale 1): the ticker drives the job; every event arrives, framed, in order.
#[tokio::test]
async fn long_job_streams_priming_progress_and_result_in_real_time() {
    let server = start(Config::well_behaved(3)).await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::post(Some(&session), &long_job(7, 5, 10))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut sse = SseReader::new(response);
    let (events, end) = sse.rest().await;
    assert_eq!(end, SseEnd::Closed);
    assert_eq!(events.len(), 1 + 5 + 1, "{events:#?}");

    // Framing, on the bytes themselves: the priming event is `id`, `retry` and an empty
    // `data`; every other event is `id` and one `data:` line of JSON; nothing else.
    let transcript = sse.transcript();
    let priming = &events[0];
    assert!(priming.is_priming());
    assert_eq!(priming.retry, Some(1_000));
    let priming_wire = format!("id: {}\nretry: 1000\ndata: \n\n", priming.id.unwrap());
    assert!(transcript.starts_with(&priming_wire), "{transcript:?}");
    assert!(events[1..].iter().all(|e| e.retry.is_none()));
    assert_eq!(
        transcript,
        events.iter().map(SseEvent::wire).collect::<String>()
    );

    for (step, event) in events[1..6].iter().enumerate() {
        assert!(event.data.starts_with('{') && !event.data.contains('\n'));
        let message = event.json();
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progressToken"], "job-7");
        assert_eq!(message["params"]["progress"], step as u64 + 1);
        assert_eq!(message["params"]["total"], 5);
    }
    let result = events[6].json();
    assert_eq!(result["id"], 7);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "long_job finished 5 steps"
    );
    let ids: Vec<u64> = events
        .iter()
        .map(|e| e.id.expect("every event has an id"))
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    server.shutdown().await.unwrap();
}

/// Older protocol revisions get no priming event (SEP-1699 is 2025-11-25).
#[tokio::test]
async fn no_priming_before_2025_11_25() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18").await;
    let response = Req::post(Some(&session), &long_job(3, 1, 0))
        .header("mcp-protocol-version", "2025-06-18")
        .send(addr)
        .await;
    let (events, end) = SseReader::new(response).rest().await;
    assert_eq!(end, SseEnd::Closed);
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| !e.is_priming() && e.retry.is_none()));
    server.shutdown().await.unwrap();
}

/// Drop mid-job through the control API, resume with the last id: contiguous, complete.
#[tokio::test]
async fn resumption_after_a_drop_is_contiguous_and_complete() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::post(Some(&session), &long_job(11, 6, 1_000))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut sse = SseReader::new(response);
    let priming = sse.take(1).await.remove(0);
    assert!(priming.is_priming());
    advance(addr, 2_000).await;
    let seen = sse.take(2).await;
    let cursor = seen[1].id.unwrap();

    let dropped = control(
        addr,
        "POST",
        "/_chaos/streams/drop",
        json!({"session": session, "mode": "reset"}),
    )
    .await;
    assert_eq!(dropped["dropped"].as_array().unwrap().len(), 1);
    match sse.next().await {
        Err(SseEnd::Aborted(_)) => {}
        other => panic!("a reset must look like an error to the client, got {other:?}"),
    }
    // Two steps happen while the client is away.
    advance(addr, 2_000).await;

    let response = Req::get(&session, Some(&cursor.to_string()))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut resumed = SseReader::new(response);
    let replayed = resumed.take(2).await;
    assert_eq!(
        replayed[0].id,
        Some(cursor + 1),
        "the first id after the cursor"
    );
    assert_eq!(replayed[1].id, Some(cursor + 2));
    advance(addr, 2_000).await;
    let (live, end) = resumed.rest().await;
    assert_eq!(end, SseEnd::Closed, "the stream ends after the result");
    let all: Vec<_> = replayed.iter().chain(&live).collect();
    let ids: Vec<u64> = all.iter().map(|e| e.id.unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous: {ids:?}"
    );
    let progress: Vec<u64> = seen
        .iter()
        .chain(all.iter().copied())
        .filter_map(|e| e.json()["params"]["progress"].as_u64())
        .collect();
    assert_eq!(progress, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(all.last().unwrap().json()["id"], 11);

    // The ledger saw it all: one honoured resumption replaying 2 events.
    let ledger = ledger(addr).await.ledger;
    assert_eq!(ledger.resumptions.len(), 1);
    assert!(
        matches!(
            ledger.resumptions[0].resolution,
            CursorResolution::Honoured { replayed: 2, .. }
        ),
        "{:?}",
        ledger.resumptions[0]
    );
    assert!(ledger.sends.iter().any(|s| s.replay));
    server.shutdown().await.unwrap();
}

fn load(name: &str) -> Scenario {
    Scenario::load(&scenario_path(name)).expect("bundled scenario")
}

/// Behavior A over the wire: the scenario's own fault (drop right after event 41 of the
/// call's stream) and knobs; the clock is driven through the control API.
#[tokio::test]
async fn behavior_a_from_the_wire_ids_restart_at_one() {
    let config = Config::from_scenario(load("behavior_a.ron"))
        .with_control(true)
        .with_time_scale(0.0);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::post(Some(&session), &long_job(1, 81, 60_000))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut sse = SseReader::new(response);
    // 41 minutes: the script cuts the stream right after event 41.
    advance(addr, 41 * 60_000).await;
    let (events, end) = sse.rest().await;
    assert!(matches!(end, SseEnd::Aborted(_)), "{end:?}");
    let ids: Vec<u64> = events.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=41).collect::<Vec<_>>());

    // The client is away 45 s; the log's 30 s TTL passes.
    advance(addr, 45_000).await;
    let response = Req::get(&session, Some("41"))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    assert_eq!(
        response.status(),
        200,
        "no error anywhere: that is the trap"
    );
    let mut fresh = SseReader::new(response);
    advance(addr, 60_000).await;
    let first = fresh.take(1).await.remove(0);
    assert_eq!(first.id, Some(1), "the fresh stream counts from 1 again");
    assert_eq!(
        first.json()["params"]["progress"],
        42,
        "...yet carries step 42"
    );

    let body = ledger(addr).await;
    assert_eq!(body.faults_fired.len(), 1);
    assert_eq!(body.faults_fired[0].at_ms, 41 * 60_000);
    assert_eq!(body.faults_fired[0].fault, Some(0));
    let resume = &body.ledger.resumptions[0];
    assert_eq!(resume.cursor, "41");
    assert_eq!(
        resume.resolution,
        CursorResolution::Unknown {
            answer: UnknownCursor::FreshStream
        }
    );
    server.shutdown().await.unwrap();
}

/// The 404-after-replay cascade over the wire: after the session expires, a GET with the
/// old cursor still replays (200) while a session-scoped POST gets 404.
#[tokio::test]
async fn cascade_from_the_wire_replay_200_then_404() {
    let config = Config::from_scenario(load("replay_404_cascade.ron"))
        .with_control(true)
        .with_time_scale(0.0);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::get(&session, None)
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut standalone = SseReader::new(response);
    // The scenario's notifications run from 1m50ms after initialize; its load-balancer
    // drop fires at 5m and cuts the standalone stream.
    advance(addr, 5 * 60_000).await;
    let (events, end) = standalone.rest().await;
    assert!(matches!(end, SseEnd::Aborted(_)), "{end:?}");
    assert_eq!(events.len(), 4_471);
    let cursor = events.last().unwrap().id.unwrap();
    assert_eq!(cursor, 4_471);
    assert_eq!(events[0].json()["method"], "notifications/message");

    // T+31m: the session died at 30m (absolute TTL); the log keeps 60m.
    advance(addr, 26 * 60_000).await;
    let response = Req::get(&session, Some(&cursor.to_string()))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    assert_eq!(
        response.status(),
        200,
        "the replay does not look at the session"
    );
    let mut replay = SseReader::new(response);
    let replayed = replay.take(2).await;
    assert_eq!(replayed[0].id, Some(4_472));
    assert_eq!(replayed[1].id, Some(4_473));

    let call = rpc(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "are we there yet"}}),
    );
    let response = Req::post(Some(&session), &call)
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    assert_eq!(response.status(), 404);
    let body = json_body(response).await;
    assert_eq!(body["error"]["message"], "session expired");

    let body = ledger(addr).await;
    assert!(body.live_sessions.is_empty(), "{:?}", body.live_sessions);
    assert_eq!(
        body.ledger.sessions[0].died,
        Some((30 * 60_000, DeathCause::AbsoluteTtl))
    );
    server.shutdown().await.unwrap();
}

/// Behavior B's fault plays live too: restart right after notification 41 on the
/// standalone stream; the restored session numbers from 1 and the old cursor 41 is
/// honoured against the new generation.
#[tokio::test]
async fn behavior_b_from_the_wire_cursor_reuse() {
    let config = Config::from_scenario(load("behavior_b.ron"))
        .with_control(true)
        .with_time_scale(0.0);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::get(&session, None).send(addr).await;
    let mut standalone = SseReader::new(response);
    advance(addr, 410_000).await; // notifications every 10 s from 10 s: 41 of them
    let (events, end) = standalone.rest().await;
    assert!(
        matches!(end, SseEnd::Aborted(_)),
        "the restart resets the stream"
    );
    assert_eq!(events.last().unwrap().id, Some(41));
    // Ten minutes away: generation 2 produces 60 notifications, ids 1..=60.
    advance(addr, 600_000).await;
    let response = Req::get(&session, Some("41")).send(addr).await;
    let mut resumed = SseReader::new(response);
    let first = resumed.take(1).await.remove(0);
    assert_eq!(
        first.id,
        Some(42),
        "contiguous-looking, in the wrong numbering"
    );
    let ledger = ledger(addr).await.ledger;
    assert_eq!(ledger.sessions[0].generations.len(), 2);
    assert!(
        matches!(
            ledger.resumptions[0].resolution,
            CursorResolution::Honoured { generation: 2, .. }
        ),
        "{:?}",
        ledger.resumptions[0]
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn reset_gives_a_fresh_model_and_restart_bumps_the_generation() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let restarted = control(addr, "POST", "/_chaos/restart", Value::Null).await;
    assert!(restarted["restarted_at_ms"].is_u64());
    let body = ledger(addr).await;
    assert_eq!(body.ledger.sessions[0].generations.len(), 2);
    assert_eq!(body.ledger.restarts.len(), 1);
    assert_eq!(body.live_sessions, vec![SessionKey(0)]);

    control(addr, "POST", "/_chaos/reset", Value::Null).await;
    let response = Req::post(Some(&session), &rpc(2, "ping", json!({})))
        .send(addr)
        .await;
    assert_eq!(
        response.status(),
        404,
        "a fresh model has never seen the session"
    );
    let body = ledger(addr).await;
    assert_eq!(body.now_ms, 0);
    assert_eq!(body.ledger.answers.len(), 1);
    assert!(body.ledger.sessions.is_empty());
    server.shutdown().await.unwrap();
}

/// Graceful shutdown ends open SSE streams cleanly instead of hanging.
#[tokio::test]
async fn shutdown_ends_open_streams() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::get(&session, None).send(addr).await;
    let mut standalone = SseReader::new(response);
    assert!(standalone.take(1).await[0].is_priming());
    server.shutdown().await.unwrap();
    let (_, end) = standalone.rest().await;
    assert_eq!(end, SseEnd::Closed);
}

/// Dropping the streams of a session the server never created is a mistake (a typo, or an
/// id from before `/_chaos/reset`), not a successful drop of nothing: 404 with a sentence.
#[tokio::test]
async fn dropping_the_streams_of_an_unknown_session_is_404() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = Req::new("POST")
        .path("/_chaos/streams/drop")
        .header("content-type", "application/json")
        .body(
            json!({"session": "no-such-session", "mode": "close"})
                .to_string()
                .into_bytes(),
        )
        .send(addr)
        .await;
    assert_eq!(response.status(), 404);
    let body = json_body(response).await;
    let message = body["error"].as_str().expect("an error message");
    assert!(message.contains("no-such-session"), "{body}");
    assert!(
        ledger(addr).await.faults_fired.is_empty(),
        "nothing was done"
    );

    // A known session with no open stream is not an error: nothing to cut.
    let dropped = control(
        addr,
        "POST",
        "/_chaos/streams/drop",
        json!({"session": session, "mode": "close"}),
    )
    .await;
    assert_eq!(dropped["dropped"], json!([]));
    server.shutdown().await.unwrap();
}

/// `GET /_chaos/ledger` serves the model's typed ledger: its `ledger` field deserializes
/// back into `faultline_model::Ledger`, equal to the one in the process, and the event ids
/// it records are the ones each connection carried on the wire (nothing renumbered).
#[tokio::test]
async fn the_ledger_endpoint_serves_the_typed_ledger() {
    let config = Config::from_scenario(load("behavior_b.ron"))
        .with_control(true)
        .with_time_scale(0.0);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let mut standalone = SseReader::new(Req::get(&session, None).send(addr).await);
    let response = Req::post(Some(&session), &long_job(2, 3, 1_000))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut job = SseReader::new(response);
    // The scenario restarts the server right after notification 41 (T+410s); ten minutes
    // later the client resumes with the old cursor.
    advance(addr, 410_000).await;
    let (job_events, _) = job.rest().await;
    let (notifications, _) = standalone.rest().await;
    advance(addr, 600_000).await;
    let mut resumed = SseReader::new(Req::get(&session, Some("41")).send(addr).await);
    let replayed = resumed.take(1).await;

    let body = ledger(addr).await;
    let in_process = server.app.with_engine(|e| e.server().ledger().clone());
    assert_eq!(body.ledger, in_process);
    assert_eq!(body.now_ms, 1_010_000);
    assert_eq!(body.scenario.as_deref(), Some("behavior_b"));
    assert_eq!(body.time_scale, json!(0.0));
    assert_eq!(body.live_sessions, vec![SessionKey(0)]);
    assert_eq!(body.open_connections.len(), 1, "the resumed stream");
    assert_eq!(body.faults_fired.len(), 1);

    // Answers in order: initialize, the standalone GET, the job's POST, the resumed GET.
    let ledger = &body.ledger;
    assert_eq!(ledger.answers.len(), 4);
    for (answer, seen) in ledger.answers[1..]
        .iter()
        .zip([&notifications, &job_events, &replayed])
    {
        let sent: Vec<u64> = ledger
            .sends
            .iter()
            .filter(|s| s.conn == answer.conn)
            .map(|s| ledger.event(s.event).id)
            .collect();
        let on_the_wire: Vec<u64> = seen.iter().filter_map(|e| e.id).collect();
        assert!(
            !on_the_wire.is_empty() && sent.starts_with(&on_the_wire),
            "conn {:?}: ledger {sent:?}, wire {on_the_wire:?}",
            answer.conn
        );
    }
    server.shutdown().await.unwrap();
}
