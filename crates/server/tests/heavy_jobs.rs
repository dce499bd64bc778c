//! A big `long_job` does not freeze the server: its steps run a bounded number per turn,
//! the lock released in between, so another session's request is served while it runs;
//! and a job asking for more steps than the server allows is refused with the limit named.

use crate::common::*;
use faultline_model::JobEnd;
use faultline_server::{Config, Limits};
use serde_json::json;

/// One step per turn and a million steps: without turns, the call's POST would run every
/// step before it answered, and the ledger read after the echo would show the job ended.
#[tokio::test]
async fn an_echo_is_served_while_a_big_interval_0_job_runs() {
    let limits = Limits {
        max_job_steps: 1_000_000,
        job_steps_per_turn: 1,
        ..Limits::default()
    };
    let server = start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0)
            .with_limits(limits),
    )
    .await;
    let addr = server.addr;
    let busy = initialize(addr, "2025-06-18").await;
    let other = initialize(addr, "2025-06-18").await;
    // No progress token: the job writes nothing until its result.
    let job = rpc(
        1,
        "tools/call",
        json!({"name": "long_job", "arguments": {"steps": 1_000_000, "interval_ms": 0}}),
    );
    let job_stream = Req::post(Some(&busy), &job).send(addr).await;
    assert_eq!(job_stream.status(), 200);

    let echo = rpc(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let answer = Req::post(Some(&other), &echo).send(addr).await;
    assert_eq!(answer.status(), 200);
    let body = json_body(answer).await;
    assert_eq!(body["result"]["content"][0]["text"], "hi");

    // Read after the echo was answered: the job was still running then.
    let body = ledger(addr).await;
    let job = &body.ledger.jobs[0];
    assert_eq!(job.steps, 1_000_000);
    assert_eq!(
        job.ended, None,
        "the job still runs after the echo was served"
    );
    let echo_answer = body
        .ledger
        .answers
        .iter()
        .find(|a| {
            a.session_sent.as_deref() == Some(other.as_str())
                && a.rpc_method.as_deref() == Some("tools/call")
        })
        .expect("the echo is in the ledger");
    assert_eq!(echo_answer.status, 200);

    // Ending the session ends the job.
    let deleted = Req::new("DELETE")
        .header("mcp-session-id", &busy)
        .send(addr)
        .await;
    assert_eq!(deleted.status(), 200);
    let body = ledger(addr).await;
    assert!(matches!(
        body.ledger.jobs[0].ended,
        Some((_, JobEnd::Killed))
    ));
    drop(job_stream);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_job_above_the_step_limit_is_refused_with_the_limit_named() {
    let server = start_frozen().await;
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18").await;
    let max = Limits::default().max_job_steps;
    let job = rpc(
        1,
        "tools/call",
        json!({"name": "long_job", "arguments": {"steps": max + 1, "interval_ms": 0}}),
    );
    let response = Req::post(Some(&session), &job).send(addr).await;
    assert_eq!(response.status(), 200);
    let body = json_body(response).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("from 0 to {max}")), "{message}");
    assert!(ledger(addr).await.ledger.jobs.is_empty());
    server.shutdown().await.unwrap();
}

/// A session at its cap of streams gets 429 for a call that would open one more.
#[tokio::test]
async fn a_session_at_its_stream_cap_gets_429() {
    let limits = Limits {
        max_streams_per_session: 2,
        ..Limits::default()
    };
    let server = start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0)
            .with_limits(limits),
    )
    .await;
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18").await;
    let mut open = Vec::new();
    for id in 0..2 {
        let response = Req::post(Some(&session), &long_job(id, 10, 1_000))
            .send(addr)
            .await;
        assert_eq!(response.status(), 200);
        open.push(response);
    }
    let response = Req::post(Some(&session), &long_job(3, 10, 1_000))
        .send(addr)
        .await;
    assert_eq!(response.status(), 429);
    let body = json_body(response).await;
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Too Many Requests"), "{message}");
    drop(open);
    server.shutdown().await.unwrap();
}
