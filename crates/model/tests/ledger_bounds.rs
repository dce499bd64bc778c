//! What a long-lived server keeps of hostile or heavy traffic: client-chosen header text
//! only as a marked prefix, a ledger bounded in bytes as well as entries, and nothing
//! per session once a dead session leaves the window.

use faultline_model::{
    ConnId, HttpRequest, KEPT_TEXT_BYTES, Limits, Output, PositiveDurationMs, Server, ServerKnobs,
};
use serde_json::json;

fn initialize(server: &mut Server, conn: u64) -> String {
    initialize_at(server, conn, 0)
}

fn initialize_at(server: &mut Server, conn: u64, now_ms: u64) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    let mut out = Vec::new();
    server.handle(
        ConnId(conn),
        HttpRequest::post(None, body),
        now_ms,
        &mut out,
    );
    match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().expect("a session"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_header_values_are_kept_as_a_marked_prefix() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let session = initialize(&mut server, 1);
    let huge_id = "s".repeat(200_000);
    let huge_cursor = "9".repeat(50_000);
    let huge_method = "m".repeat(10_000);
    let mut out = Vec::new();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    server.handle(
        ConnId(2),
        HttpRequest::post(Some(huge_id.clone()), ping),
        0,
        &mut out,
    );
    let odd = json!({"jsonrpc": "2.0", "id": 2, "method": huge_method});
    server.handle(
        ConnId(3),
        HttpRequest::post(Some(session.clone()), odd),
        0,
        &mut out,
    );
    server.handle(
        ConnId(4),
        HttpRequest::get(Some(session.clone()), Some(huge_cursor.clone())),
        0,
        &mut out,
    );
    let ledger = server.ledger();
    let unknown = &ledger.answers[1];
    assert_eq!(unknown.status, 404, "the request is judged on the whole id");
    assert_eq!(
        unknown.session_sent.as_deref().map(str::len),
        Some(KEPT_TEXT_BYTES)
    );
    assert_eq!(unknown.session_sent_len, Some(200_000));
    let odd = &ledger.answers[2];
    assert_eq!(
        odd.rpc_method.as_deref().map(str::len),
        Some(KEPT_TEXT_BYTES)
    );
    assert_eq!(odd.rpc_method_len, Some(10_000));
    assert_eq!(
        odd.session_sent.as_deref(),
        Some(session.as_str()),
        "short: whole"
    );
    assert_eq!(odd.session_sent_len, None);
    let resume = ledger.resumptions.last().expect("the resume is recorded");
    assert_eq!(resume.cursor.len(), KEPT_TEXT_BYTES);
    assert_eq!(resume.cursor_len, Some(50_000));
    assert_eq!(resume.session_sent_len, None);
    // The marks are written only when set: an ordinary entry reads as it always did.
    let plain = serde_json::to_value(&ledger.answers[0]).unwrap();
    assert!(plain.get("session_sent_len").is_none(), "{plain}");
}

/// Echoes of 100 KB over SSE (`json_responses: false`) are kept as messages; the window
/// in entries alone (10,000) would keep a gigabyte of them, the byte window keeps them
/// near its bound.
#[test]
fn the_byte_window_bounds_big_messages() {
    let knobs = ServerKnobs {
        json_responses: false,
        // Each echo's stream is forgotten a millisecond later, so nothing pins its message.
        event_log_ttl: PositiveDurationMs::new(1),
        ..ServerKnobs::default()
    };
    let mut server = Server::new(knobs, 1);
    server.bound_ledger(10_000);
    let bound: u64 = 4 << 20;
    server.bound_ledger_bytes(bound);
    let session = initialize(&mut server, 1);
    let text = "x".repeat(100_000);
    for i in 0..500u64 {
        let echo = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}});
        let mut out = Vec::new();
        server.handle(
            ConnId(10 + i),
            HttpRequest::post(Some(session.clone()), echo),
            i,
            &mut out,
        );
        server.trim_ledger();
        assert!(
            server.ledger_bytes() <= 2 * bound,
            "after {i} echoes the ledger weighs {}",
            server.ledger_bytes()
        );
    }
    let ledger = server.ledger();
    assert!(
        ledger.messages.len() < 100,
        "{} messages kept",
        ledger.messages.len()
    );
    assert!(ledger.messages_base > 400, "old messages were trimmed");
}

/// 20,000 initialize + DELETE cycles on a server with a window of 100: the sessions the
/// ledger keeps, the wire ids the server remembers and the ledger's weight stay bounded.
#[test]
fn dead_sessions_leave_nothing_behind_once_out_of_the_window() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.bound_ledger(100);
    let cycles = 20_000u64;
    let mut peak_bytes = 0;
    let mut first = None;
    for i in 0..cycles {
        let session = initialize(&mut server, 2 * i + 1);
        first.get_or_insert_with(|| session.clone());
        let mut out = Vec::new();
        server.handle(
            ConnId(2 * i + 2),
            HttpRequest::delete(Some(session)),
            0,
            &mut out,
        );
        server.trim_ledger();
        peak_bytes = peak_bytes.max(server.ledger_bytes());
    }
    let ledger = server.ledger();
    assert_eq!(ledger.sessions_end(), cycles as u32, "keys keep counting");
    assert!(
        ledger.sessions.len() <= 200,
        "{} sessions kept",
        ledger.sessions.len()
    );
    assert!(server.remembered_session_ids() <= 200);
    assert!(ledger.answers.len() <= 200);
    assert_eq!(server.live_session_count(), 0);
    assert!(
        peak_bytes < 200_000,
        "the ledger weighed up to {peak_bytes} bytes"
    );
    // A trimmed session's id is answered like any unknown id: the dead-session status.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let first = first.expect("a first session");
    assert_eq!(server.session_key(&first), None, "its id is forgotten");
    let mut out = Vec::new();
    server.handle(
        ConnId(1 << 40),
        HttpRequest::post(Some(first), ping),
        0,
        &mut out,
    );
    match &out[0] {
        Output::Respond { response, .. } => assert_eq!(response.status, 404),
        other => panic!("{other:?}"),
    }
}

/// A live session is never trimmed, however old: its entry is what names it.
#[test]
fn a_live_session_keeps_its_entry() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    server.bound_ledger(10);
    let keeper = initialize(&mut server, 1);
    for i in 0..100u64 {
        let session = initialize(&mut server, 10 + 2 * i);
        let mut out = Vec::new();
        server.handle(
            ConnId(11 + 2 * i),
            HttpRequest::delete(Some(session)),
            0,
            &mut out,
        );
        server.trim_ledger();
    }
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let mut out = Vec::new();
    server.handle(
        ConnId(1_000),
        HttpRequest::post(Some(keeper), ping),
        0,
        &mut out,
    );
    match &out[0] {
        Output::Respond { response, .. } => assert_eq!(response.status, 200),
        other => panic!("{other:?}"),
    }
}

/// 1,000 sessions, each opening its standalone stream and deleting itself (after leaving
/// the stream when `leave_first`, else while reading it: the DELETE ends it), under a
/// ledger window of 100; the ledger after.
fn sessions_come_and_go(knobs: ServerKnobs, leave_first: bool) -> faultline_model::Ledger {
    let mut server = Server::new(knobs, 1);
    server.bound_ledger(100);
    server.set_limits(Limits {
        forget_dead_sessions: true,
        ..Limits::default()
    });
    for i in 0..1_000u64 {
        let session = initialize_at(&mut server, 3 * i + 1, 0);
        let mut out = Vec::new();
        let get = ConnId(3 * i + 2);
        server.handle(
            get,
            HttpRequest::get(Some(session.clone()), None),
            0,
            &mut out,
        );
        if leave_first {
            server.disconnect(get, 0, &mut out);
        }
        server.handle(
            ConnId(3 * i + 3),
            HttpRequest::delete(Some(session)),
            0,
            &mut out,
        );
        server.trim_ledger();
    }
    server.ledger().clone()
}

/// On a server whose GET does not validate the session, a stream's log outlives its
/// session (the cascade's precondition) and, with no TTL, lives for ever: it keeps the
/// session's ledger entry, and every later one, since the window never drops what a kept
/// log still names. (Trimming stays cheap meanwhile: a held-back cut is tried again only
/// once its record grew by half.)
#[test]
fn a_reachable_log_keeps_its_session_entry() {
    let ledger = sessions_come_and_go(
        ServerKnobs {
            get_validates_session: false,
            ..ServerKnobs::default()
        },
        true,
    );
    assert_eq!(
        ledger.sessions_base, 0,
        "the first session's log still names it"
    );
    assert_eq!(ledger.sessions.len(), 1_000);
    assert!(ledger.answers.len() <= 200, "answers name no log: trimmed");
}

/// On a server whose GET validates the session, a dead session's log can never be read
/// again; with no TTL to remove it, a long-lived server lets it go with its session, and
/// the window trims the session's entries like any other.
#[test]
fn an_unreachable_log_goes_with_its_session() {
    for leave_first in [true, false] {
        let ledger = sessions_come_and_go(ServerKnobs::default(), leave_first);
        assert!(
            ledger.sessions_base >= 800,
            "dead sessions leave the window (leave_first {leave_first}): base {}",
            ledger.sessions_base
        );
        assert!(ledger.sessions.len() <= 200, "{}", ledger.sessions.len());
        assert!(ledger.streams.len() <= 200, "{}", ledger.streams.len());
    }
}

/// A deleted session's TTL deadline stays queued on the simulator (it pops later, finds
/// nobody, and the run steps there as it always has), and goes with the session on a
/// long-lived server: else every session deleted in the last day (the live server's idle
/// TTL) would hold one queue entry.
#[test]
fn a_dead_sessions_deadline_goes_with_it_on_a_long_lived_server() {
    for forget in [false, true] {
        let knobs = ServerKnobs {
            session_idle_ttl: PositiveDurationMs::new(60_000),
            ..ServerKnobs::default()
        };
        let mut server = Server::new(knobs, 1);
        server.set_limits(Limits {
            forget_dead_sessions: forget,
            ..Limits::default()
        });
        let mut out = Vec::new();
        for i in 0..100u64 {
            let session = initialize_at(&mut server, 2 * i + 1, i);
            server.handle(
                ConnId(2 * i + 2),
                HttpRequest::delete(Some(session)),
                i,
                &mut out,
            );
        }
        let due = server.next_due();
        if forget {
            assert_eq!(due, None, "nothing is left to expire");
        } else {
            assert_eq!(due, Some(60_000), "the first dead session's deadline");
        }
    }
}
