//! A restart kills every job; a stream the log keeps across it (`restart_persistence:
//! Everything`) has no writer left, so a resume replays it and then ends, and the ledger
//! says the job was killed at the restart.

use faultline_model::{
    ConnId, EndMode, HttpRequest, JobEnd, Output, RestartPersistence, Server, ServerKnobs,
};
use serde_json::json;

#[test]
fn a_resume_after_a_restart_replays_then_ends() {
    let knobs = ServerKnobs {
        restart_persistence: RestartPersistence::Everything,
        ..ServerKnobs::default()
    };
    let mut server = Server::new(knobs, 3);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
    let mut out = Vec::new();
    server.handle(ConnId(1), HttpRequest::post(None, init), 0, &mut out);
    let session = match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": 100, "interval_ms": 100},
                   "_meta": {"progressToken": "p"}}});
    let mut out = Vec::new();
    server.handle(
        ConnId(2),
        HttpRequest::post(Some(session.clone()), call),
        0,
        &mut out,
    );
    server.advance(350, &mut out);
    let last_id = out
        .iter()
        .filter_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .max()
        .expect("progress before the restart");

    let mut out = Vec::new();
    server.restart(350, &mut out);
    assert!(out.contains(&Output::End {
        conn: ConnId(2),
        how: EndMode::Reset
    }));
    assert_eq!(server.ledger().jobs[0].ended, Some((350, JobEnd::Killed)));

    // Resume from the first event: the rest is replayed, then the stream ends cleanly.
    let mut out = Vec::new();
    server.handle(
        ConnId(3),
        HttpRequest::get(Some(session), Some((last_id - 2).to_string())),
        500,
        &mut out,
    );
    let replayed = out
        .iter()
        .filter(|o| {
            matches!(
                o,
                Output::Event {
                    conn: ConnId(3),
                    ..
                }
            )
        })
        .count();
    assert_eq!(replayed, 2);
    assert_eq!(
        out.last(),
        Some(&Output::End {
            conn: ConnId(3),
            how: EndMode::Close
        }),
        "the resumed stream ends after its replay: {out:?}"
    );
    assert_eq!(server.stream_of(ConnId(3)), None, "nothing left attached");
    assert_eq!(server.next_due(), None, "no job steps left anywhere");
}
