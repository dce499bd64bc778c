//! The step budgets on the 2026-07-28 path (issue 29, item 4, second half): a sessionless
//! request stream, a task and a 2025 request served without a session obey the same
//! per-request, per-session and per-server budgets as the 2025 POST path, the stateless
//! scope standing for the session; a request stream whose client left stops, which gives
//! its steps back.
//!
//! Over real sockets with a frozen clock (each job's first step is a second of virtual
//! time away, never reached), so that every job still has all its steps to run. Nothing
//! waits on wall time: a cut is awaited on the server's own notice (`App::wait_closed`).

use crate::common::*;
use faultline_model::{ConnId, Era};
use faultline_server::{Config, Limits};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A 2026-07-28 `tools/call long_job`; `as_task` declares the tasks extension.
fn modern_job(id: u64, steps: u32, as_task: bool) -> Req {
    let extensions = if as_task {
        json!({TASKS: {}})
    } else {
        json!({})
    };
    let params = json!({
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": 1_000},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
            "io.modelcontextprotocol/clientInfo": {"name": "modern_budgets", "version": "0"},
        },
    });
    Req::post(None, &rpc(id, "tools/call", params))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "long_job")
}

fn budgeted(era: Era) -> Config {
    let mut config = Config::well_behaved(7)
        .with_control(true)
        .with_time_scale(0.0)
        .with_limits(Limits {
            max_steps_per_request: Some(80_000),
            max_steps_per_session: Some(150_000),
            max_steps_per_server: Some(250_000),
            ..Limits::default()
        });
    config.knobs.era = era;
    config
}

/// The JSON-RPC error code of a call refused with `status`.
async fn refused(response: hyper::Response<hyper::body::Incoming>, status: u16) -> i64 {
    assert_eq!(response.status(), status);
    let body = json_body(response).await;
    body["error"]["code"].as_i64().expect("a JSON-RPC error")
}

#[tokio::test]
async fn request_streams_and_tasks_obey_the_step_budgets() {
    let server = start(budgeted(Era::DualStatefulLegacy)).await;
    let addr = server.addr;
    // Per request: one call asking for more than 80,000 steps, as a stream or a task.
    for as_task in [false, true] {
        let code = refused(modern_job(1, 90_000, as_task).send(addr).await, 400).await;
        assert_eq!(code, -32602);
    }
    assert!(ledger(addr).await.ledger.jobs.is_empty(), "nothing started");
    // A request stream of 80,000 steps, held open.
    let stream_conn = ConnId(server.app.next_conn());
    let stream = modern_job(2, 80_000, false).send(addr).await;
    assert_eq!(stream.status(), 200);
    // Per session: the stateless scope holds 80,000; a task of 80,000 more passes 150,000.
    let code = refused(modern_job(3, 80_000, true).send(addr).await, 429).await;
    assert_eq!(code, -32600);
    // Per server: two 2025 sessions' jobs take the running total to 240,000.
    let mut held = Vec::new();
    for id in [4, 5] {
        let session = initialize(addr, "2025-11-25").await;
        let response = Req::post(Some(&session), &long_job(id, 80_000, 1_000))
            .send(addr)
            .await;
        assert_eq!(response.status(), 200);
        held.push(response);
    }
    let code = refused(modern_job(6, 20_000, true).send(addr).await, 503).await;
    assert_eq!(code, -32600);
    assert_eq!(ledger(addr).await.ledger.jobs.len(), 3);
    // The stream's client leaves: its job stops at the cut and its steps are given back.
    drop(stream);
    tokio::time::timeout(PATIENCE, server.app.wait_closed(stream_conn))
        .await
        .expect("the server saw the client leave");
    let task = json_body(modern_job(7, 10_000, true).send(addr).await).await;
    assert_eq!(task["result"]["resultType"], "task", "{task}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_sessionless_2025_request_obeys_the_step_budgets() {
    let server = start(budgeted(Era::DualStatelessLegacy)).await;
    let call = |id, steps| {
        Req::post(None, &long_job(id, steps, 1_000)).header("mcp-protocol-version", "2025-11-25")
    };
    let response = call(1, 90_000).send(server.addr).await;
    assert_eq!(response.status(), 400);
    let first = call(2, 80_000).send(server.addr).await;
    assert_eq!(first.status(), 200);
    let response = call(3, 80_000).send(server.addr).await;
    assert_eq!(response.status(), 429);
    let body: Value = json_body(response).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("150000 steps"),
        "{body}"
    );
    assert_eq!(ledger(server.addr).await.ledger.jobs.len(), 1);
    drop(first);
    server.shutdown().await.unwrap();
}
