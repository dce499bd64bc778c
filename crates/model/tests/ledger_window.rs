//! A long-lived server bounds its ledger without losing what a replay still needs.

use faultline_model::{
    ConnId, EndMode, HttpRequest, Output, PositiveDurationMs, Server, ServerKnobs,
};
use serde_json::json;

fn session(server: &mut Server, conn: &mut u64) -> String {
    *conn += 1;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    let mut out = Vec::new();
    server.handle(ConnId(*conn), HttpRequest::post(None, body), 0, &mut out);
    match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_window_bounds_every_record_and_keeps_replayable_events() {
    let knobs = ServerKnobs {
        event_log_capacity: Some(50),
        event_log_ttl: PositiveDurationMs::new(3_600_000),
        ..ServerKnobs::default()
    };
    let mut server = Server::new(knobs, 7);
    server.bound_ledger(100);
    let mut conn = 0;
    let s = session(&mut server, &mut conn);
    // 5,000 echo requests and a 5,000-step job whose stream is cut, then trimmed as a
    // driver would after each batch.
    for i in 0..5_000u64 {
        conn += 1;
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
        let mut out = Vec::new();
        server.handle(
            ConnId(conn),
            HttpRequest::post(Some(s.clone()), body),
            1,
            &mut out,
        );
        server.trim_ledger();
    }
    conn += 1;
    let job = ConnId(conn);
    let body = json!({"jsonrpc": "2.0", "id": "job", "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": 5000, "interval_ms": 0}, "_meta": {"progressToken": "t"}}});
    let mut out = Vec::new();
    server.handle(job, HttpRequest::post(Some(s.clone()), body), 2, &mut out);
    let last_id = out
        .iter()
        .filter_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .max()
        .unwrap();
    server.drop_connection(job, EndMode::Reset, 2, &mut out);
    server.trim_ledger();

    let ledger = server.ledger();
    assert!(
        ledger.answers.len() <= 200,
        "answers {}",
        ledger.answers.len()
    );
    assert!(ledger.sends.len() <= 200, "sends {}", ledger.sends.len());
    assert!(ledger.events.len() <= 200, "events {}", ledger.events.len());
    assert!(ledger.events_base > 0, "something was trimmed");

    // The 50 events the log still retains replay, and render.
    conn += 1;
    let mut out = Vec::new();
    server.handle(
        ConnId(conn),
        HttpRequest::get(Some(s), Some((last_id - 10).to_string())),
        3,
        &mut out,
    );
    let replayed: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            Output::Event { event, id, .. } => Some((*event, *id)),
            _ => None,
        })
        .collect();
    assert_eq!(replayed.len(), 10);
    for (event, _) in replayed {
        assert!(server.event_message(event).is_some());
    }
}

#[test]
fn without_a_window_nothing_is_trimmed() {
    let mut server = Server::new(ServerKnobs::default(), 7);
    let mut conn = 0;
    let s = session(&mut server, &mut conn);
    for i in 0..500u64 {
        conn += 1;
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "ping"});
        server.handle(
            ConnId(conn),
            HttpRequest::post(Some(s.clone()), body),
            1,
            &mut Vec::new(),
        );
        server.trim_ledger();
    }
    assert_eq!(server.ledger().answers.len(), 501);
}
