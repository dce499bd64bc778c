//! The ledger is the ground truth verdicts and explanations are checked against, so it
//! must record what the server did, not what it was configured to do; and what the server
//! numbers for a client must be numbered so that the client can check it.

use faultline_model::{
    ConnId, CursorResolution, HttpRequest, Output, Payload, ResponseBody, RestartPersistence,
    Server, ServerKnobs, StreamId, UnknownCursor,
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

    fn notify(&mut self, session: &str, now: u64) -> bool {
        let mut out = Vec::new();
        self.server.notify(session, now, &mut out)
    }

    /// The `seq` of every notification produced for `session`, in production order.
    fn seqs(&self, session: &str) -> Vec<u64> {
        let key = self.server.session_key(session).expect("minted");
        self.server
            .ledger()
            .events
            .iter()
            .filter(|e| e.session == key)
            .filter_map(|e| match e.payload {
                Payload::Notification { seq } => Some(seq),
                _ => None,
            })
            .collect()
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

/// The n-th notification produced for a session carries `seq` n-1, whatever other
/// sessions and streams produce in between, and across a restart.
#[test]
fn notification_seq_counts_each_sessions_notifications_from_zero() {
    for persistence in [
        RestartPersistence::Everything,
        RestartPersistence::SessionIdsOnly,
    ] {
        let mut h = Harness::new(ServerKnobs {
            restart_persistence: persistence,
            ..ServerKnobs::default()
        });
        let a = h.initialize(0);
        let b = h.initialize(0);
        h.get(&a, None, 0);
        h.get(&b, None, 0);
        for i in 0..3 {
            assert!(h.notify(&a, 10 + i));
            // Another session's events in between.
            assert!(h.notify(&b, 10 + i));
            assert!(h.notify(&b, 10 + i));
        }
        // A tool call's events on a's own request stream in between too.
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "long_job", "arguments": {"steps": 3, "interval_ms": 10}, "_meta": {"progressToken": "p"}}});
        h.send(HttpRequest::post(Some(a.clone()), body), 20);
        let mut out = Vec::new();
        h.server.advance(100, &mut out);
        assert!(h.notify(&a, 100));
        // A restart starts a new generation (and, keeping only ids, a new event log);
        // the count goes on.
        h.server.restart(200, &mut out);
        assert!(h.notify(&a, 300));
        assert!(h.notify(&a, 301));

        assert_eq!(h.seqs(&a), vec![0, 1, 2, 3, 4, 5], "{persistence:?}");
        assert_eq!(h.seqs(&b), vec![0, 1, 2, 3, 4, 5], "{persistence:?}");
        let key = h.server.session_key(&a).unwrap();
        let generations: Vec<u32> = h
            .server
            .ledger()
            .events
            .iter()
            .filter(|e| e.session == key && matches!(e.payload, Payload::Notification { .. }))
            .map(|e| e.generation)
            .collect();
        assert_eq!(generations, vec![1, 1, 1, 1, 2, 2], "{persistence:?}");
    }
}

/// The seq is what the client sees on the wire, in `notifications/message`'s data.
#[test]
fn the_wire_message_carries_the_sessions_seq() {
    let mut h = Harness::new(ServerKnobs::default());
    let a = h.initialize(0);
    let b = h.initialize(0);
    h.get(&b, None, 0);
    assert!(h.notify(&b, 1));
    let (_, out) = h.get(&a, None, 2);
    let conn_a = match &out[0] {
        Output::Respond { conn, .. } => *conn,
        other => panic!("{other:?}"),
    };
    let mut out = Vec::new();
    assert!(h.server.notify(&a, 3, &mut out));
    let event = out
        .iter()
        .find_map(|o| match o {
            Output::Event { conn, event, .. } if *conn == conn_a => Some(*event),
            _ => None,
        })
        .expect("sent live");
    let message = h.server.event_message(event).expect("a message");
    assert_eq!(message["method"], "notifications/message");
    assert_eq!(message["params"]["data"]["seq"], 0);
}
