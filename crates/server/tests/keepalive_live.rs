//! A 2026-07-28 listen stream's keep-alive over a real socket: the model's
//! [`Output::Comment`](faultline_model::Output) goes out as the SSE comment line
//! `: keep-alive` and a blank line, once per interval of quiet, between the stream's events.
//! (`run --live` cannot check these bytes: its SSE parser skips comment lines.)
//! <https://github.com/modelcontextprotocol/go-sdk/pull/1232>

use std::time::Duration;

use crate::common::*;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

fn modern(id: u64, method: &str, mut params: Value) -> Req {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "keepalive_live", "version": "0"},
    });
    let name = params["name"].as_str().map(str::to_string);
    let mut req = Req::post(None, &rpc(id, method, params))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", method);
    if let Some(name) = name {
        req = req.header("mcp-name", &name);
    }
    req
}

/// Reads body frames into `seen` until `done` holds of the text received so far (within
/// ten seconds in all).
async fn read_until(body: &mut Incoming, seen: &mut Vec<u8>, done: impl Fn(&str) -> bool) {
    let read = async {
        while !done(&String::from_utf8_lossy(seen)) {
            let frame = body
                .frame()
                .await
                .expect("the stream is open")
                .expect("a frame");
            if let Some(data) = frame.data_ref() {
                seen.extend_from_slice(data);
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the bytes in time");
}

#[tokio::test]
async fn a_quiet_listen_stream_carries_a_keep_alive_comment_every_interval() {
    let mut config = faultline_server::Config::well_behaved(7)
        .with_control(true)
        .with_time_scale(0.0);
    config.knobs.listen_keepalive = faultline_model::PositiveDurationMs::new(15_000);
    let server = start(config).await;
    let addr = server.addr;
    let response = modern(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut seen = Vec::new();
    read_until(&mut body, &mut seen, |t| t.ends_with("\n\n")).await;
    let ack = String::from_utf8(seen.clone()).unwrap();
    assert!(
        ack.contains("notifications/subscriptions/acknowledged"),
        "{ack}"
    );

    advance(addr, 45_000).await;
    read_until(&mut body, &mut seen, |t| t.len() >= ack.len() + 3 * 14).await;
    let after_ack = String::from_utf8(seen[ack.len()..].to_vec()).unwrap();
    assert_eq!(
        after_ack,
        ": keep-alive\n\n".repeat(3),
        "at 15 s, 30 s and 45 s"
    );
    assert_eq!(faultline_server::KEEP_ALIVE, b": keep-alive\n\n");

    // An event moves the next comment on: a change at 50 s, then quiet until 65 s.
    let trigger = modern(
        2,
        "tools/call",
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
    );
    advance(addr, 5_000).await;
    let answer = trigger.send(addr).await;
    assert_eq!(answer.status(), 200);
    let _ = body_bytes(answer).await;
    let before = seen.len();
    read_until(&mut body, &mut seen, |t| {
        t.ends_with("\n\n") && t.len() > before
    })
    .await;
    let change = String::from_utf8(seen[before..].to_vec()).unwrap();
    assert!(
        change.contains("notifications/tools/list_changed"),
        "{change}"
    );
    advance(addr, 14_999).await;
    advance(addr, 1).await;
    let before = seen.len();
    read_until(&mut body, &mut seen, |t| t.len() >= before + 14).await;
    assert_eq!(
        &seen[before..],
        b": keep-alive\n\n",
        "15 s after the change"
    );
    let ledger = ledger(addr).await;
    assert_eq!(ledger.ledger.listens[0].keepalives, 4);
    server.shutdown().await.unwrap();
}

/// On an auto clock a listen stream waits on the server only while scripted work is to
/// come: keep-alives are due for ever, and if they moved the clock it would race through
/// them (a comment per jump) while the client sat listening. With nothing scripted the
/// server goes quiet at once (the quiescence marker says so), the clock still at 0.
#[tokio::test]
async fn keep_alives_alone_do_not_move_an_auto_clock() {
    let mut config = faultline_server::Config::well_behaved(7)
        .with_control(true)
        .with_auto_time(faultline_server::NO_GRACE)
        .with_quiet_marker(true);
    config.knobs.listen_keepalive = faultline_model::PositiveDurationMs::new(15_000);
    let server = start(config).await;
    let addr = server.addr;
    let response = modern(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut seen = Vec::new();
    read_until(&mut body, &mut seen, |t| t.contains("faultline.quiet")).await;
    let text = String::from_utf8(seen).unwrap();
    assert!(!text.contains(": keep-alive"), "{text}");
    let clock = control(addr, "GET", "/_chaos/clock", Value::Null).await;
    assert_eq!(clock["now_ms"], 0, "{clock}");
    server.shutdown().await.unwrap();
}
