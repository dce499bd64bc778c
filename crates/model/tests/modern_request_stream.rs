//! 2026-07-28 request streams: a `tools/call` that runs as a job is answered over SSE with
//! its progress, then its response, and nothing else: no priming event, no `retry:`, no
//! `id:` (even on a server configured to prime and to send `retry:` on 2025 streams).

use crate::modern_common::*;
use faultline_model::{
    ConnId, EndMode, JobEnd, Output, PositiveDurationMs, ResponseBody, Server, ServerKnobs,
    StreamKind,
};
use serde_json::{Value, json};

/// A `long_job` call asking for progress.
fn long_job(id: u64, steps: u32, interval_ms: u64) -> faultline_model::HttpRequest {
    let mut params = with_meta(json!({
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": interval_ms}
    }));
    params["_meta"]["progressToken"] = json!("tok");
    modern_post(id, "tools/call", params)
}

/// The SSE events `conn` received, as (id field, retry field, message).
fn events_on(
    server: &Server,
    out: &[Output],
    conn: ConnId,
) -> Vec<(Option<u64>, Option<u64>, Value)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event {
                conn: c,
                event,
                id,
                retry_ms,
            } if *c == conn => Some((
                *id,
                *retry_ms,
                server.event_message(*event).unwrap_or(Value::Null),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn a_long_job_streams_its_progress_then_its_response_without_ids_retry_or_priming() {
    let mut server = server(ServerKnobs {
        priming_events: true,
        retry: PositiveDurationMs::new(1_000),
        ..ServerKnobs::default()
    });
    let conn = ConnId(1);
    let mut out = Vec::new();
    server.handle(conn, long_job(42, 3, 10), 0, &mut out);
    server.advance(100, &mut out);

    let response = out
        .iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => Some(response.clone()),
            _ => None,
        })
        .expect("an answer");
    assert_eq!(response.status, 200);
    assert!(matches!(response.body, ResponseBody::Sse(_)));
    assert_eq!(response.session_id, None, "no session is minted");

    let events = events_on(&server, &out, conn);
    let methods: Vec<Value> = events
        .iter()
        .map(|(_, _, m)| m.get("method").cloned().unwrap_or(json!("response")))
        .collect();
    assert_eq!(
        methods,
        vec![
            json!("notifications/progress"),
            json!("notifications/progress"),
            json!("notifications/progress"),
            json!("response")
        ],
        "progress, then the response, and no priming event"
    );
    for (id, retry, _) in &events {
        assert_eq!((*id, *retry), (None, None), "no id:, no retry:");
    }
    let progress: Vec<Value> = events[..3]
        .iter()
        .map(|(_, _, m)| m["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, vec![json!(1), json!(2), json!(3)]);
    assert_eq!(events[0].2["params"]["progressToken"], json!("tok"));
    let result = &events[3].2;
    assert_eq!(result["id"], json!(42));
    assert_eq!(result["result"]["resultType"], json!("complete"));
    assert_eq!(
        out.last(),
        Some(&Output::End {
            conn,
            how: EndMode::Close
        }),
        "the stream ends with the response"
    );

    let ledger = server.ledger();
    assert_eq!(ledger.streams.len(), 1);
    assert!(ledger.streams[0].modern);
    assert_eq!(ledger.streams[0].kind, StreamKind::Request);
    assert_eq!(
        ledger.streams[0].closed_ms, None,
        "it completed, it was not cut"
    );
    let scope = ledger.session(ledger.streams[0].session);
    assert!(scope.stateless && scope.wire_id.is_empty());
    let ids: Vec<(u64, u32)> = ledger.events.iter().map(|e| (e.id, e.ordinal)).collect();
    assert_eq!(
        ids,
        vec![(1, 1), (2, 2), (3, 3), (4, 4)],
        "id = ordinal in the stream"
    );
    assert_eq!(ledger.jobs[0].ended, Some((30, JobEnd::Finished)));
    assert_eq!(server.live_session_count(), 0);
}

#[test]
fn two_request_streams_number_their_events_each_from_one() {
    let mut server = server(ServerKnobs::default());
    let mut out = Vec::new();
    server.handle(ConnId(1), long_job(1, 2, 10), 0, &mut out);
    server.handle(ConnId(2), long_job(2, 2, 10), 5, &mut out);
    server.advance(100, &mut out);
    let ledger = server.ledger();
    assert_eq!(ledger.sessions.len(), 1, "one stateless scope for both");
    for stream in [0, 1] {
        let ids: Vec<u64> = ledger
            .events
            .iter()
            .filter(|e| e.stream.0 == stream)
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, vec![1, 2, 3], "stream {stream}");
    }
}

#[test]
fn the_2025_path_still_primes_and_numbers_by_session() {
    // The request-stream rules are for 2026-07-28 only: a 2025 session's stream keeps
    // its id: fields (the same knobs as above).
    let mut server = server(ServerKnobs {
        priming_events: true,
        retry: PositiveDurationMs::new(1_000),
        ..ServerKnobs::default()
    });
    let mut out = Vec::new();
    let init = faultline_model::HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
    );
    server.handle(ConnId(1), init, 0, &mut out);
    let sid = out
        .iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => response.session_id.clone(),
            _ => None,
        })
        .expect("a session");
    let mut call = faultline_model::HttpRequest::post(
        Some(sid.clone()),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "long_job", "arguments": {"steps": 1, "interval_ms": 10}}}),
    );
    call.protocol_version = Some("2025-11-25".into());
    out.clear();
    server.handle(ConnId(2), call, 0, &mut out);
    server.advance(100, &mut out);
    let ids: Vec<Option<u64>> = events_on(&server, &out, ConnId(2))
        .iter()
        .map(|e| e.0)
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(Option::is_some),
        "{ids:?}"
    );
}
