//! The answers servers in the field give that a well-behaved server does not: a standalone
//! GET refused with 400 or 404 or never answered, an unknown cursor never answered, a dead
//! session answered 401, 409, 429, 503 or 200 with an error body, a standalone GET refused
//! for a while after the last one dropped, ids that repeat. Each test fails if its knob is
//! ignored.

use faultline_model::{
    ConnId, CursorResolution, DeadSessionAnswer, HangCause, HttpRequest, IdScheme, Output,
    PositiveDurationMs, ResponseBody, Server, ServerKnobs, SessionIdHeader, StaleStandalone,
    StaleStandaloneAnswer, StandaloneGet, UnknownCursor,
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
fn a_dead_session_answered_409_429_503_or_200_with_an_error_body() {
    for (answer, expected) in [
        (DeadSessionAnswer::Conflict409, 409),
        (DeadSessionAnswer::TooManyRequests429, 429),
        (DeadSessionAnswer::Unavailable503, 503),
        (DeadSessionAnswer::OkWithError200, 200),
    ] {
        let mut s = server(ServerKnobs {
            dead_session_answer: answer,
            // A text refusal body does not change the 200's: it is a JSON-RPC error.
            refusal_body: faultline_model::RefusalBody::Text,
            ..ServerKnobs::default()
        });
        let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
        let out = send(&mut s, 1, HttpRequest::post(Some("gone".into()), ping), 0);
        assert_eq!(status(&out), Some(expected), "{answer:?}");
        let Output::Respond { response, .. } = &out[0] else {
            panic!("{out:?}")
        };
        let answered = &s.ledger().answers[0];
        if answer == DeadSessionAnswer::OkWithError200 {
            let body = response.body.json().expect("a JSON-RPC error");
            assert_eq!(body["error"]["code"], -32001, "{body}");
            assert_eq!(body["id"], serde_json::Value::Null, "{body}");
        }
        // The ledger marks the refusals whose status does not say so.
        assert_eq!(
            answered.dead_session,
            matches!(
                answer,
                DeadSessionAnswer::Unavailable503 | DeadSessionAnswer::OkWithError200
            ),
            "{answer:?}"
        );
    }
    // A 404 is a refusal by its status: not marked, so older ledgers keep their bytes.
    let mut s = server(ServerKnobs::default());
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    send(&mut s, 1, HttpRequest::post(Some("gone".into()), ping), 0);
    assert!(!s.ledger().answers[0].dead_session);
}

#[test]
fn a_live_session_s_200s_repeat_its_id_when_the_dead_one_is_answered_200() {
    let mut s = server(ServerKnobs {
        dead_session_answer: DeadSessionAnswer::OkWithError200,
        session_id_header: SessionIdHeader::Every,
        ..ServerKnobs::default()
    });
    let session = initialize(&mut s);
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let out = send(&mut s, 2, HttpRequest::post(Some(session.clone()), ping), 0);
    let Output::Respond { response, .. } = &out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(response.session_id.as_deref(), Some(&*session));
}

fn stale(answer: StaleStandaloneAnswer, ms: u64) -> ServerKnobs {
    ServerKnobs {
        stale_standalone: Some(StaleStandalone {
            answer,
            lasting: PositiveDurationMs::new(ms).expect("positive"),
        }),
        ..ServerKnobs::default()
    }
}

#[test]
fn a_standalone_get_soon_after_a_drop_is_refused_until_the_server_notices() {
    for (answer, expected, words) in [
        (
            StaleStandaloneAnswer::Conflict409,
            409,
            "Conflict: only one standalone SSE stream is allowed per session",
        ),
        (
            StaleStandaloneAnswer::BadRequest400,
            400,
            "Session registration failed: session already exists",
        ),
    ] {
        let mut s = server(stale(answer, 120_000));
        let session = initialize(&mut s);
        let get = || HttpRequest::get(Some(session.clone()), None);
        // The first GET is served: nothing dropped yet.
        assert_eq!(status(&send(&mut s, 2, get(), 0)), Some(200), "{answer:?}");
        let mut out = Vec::new();
        s.disconnect(ConnId(2), 300_000, &mut out);
        // Within `for` of the drop: refused as a second stream, in the knob's words.
        let out = send(&mut s, 3, get(), 301_000);
        assert_eq!(status(&out), Some(expected), "{answer:?}");
        let Output::Respond { response, .. } = &out[0] else {
            panic!("{out:?}")
        };
        let ResponseBody::Refusal { message, .. } = &response.body else {
            panic!("{response:?}")
        };
        assert_eq!(message, words);
        assert_eq!(status(&send(&mut s, 4, get(), 419_999)), Some(expected));
        // Once the server has noticed: served again.
        assert_eq!(
            status(&send(&mut s, 5, get(), 420_000)),
            Some(200),
            "{answer:?}"
        );
    }
    // Without the knob the drop is noticed at once.
    let mut s = server(ServerKnobs::default());
    let session = initialize(&mut s);
    send(&mut s, 2, HttpRequest::get(Some(session.clone()), None), 0);
    let mut out = Vec::new();
    s.disconnect(ConnId(2), 300_000, &mut out);
    let out = send(&mut s, 3, HttpRequest::get(Some(session), None), 300_001);
    assert_eq!(status(&out), Some(200));
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
