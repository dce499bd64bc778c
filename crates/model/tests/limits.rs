//! The bounds a long-lived server puts on one client (`faultline_model::Limits`): the work
//! of one call, the job steps of one turn, the streams of one session, and what a POST's
//! `Content-Type` must be.

use faultline_model::{ConnId, HttpRequest, Limits, Output, Payload, Server, ServerKnobs};
use serde_json::{Value, json};

fn initialize(server: &mut Server, conn: u64) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    let mut out = Vec::new();
    server.handle(ConnId(conn), HttpRequest::post(None, body), 0, &mut out);
    match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().expect("a session"),
        other => panic!("{other:?}"),
    }
}

fn long_job(id: u64, steps: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": steps, "interval_ms": 0},
                   "_meta": {"progressToken": id}}})
}

fn answer(out: &[Output], conn: u64) -> (u16, Option<Value>) {
    out.iter()
        .find_map(|o| match o {
            Output::Respond { conn: c, response } if c.0 == conn => Some((
                response.status,
                response.body.json().map(|v| v.into_owned()),
            )),
            _ => None,
        })
        .expect("an answer")
}

fn events_on(out: &[Output], conn: u64) -> usize {
    out.iter()
        .filter(|o| matches!(o, Output::Event { conn: c, .. } if c.0 == conn))
        .count()
}

#[test]
fn a_job_above_the_step_limit_gets_an_error_naming_the_limit() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.set_limits(Limits {
        max_job_steps: 1_000,
        ..Limits::default()
    });
    let session = initialize(&mut server, 1);
    let mut out = Vec::new();
    server.handle(
        ConnId(2),
        HttpRequest::post(Some(session), long_job(1, 1_000_000)),
        0,
        &mut out,
    );
    let (status, body) = answer(&out, 2);
    assert_eq!(
        status, 200,
        "a tool error is a JSON-RPC error, not an HTTP one"
    );
    let body = body.expect("a JSON answer");
    assert_eq!(body["error"]["code"], -32602);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("from 0 to 1000"), "{message}");
    assert!(server.ledger().jobs.is_empty(), "no job started");
}

/// With a budget of 100 steps per turn, a 1,000-step interval-0 job runs 100 steps per
/// turn: the request that starts it comes back at once, and what is left waits, due now,
/// for the driver's next turns; a request of another session is handled between turns.
/// A job whose progress token is long renders more bytes per step, and takes more of a
/// turn's budget per step (one, and one per 256 bytes of token): with a 1 KiB token, a
/// turn of 1,000 runs 200 steps, so that other clients wait no longer behind it.
#[test]
fn a_long_progress_token_takes_more_of_a_turn() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.set_limits(Limits {
        job_steps_per_turn: Some(1_000),
        ..Limits::default()
    });
    let session = initialize(&mut server, 1);
    server.begin_turn();
    let mut out = Vec::new();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": 10_000, "interval_ms": 0},
                   "_meta": {"progressToken": "t".repeat(1024)}}});
    server.handle(
        ConnId(3),
        HttpRequest::post(Some(session), call),
        0,
        &mut out,
    );
    assert_eq!(answer(&out, 3).0, 200);
    assert_eq!(events_on(&out, 3), 200, "a fifth of the turn's steps");
    assert!(server.steps_waiting(0));
}

#[test]
fn a_turn_runs_at_most_its_budget_of_job_steps() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.set_limits(Limits {
        job_steps_per_turn: Some(100),
        ..Limits::default()
    });
    let a = initialize(&mut server, 1);
    let b = initialize(&mut server, 2);
    server.begin_turn();
    let mut out = Vec::new();
    server.handle(
        ConnId(3),
        HttpRequest::post(Some(a), long_job(1, 1_000)),
        0,
        &mut out,
    );
    assert_eq!(answer(&out, 3).0, 200);
    assert_eq!(events_on(&out, 3), 100, "one turn's budget of steps");
    assert!(
        server.steps_waiting(0),
        "the rest is due and waits for a turn"
    );
    assert_eq!(server.next_due(), Some(0));
    assert_eq!(server.next_due_this_turn(), None);

    // Another session's echo, in the same instant, between two turns.
    server.begin_turn();
    let mut out = Vec::new();
    let echo = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}}});
    server.handle(ConnId(4), HttpRequest::post(Some(b), echo), 0, &mut out);
    assert_eq!(answer(&out, 4).0, 200);
    let echo_answer = server.ledger().answers.len();

    // The call's turn and the echo's turn ran 100 steps each.
    let mut turns = 2;
    while server.steps_waiting(0) || server.next_due() == Some(0) {
        server.begin_turn();
        let mut out = Vec::new();
        server.advance(0, &mut out);
        assert!(
            events_on(&out, 3) <= 101,
            "100 steps (the last also sends the result)"
        );
        turns += 1;
        assert!(turns < 100, "the job ends");
    }
    let ledger = server.ledger();
    let progress = ledger
        .events
        .iter()
        .filter(|e| matches!(e.payload, Payload::Progress { .. }))
        .count();
    assert_eq!(progress, 1_000, "every step ran, none twice");
    assert!(ledger.jobs[0].ended.is_some());
    assert_eq!(turns, 10, "1,000 steps, 100 a turn");
    assert_eq!(ledger.answers.len(), echo_answer, "nothing answered after");
}

#[test]
fn without_a_budget_every_due_step_runs_at_once() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let a = initialize(&mut server, 1);
    let mut out = Vec::new();
    server.handle(
        ConnId(2),
        HttpRequest::post(Some(a), long_job(1, 1_000)),
        0,
        &mut out,
    );
    assert_eq!(
        events_on(&out, 2),
        1_001,
        "1,000 progress events and the result"
    );
    assert!(!server.steps_waiting(0));
}

#[test]
fn a_session_at_its_stream_cap_gets_429_and_others_are_served() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.set_limits(Limits {
        max_streams_per_session: Some(3),
        ..Limits::default()
    });
    let a = initialize(&mut server, 1);
    let b = initialize(&mut server, 2);
    let mut conn = 10;
    let mut post = |server: &mut Server, session: &str, body: Value| {
        conn += 1;
        let mut out = Vec::new();
        server.handle(
            ConnId(conn),
            HttpRequest::post(Some(session.to_string()), body),
            0,
            &mut out,
        );
        answer(&out, conn)
    };
    for id in 0..3 {
        assert_eq!(post(&mut server, &a, long_job(id, 0)).0, 200);
    }
    let (status, body) = post(&mut server, &a, long_job(3, 0));
    assert_eq!(status, 429);
    let message = body.unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("Too Many Requests"), "{message}");
    // A request that opens no stream still goes through; so does another session.
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    assert_eq!(post(&mut server, &a, ping).0, 200);
    assert_eq!(post(&mut server, &b, long_job(4, 0)).0, 200);
    assert_eq!(
        server.ledger().jobs.len(),
        4,
        "the refused call started nothing"
    );
}

#[test]
fn a_content_type_that_only_starts_like_json_gets_415() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let a = initialize(&mut server, 1);
    for (conn, content_type, status) in [
        (2, "application/jsonx", 415),
        (3, "application/json-seq", 415),
        (4, "Application/JSON; charset=utf-8", 200),
    ] {
        let mut request = HttpRequest::post(
            Some(a.clone()),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        );
        request.content_type = Some(content_type.into());
        let mut out = Vec::new();
        server.handle(ConnId(conn), request, 0, &mut out);
        assert_eq!(answer(&out, conn).0, status, "{content_type}");
    }
}
