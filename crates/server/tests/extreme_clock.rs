//! The end of virtual time: an advance past it is refused with 400 and a sentence, an
//! absurd time scale does not start, and a session created at the very end works (its
//! deadlines do not wrap around to before its creation).

use crate::common::*;
use faultline_server::{Config, MAX_TIME_SCALE, MAX_VIRTUAL_MS};
use serde_json::{Value, json};

async fn advance_status(addr: std::net::SocketAddr, ms: u64) -> (u16, Value) {
    let response = Req::new("POST")
        .path("/_chaos/clock/advance")
        .header("content-type", "application/json")
        .body(json!({"ms": ms}).to_string().into_bytes())
        .send(addr)
        .await;
    let status = response.status().as_u16();
    (status, json_body(response).await)
}

#[tokio::test]
async fn an_advance_past_the_end_of_time_is_refused_and_the_largest_one_works() {
    let server = start_frozen().await;
    let addr = server.addr;
    let (status, body) = advance_status(addr, u64::MAX).await;
    assert_eq!(status, 400, "{body}");
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("end of virtual time"), "{message}");
    assert_eq!(
        ledger(addr).await.now_ms,
        0,
        "a refused advance moves nothing"
    );

    // The largest allowed advance, then a new session that works.
    assert_eq!(advance(addr, MAX_VIRTUAL_MS).await, MAX_VIRTUAL_MS);
    let session = initialize(addr, "2025-06-18").await;
    let response = Req::post(Some(&session), &rpc(2, "ping", json!({})))
        .send(addr)
        .await;
    assert_eq!(response.status(), 200);
    let (status, _) = advance_status(addr, 1).await;
    assert_eq!(status, 400, "nothing is left to advance");
    let body = ledger(addr).await;
    let entry = &body.ledger.sessions[0];
    assert_eq!(entry.created_ms, MAX_VIRTUAL_MS);
    assert_eq!(entry.died, None, "alive, not dead before it was created");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_absurd_time_scale_does_not_start() {
    for scale in [1e300, f64::INFINITY, -1.0, MAX_TIME_SCALE * 2.0] {
        let started = faultline_server::start(
            Config::well_behaved(1).with_time_scale(scale),
            "127.0.0.1:0".parse().unwrap(),
        )
        .await;
        let error = started.expect_err("refused");
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("time scale"), "{error}");
    }
}
