//! The property can fail and can pass: two toy Streamable HTTP clients written by hand
//! over hyper (SSE decoded by `sse-stream`), one that drops events whose id is at or below
//! its cursor after a resume (the dedup of the seeds' naive client), one that checks its
//! progress is contiguous and says so when it is not.

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use faultline_testkit::faultline_sim::Scenario;
use faultline_testkit::{Harness, Observed, Verdict, arb_fault_script, arb_server_knobs};
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Value, json};
use sse_stream::SseStream;
use tokio::net::TcpStream;

#[derive(Debug, Clone, Copy)]
struct Toy {
    /// Broken: after a resume, skip every event whose id is <= the cursor it sent.
    dedup_by_cursor: bool,
    /// Wall time before a resume.
    reconnect_delay: Duration,
    max_resumes: usize,
}

async fn send(
    url: &str,
    method: &str,
    headers: &[(&str, String)],
    body: Option<Value>,
) -> Result<hyper::Response<Incoming>, String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{e}"))?;
    let authority = uri.authority().ok_or("no authority")?.to_string();
    let tcp = TcpStream::connect(&authority)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut builder = Request::builder()
        .method(method)
        .uri(url)
        .header("host", authority);
    for (name, value) in headers {
        builder = builder.header(*name, value.as_str());
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let request = builder
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    sender
        .send_request(request)
        .await
        .map_err(|e| format!("request: {e}"))
}

/// Wall time without a byte after which a toy client stops waiting on a stream.
const IDLE: Duration = Duration::from_millis(500);

struct Event {
    id: Option<String>,
    data: String,
}

/// Reads SSE events until the body ends (`Ok(true)` clean, `Ok(false)` aborted) calling
/// `on_event` for each; `on_event` returning `false` stops reading. The events are
/// decoded by `sse-stream`: the toy clients' bugs are in what they do with events, not
/// in parsing them.
async fn read_sse(
    response: hyper::Response<Incoming>,
    mut on_event: impl FnMut(Event) -> Result<bool, String>,
) -> Result<bool, String> {
    let mut events = SseStream::new(response.into_body());
    loop {
        // A stream quiet for IDLE is treated as ended (a GET stream stays open forever).
        match tokio::time::timeout(IDLE, events.next()).await {
            Err(_) => return Ok(false),
            Ok(None) => return Ok(true),
            Ok(Some(Err(_))) => return Ok(false),
            Ok(Some(Ok(sse))) => {
                let event = Event {
                    id: sse.id,
                    data: sse.data.unwrap_or_default(),
                };
                if !on_event(event)? {
                    return Ok(true);
                }
            }
        }
    }
}

fn is_sse(response: &hyper::Response<Incoming>) -> bool {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The JSON-RPC response with `id` from a JSON or SSE answer.
async fn response_to(response: hyper::Response<Incoming>, id: u64) -> Result<Value, String> {
    if response.status() != 200 {
        return Err(format!("HTTP {}", response.status()));
    }
    if is_sse(&response) {
        let mut found = None;
        read_sse(response, |e| {
            if let Ok(v) = serde_json::from_str::<Value>(&e.data)
                && v["id"] == id
            {
                found = Some(v);
                return Ok(false);
            }
            Ok(true)
        })
        .await?;
        found.ok_or_else(|| "no response on the stream".to_string())
    } else {
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        serde_json::from_slice(&bytes).map_err(|e| e.to_string())
    }
}

const VERSION: &str = "2025-06-18";

/// `initialize`, `notifications/initialized`, `tools/call long_job` with a progress
/// token; resumes the call's stream with `Last-Event-ID` when it ends without a result.
async fn call_long_job(
    url: String,
    toy: Toy,
    steps: u32,
    interval_ms: u64,
) -> Result<Observed, String> {
    let base = |session: Option<&str>| {
        let mut h = vec![
            ("accept", "application/json, text/event-stream".to_string()),
            ("content-type", "application/json".to_string()),
        ];
        if let Some(s) = session {
            h.push(("mcp-session-id", s.to_string()));
            h.push(("mcp-protocol-version", VERSION.to_string()));
        }
        h
    };
    let init = send(
        &url,
        "POST",
        &base(None),
        Some(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "toy", "version": "0"}}})),
    )
    .await?;
    let session = init
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .ok_or("no session id")?
        .to_string();
    response_to(init, 1).await?;
    let ack = send(
        &url,
        "POST",
        &base(Some(&session)),
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await?;
    if ack.status() != 202 {
        return Err(format!("notifications/initialized: HTTP {}", ack.status()));
    }
    let call = send(
        &url,
        "POST",
        &base(Some(&session)),
        Some(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "long_job", "arguments": {"steps": steps, "interval_ms": interval_ms},
            "_meta": {"progressToken": "toy"}}}),
        ),
    )
    .await?;
    if call.status() != 200 {
        return Err(format!("tools/call: HTTP {}", call.status()));
    }
    let mut observed = Observed::default();
    if !is_sse(&call) {
        let v = response_to(call, 2).await?;
        observed.result = v["result"]["content"][0]["text"].as_str().map(String::from);
        return Ok(observed);
    }
    let mut cursor: Option<String> = None;
    let mut skip_upto: Option<u64> = None;
    let mut last_step = 0u32;
    let mut response = call;
    let mut resumes = 0;
    loop {
        read_sse(response, |e| {
            if let Some(id) = &e.id {
                let numeric = id.parse::<u64>().ok();
                if toy.dedup_by_cursor
                    && let (Some(n), Some(upto)) = (numeric, skip_upto)
                    && n <= upto
                {
                    return Ok(true); // "already seen"
                }
                cursor = Some(id.clone());
            }
            let Ok(v) = serde_json::from_str::<Value>(&e.data) else {
                return Ok(true); // priming event
            };
            if v["method"] == "notifications/progress" {
                let p = v["params"]["progress"].as_f64().unwrap_or(0.0);
                let step = p as u32;
                if !toy.dedup_by_cursor {
                    if step <= last_step {
                        return Ok(true); // a replayed step: drop the duplicate
                    }
                    if step != last_step + 1 {
                        return Err(format!(
                            "progress gap: expected step {}, got {step}",
                            last_step + 1
                        ));
                    }
                }
                last_step = step;
                observed.progress.push(p);
            } else if v["id"] == 2 {
                observed.result = v["result"]["content"][0]["text"].as_str().map(String::from);
                return Ok(false);
            }
            Ok(true)
        })
        .await?;
        if observed.result.is_some() {
            if !toy.dedup_by_cursor && last_step != steps {
                return Err(format!("result after step {last_step} of {steps}"));
            }
            return Ok(observed);
        }
        resumes += 1;
        let give_up = |why: String| {
            if toy.dedup_by_cursor {
                Ok(observed.clone()) // gives up quietly: the bug under test
            } else {
                Err(why)
            }
        };
        if resumes > toy.max_resumes {
            return give_up(format!("no result after {} resumes", toy.max_resumes));
        }
        let Some(c) = cursor.clone() else {
            return give_up("the stream ended before any event id".into());
        };
        tokio::time::sleep(toy.reconnect_delay).await;
        let mut headers = base(Some(&session));
        headers[0].1 = "text/event-stream".into();
        headers.push(("last-event-id", c.clone()));
        let get = send(&url, "GET", &headers, None).await?;
        if get.status() != 200 {
            return give_up(format!("resume: HTTP {}", get.status()));
        }
        skip_upto = c.parse().ok();
        response = get;
    }
}

fn behavior_a() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/behavior_a.ron");
    Scenario::load(&path).expect("scenarios/behavior_a.ron")
}

const BROKEN: Toy = Toy {
    dedup_by_cursor: true,
    reconnect_delay: Duration::from_millis(75),
    max_resumes: 3,
};
const CORRECT: Toy = Toy {
    dedup_by_cursor: false,
    reconnect_delay: Duration::from_millis(75),
    max_resumes: 3,
};

/// Behavior A live: log TTL 30 s, per-stream ids, an unknown cursor gets a fresh stream;
/// the call's stream is reset after its 41st event. At 600x a step (1 min) is 100 ms and
/// the 75 ms reconnect delay is 45 s of server time: the cursor has expired when the client
/// comes back, before the next step, as in the scenario.
fn behavior_a_harness() -> Harness {
    Harness::from_scenario(&behavior_a())
        .time_scale(600.0)
        .call(45, 60_000)
        .timeout(Duration::from_secs(20))
}

#[test]
fn broken_client_is_caught_with_silent_gap_on_behavior_a() {
    let outcome = behavior_a_harness().run(|url| call_long_job(url, BROKEN, 45, 60_000));
    println!("{}", outcome.report());
    match &outcome.verdict {
        Verdict::SilentGap {
            missing_steps,
            result_missing,
        } => {
            assert_eq!(missing_steps, &(42..=45).collect::<Vec<_>>());
            assert!(result_missing);
        }
        other => panic!("expected silent_gap, got {other:?}\n{}", outcome.report()),
    }
    assert!(!outcome.no_silent_loss());
    let report = outcome.report();
    assert!(report.contains("verdict: silent_gap"), "{report}");
    assert!(
        report.contains("missing progress steps: 42..=45"),
        "{report}"
    );
    assert!(report.contains("faultline serve --scenario "), "{report}");
}

#[test]
fn correct_client_passes_on_behavior_a() {
    let outcome = behavior_a_harness().run(|url| call_long_job(url, CORRECT, 45, 60_000));
    println!("{}", outcome.report());
    assert!(outcome.no_silent_loss(), "{}", outcome.report());
}

#[test]
fn both_clients_are_clean_without_faults() {
    let knobs = faultline_server::Config::well_behaved(1).knobs;
    for toy in [BROKEN, CORRECT] {
        let outcome = Harness::new(knobs.clone(), Vec::new())
            .call(20, 1_000)
            .run(move |url| call_long_job(url, toy, 20, 1_000));
        assert!(outcome.is_clean(), "{toy:?}\n{}", outcome.report());
        assert_eq!(outcome.truth.produced_steps, (1..=20).collect::<Vec<_>>());
    }
}

#[test]
fn a_hanging_client_is_hung_not_a_stuck_test() {
    let outcome = Harness::new(faultline_server::Config::well_behaved(1).knobs, Vec::new())
        .timeout(Duration::from_millis(300))
        .run(|_url| async {
            std::future::pending::<()>().await;
            Ok::<_, String>(Observed::default())
        });
    assert_eq!(outcome.verdict.name(), "hung", "{}", outcome.report());
    assert!(!outcome.no_silent_loss());
}

/// The correct toy client never loses progress silently on swarm-drawn servers.
#[test]
fn correct_client_never_loses_progress_silently() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(8);
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 16,
        ..ProptestConfig::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(
        &(arb_server_knobs(), arb_fault_script()),
        |(knobs, faults)| {
            let outcome =
                Harness::new(knobs, faults).run(|url| call_long_job(url, CORRECT_SWARM, 20, 1_000));
            prop_assert!(outcome.no_silent_loss(), "{}", outcome.report());
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// With the swarm's knobs a 1 s back-off is a minute of server time.
const CORRECT_SWARM: Toy = Toy {
    dedup_by_cursor: false,
    reconnect_delay: Duration::from_millis(100),
    max_resumes: 5,
};

/// The same proptest seed draws the same cases, and a case run twice gives the same
/// outcome: a failure seen once can be seen again.
#[test]
fn same_seed_same_cases_and_same_outcome() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let draw = || {
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let mut runner = TestRunner::new_with_rng(Config::default(), rng);
        (0..16)
            .map(|_| {
                let tree = (
                    faultline_testkit::arb_server_knobs(),
                    faultline_testkit::arb_fault_script(),
                )
                    .new_tree(&mut runner)
                    .expect("a case");
                format!("{:?}", tree.current())
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(), draw());

    let a = behavior_a_harness().run(|url| call_long_job(url, BROKEN, 45, 60_000));
    let b = behavior_a_harness().run(|url| call_long_job(url, BROKEN, 45, 60_000));
    assert_eq!(a.verdict, b.verdict, "{}\n---\n{}", a.report(), b.report());
}
