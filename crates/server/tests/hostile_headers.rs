//! Header text a client chooses is kept in the ledger only as a short, marked prefix, so
//! a flood of requests with huge headers costs the server no more memory than ordinary
//! ones. Checked on the ledger's stored sizes, not on the process's memory.

use crate::common::*;
use faultline_model::KEPT_TEXT_BYTES;
use serde_json::json;

#[tokio::test]
async fn a_thousand_200_kb_session_ids_are_kept_as_128_byte_prefixes() {
    let server = start_frozen().await;
    let addr = server.addr;
    let huge = "a".repeat(200_000);
    for id in 0..1_000u64 {
        let response = Req::post(Some(&huge), &rpc(id, "ping", json!({})))
            .send(addr)
            .await;
        assert_eq!(response.status(), 404, "an id never minted");
    }
    let session = initialize(addr, "2025-06-18").await;
    let huge_cursor = "7".repeat(200_000);
    for _ in 0..10 {
        let response = Req::get(&session, Some(&huge_cursor)).send(addr).await;
        assert_eq!(response.status(), 400, "a cursor that cannot be resumed");
    }

    let body = ledger(addr).await;
    let answers = &body.ledger.answers;
    assert_eq!(answers.len(), 1_000 + 1 + 10);
    let stored: usize = answers
        .iter()
        .filter_map(|a| a.session_sent.as_ref())
        .map(String::len)
        .sum();
    assert!(
        stored <= answers.len() * KEPT_TEXT_BYTES,
        "{stored} bytes of ids stored"
    );
    for answer in &answers[..1_000] {
        assert_eq!(
            answer.session_sent.as_deref().map(str::len),
            Some(KEPT_TEXT_BYTES)
        );
        assert_eq!(answer.session_sent_len, Some(200_000), "marked as cut");
    }
    assert_eq!(body.ledger.resumptions.len(), 10);
    for resume in &body.ledger.resumptions {
        assert_eq!(resume.cursor.len(), KEPT_TEXT_BYTES);
        assert_eq!(resume.cursor_len, Some(200_000));
        assert_eq!(resume.session_sent.as_deref(), Some(session.as_str()));
        assert_eq!(resume.session_sent_len, None, "a short id is kept whole");
    }
    server.shutdown().await.unwrap();
}
