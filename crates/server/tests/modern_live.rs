//! MCP 2026-07-28 over a real socket: a stateless client's `server/discover`, `tools/call`
//! and one refusal reach the model through `to_model_request` (the `Mcp-Method` and
//! `Mcp-Name` headers included) and come back as the wire answers.

use crate::common::*;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "modern_live", "version": "0"},
    })
}

fn modern(id: u64, method: &str, mut params: Value) -> Req {
    params["_meta"] = meta();
    let name = params["name"].as_str().map(str::to_string);
    let mut req = Req::post(None, &rpc(id, method, params))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(name) = name {
        req = req.header("mcp-name", &name);
    }
    req
}

#[tokio::test]
async fn a_stateless_client_discovers_and_calls_a_tool_without_a_session() {
    let server = start_frozen().await;
    let addr = server.addr;

    let response = modern(1, "server/discover", json!({})).send(addr).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "mcp-session-id"), None);
    let body = json_body(response).await;
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["supportedVersions"], json!([MODERN]));
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "faultline"
    );

    let response = modern(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "stateless"}}),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "mcp-session-id"), None);
    let body = json_body(response).await;
    assert_eq!(body["id"], 2);
    assert_eq!(body["result"]["content"][0]["text"], "stateless");
    assert_eq!(body["result"]["resultType"], "complete");

    // The Mcp-Name header reached the model: naming another tool is -32020.
    let response = modern(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    )
    .without("mcp-name")
    .header("mcp-name", "long_job")
    .send(addr)
    .await;
    assert_eq!(response.status(), 400);
    let body = json_body(response).await;
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(3), json!(-32020))
    );

    // A modern GET is 405 Allow: POST.
    let response = Req::new("GET")
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .send(addr)
        .await;
    assert_eq!(response.status(), 405);
    assert_eq!(header(&response, "allow").as_deref(), Some("POST"));
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_legacy_only_server_answers_a_modern_probe_in_plain_text() {
    let mut config = faultline_server::Config::well_behaved(7)
        .with_control(true)
        .with_time_scale(0.0);
    config.knobs.era = faultline_model::Era::LegacyOnly;
    config.knobs.legacy_probe_answer = faultline_model::LegacyProbeAnswer::PlainText400;
    let server = start(config).await;
    let response = modern(1, "server/discover", json!({}))
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 400);
    assert!(
        header(&response, "content-type").is_some_and(|c| c.starts_with("text/plain")),
        "a plain-text body"
    );
    let text = String::from_utf8(body_bytes(response).await).unwrap();
    assert!(text.starts_with("Bad Request"), "{text}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_modern_long_job_streams_its_progress_and_result_over_sse() {
    let server = start_frozen().await;
    let addr = server.addr;
    let mut params = json!({"name": "long_job", "arguments": {"steps": 3, "interval_ms": 10}});
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!("p");
    let request = Req::post(None, &rpc(5, "tools/call", params))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "long_job");
    let response = request.send(addr).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "mcp-session-id"), None);
    assert!(
        header(&response, "content-type").is_some_and(|c| c.starts_with("text/event-stream")),
        "an SSE request stream"
    );
    let mut reader = SseReader::new(response);
    advance(addr, 100).await;
    let (events, end) = reader.rest().await;
    assert_eq!(end, SseEnd::Closed, "the stream ends after the response");
    assert_eq!(events.len(), 4, "{events:?}");
    for event in &events {
        assert_eq!((event.id, event.retry), (None, None), "no id:, no retry:");
        assert!(!event.is_priming(), "no priming event");
    }
    let progress: Vec<Value> = events[..3]
        .iter()
        .map(|e| e.json()["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, vec![json!(1), json!(2), json!(3)]);
    assert_eq!(events[0].json()["params"]["progressToken"], "p");
    let result = events[3].json();
    assert_eq!(result["id"], 5);
    assert_eq!(result["result"]["resultType"], "complete");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "long_job finished 3 steps"
    );
    server.shutdown().await.unwrap();
}

/// The `tools/call` result's text, and whether it is a tool error.
async fn tool_answer(
    addr: std::net::SocketAddr,
    id: u64,
    name: &str,
    arguments: Value,
) -> (String, bool) {
    let response = modern(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    let body = json_body(response).await;
    let result = &body["result"];
    (
        result["content"][0]["text"]
            .as_str()
            .expect("a text")
            .to_string(),
        result["isError"] == true,
    )
}

#[tokio::test]
async fn a_third_basket_over_max_handles_two_evicts_the_least_recently_used() {
    let limits = faultline_server::Limits {
        max_handles: Some(2),
        ..faultline_server::Limits::default()
    };
    let server = start(
        faultline_server::Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0)
            .with_limits(limits),
    )
    .await;
    let addr = server.addr;
    let (a, _) = tool_answer(addr, 1, "create_basket", json!({})).await;
    let (b, _) = tool_answer(addr, 2, "create_basket", json!({})).await;
    // `a` is used after `b` was made: `b` is the least recently used.
    let (_, error) = tool_answer(addr, 3, "add_item", json!({"basket": a, "item": "apple"})).await;
    assert!(!error);
    let (c, _) = tool_answer(addr, 4, "create_basket", json!({})).await;
    assert!(c.starts_with("bsk_") && c != a && c != b, "{c}");

    let (text, error) =
        tool_answer(addr, 5, "add_item", json!({"basket": b, "item": "pear"})).await;
    assert!(error);
    assert!(
        text.contains(&b) && text.contains("evicted") && text.contains("at most 2 handles"),
        "{text}"
    );
    // Said once; then the handle is unknown.
    let (text, error) =
        tool_answer(addr, 6, "add_item", json!({"basket": b, "item": "pear"})).await;
    assert!(error);
    assert!(text.contains("unknown to this server"), "{text}");
    // The others still work.
    let (text, error) = tool_answer(addr, 7, "add_item", json!({"basket": a, "item": "fig"})).await;
    assert!(!error, "{text}");
    assert!(text.contains("apple, fig"), "{text}");
    server.shutdown().await.unwrap();
}
