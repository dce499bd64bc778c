//! What a long-lived server keeps of 2026-07-28 traffic: the records of listens, list
//! changes and era answers stay within the ledger window, and an open listen stream keeps
//! what it still needs however much traffic passes while it lives.

use crate::modern_common::*;
use faultline_model::{
    ConnId, Era, ListName, Output, PositiveDurationMs, Server, ServerKnobs, StreamId, StreamKind,
};
use serde_json::{Value, json};

const WINDOW: u32 = 20;

fn listen(id: u64) -> faultline_model::HttpRequest {
    modern_post(
        id,
        "subscriptions/listen",
        with_meta(json!({"notifications": {"toolsListChanged": true}})),
    )
}

fn handle(server: &mut Server, conn: u64, request: faultline_model::HttpRequest, now: u64) {
    let mut out = Vec::new();
    server.handle(ConnId(conn), request, now, &mut out);
    server.trim_ledger();
}

/// The messages sent on `conn`, rendered as the wire would carry them.
fn sent_on(server: &Server, out: &[Output], conn: u64) -> Vec<Value> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event { conn: c, event, .. } if c.0 == conn => server.event_message(*event),
            _ => None,
        })
        .collect()
}

/// One listen stays open while thousands of others open and close: its stream and its
/// listen entry are never trimmed, a change still reaches it, and it still closes cleanly.
/// The records of the closed ones stay within the window.
#[test]
fn an_open_listen_outlives_any_traffic_and_the_closed_ones_are_trimmed() {
    // Each closed listen's stream is forgotten a millisecond later, so nothing of the
    // event logs pins it.
    let mut server = server(ServerKnobs {
        event_log_ttl: PositiveDurationMs::new(1),
        ..ServerKnobs::default()
    });
    server.bound_ledger(WINDOW);
    handle(&mut server, 1, listen(1), 0);
    for i in 0..2_000u64 {
        let conn = 10 + i;
        let i = 10 * i;
        handle(&mut server, conn, listen(100 + i), i);
        let mut out = Vec::new();
        server.disconnect(ConnId(conn), i, &mut out);
        server.trim_ledger();
        if i % 1_000 == 0 {
            let mut out = Vec::new();
            server.change_list(ListName::Tools, true, i, &mut out);
            server.trim_ledger();
        }
    }
    let ledger = server.ledger();
    assert!(
        ledger.listens.len() <= 2 * WINDOW as usize + 1,
        "{} listens kept",
        ledger.listens.len()
    );
    assert!(
        ledger.list_changes.len() <= 2 * WINDOW as usize + 1,
        "{} list changes kept",
        ledger.list_changes.len()
    );

    let mut out = Vec::new();
    server.change_list(ListName::Tools, true, 50_000, &mut out);
    let sent = sent_on(&server, &out, 1);
    assert_eq!(
        sent.len(),
        1,
        "the open listen still gets the change: {out:?}"
    );
    assert_eq!(sent[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        sent[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    server.disconnect(ConnId(1), 50_001, &mut out);
    server.trim_ledger();
    assert!(server.ledger().listens.len() <= 2 * WINDOW as usize + 1);
    let first = server.ledger().stream(StreamId(0));
    assert_eq!(first.kind, StreamKind::Listen);
    assert_eq!(first.closed_ms, Some(50_001), "its close is recorded");
}

/// Era refusals (a 2026-07-28 probe to a 2025-only server, again and again) are kept
/// within the window.
#[test]
fn era_answers_stay_within_the_window() {
    let mut server = server(ServerKnobs {
        era: Era::LegacyOnly,
        ..ServerKnobs::default()
    });
    server.bound_ledger(WINDOW);
    for i in 0..1_000u64 {
        handle(
            &mut server,
            i + 1,
            modern_post(i, "server/discover", with_meta(json!({}))),
            i,
        );
    }
    let kept = server.ledger().era_answers.len();
    assert!(kept > 0, "the refusals are recorded");
    assert!(kept <= 2 * WINDOW as usize, "{kept} era answers kept");
}
