//! A resume after a restart ends: the restart killed the job writing to the stream, the
//! log kept the stream (`restart_persistence: Everything`), so the resume replays what the
//! log holds and the stream then ends cleanly, and the ledger says the job was killed.

use crate::common::*;
use faultline_model::{CursorResolution, JobEnd};
use serde_json::Value;

#[tokio::test]
async fn a_resume_after_a_restart_replays_then_ends() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18").await;
    let response = Req::post(Some(&session), &long_job(1, 100, 100))
        .send(addr)
        .await;
    let mut stream = SseReader::new(response);
    advance(addr, 350).await;
    let before = stream.take(3).await;
    let first = before[0].id.expect("an id");

    let restarted = control(addr, "POST", "/_chaos/restart", Value::Null).await;
    assert_eq!(restarted["restarted_at_ms"], 350);
    let (_, end) = stream.rest().await;
    assert!(
        matches!(end, SseEnd::Aborted(_)),
        "the restart resets: {end:?}"
    );

    let resumed = Req::get(&session, Some(&first.to_string()))
        .send(addr)
        .await;
    let mut resumed = SseReader::new(resumed);
    let (replayed, end) = resumed.rest().await;
    assert_eq!(end, SseEnd::Closed, "the resumed stream ends");
    let ids: Vec<u64> = replayed.iter().filter_map(|e| e.id).collect();
    assert_eq!(
        ids,
        vec![first + 1, first + 2],
        "the rest of what the log held"
    );

    let body = ledger(addr).await;
    assert_eq!(body.ledger.jobs[0].ended, Some((350, JobEnd::Killed)));
    let resume = body.ledger.resumptions.last().expect("the resume");
    assert!(
        matches!(
            resume.resolution,
            CursorResolution::Honoured { replayed: 2, .. }
        ),
        "{resume:?}"
    );
    assert!(body.open_connections.is_empty(), "nothing left open");
    server.shutdown().await.unwrap();
}
