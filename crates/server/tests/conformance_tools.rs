//! The tools the official MCP conformance suite calls by name (`test_*`, see
//! `faultline_model::tools`), over real HTTP. `tests/conformance/run.sh` runs the suite
//! itself; these pin the behaviour it relies on without Node.

use crate::common::*;
use serde_json::{Value, json};

const V_LATEST: &str = "2025-11-25";

async fn call(
    addr: std::net::SocketAddr,
    session: &str,
    id: u64,
    name: &str,
    meta: Value,
) -> hyper::Response<hyper::body::Incoming> {
    let mut params = json!({"name": name, "arguments": {}});
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    Req::post(Some(session), &rpc(id, "tools/call", params))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await
}

#[tokio::test]
async fn simple_text_and_error_tools_answer_at_once() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;

    let body = json_body(call(addr, &session, 2, "test_simple_text", Value::Null).await).await;
    assert_eq!(
        body["result"]["content"][0]["text"],
        "This is a simple text response for testing."
    );
    assert_eq!(body["result"]["isError"], false);

    let body = json_body(call(addr, &session, 3, "test_error_handling", Value::Null).await).await;
    assert_eq!(body["result"]["isError"], true);
    assert!(
        body["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty())
    );

    let listed = json_body(
        Req::post(Some(&session), &rpc(4, "tools/list", json!({})))
            .header("mcp-protocol-version", V_LATEST)
            .send(addr)
            .await,
    )
    .await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "echo",
        "long_job",
        "test_simple_text",
        "test_error_handling",
        "test_tool_with_progress",
        "test_reconnection",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn progress_tool_sends_three_increasing_progress_notifications() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = call(
        addr,
        &session,
        5,
        "test_tool_with_progress",
        json!({"progressToken": "p-1"}),
    )
    .await;
    let mut sse = SseReader::new(response);
    assert!(sse.take(1).await[0].is_priming());
    advance(addr, 150).await;
    let (events, end) = sse.rest().await;
    assert_eq!(end, SseEnd::Closed);
    let progress: Vec<u64> = events
        .iter()
        .filter_map(|e| e.json()["params"]["progress"].as_u64())
        .collect();
    assert_eq!(progress, vec![1, 2, 3]);
    assert_eq!(events.last().unwrap().json()["id"], 5);
    server.shutdown().await.unwrap();
}

/// SEP-1699 polling: the POST stream carries the priming event (with `retry`) and then
/// ends cleanly mid-call; the result arrives on the GET that resumes after the priming id.
#[tokio::test]
async fn reconnection_tool_closes_its_stream_and_the_result_comes_on_the_resume() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, V_LATEST).await;
    let response = call(addr, &session, 6, "test_reconnection", Value::Null).await;
    let (events, end) = SseReader::new(response).rest().await;
    assert_eq!(end, SseEnd::Closed, "a clean end, not a reset");
    assert_eq!(events.len(), 1, "{events:#?}");
    assert!(events[0].is_priming());
    assert_eq!(events[0].retry, Some(1_000));
    let cursor = events[0].id.unwrap().to_string();

    let response = Req::get(&session, Some(&cursor))
        .header("mcp-protocol-version", V_LATEST)
        .send(addr)
        .await;
    let mut resumed = SseReader::new(response);
    advance(addr, 250).await;
    let (events, end) = resumed.rest().await;
    assert_eq!(end, SseEnd::Closed);
    let result = events.last().expect("the result").json();
    assert_eq!(result["id"], 6);
    assert_eq!(result["result"]["isError"], false);
    server.shutdown().await.unwrap();
}
