//! Event-log expiry has no step of its own for a driver that steps on
//! `Server::next_visible_due`: it runs, in its order, on the next `advance`, and
//! `last_log_expiry_by` says when the last of it would have run.

use faultline_model::{ConnId, HttpRequest, Output, PositiveDurationMs, Server, ServerKnobs};
use serde_json::json;

/// A session whose job logs `steps` events, one per second from t=0, under a 10 s log TTL;
/// the job's stream is cut at once, so every event stays in the log until it expires.
fn server_with_logged_job(steps: u64) -> Server {
    let knobs = ServerKnobs {
        event_log_ttl: PositiveDurationMs::new(10_000),
        ..ServerKnobs::default()
    };
    let mut server = Server::new(knobs, 7);
    let mut out = Vec::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    server.handle(ConnId(1), HttpRequest::post(None, init), 0, &mut out);
    let session = match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": steps, "interval_ms": 1000}, "_meta": {"progressToken": "t"}}});
    let mut request = HttpRequest::post(Some(session), call);
    request.protocol_version = Some("2025-06-18".into());
    server.handle(ConnId(2), request, 0, &mut out);
    server.disconnect(ConnId(2), 0, &mut out);
    server
}

#[test]
fn log_expiry_is_not_visible_work_and_runs_on_the_next_advance() {
    let mut server = server_with_logged_job(3);
    let mut out = Vec::new();
    // The job's steps are visible work; run them all (the last at 3 s).
    while let Some(t) = server.next_visible_due() {
        server.advance(t, &mut out);
    }
    let retained = server.retained_events(faultline_model::SessionKey(0));
    assert!(retained > 0, "the job logged events");
    let first_expiry = server.next_due().expect("logged events expire");
    assert_eq!(
        server.next_visible_due(),
        None,
        "expiry is not visible work"
    );
    assert_eq!(
        server.last_log_expiry_by(u64::MAX),
        Some(13_000),
        "the last event (3 s) expires at 13 s"
    );
    assert_eq!(server.last_log_expiry_by(12_999), Some(12_000));
    assert_eq!(server.last_log_expiry_by(first_expiry - 1), None);
    // An advance past every deadline runs the expiry it stepped over.
    server.advance(20_000, &mut out);
    assert_eq!(server.retained_events(faultline_model::SessionKey(0)), 0);
    assert_eq!(server.next_due(), None);
    assert_eq!(server.last_log_expiry_by(u64::MAX), None);
}
