//! 2026-07-28 `subscriptions/listen` and list versions: the acknowledgement comes first,
//! every message carries the subscription id, the filter is honoured, and a change
//! published while no listen stream is open is never sent, not even on the next listen.

use crate::modern_common::*;
use faultline_model::{ConnId, ListName, Output, ResponseBody, Server, ServerKnobs, StreamKind};
use serde_json::{Value, json};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A listen request asking for `filter`.
fn listen(id: u64, filter: Value) -> faultline_model::HttpRequest {
    modern_post(
        id,
        "subscriptions/listen",
        with_meta(json!({ "notifications": filter })),
    )
}

/// Opens a listen stream on `conn` at `now`; returns every output.
fn open(server: &mut Server, conn: u64, id: u64, filter: Value, now: u64) -> Vec<Output> {
    let mut out = Vec::new();
    server.handle(ConnId(conn), listen(id, filter), now, &mut out);
    out
}

/// The messages `conn` was sent, in order, and whether each had an `id:` field.
fn messages(server: &Server, out: &[Output], conn: u64) -> Vec<(bool, Value)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event {
                conn: c, event, id, ..
            } if c.0 == conn => Some((id.is_some(), server.event_message(*event).expect("data"))),
            _ => None,
        })
        .collect()
}

#[test]
fn the_acknowledgement_comes_first_with_the_honoured_filter_and_no_event_id() {
    let mut server = server(ServerKnobs::default());
    let out = open(
        &mut server,
        1,
        9,
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///x"]}),
        0,
    );
    let Output::Respond { response, .. } = &out[0] else {
        panic!("the answer comes first: {out:?}");
    };
    assert_eq!(response.status, 200);
    let ResponseBody::Sse(stream) = response.body else {
        panic!("an SSE stream: {response:?}");
    };
    assert_eq!(server.ledger().stream(stream).kind, StreamKind::Listen);
    let sent = messages(&server, &out, 1);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (has_id, ack) = &sent[0];
    assert!(!has_id, "a listen stream cannot be resumed: no id field");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    // Resource subscriptions are not honoured: this server has no resources to watch.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 9);
}

#[test]
fn every_message_on_a_listen_stream_carries_its_subscription_id() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 41, json!({"toolsListChanged": true}), 0);
    let mut other = open(&mut server, 2, 42, json!({"toolsListChanged": true}), 0);
    server.change_list(ListName::Tools, true, 1_000, &mut out);
    server.change_list(ListName::Tools, true, 2_000, &mut out);
    out.append(&mut other);
    for (conn, id) in [(1, 41), (2, 42)] {
        let sent = messages(&server, &out, conn);
        assert_eq!(
            sent.len(),
            3,
            "ack and two changes on conn {conn}: {sent:?}"
        );
        assert_eq!(sent[1].1["method"], "notifications/tools/list_changed");
        for (_, message) in &sent {
            assert_eq!(message["params"]["_meta"][SUBSCRIPTION_ID], id, "{message}");
        }
    }
    assert_eq!(server.list_version(ListName::Tools), 3);
}

#[test]
fn a_change_the_filter_leaves_out_is_not_sent() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 1, json!({"promptsListChanged": true}), 0);
    server.change_list(ListName::Tools, true, 1_000, &mut out);
    assert_eq!(messages(&server, &out, 1).len(), 1, "only the ack");
    server.change_list(ListName::Prompts, true, 2_000, &mut out);
    let sent = messages(&server, &out, 1);
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].1["method"], "notifications/prompts/list_changed");
}

#[test]
fn a_change_published_while_detached_is_never_sent() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 1, json!({"toolsListChanged": true}), 0);
    server.disconnect(ConnId(1), 1_000, &mut out);
    server.change_list(ListName::Tools, true, 2_000, &mut out);
    // No event was produced for the change: no listen was open.
    assert_eq!(server.ledger().events.len(), 1, "the first ack only");
    assert!(server.ledger().list_changes[0].notified);
    let listen = server.ledger().listens[0].stream;
    assert_eq!(server.ledger().stream(listen).closed_ms, Some(1_000));

    // The next listen starts from nothing: its ack, then only later changes.
    let mut again = open(&mut server, 2, 2, json!({"toolsListChanged": true}), 3_000);
    let sent = messages(&server, &again, 2);
    assert_eq!(sent.len(), 1, "no replay of the missed change: {sent:?}");
    server.change_list(ListName::Tools, true, 4_000, &mut again);
    let sent = messages(&server, &again, 2);
    assert_eq!(sent.len(), 2);
    assert!(messages(&server, &again, 1).is_empty());
}

#[test]
fn a_silent_change_moves_the_version_and_sends_nothing() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 1, json!({"toolsListChanged": true}), 0);
    server.change_list(ListName::Tools, false, 1_000, &mut out);
    assert_eq!(messages(&server, &out, 1).len(), 1);
    assert_eq!(server.list_version(ListName::Tools), 2);
}

#[test]
fn tools_list_records_its_version_and_shows_the_change() {
    let mut server = server(ServerKnobs::default());
    let list = |server: &mut Server, id| {
        let response = answer(server, modern_post(id, "tools/list", with_meta(json!({}))));
        let names: Vec<String> = body(&response)["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect();
        (names, server.ledger().answers.last().unwrap().list_version)
    };
    let (before, v1) = list(&mut server, 1);
    assert_eq!(v1, Some(1));
    assert!(!before.iter().any(|n| n == "tool_v2"));
    let mut out = Vec::new();
    server.change_list(ListName::Tools, false, 0, &mut out);
    let (after, v2) = list(&mut server, 2);
    assert_eq!(v2, Some(2));
    assert!(after.iter().any(|n| n == "tool_v2"), "{after:?}");
}

#[test]
fn the_conformance_trigger_tool_publishes_a_tools_change() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 5, json!({"toolsListChanged": true}), 0);
    server.handle(
        ConnId(2),
        modern_post(
            6,
            "tools/call",
            with_meta(json!({"name": "test_trigger_tool_change", "arguments": {}})),
        ),
        10,
        &mut out,
    );
    let sent = messages(&server, &out, 1);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1].1["method"], "notifications/tools/list_changed");
    assert_eq!(sent[1].1["params"]["_meta"][SUBSCRIPTION_ID], 5);
}

#[test]
fn a_listen_without_a_filter_is_invalid_params() {
    let mut server = server(ServerKnobs::default());
    let response = answer(
        &mut server,
        modern_post(3, "subscriptions/listen", with_meta(json!({}))),
    );
    assert_eq!(response.status, 400);
    assert_eq!(code(&response), Some(-32602));
    assert_eq!(body(&response)["id"], 3);
}

#[test]
fn a_restart_ends_every_subscription() {
    let mut server = server(ServerKnobs::default());
    let mut out = open(&mut server, 1, 1, json!({"toolsListChanged": true}), 0);
    server.restart(1_000, &mut out);
    server.change_list(ListName::Tools, true, 2_000, &mut out);
    assert_eq!(server.ledger().events.len(), 1);
}
