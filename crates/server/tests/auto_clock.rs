//! `--time-scale auto`: virtual time jumps whenever every client waits on the server, so
//! an hour of job steps passes in milliseconds, and the client sees the same bytes it
//! would have seen on a wall clock.

use std::time::Duration;

use crate::common::*;
use faultline_server::Config;

fn auto_config(seed: u64) -> Config {
    Config::well_behaved(seed)
        .with_control(true)
        .with_auto_time(Duration::from_millis(30))
}

/// The `progress` values of the `notifications/progress` messages among `events`.
fn progress_values(events: &[SseEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|e| !e.is_priming())
        .map(|e| e.json())
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_u64().expect("progress"))
        .collect()
}

#[tokio::test]
async fn a_long_job_of_81_one_minute_steps_finishes_without_waiting_81_minutes() {
    let server = start(auto_config(3)).await;
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25").await;
    let response = Req::post(Some(&session), &long_job(2, 81, 60_000))
        .send(addr)
        .await;
    let mut stream = SseReader::new(response);
    let (events, end) = tokio::time::timeout(PATIENCE, stream.rest())
        .await
        .expect("81 virtual minutes pass in well under the patience");
    assert_eq!(end, SseEnd::Closed);
    assert_eq!(progress_values(&events), (1..=81).collect::<Vec<_>>());
    let result = events.last().expect("a result").json();
    assert_eq!(result["id"], 2, "{result}");
    assert!(result["result"].is_object(), "{result}");
    // The clock stands where the last step was due: it jumped, it did not run on.
    let clock = control(addr, "GET", "/_chaos/clock", serde_json::Value::Null).await;
    assert_eq!(clock["time_scale"], "auto");
    let now = clock["now_ms"].as_u64().expect("now");
    assert!(
        (81 * 60_000..81 * 60_000 + 1_000).contains(&now),
        "virtual time {now} ms"
    );
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn with_nobody_waiting_time_still_reaches_what_is_due() {
    // No client is connected after initialize: after the grace, the clock jumps to the
    // idle TTL one hour away and the session expires, with no one advancing the clock.
    let mut config = auto_config(4);
    config.knobs.session_idle_ttl = faultline_model::PositiveDurationMs::new(3_600_000);
    // The session is never used: without this it would die at the 60 s unused-session
    // TTL, the first thing due, which the clock would reach just as well.
    config.limits.unused_session_ttl = None;
    let server = start(config).await;
    let addr = server.addr;
    initialize(addr, "2025-11-25").await;
    let died = tokio::time::timeout(PATIENCE, async {
        loop {
            // Control calls are not client activity: polling the ledger does not hold
            // the clock back.
            let body = ledger(addr).await;
            if body.live_sessions.is_empty() {
                return body.ledger;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the session expires on the auto clock");
    assert_eq!(
        died.sessions[0].died,
        Some((3_600_000, faultline_model::DeathCause::IdleTtl)),
        "{:?}",
        died.sessions
    );
    server.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn a_client_cut_off_comes_back_exactly_when_the_scenario_says_however_fast_it_reconnects() {
    // The call's stream is cut after its third event and the client is away for five
    // minutes. This client reconnects at once, in wall time; on the auto clock its
    // resumption is still handled exactly five virtual minutes after the cut, as in the
    // simulator, so the ledger does not depend on how fast the client or machine is.
    let scenario = faultline_scenario::Scenario::parse(
        r#"Scenario(name: "cut", summary: "cut mid-call, away 5m",
            workload: [CallTool(at: "0s", tool: LongJob(steps: 10, interval: "1m"))],
            faults: [Drop(when: AfterEvent(n: 3, on: Call(0)), mode: Close, stream: Call(0), away: Some("5m"))])"#,
        "cut.ron",
    )
    .expect("valid scenario");
    let config = Config::from_scenario(scenario)
        .with_control(true)
        .with_auto_time(Duration::from_millis(30));
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25").await;
    let response = Req::post(Some(&session), &long_job(2, 10, 60_000))
        .send(addr)
        .await;
    let mut first = SseReader::new(response);
    let (before, end) = tokio::time::timeout(PATIENCE, first.rest())
        .await
        .expect("cut");
    assert_eq!(end, SseEnd::Closed);
    let cursor = before
        .last()
        .and_then(|e| e.id)
        .expect("an id before the cut");
    let response = Req::get(&session, Some(&cursor.to_string()))
        .send(addr)
        .await;
    let mut resumed = SseReader::new(response);
    let (after, _) = tokio::time::timeout(PATIENCE, resumed.rest())
        .await
        .expect("the resumed stream ends with the result");
    let mut all = progress_values(&before);
    all.extend(progress_values(&after));
    assert_eq!(all, (1..=10).collect::<Vec<_>>());
    let body = ledger(addr).await;
    let cut_at = body.faults_fired.first().expect("the fault fired").at_ms;
    let resumed_at = body.ledger.resumptions.first().expect("a resumption").at_ms;
    assert!(cut_at >= 60_000, "{:?}", body.faults_fired);
    assert_eq!(
        resumed_at,
        cut_at + 5 * 60_000,
        "{:?}",
        body.ledger.resumptions
    );
    server.shutdown().await.expect("shutdown");
}
