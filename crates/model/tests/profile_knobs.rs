//! The knobs the SDK profiles needed (issue 28), each on its own: one test per behaviour,
//! written so that it fails if the knob is ignored. What the real servers do is measured
//! by tests/profiles/run.sh; these pin the model's side.

use faultline_model::{
    ConnId, DeleteAnswer, EndMode, Era, ErrorCodes, HttpRequest, HttpResponse, IdFormat, Output,
    RefusalBody, ResponseBody, ResumedStreamEnd, SecondStandalone, Server, ServerKnobs,
    SessionIdHeader, UnknownCursor,
};
use serde_json::{Value, json};

struct Harness {
    server: Server,
    next: u64,
}

impl Harness {
    fn new(knobs: ServerKnobs) -> Self {
        Harness {
            server: Server::new(knobs, 1),
            next: 0,
        }
    }

    fn send(&mut self, request: HttpRequest, now: u64) -> (ConnId, Vec<Output>) {
        self.next += 1;
        let conn = ConnId(self.next);
        let mut out = Vec::new();
        self.server.handle(conn, request, now, &mut out);
        (conn, out)
    }

    fn initialize(&mut self) -> String {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let (_, out) = self.send(HttpRequest::post(None, body), 0);
        response(&out).session_id.clone().expect("session id")
    }

    fn post(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        now: u64,
    ) -> Vec<Output> {
        let body =
            json!({"jsonrpc": "2.0", "id": self.next + 100, "method": method, "params": params});
        self.send(HttpRequest::post(session.map(str::to_string), body), now)
            .1
    }

    /// A 3-step job, 10 ms apart, read to its end: its outputs.
    fn finished_job(&mut self, session: &str) -> Vec<Output> {
        let mut out = self.post(
            Some(session),
            "tools/call",
            json!({"name": "long_job", "arguments": {"steps": 3, "interval_ms": 10}, "_meta": {"progressToken": "p"}}),
            0,
        );
        self.server.advance(100, &mut out);
        out
    }

    fn get(&mut self, session: &str, cursor: Option<String>, now: u64) -> Vec<Output> {
        self.send(HttpRequest::get(Some(session.to_string()), cursor), now)
            .1
    }
}

fn response(out: &[Output]) -> &HttpResponse {
    out.iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => Some(&**response),
            _ => None,
        })
        .expect("a response")
}

fn ids(out: &[Output]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .collect()
}

fn ended(out: &[Output]) -> bool {
    out.iter().any(|o| {
        matches!(
            o,
            Output::End {
                how: EndMode::Close,
                ..
            }
        )
    })
}

fn error_code(out: &[Output]) -> i64 {
    let body = &response(out).body;
    match body.json() {
        Some(v) => v["error"]["code"].as_i64().expect("a code"),
        None => panic!("{body:?}"),
    }
}

/// A resumption one event into a finished 3-step job (ids: progress 1, 2, 3, result 4).
fn resume_finished(knobs: ServerKnobs) -> Vec<Output> {
    let mut h = Harness::new(knobs);
    let s = h.initialize();
    let job = h.finished_job(&s);
    let first = ids(&job)[0];
    h.get(&s, Some(first.to_string()), 200)
}

#[test]
fn a_store_shared_by_every_session_honours_another_sessions_cursor() {
    let run = |cursors_across_sessions| {
        let mut h = Harness::new(ServerKnobs {
            unknown_cursor: UnknownCursor::Empty200,
            cursors_across_sessions,
            ..ServerKnobs::default()
        });
        let a = h.initialize();
        let first = ids(&h.finished_job(&a))[0];
        let b = h.initialize();
        h.get(&b, Some(first.to_string()), 200)
    };
    assert!(
        ids(&run(false)).is_empty(),
        "a per-session log knows no foreign cursor"
    );
    let replayed = run(true);
    assert_eq!(response(&replayed).status, 200);
    assert_eq!(
        ids(&replayed).len(),
        3,
        "progress 2, 3 and the result of the other session's call: {replayed:?}"
    );
}

#[test]
fn a_resumed_streams_priming_event_is_not_replayed_by_the_next_resumption() {
    let mut h = Harness::new(ServerKnobs {
        priming_events: true,
        prime_resumed: true,
        ..ServerKnobs::default()
    });
    let s = h.initialize();
    let job = ids(&h.finished_job(&s));
    assert_eq!(
        job.len(),
        5,
        "a priming event, 3 progress, the result: {job:?}"
    );
    let cursor = job[1].to_string();
    let first = ids(&h.get(&s, Some(cursor.clone()), 200));
    let second = ids(&h.get(&s, Some(cursor), 300));
    assert_eq!(
        first.len(),
        4,
        "progress 2, 3, the result and a new prime: {first:?}"
    );
    assert_eq!(
        second.len(),
        4,
        "the first resumption's prime is not replayed: {second:?}"
    );
    assert_eq!(first[..3], second[..3]);
}

#[test]
fn replay_from_cursor_delivers_the_cursors_event_again() {
    let after = ids(&resume_finished(ServerKnobs::default()));
    let from = ids(&resume_finished(ServerKnobs {
        replay_from_cursor: true,
        ..ServerKnobs::default()
    }));
    assert_eq!(from.len(), after.len() + 1, "{from:?} {after:?}");
    assert_eq!(&from[1..], &after[..]);
}

#[test]
fn an_answered_stream_is_forgotten_when_the_server_does_not_keep_it() {
    let knobs = ServerKnobs {
        unknown_cursor: UnknownCursor::Empty200,
        ..ServerKnobs::default()
    };
    let kept = resume_finished(knobs.clone());
    assert_eq!(ids(&kept).len(), 3, "progress 2, 3 and the result");
    let forgotten = resume_finished(ServerKnobs {
        keep_answered_streams: false,
        ..knobs
    });
    assert_eq!(response(&forgotten).status, 200);
    assert!(
        ids(&forgotten).is_empty() && ended(&forgotten),
        "{forgotten:?}"
    );
}

#[test]
fn a_resumed_finished_stream_stays_open_when_asked() {
    assert!(ended(&resume_finished(ServerKnobs::default())));
    let open = resume_finished(ServerKnobs {
        resumed_stream_end: ResumedStreamEnd::OpenIfFinished,
        ..ServerKnobs::default()
    });
    assert_eq!(ids(&open).len(), 3);
    assert!(!ended(&open), "{open:?}");
}

#[test]
fn a_stream_resumed_while_its_call_runs_stays_open_only_under_open() {
    let run = |resumed_stream_end| {
        let mut h = Harness::new(ServerKnobs {
            resumed_stream_end,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let mut out = h.post(
            Some(&s),
            "tools/call",
            json!({"name": "long_job", "arguments": {"steps": 3, "interval_ms": 10}, "_meta": {"progressToken": "p"}}),
            0,
        );
        h.server.advance(15, &mut out);
        let first = ids(&out)[0];
        let conn = ConnId(h.next);
        h.server.drop_connection(conn, EndMode::Reset, 15, &mut out);
        let mut resumed = h.get(&s, Some(first.to_string()), 16);
        h.server.advance(100, &mut resumed);
        assert_eq!(ids(&resumed).len(), 3, "progress 2, 3 and the result");
        ended(&resumed)
    };
    assert!(run(ResumedStreamEnd::AtResponse));
    assert!(run(ResumedStreamEnd::OpenIfFinished));
    assert!(!run(ResumedStreamEnd::Open));
}

#[test]
fn a_resumed_stream_is_primed_after_its_replay_when_asked() {
    let knobs = ServerKnobs {
        priming_events: true,
        ..ServerKnobs::default()
    };
    let plain = resume_finished(knobs.clone());
    let primed = resume_finished(ServerKnobs {
        prime_resumed: true,
        ..knobs
    });
    assert_eq!(ids(&primed).len(), ids(&plain).len() + 1);
}

#[test]
fn an_evicted_cursor_gets_its_own_answer() {
    let run = |evicted_cursor| {
        let mut h = Harness::new(ServerKnobs {
            event_log_capacity: Some(2),
            unknown_cursor: UnknownCursor::BadRequest,
            evicted_cursor,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let mut out = h.post(
            Some(&s),
            "tools/call",
            json!({"name": "long_job", "arguments": {"steps": 6, "interval_ms": 10}, "_meta": {"progressToken": "p"}}),
            0,
        );
        h.server.advance(15, &mut out);
        let first = ids(&out)[0];
        let conn = ConnId(h.next);
        h.server.drop_connection(conn, EndMode::Reset, 15, &mut out);
        let mut later = Vec::new();
        h.server.advance(45, &mut later);
        h.get(&s, Some(first.to_string()), 45)
    };
    assert_eq!(response(&run(None)).status, 400);
    let remaining = run(Some(UnknownCursor::ReplayRemaining));
    assert_eq!(response(&remaining).status, 200);
    assert_eq!(ids(&remaining).len(), 2, "what the window still holds");
}

#[test]
fn the_standalone_stream_is_primed_only_when_asked() {
    let run = |prime_standalone| {
        let mut h = Harness::new(ServerKnobs {
            priming_events: true,
            prime_standalone,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        h.get(&s, None, 0)
    };
    assert_eq!(ids(&run(true)).len(), 1);
    assert!(ids(&run(false)).is_empty());
}

#[test]
fn answers_repeat_the_session_id_as_the_knob_says() {
    let run = |session_id_header| {
        let mut h = Harness::new(ServerKnobs {
            session_id_header,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let list = h.post(Some(&s), "tools/list", json!({}), 0);
        let note = h.send(
            HttpRequest::post(
                Some(s.clone()),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
            0,
        );
        let dead = h.post(Some("never-minted"), "tools/list", json!({}), 0);
        [
            response(&list).session_id.is_some(),
            response(&note.1).session_id.is_some(),
            response(&dead).session_id.is_some(),
        ]
    };
    assert_eq!(run(SessionIdHeader::Initialize), [false, false, false]);
    assert_eq!(run(SessionIdHeader::Answers), [true, false, false]);
    assert_eq!(run(SessionIdHeader::Every), [true, true, false]);
}

#[test]
fn initialize_is_answered_over_sse_when_asked() {
    let mut h = Harness::new(ServerKnobs {
        all_answers_over_sse: true,
        ..ServerKnobs::default()
    });
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let (_, out) = h.send(HttpRequest::post(None, body), 0);
    let r = response(&out);
    assert!(
        matches!(r.body, ResponseBody::Sse(_)) && r.session_id.is_some(),
        "{r:?}"
    );
    let result = out.iter().find_map(|o| match o {
        Output::Event { event, .. } => h.server.event_message(*event),
        _ => None,
    });
    assert!(result.expect("the result")["result"]["protocolVersion"].is_string());
    assert!(ended(&out));
}

#[test]
fn refusals_carry_the_knobs_codes_bodies_and_statuses() {
    let codes = ErrorCodes {
        invalid_request: -32000,
        session_not_found: -32600,
    };
    let mut h = Harness::new(ServerKnobs {
        error_codes: codes,
        ..ServerKnobs::default()
    });
    assert_eq!(
        error_code(&h.post(None, "tools/list", json!({}), 0)),
        -32000
    );
    assert_eq!(
        error_code(&h.post(Some("gone"), "tools/list", json!({}), 0)),
        -32600
    );
    let mut plain = Harness::new(ServerKnobs::default());
    assert_eq!(
        error_code(&plain.post(None, "tools/list", json!({}), 0)),
        -32600
    );
    assert_eq!(
        error_code(&plain.post(Some("gone"), "tools/list", json!({}), 0)),
        -32001
    );

    let mut text = Harness::new(ServerKnobs {
        refusal_body: RefusalBody::Text,
        delete_answer: DeleteAnswer::Accepted202,
        ..ServerKnobs::default()
    });
    let refused = text.post(Some("gone"), "tools/list", json!({}), 0);
    assert!(matches!(response(&refused).body, ResponseBody::Text(_)));
    let s = text.initialize();
    let deleted = text.send(HttpRequest::delete(Some(s)), 0).1;
    assert_eq!(response(&deleted).status, 202);
}

#[test]
fn a_wildcard_accept_is_refused_when_the_server_wants_both_types_named() {
    let run = |accept_wildcard| {
        let mut h = Harness::new(ServerKnobs {
            accept_wildcard,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let mut request = HttpRequest::post(
            Some(s),
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
        );
        request.accept = Some("*/*".into());
        response(&h.send(request, 0).1).status
    };
    assert_eq!(run(true), 200);
    assert_eq!(run(false), 406);
}

#[test]
fn a_cursor_is_read_in_the_id_format_and_hidden_ids_are_never_honoured() {
    let run = |id_format, spell: &dyn Fn(&Server, &[Output]) -> String| {
        let mut h = Harness::new(ServerKnobs {
            id_format,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let job = h.finished_job(&s);
        let cursor = spell(&h.server, &job);
        let out = h.get(&s, Some(cursor), 200);
        (response(&out).status, ids(&out).len())
    };
    let wire = |server: &Server, out: &[Output]| {
        out.iter()
            .find_map(|o| match o {
                Output::Event {
                    event,
                    id: Some(id),
                    ..
                } => server.wire_event_id(*event, *id),
                _ => None,
            })
            .expect("an id")
    };
    let number = |_: &Server, out: &[Output]| ids(out)[0].to_string();
    assert_eq!(run(IdFormat::Uuid, &wire), (200, 3));
    assert_eq!(run(IdFormat::StreamMsRandom, &wire), (200, 3));
    assert_eq!(run(IdFormat::IndexSlashRequest, &wire), (200, 3));
    assert_eq!(run(IdFormat::Number, &number), (200, 3));
    // The number is no cursor when ids are UUIDs, and nothing is when they are hidden.
    assert_eq!(run(IdFormat::Uuid, &number).0, 400);
    assert_eq!(run(IdFormat::Hidden, &number).0, 400);
}

#[test]
fn the_stateless_legacy_path_answers_over_sse_and_refuses_get_in_the_knobs_code() {
    let run = |all_answers_over_sse, invalid_request| {
        let mut h = Harness::new(ServerKnobs {
            era: Era::DualStatelessLegacy,
            all_answers_over_sse,
            error_codes: ErrorCodes {
                invalid_request,
                ..ErrorCodes::default()
            },
            ..ServerKnobs::default()
        });
        let list = h.post(None, "tools/list", json!({}), 0);
        let sse = matches!(response(&list).body, ResponseBody::Sse(_));
        let get = h.send(HttpRequest::get(None, None), 0).1;
        assert_eq!(response(&get).status, 405);
        (sse, ended(&list), error_code(&get))
    };
    assert_eq!(run(false, -32600), (false, false, -32600));
    assert_eq!(run(true, -32000), (true, true, -32000));
}

#[test]
fn a_server_error_cursor_answer_is_a_plain_500() {
    let mut h = Harness::new(ServerKnobs {
        unknown_cursor: UnknownCursor::ServerError,
        session_id_header: SessionIdHeader::Every,
        ..ServerKnobs::default()
    });
    let s = h.initialize();
    let out = h.get(&s, Some("41".into()), 0);
    let r = response(&out);
    assert_eq!(r.status, 500);
    assert!(
        matches!(r.body, ResponseBody::Text(_)) && r.session_id.is_none(),
        "{r:?}"
    );
}

#[test]
fn a_second_standalone_get_is_refused_or_shadowed() {
    let run = |second_standalone| {
        let mut h = Harness::new(ServerKnobs {
            second_standalone,
            priming_events: true,
            ..ServerKnobs::default()
        });
        let s = h.initialize();
        let first = h.get(&s, None, 0);
        assert_eq!(response(&first).status, 200);
        let second = h.get(&s, None, 0);
        (response(&second).status, ids(&second).len(), ended(&second))
    };
    assert_eq!(run(SecondStandalone::Conflict409).0, 409);
    assert_eq!(
        run(SecondStandalone::Shadow),
        (200, 1, false),
        "primed, then silent"
    );
}

#[test]
fn rmcps_spelling_gives_the_initialize_answer_no_id() {
    let run = |id_format| {
        let mut h = Harness::new(ServerKnobs {
            id_format,
            all_answers_over_sse: true,
            priming_events: true,
            ..ServerKnobs::default()
        });
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let (_, out) = h.send(HttpRequest::post(None, body), 0);
        out.iter()
            .filter_map(|o| match o {
                Output::Event { event, id, .. } => {
                    Some(id.and_then(|id| h.server.wire_event_id(*event, id)))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let plain = run(IdFormat::Number);
    assert!(plain.iter().all(Option::is_some), "{plain:?}");
    let rmcp = run(IdFormat::IndexSlashRequest);
    assert_eq!(rmcp.len(), 2);
    assert!(
        rmcp[0].as_deref().is_some_and(|id| !id.contains('/')),
        "{rmcp:?}"
    );
    assert_eq!(rmcp[1], None, "{rmcp:?}");
}
