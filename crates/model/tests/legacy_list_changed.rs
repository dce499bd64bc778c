//! 2025 list changes: a session that opened its standalone GET stream hears
//! `notifications/tools/list_changed` there (logged, so a resumption replays it), a 2025
//! `tools/list` shows and records the list's version, and a sessionless server's GET stream
//! (`legacy_get: ServeStream`) carries nothing.
//! <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#list-changed-notification>

use crate::modern_common::*;
use faultline_model::{
    ConnId, Era, HttpRequest, LegacyGet, ListName, Output, Payload, ResponseBody, ServerKnobs,
};
use serde_json::{Value, json};

fn initialize() -> HttpRequest {
    HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    )
}

fn in_session(session: Option<&str>, body: Value) -> HttpRequest {
    let mut request = HttpRequest::post(session.map(str::to_string), body);
    request.protocol_version = Some("2025-11-25".into());
    request
}

fn get(session: Option<&str>) -> HttpRequest {
    let mut request = HttpRequest::get(session.map(str::to_string), None);
    request.protocol_version = Some("2025-11-25".into());
    request
}

fn list_tools(session: Option<&str>) -> HttpRequest {
    in_session(
        session,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
}

fn tool_names(response: &faultline_model::HttpResponse) -> Vec<String> {
    body(response)["result"]["tools"]
        .as_array()
        .expect("a tools list")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The `list_changed` events the server produced, with the stream each went to.
fn list_changed_events(server: &faultline_model::Server) -> Vec<u32> {
    server
        .ledger()
        .events
        .iter()
        .filter(|e| matches!(e.payload, Payload::SessionListChanged { .. }))
        .map(|e| e.stream.0)
        .collect()
}

#[test]
fn a_session_with_a_get_stream_hears_the_change_there_and_lists_the_new_version() {
    let mut server = server(ServerKnobs::default());
    let session = answer(&mut server, initialize())
        .session_id
        .expect("a session");
    let session = Some(session.as_str());
    let before = answer(&mut server, list_tools(session));
    assert!(!tool_names(&before).iter().any(|n| n == "tool_v2"));
    assert_eq!(
        server.ledger().answers.last().unwrap().list_version,
        Some(1)
    );

    let mut out = Vec::new();
    server.handle(ConnId(50), get(session), 0, &mut out);
    out.clear();
    server.change_list(ListName::Tools, true, 1_000, &mut out);
    let sent: Vec<(ConnId, faultline_model::EventRef)> = out
        .iter()
        .filter_map(|o| match o {
            Output::Event { conn, event, .. } => Some((*conn, *event)),
            _ => None,
        })
        .collect();
    assert_eq!(
        sent.len(),
        1,
        "one list_changed, on the GET stream: {out:?}"
    );
    assert_eq!(sent[0].0, ConnId(50));
    let message = server.event_message(sent[0].1).expect("a message");
    assert_eq!(message["method"], "notifications/tools/list_changed");
    assert!(message.get("id").is_none(), "a notification");

    let after = answer(&mut server, list_tools(session));
    assert!(tool_names(&after).iter().any(|n| n == "tool_v2"));
    assert_eq!(
        server.ledger().answers.last().unwrap().list_version,
        Some(2)
    );
}

#[test]
fn a_session_whose_get_is_down_gets_the_change_logged_for_its_resumption() {
    let mut server = server(ServerKnobs::default());
    let session = answer(&mut server, initialize())
        .session_id
        .expect("a session");
    let mut out = Vec::new();
    server.handle(ConnId(50), get(Some(&session)), 0, &mut out);
    server.drop_connection(ConnId(50), faultline_model::EndMode::Reset, 500, &mut out);
    out.clear();
    server.change_list(ListName::Tools, true, 1_000, &mut out);
    assert!(
        !out.iter().any(|o| matches!(o, Output::Event { .. })),
        "nobody connected: {out:?}"
    );
    assert_eq!(list_changed_events(&server).len(), 1, "but logged");
    // A silent change reaches nobody and logs nothing.
    server.change_list(ListName::Tools, false, 2_000, &mut out);
    assert_eq!(list_changed_events(&server).len(), 1);
}

#[test]
fn a_session_that_never_opened_a_get_stream_and_a_sessionless_get_stream_hear_nothing() {
    let mut stateful = server(ServerKnobs::default());
    answer(&mut stateful, initialize());
    let mut out = Vec::new();
    stateful.change_list(ListName::Tools, true, 1_000, &mut out);
    assert!(list_changed_events(&stateful).is_empty());

    let mut stateless = server(ServerKnobs {
        era: Era::DualStatelessLegacy,
        legacy_get: LegacyGet::ServeStream,
        ..ServerKnobs::default()
    });
    answer(&mut stateless, initialize());
    let response = answer(&mut stateless, get(None));
    assert!(matches!(response.body, ResponseBody::Sse(_)));
    out.clear();
    stateless.change_list(ListName::Tools, true, 1_000, &mut out);
    assert!(list_changed_events(&stateless).is_empty(), "{out:?}");
    // Its tools/list still shows and records the version.
    let listed = answer(&mut stateless, list_tools(None));
    assert!(tool_names(&listed).iter().any(|n| n == "tool_v2"));
    assert_eq!(
        stateless.ledger().answers.last().unwrap().list_version,
        Some(2)
    );
}
