//! The answers servers in the field give that a well-behaved server does not: a standalone
//! GET refused with 400 or 404 or never answered, an unknown cursor never answered, a dead
//! session answered 401, ids that repeat. Each test fails if its knob is ignored.

use faultline_model::{
    ConnId, CursorResolution, DeadSessionAnswer, HangCause, HttpRequest, IdScheme, Output,
    ResponseBody, Server, ServerKnobs, StandaloneGet, UnknownCursor,
};
use serde_json::json;

fn send(server: &mut Server, conn: u64, request: HttpRequest, now: u64) -> Vec<Output> {
    let mut out = Vec::new();
    server.handle(ConnId(conn), request, now, &mut out);
    out
}

fn initialize(server: &mut Server) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    match &send(server, 1, HttpRequest::post(None, body), 0)[0] {
        Output::Respond { response, .. } => response.session_id.clone().expect("session id"),
        other => panic!("{other:?}"),
    }
}

fn long_job(server: &mut Server, conn: u64, session: &str) -> Vec<Output> {
    let body = json!({"jsonrpc": "2.0", "id": conn, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": 2, "interval_ms": 0}, "_meta": {"progressToken": "p"}}});
    send(
        server,
        conn,
        HttpRequest::post(Some(session.into()), body),
        0,
    )
}

fn status(out: &[Output]) -> Option<u16> {
    out.iter().find_map(|o| match o {
        Output::Respond { response, .. } => Some(response.status),
        _ => None,
    })
}

fn ids(out: &[Output]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .collect()
}

fn server(knobs: ServerKnobs) -> Server {
    Server::new(knobs, 1)
}

#[test]
fn the_standalone_get_answers_as_standalone_get_says() {
    for (answer, expected) in [
        (StandaloneGet::ServeStream, Some(200)),
        (StandaloneGet::BadRequest400, Some(400)),
        (StandaloneGet::NotFound404, Some(404)),
        (StandaloneGet::Hang, None),
    ] {
        let mut s = server(ServerKnobs {
            standalone_get: answer,
            ..ServerKnobs::default()
        });
        let session = initialize(&mut s);
        let out = send(&mut s, 2, HttpRequest::get(Some(session.clone()), None), 0);
        assert_eq!(status(&out), expected, "{answer:?}");
        if answer == StandaloneGet::Hang {
            assert!(out.is_empty(), "a hang puts nothing on the wire: {out:?}");
            assert_eq!(s.ledger().hangs.len(), 1);
            assert_eq!(s.ledger().hangs[0].why, HangCause::StandaloneGet);
            assert_eq!(s.ledger().hangs[0].session_sent.as_deref(), Some(&*session));
            assert!(s.is_hung(ConnId(2)));
            assert!(
                !s.ledger().answers.iter().any(|a| a.conn == ConnId(2)),
                "no answer is recorded for a hang"
            );
        } else {
            assert!(s.ledger().hangs.is_empty(), "{answer:?}");
        }
        // The session itself is fine: its POSTs work whatever the GET got.
        let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
        let out = send(&mut s, 3, HttpRequest::post(Some(session), ping), 0);
        assert_eq!(status(&out), Some(200), "{answer:?}");
    }
}

#[test]
fn the_refused_standalone_get_says_why_in_the_transport_s_words() {
    let mut s = server(ServerKnobs {
        standalone_get: StandaloneGet::BadRequest400,
        ..ServerKnobs::default()
    });
    let session = initialize(&mut s);
    let out = send(&mut s, 2, HttpRequest::get(Some(session), None), 0);
    let Output::Respond { response, .. } = &out[0] else {
        panic!("{out:?}")
    };
    let ResponseBody::Refusal { message, .. } = &response.body else {
        panic!("{response:?}")
    };
    assert_eq!(message, "Bad Request: No valid session ID provided");
}

#[test]
fn a_hang_ends_when_its_client_leaves() {
    let mut s = server(ServerKnobs {
        standalone_get: StandaloneGet::Hang,
        ..ServerKnobs::default()
    });
    let session = initialize(&mut s);
    send(&mut s, 2, HttpRequest::get(Some(session), None), 0);
    assert_eq!(s.open_hangs().collect::<Vec<_>>(), vec![ConnId(2)]);
    let mut out = Vec::new();
    s.disconnect(ConnId(2), 1_000, &mut out);
    assert_eq!(s.open_hangs().count(), 0);
    assert!(out.is_empty(), "{out:?}");
    // The ledger keeps the fact that it was never answered.
    assert_eq!(s.ledger().hangs.len(), 1);
}

#[test]
fn an_unknown_cursor_answered_by_a_hang_gets_nothing_and_is_recorded() {
    let mut s = server(ServerKnobs {
        unknown_cursor: UnknownCursor::Hang,
        ..ServerKnobs::default()
    });
    let session = initialize(&mut s);
    let out = send(
        &mut s,
        2,
        HttpRequest::get(Some(session), Some("999".into())),
        0,
    );
    assert!(out.is_empty(), "{out:?}");
    let resumption = s.ledger().resumptions.last().expect("recorded");
    assert_eq!(
        resumption.resolution,
        CursorResolution::Unknown {
            answer: UnknownCursor::Hang
        }
    );
    assert_eq!(resumption.attached_to, None);
    assert_eq!(s.ledger().hangs[0].why, HangCause::UnknownCursor);
    assert!(s.is_hung(ConnId(2)));
}

#[test]
fn a_dead_session_answered_401() {
    let mut s = server(ServerKnobs {
        dead_session_answer: DeadSessionAnswer::Unauthorized401,
        ..ServerKnobs::default()
    });
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let out = send(&mut s, 1, HttpRequest::post(Some("gone".into()), ping), 0);
    assert_eq!(status(&out), Some(401));
}

#[test]
fn constant_ids_repeat_and_a_cursor_replays_from_the_wrong_place() {
    let mut s = server(ServerKnobs {
        id_scheme: IdScheme::Constant,
        ..ServerKnobs::default()
    });
    let session = initialize(&mut s);
    // Two progress events and the result, all `id: 1`.
    let out = long_job(&mut s, 2, &session);
    assert_eq!(ids(&out), vec![1, 1, 1]);
    let out = long_job(&mut s, 3, &session);
    assert_eq!(ids(&out), vec![1, 1, 1], "a second stream repeats them too");
    // A client that saw all of the second stream resumes from its cursor, 1: the server
    // matches the first event with that id and replays what it takes to follow it.
    let out = send(
        &mut s,
        4,
        HttpRequest::get(Some(session), Some("1".into())),
        0,
    );
    assert_eq!(status(&out), Some(200));
    assert!(
        !ids(&out).is_empty(),
        "events the client had already seen come again: {out:?}"
    );
}
