//! The ledger is the ground truth verdicts and explanations are checked against, so it
//! must record what the server did, not what it was configured to do.

use faultline_model::{
    ConnId, CursorResolution, HttpRequest, Output, ResponseBody, Server, ServerKnobs, StreamId,
    UnknownCursor,
};
use serde_json::json;

struct Harness {
    server: Server,
    next: u64,
}

impl Harness {
    fn new(knobs: ServerKnobs) -> Self {
        Harness {
            server: Server::new(knobs, 7),
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

    fn initialize(&mut self, now: u64) -> String {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let (_, out) = self.send(HttpRequest::post(None, body), now);
        match &out[0] {
            Output::Respond { response, .. } => response.session_id.clone().expect("session id"),
            other => panic!("{other:?}"),
        }
    }

    fn get(&mut self, session: &str, cursor: Option<&str>, now: u64) -> (ConnId, Vec<Output>) {
        self.send(
            HttpRequest::get(Some(session.to_string()), cursor.map(str::to_string)),
            now,
        )
    }
}

fn sse_stream(out: &[Output]) -> Option<StreamId> {
    out.iter().find_map(|o| match o {
        Output::Respond { response, .. } => match response.body {
            ResponseBody::Sse(stream) => Some(stream),
            _ => None,
        },
        _ => None,
    })
}

/// `ReplayRemaining` replays what a known stream still retains; for a cursor that matches
/// no stream at all there is nothing to replay, and the server opens a fresh stream. The
/// ledger must say so, exactly as it does when the knob asks for a fresh stream.
#[test]
fn an_unknown_cursor_under_replay_remaining_is_recorded_as_the_fresh_stream_it_got() {
    let mut recorded = Vec::new();
    for knob in [UnknownCursor::ReplayRemaining, UnknownCursor::FreshStream] {
        let mut h = Harness::new(ServerKnobs {
            unknown_cursor: knob,
            ..ServerKnobs::default()
        });
        let s = h.initialize(0);
        let (_, out) = h.get(&s, Some("999"), 1_000);
        let stream = sse_stream(&out).expect("a 200 with a stream");
        let entry = h.server.ledger().resumptions.last().expect("recorded");
        assert_eq!(
            entry.resolution,
            CursorResolution::Unknown {
                answer: UnknownCursor::FreshStream
            },
            "under {knob:?}"
        );
        assert_eq!(entry.attached_to, Some(stream), "under {knob:?}");
        // Not a replay: nothing was sent as one.
        assert!(h.server.ledger().sends.iter().all(|s| !s.replay));
        recorded.push((entry.resolution, out));
    }
    // Same answer, same record, same wire output.
    assert_eq!(recorded[0], recorded[1]);
}

/// An unparsable cursor is an unknown one: same truth.
#[test]
fn a_garbage_cursor_under_replay_remaining_is_recorded_as_a_fresh_stream() {
    let mut h = Harness::new(ServerKnobs {
        unknown_cursor: UnknownCursor::ReplayRemaining,
        ..ServerKnobs::default()
    });
    let s = h.initialize(0);
    let (_, out) = h.get(&s, Some("not-a-number"), 0);
    assert!(sse_stream(&out).is_some());
    assert_eq!(
        h.server.ledger().resumptions[0].resolution,
        CursorResolution::Unknown {
            answer: UnknownCursor::FreshStream
        }
    );
}
