//! Which era a request speaks: one case per rule of `faultline_model::era`, first by the
//! classifier alone, then by what a dual-era server does with it.

use crate::modern_common::*;
use faultline_model::era::{EraRule, classify, rule};
use faultline_model::jsonrpc::{self, Incoming};
use faultline_model::{HttpRequest, RequestEra, ServerKnobs};
use serde_json::{Value, json};

fn first(request: &HttpRequest) -> Option<Incoming> {
    match &request.body {
        faultline_model::RequestBody::Json(v) => jsonrpc::classify(v.clone()).ok(),
        _ => None,
    }
}

fn rule_of(request: &HttpRequest) -> EraRule {
    rule(request, first(request).as_ref())
}

#[test]
fn rule_1_a_modern_version_header_is_modern_whatever_else_it_carries() {
    let mut post = HttpRequest::post(
        Some("stray-session".into()),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    post.protocol_version = Some(" 2026-07-28 ".into());
    post.last_event_id = Some("9".into());
    assert_eq!(rule_of(&post), EraRule::Header);
    let mut get = HttpRequest::get(Some("s".into()), Some("3".into()));
    get.protocol_version = Some(MODERN.into());
    assert_eq!(rule(&get, None), EraRule::Header);
    assert_eq!(classify(&get, None), RequestEra::Modern);

    // The server serves it statelessly: the stray session id is ignored, none is minted.
    let mut server = server(ServerKnobs::default());
    let mut request = modern_post(1, "tools/list", with_meta(json!({})));
    request.session_id = Some("stray-session".into());
    request.last_event_id = Some("9".into());
    let response = answer(&mut server, request);
    assert_eq!(response.status, 200);
    assert_eq!(response.session_id, None);
    assert!(body(&response)["result"]["tools"].is_array());
    assert_eq!(server.live_session_count(), 0);
}

#[test]
fn rule_2_meta_protocol_version_in_the_body_is_modern_and_a_missing_header_is_32020() {
    let mut request = modern_post(2, "tools/list", with_meta(json!({})));
    request.protocol_version = None;
    assert_eq!(rule_of(&request), EraRule::Meta);
    let response = answer(&mut server(ServerKnobs::default()), request);
    assert_eq!(response.status, 400);
    assert_eq!(code(&response), Some(-32020));
    assert_eq!(body(&response)["id"], json!(2));
}

#[test]
fn rule_3_server_discover_is_modern_even_bare() {
    let request = HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover"}),
    );
    assert_eq!(rule_of(&request), EraRule::Discover);
    // Modern, so its missing `_meta` is -32602 (the 2025 path would ask for a session).
    let response = answer(&mut server(ServerKnobs::default()), request);
    assert_eq!((response.status, code(&response)), (400, Some(-32602)));
    assert_eq!(body(&response)["id"], json!(3));
}

#[test]
fn rule_4_anything_else_is_legacy_and_answered_as_today() {
    let mut init = HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    init.protocol_version = Some("2025-11-25".into());
    assert_eq!(rule_of(&init), EraRule::Fallback);
    assert_eq!(classify(&init, first(&init).as_ref()), RequestEra::Legacy);
    let mut server = server(ServerKnobs::default());
    let response = answer(&mut server, init);
    assert_eq!(response.status, 200);
    assert!(
        response.session_id.is_some(),
        "initialize still mints a session"
    );

    // `_meta` without the protocol version key is not rule 2: a 2025 progress token.
    let call = HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {"progressToken": 1}}}),
    );
    assert_eq!(rule_of(&call), EraRule::Fallback);
    let response = answer(&mut server, call);
    assert_eq!(response.status, 400, "no session: today's 400");
    assert_eq!(body(&response)["id"], Value::Null);
    assert_eq!(code(&response), Some(-32600));

    // A GET with a 2025 version (or none) is legacy too.
    assert_eq!(rule(&HttpRequest::get(None, None), None), EraRule::Fallback);
}
