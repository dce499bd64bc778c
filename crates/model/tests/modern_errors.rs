//! The 2026-07-28 refusal table, each row on the wire: HTTP status, JSON-RPC code,
//! `error.data`, and the request's id kept. Also the era knob's 405 and every answer a
//! legacy-only server gives a modern probe.

use crate::modern_common::*;
use faultline_model::{
    Era, HttpMethod, HttpRequest, LegacyProbeAnswer, PositiveDurationMs, ResponseBody, ServerKnobs,
};
use serde_json::{Value, json};

fn dual() -> faultline_model::Server {
    server(ServerKnobs::default())
}

fn knobs(era: Era, probe: LegacyProbeAnswer) -> ServerKnobs {
    ServerKnobs {
        era,
        legacy_probe_answer: probe,
        ..ServerKnobs::default()
    }
}

/// Status, code and id of an error answer.
fn refusal(request: HttpRequest) -> (u16, Option<i64>, Value) {
    let response = answer(&mut dual(), request);
    (
        response.status,
        code(&response),
        body(&response)["id"].clone(),
    )
}

#[test]
fn header_mismatch_is_400_32020_with_the_id() {
    // The version header differs from `_meta`'s.
    let mut params = with_meta(json!({}));
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let request = modern_post(302, "server/discover", params);
    assert_eq!(refusal(request), (400, Some(-32020), json!(302)));

    // `Mcp-Method` missing, then different from the body's method.
    let mut request = modern_post(11, "tools/list", with_meta(json!({})));
    request.mcp_method = None;
    assert_eq!(refusal(request), (400, Some(-32020), json!(11)));
    let mut request = modern_post(12, "tools/list", with_meta(json!({})));
    request.mcp_method = Some("tools/call".into());
    assert_eq!(refusal(request), (400, Some(-32020), json!(12)));

    // `Mcp-Name` missing, then naming another tool.
    let call = || {
        modern_post(
            13,
            "tools/call",
            with_meta(json!({"name": "echo", "arguments": {"text": "hi"}})),
        )
    };
    let mut request = call();
    request.mcp_name = None;
    assert_eq!(refusal(request), (400, Some(-32020), json!(13)));
    let mut request = call();
    request.mcp_name = Some("long_job".into());
    assert_eq!(refusal(request), (400, Some(-32020), json!(13)));

    // The base64 sentinel is decoded before comparing: "echo" matches, garbage does not.
    let mut request = call();
    request.mcp_name = Some("=?base64?ZWNobw==?=".into());
    assert_eq!(answer(&mut dual(), request).status, 200);
    let mut request = call();
    request.mcp_name = Some("=?base64?!!?=".into());
    assert_eq!(refusal(request), (400, Some(-32020), json!(13)));
}

#[test]
fn a_missing_capability_is_400_32021_naming_it_as_an_object() {
    let request = modern_post(
        401,
        "tools/call",
        with_meta(json!({"name": "test_missing_capability", "arguments": {}})),
    );
    let response = answer(&mut dual(), request);
    assert_eq!(response.status, 400);
    let body = body(&response);
    assert_eq!(body["id"], json!(401));
    assert_eq!(body["error"]["code"], json!(-32021));
    assert_eq!(
        body["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );

    // Declared, the same call is served.
    let mut params = with_meta(json!({"name": "test_missing_capability", "arguments": {}}));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    assert_eq!(
        answer(&mut dual(), modern_post(402, "tools/call", params)).status,
        200
    );
}

#[test]
fn an_unsupported_version_is_400_32022_with_supported_and_requested() {
    let mut params = with_meta(json!({}));
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let mut request = modern_post(301, "server/discover", params);
    request.protocol_version = Some("v999.0.0".into());
    let response = answer(&mut dual(), request);
    assert_eq!(response.status, 400);
    let body = body(&response);
    assert_eq!(body["id"], json!(301));
    assert_eq!(body["error"]["code"], json!(-32022));
    assert_eq!(
        body["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})
    );
}

#[test]
fn missing_meta_fields_are_400_32602_and_client_info_is_optional() {
    let mut no_version = meta();
    no_version
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/protocolVersion");
    let mut no_caps = meta();
    no_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let mut caps_not_object = meta();
    caps_not_object["io.modelcontextprotocol/clientCapabilities"] = json!("all");
    for (id, params) in [
        (101, json!({})),
        (102, json!({"_meta": no_version})),
        (104, json!({"_meta": no_caps})),
        (105, json!({"_meta": caps_not_object})),
    ] {
        let request = modern_post(id, "server/discover", params);
        assert_eq!(
            refusal(request),
            (400, Some(-32602), json!(id)),
            "request {id}"
        );
    }
    let mut no_info = meta();
    no_info
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientInfo");
    let response = answer(
        &mut dual(),
        modern_post(106, "server/discover", json!({"_meta": no_info})),
    );
    assert_eq!(response.status, 200);
}

#[test]
fn removed_and_unknown_methods_are_404_32601_with_the_id() {
    for (id, method) in [
        (500, "initialize"),
        (501, "ping"),
        (502, "logging/setLevel"),
        (503, "tasks/result"),
        (504, "resources/subscribe"),
        (505, "resources/unsubscribe"),
        (601, "unknown/method"),
    ] {
        let request = modern_post(id, method, with_meta(json!({})));
        assert_eq!(refusal(request), (404, Some(-32601), json!(id)), "{method}");
    }
}

#[test]
fn a_batch_is_400_32600() {
    let mut request = HttpRequest::post(
        None,
        json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": with_meta(json!({}))}]),
    );
    request.protocol_version = Some(MODERN.into());
    assert_eq!(refusal(request).0, 400);
}

#[test]
fn discover_and_lists_carry_server_info_result_type_and_the_cache_hint() {
    let response = answer(
        &mut dual(),
        modern_post(201, "server/discover", with_meta(json!({}))),
    );
    assert_eq!(response.status, 200);
    let result = &body(&response)["result"];
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("faultline")
    );
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(60_000), json!("private"))
    );

    for (ttl, want) in [(PositiveDurationMs::new(5_000), 5_000), (None, 0)] {
        let mut server = server(ServerKnobs {
            list_ttl: ttl,
            ..ServerKnobs::default()
        });
        let response = answer(
            &mut server,
            modern_post(202, "tools/list", with_meta(json!({}))),
        );
        let result = &body(&response)["result"];
        assert_eq!(result["ttlMs"], json!(want));
        assert_eq!(result["cacheScope"], json!("private"));
        assert_eq!(result["resultType"], json!("complete"));
        assert!(
            result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["name"] == "echo")
        );
    }
}

#[test]
fn immediate_tools_answer_at_once_and_streaming_tools_open_a_request_stream() {
    let mut server = dual();
    let echo = modern_post(
        7,
        "tools/call",
        with_meta(json!({"name": "echo", "arguments": {"text": "hi"}})),
    );
    let response = answer(&mut server, echo);
    assert_eq!(response.status, 200);
    let result = &body(&response)["result"];
    assert_eq!(result["content"][0]["text"], json!("hi"));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("faultline")
    );

    let job = modern_post(
        8,
        "tools/call",
        with_meta(json!({"name": "long_job", "arguments": {"steps": 2, "interval_ms": 10}})),
    );
    let response = answer(&mut server, job);
    assert_eq!(response.status, 200);
    assert!(
        matches!(response.body, ResponseBody::Sse(_)),
        "a job is answered over SSE: {:?}",
        response.body
    );
    assert_eq!(server.live_session_count(), 0);
    assert_eq!(server.ledger().streams.len(), 1, "one request stream");
    assert!(server.ledger().streams[0].modern);
    assert_eq!(
        server.ledger().answers.len(),
        2,
        "both answers are in the ledger"
    );
}

#[test]
fn modern_only_answers_get_and_delete_405_allow_post_and_legacy_initialize_32602() {
    let mut server = server(knobs(Era::ModernOnly, LegacyProbeAnswer::AsToday));
    for request in [
        HttpRequest::get(Some("s".into()), None),
        HttpRequest::delete(Some("s".into())),
    ] {
        let method = request.method;
        let response = answer(&mut server, request);
        assert_eq!(response.status, 405, "{method:?}");
        assert_eq!(response.allow, Some("POST"));
    }
    let init = HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
    );
    let response = answer(&mut server, init);
    assert_eq!((response.status, code(&response)), (400, Some(-32602)));
    assert_eq!(body(&response)["id"], json!(0));
    assert_eq!(server.live_session_count(), 0);
}

#[test]
fn a_dual_server_answers_a_modern_get_405_and_a_legacy_get_as_today() {
    let mut server = dual();
    let mut get = HttpRequest::get(None, None);
    get.protocol_version = Some(MODERN.into());
    let response = answer(&mut server, get);
    assert_eq!((response.status, response.allow), (405, Some("POST")));
    let response = answer(&mut server, HttpRequest::get(None, None));
    assert_eq!(response.status, 400, "no session: the 2025 answer");
    assert_eq!(response.allow, None);
}

#[test]
fn each_legacy_probe_answer() {
    let probe = || modern_post(9, "server/discover", with_meta(json!({})));
    let cases: [(LegacyProbeAnswer, u16, Option<i64>, Option<&str>); 6] = [
        (LegacyProbeAnswer::AsToday, 400, Some(-32600), None),
        (LegacyProbeAnswer::PlainText400, 400, None, None),
        (LegacyProbeAnswer::Rpc400(-32000), 400, Some(-32000), None),
        (LegacyProbeAnswer::NotFound, 404, Some(-32601), None),
        (
            LegacyProbeAnswer::MethodNotAllowed,
            405,
            Some(-32600),
            Some("GET, POST, DELETE"),
        ),
        // The version header is dropped: the 2025 path then wants a session.
        (LegacyProbeAnswer::RunAsLegacy, 400, Some(-32600), None),
    ];
    for (how, status, want_code, allow) in cases {
        let mut server = server(knobs(Era::LegacyOnly, how));
        let response = answer(&mut server, probe());
        assert_eq!(response.status, status, "{how:?}");
        assert_eq!(response.allow, allow, "{how:?}");
        match &response.body {
            ResponseBody::Text(text) => {
                assert_eq!(how, LegacyProbeAnswer::PlainText400);
                assert!(text.starts_with("Bad Request"));
            }
            body @ (ResponseBody::Json(_) | ResponseBody::Refusal { .. }) => {
                let v = body.json().expect("JSON");
                assert_eq!(v["error"]["code"].as_i64(), want_code, "{how:?}");
                assert!(v.get("result").is_none());
            }
            other => panic!("{how:?}: {other:?}"),
        }
    }
    // AsToday and RunAsLegacy differ where the header matters: a 2025 session's request
    // carrying the modern header is refused as an unsupported version today, and served
    // once the header is dropped.
    for (how, status) in [
        (LegacyProbeAnswer::AsToday, 400),
        (LegacyProbeAnswer::RunAsLegacy, 200),
    ] {
        let mut server = server(knobs(Era::LegacyOnly, how));
        let init = HttpRequest::post(
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        );
        let session = answer(&mut server, init).session_id.expect("a session");
        let mut list = modern_post(10, "tools/list", with_meta(json!({})));
        list.session_id = Some(session);
        assert_eq!(answer(&mut server, list).status, status, "{how:?}");
    }
    // A legacy-only server's GET with the modern header gets the probe answer too.
    let mut server = server(knobs(Era::LegacyOnly, LegacyProbeAnswer::NotFound));
    let mut get = HttpRequest::get(None, None);
    get.protocol_version = Some(MODERN.into());
    assert_eq!(get.method, HttpMethod::Get);
    assert_eq!(answer(&mut server, get).status, 404);
}

#[test]
fn modern_knobs_are_written_only_when_not_default() {
    let default = serde_json::to_value(ServerKnobs::default()).unwrap();
    for key in ["era", "legacy_probe_answer", "list_ttl"] {
        assert!(default.get(key).is_none(), "{key} written at its default");
    }
    let set = ServerKnobs {
        era: Era::LegacyOnly,
        legacy_probe_answer: LegacyProbeAnswer::Rpc400(-32000),
        list_ttl: None,
        ..ServerKnobs::default()
    };
    let written = serde_json::to_value(&set).unwrap();
    assert_eq!(written["era"], json!("LegacyOnly"));
    assert_eq!(written["list_ttl"], Value::Null);
    let back: ServerKnobs = serde_json::from_value(written).unwrap();
    assert_eq!(back, set);
    let old: ServerKnobs = serde_json::from_value(default).unwrap();
    assert_eq!(old, ServerKnobs::default());
}

#[test]
fn a_probe_answer_needs_a_legacy_only_server() {
    assert!(
        knobs(Era::LegacyOnly, LegacyProbeAnswer::NotFound)
            .validate()
            .is_ok()
    );
    assert!(
        knobs(Era::ModernOnly, LegacyProbeAnswer::AsToday)
            .validate()
            .is_ok()
    );
    let err = knobs(Era::DualStatefulLegacy, LegacyProbeAnswer::NotFound)
        .validate()
        .unwrap_err();
    assert!(err.contains("LegacyOnly"), "{err}");
}
