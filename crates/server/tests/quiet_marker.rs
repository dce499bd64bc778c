//! The testkit's clock: an auto clock with no grace moves only while a client waits on
//! the server, and the quiescence marker tells a listening client when nothing more will
//! come until it acts.

use crate::common::*;
use faultline_model::JobEnd;
use faultline_server::{Config, NO_GRACE};
use futures_util::StreamExt;
use hyper::body::Incoming;
use sse_stream::SseStream;

/// Reads `response`'s SSE events up to the quiescence marker; returns their data.
async fn until_quiet(response: hyper::Response<Incoming>) -> Vec<String> {
    let mut events = SseStream::new(response.into_body());
    let mut seen = Vec::new();
    let read = async {
        while let Some(event) = events.next().await {
            let event = event.expect("a well-formed SSE event");
            if event.event.as_deref() == Some("faultline.quiet") {
                assert_eq!(
                    event.data.as_deref(),
                    Some(""),
                    "the marker carries no data"
                );
                return;
            }
            seen.push(event.data.unwrap_or_default());
        }
        panic!("the stream ended without the marker: {seen:?}");
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .expect("the server goes quiet");
    seen
}

#[tokio::test]
async fn a_job_runs_on_while_its_client_listens_then_the_server_says_it_is_quiet() {
    // The server closes the call's stream after its second event.
    let scenario = faultline_scenario::Scenario::parse(
        r#"Scenario(name: "cut", summary: "the call's stream closes after event 2",
            workload: [CallTool(at: "0s", tool: LongJob(steps: 5, interval: "1m"))],
            faults: [Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Close, stream: Call(0))])"#,
        "cut.ron",
    )
    .expect("valid scenario");
    let config = Config::from_scenario(scenario)
        .with_control(true)
        .with_auto_time(NO_GRACE)
        .with_quiet_marker(true);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25").await;
    let response = Req::post(Some(&session), &long_job(2, 5, 60_000))
        .send(addr)
        .await;
    let mut call = SseStream::new(response.into_body());
    let mut events = 0;
    while let Some(event) = call.next().await {
        event.expect("well-formed");
        events += 1;
    }
    assert_eq!(events, 2, "the stream closes after its second event");
    // Nothing awaits the server now: with no grace, time stands still, however long
    // this client takes to come back.
    let job_running = |app: &faultline_server::App| {
        app.with_engine(|e| e.server().ledger().jobs[0].ended.is_none())
    };
    assert!(job_running(&server.app));
    // Listening on the standalone stream, the client waits on the job's session: the
    // clock runs the job to its end, then the server goes quiet and says so.
    let listening = Req::get(&session, None).send(addr).await;
    let before_marker = until_quiet(listening).await;
    assert!(
        before_marker.iter().all(String::is_empty),
        "only a priming event may come before the marker: {before_marker:?}"
    );
    let (started_ms, ended) = server.app.with_engine(|e| {
        let job = &e.server().ledger().jobs[0];
        (job.started_ms, job.ended)
    });
    assert_eq!(ended, Some((started_ms + 5 * 60_000, JobEnd::Finished)));
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn with_no_grace_a_quiet_server_keeps_its_time() {
    // An idle TTL is due, nobody waits on the server: the marker comes, and time has not
    // moved (a grace would have jumped to the TTL and killed the session).
    let mut config = Config::well_behaved(6)
        .with_control(true)
        .with_auto_time(NO_GRACE)
        .with_quiet_marker(true);
    config.knobs.session_idle_ttl = faultline_model::PositiveDurationMs::new(60_000);
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25").await;
    until_quiet(Req::get(&session, None).send(addr).await).await;
    let (now_ms, died) = server
        .app
        .with_engine(|e| (e.server().now_ms(), e.server().ledger().sessions[0].died));
    assert_eq!((now_ms, died), (0, None));
    server.shutdown().await.expect("shutdown");
}
