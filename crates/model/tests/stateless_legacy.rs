//! `era: DualStatelessLegacy` (the TypeScript SDK's `createMcpHandler`): 2025 requests are
//! served without sessions, a 2025 GET gets what `legacy_get` says, and 2026-07-28
//! requests are served as by the default dual server.

use crate::modern_common::*;
use faultline_model::{
    ConnId, Era, HttpRequest, LegacyGet, Output, ResponseBody, ServerKnobs, StreamKind,
};
use serde_json::json;

fn stateless(legacy_get: LegacyGet) -> faultline_model::Server {
    server(ServerKnobs {
        era: Era::DualStatelessLegacy,
        legacy_get,
        ..ServerKnobs::default()
    })
}

fn legacy_post(session: Option<&str>, body: serde_json::Value) -> HttpRequest {
    let mut request = HttpRequest::post(session.map(str::to_string), body);
    request.protocol_version = Some("2025-11-25".into());
    request
}

fn initialize() -> HttpRequest {
    HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    )
}

#[test]
fn initialize_answers_without_a_session_id_and_mints_no_session() {
    let mut server = stateless(LegacyGet::Refuse405);
    let response = answer(&mut server, initialize());
    assert_eq!(response.status, 200);
    assert_eq!(response.session_id, None, "no Mcp-Session-Id");
    assert_eq!(body(&response)["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(server.live_session_count(), 0);
    // The stateful dual server (the default) mints one for the same request.
    let response = answer(&mut server_default(), initialize());
    assert!(response.session_id.is_some());
}

fn server_default() -> faultline_model::Server {
    server(ServerKnobs::default())
}

#[test]
fn later_requests_are_served_with_or_without_a_session_header() {
    let mut server = stateless(LegacyGet::Refuse405);
    let note = legacy_post(
        None,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(answer(&mut server, note).status, 202);
    let call = |session| {
        legacy_post(
            session,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        )
    };
    for session in [None, Some("made-up")] {
        let response = answer(&mut server, call(session));
        assert_eq!(response.status, 200, "{session:?}");
        assert_eq!(body(&response)["result"]["content"][0]["text"], "hi");
    }
    // The same call is refused by the stateful dual server: no session.
    assert_eq!(answer(&mut server_default(), call(None)).status, 400);
}

#[test]
fn a_long_job_runs_on_a_stream_of_the_stateless_scope() {
    let mut server = stateless(LegacyGet::Refuse405);
    let mut out = Vec::new();
    let request = legacy_post(
        None,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "long_job", "arguments": {"steps": 2, "interval_ms": 10}}}),
    );
    server.handle(ConnId(1), request, 0, &mut out);
    server.advance(100, &mut out);
    let response = out
        .iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => Some(response.clone()),
            _ => None,
        })
        .unwrap();
    assert!(matches!(response.body, ResponseBody::Sse(_)));
    assert_eq!(response.session_id, None);
    let ledger = server.ledger();
    assert_eq!(ledger.sessions.len(), 1);
    assert!(ledger.sessions[0].stateless);
    let events = out
        .iter()
        .filter(|o| matches!(o, Output::Event { id: None, .. }))
        .count();
    assert_eq!(events, 1, "the response, without an id");
}

#[test]
fn a_2025_get_or_delete_gets_405_allow_post_by_default() {
    let mut server = stateless(LegacyGet::Refuse405);
    for request in [
        HttpRequest::get(None, None),
        HttpRequest::get(Some("s".into()), Some("3".into())),
        HttpRequest::delete(None),
    ] {
        let method = request.method;
        let response = answer(&mut server, request);
        assert_eq!(
            (response.status, response.allow),
            (405, Some("POST")),
            "{method:?}"
        );
    }
}

#[test]
fn serve_stream_opens_a_standalone_stream_of_no_session() {
    let mut server = stateless(LegacyGet::ServeStream);
    let response = answer(&mut server, HttpRequest::get(None, None));
    assert_eq!(response.status, 200);
    assert!(matches!(response.body, ResponseBody::Sse(_)));
    let ledger = server.ledger();
    assert_eq!(ledger.streams.len(), 1);
    assert_eq!(ledger.streams[0].kind, StreamKind::Standalone);
    assert!(ledger.sessions[0].stateless);
    // A restart ends it.
    let mut out = Vec::new();
    server.restart(10, &mut out);
    assert!(
        out.iter().any(|o| matches!(o, Output::End { .. })),
        "{out:?}"
    );
}

#[test]
fn modern_requests_are_served_as_by_the_dual_server() {
    let mut server = stateless(LegacyGet::Refuse405);
    let response = answer(
        &mut server,
        modern_post(1, "server/discover", with_meta(json!({}))),
    );
    assert_eq!(response.status, 200);
    assert!(body(&response)["result"]["supportedVersions"].is_array());
}

#[test]
fn legacy_get_is_written_only_when_set_and_needs_the_stateless_era() {
    let written = serde_json::to_value(ServerKnobs::default()).unwrap();
    assert!(written.get("legacy_get").is_none());
    let set = ServerKnobs {
        era: Era::DualStatelessLegacy,
        legacy_get: LegacyGet::ServeStream,
        ..ServerKnobs::default()
    };
    assert!(set.validate().is_ok());
    let written = serde_json::to_value(&set).unwrap();
    assert_eq!(written["legacy_get"], "ServeStream");
    let err = ServerKnobs {
        legacy_get: LegacyGet::ServeStream,
        ..ServerKnobs::default()
    }
    .validate()
    .unwrap_err();
    assert!(err.contains("DualStatelessLegacy"), "{err}");
}

/// A deploy into a build without 2025 sessions (`RollEra` to `DualStatelessLegacy` or
/// `ModernOnly`) loads no session store: the sessions of the stateful build die in the
/// restart even under `restart_persistence: Everything`, and a later change of the tools
/// list is logged on no session's standalone stream. A roll between stateful eras keeps
/// them, as any restart would.
#[test]
fn a_roll_into_an_era_without_sessions_keeps_none() {
    for (to, kept) in [
        (Era::DualStatelessLegacy, false),
        (Era::ModernOnly, false),
        (Era::LegacyOnly, true),
    ] {
        let mut server = server_default();
        let response = answer(&mut server, initialize());
        let session = response
            .session_id
            .expect("the stateful server mints a session");
        let get = HttpRequest::get(Some(session.clone()), None);
        assert_eq!(answer(&mut server, get).status, 200);
        let mut out = Vec::new();
        server.roll_era(to, 1_000, &mut out);
        assert_eq!(server.live_session_count(), usize::from(kept), "{to:?}");
        let events = server.ledger().events.len();
        server.change_list(faultline_model::ListName::Tools, true, 2_000, &mut out);
        let logged = server.ledger().events.len() - events;
        assert_eq!(logged, usize::from(kept), "{to:?}: list_changed logged");
        if !kept {
            let died = server.ledger().sessions[0].died.map(|(at, _)| at);
            assert_eq!(died, Some(1_000), "{to:?}");
        }
    }
}
