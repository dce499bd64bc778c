//! Cancel on close (2026-07-28): a request stream whose connection closes ends its job as
//! `on_stream_cut` says, recorded as `JobEnd::StreamClosed`, and nothing is produced
//! after the cut. `place_order` commits before its commit step's progress, so a cut
//! between progress `commit_step − 1` and `commit_step` commits 0 times under
//! `StopAtOnce` and once under `FinishThroughCommit` and `RunToEnd`.

use crate::modern_common::*;
use faultline_model::{
    ConnId, EndMode, JobEnd, Ledger, OnStreamCut, Output, Payload, Server, ServerKnobs,
};
use serde_json::json;

const CONN: ConnId = ConnId(1);

fn call(name: &str, arguments: serde_json::Value) -> faultline_model::HttpRequest {
    let mut params = with_meta(json!({"name": name, "arguments": arguments}));
    params["_meta"]["progressToken"] = json!(7);
    modern_post(1, "tools/call", params)
}

/// `place_order` of 3 steps 10 ms apart committing at step 2 (due at 20 ms).
fn place_order() -> faultline_model::HttpRequest {
    call(
        "place_order",
        json!({"order": "call-0", "steps": 3, "interval_ms": 10, "commit_step": 2}),
    )
}

/// Starts `request` at 0, cuts its connection at `cut_ms` with `cut`, runs to 1 s.
fn run_cut(
    knobs: ServerKnobs,
    request: faultline_model::HttpRequest,
    cut_ms: u64,
    cut: impl FnOnce(&mut Server, &mut Vec<Output>),
) -> (Server, Vec<Output>) {
    let mut server = server(knobs);
    let mut out = Vec::new();
    server.handle(CONN, request, 0, &mut out);
    server.advance(cut_ms, &mut out);
    out.clear();
    cut(&mut server, &mut out);
    server.advance(1_000, &mut out);
    (server, out)
}

fn disconnect_at(ms: u64) -> impl FnOnce(&mut Server, &mut Vec<Output>) {
    move |server, out| server.disconnect(CONN, ms, out)
}

fn on_cut(on_stream_cut: OnStreamCut) -> ServerKnobs {
    ServerKnobs {
        on_stream_cut,
        ..ServerKnobs::default()
    }
}

fn assert_nothing_after(ledger: &Ledger, out: &[Output], cut_ms: u64) {
    assert!(
        ledger.events.iter().all(|e| e.at_ms <= cut_ms),
        "an event was produced after the cut: {:?}",
        ledger.events
    );
    assert!(
        !out.iter().any(|o| matches!(o, Output::Event { .. })),
        "an event was sent after the cut: {out:?}"
    );
}

#[test]
fn a_disconnect_stops_a_long_job_at_once_by_default() {
    let (server, out) = run_cut(
        ServerKnobs::default(),
        call("long_job", json!({"steps": 5, "interval_ms": 10})),
        15,
        disconnect_at(15),
    );
    let ledger = server.ledger();
    assert_nothing_after(ledger, &out, 15);
    assert_eq!(ledger.events.len(), 1, "only progress 1 (at 10 ms)");
    assert_eq!(ledger.jobs[0].ended, Some((15, JobEnd::StreamClosed)));
    assert_eq!(ledger.streams[0].closed_ms, Some(15));
}

#[test]
fn a_server_side_drop_ends_the_job_too() {
    let (server, out) = run_cut(
        ServerKnobs::default(),
        call("long_job", json!({"steps": 5, "interval_ms": 10})),
        25,
        |server, out| server.drop_connection(CONN, EndMode::Reset, 25, out),
    );
    let ledger = server.ledger();
    assert_eq!(
        out.first(),
        Some(&Output::End {
            conn: CONN,
            how: EndMode::Reset
        })
    );
    assert_nothing_after(ledger, &out, 25);
    assert_eq!(ledger.jobs[0].ended, Some((25, JobEnd::StreamClosed)));
}

#[test]
fn a_job_that_runs_on_after_a_cut_produces_nothing() {
    let (server, out) = run_cut(
        on_cut(OnStreamCut::RunToEnd),
        call("long_job", json!({"steps": 5, "interval_ms": 10})),
        15,
        disconnect_at(15),
    );
    let ledger = server.ledger();
    assert_nothing_after(ledger, &out, 15);
    assert!(
        !ledger
            .events
            .iter()
            .any(|e| matches!(e.payload, Payload::ToolResult { .. })),
        "no result after a cut"
    );
    assert_eq!(ledger.jobs[0].ended, Some((50, JobEnd::StreamClosed)));
}

#[test]
fn a_cut_before_the_commit_step_commits_zero_or_one_times_per_on_stream_cut() {
    // Progress 1 at 10 ms, the commit (then progress 2) at 20 ms, progress 3 at 30 ms.
    for (knob, commits, ended) in [
        (OnStreamCut::StopAtOnce, 0, 15),
        (OnStreamCut::FinishThroughCommit, 1, 20),
        (OnStreamCut::RunToEnd, 1, 30),
    ] {
        let (server, out) = run_cut(on_cut(knob), place_order(), 15, disconnect_at(15));
        let ledger = server.ledger();
        assert_eq!(ledger.effects.len(), commits, "{knob:?}");
        assert_eq!(
            ledger.jobs[0].ended,
            Some((ended, JobEnd::StreamClosed)),
            "{knob:?}"
        );
        assert_nothing_after(ledger, &out, 15);
        if let Some(effect) = ledger.effects.first() {
            assert_eq!(
                (
                    effect.order.as_str(),
                    effect.at_ms,
                    effect.request_id.clone()
                ),
                ("call-0", 20, json!(1)),
                "{knob:?}"
            );
        }
    }
}

#[test]
fn place_order_commits_before_its_commit_steps_progress() {
    // Cut right after the event of step 2 (both due at 20 ms): the commit is in.
    let (cut, _) = run_cut(ServerKnobs::default(), place_order(), 20, disconnect_at(20));
    let ledger = cut.ledger();
    assert_eq!(ledger.effects.len(), 1);
    assert_eq!(ledger.events.len(), 2, "progress 1 and 2");
    assert_eq!(ledger.jobs[0].ended, Some((20, JobEnd::StreamClosed)));

    // Uncut, it commits once and finishes.
    let mut server = server(ServerKnobs::default());
    let mut out = Vec::new();
    server.handle(CONN, place_order(), 0, &mut out);
    server.advance(1_000, &mut out);
    let ledger = server.ledger();
    assert_eq!(ledger.effects.len(), 1);
    assert_eq!(ledger.jobs[0].ended, Some((30, JobEnd::Finished)));
    assert_eq!(ledger.streams[0].closed_ms, None);
}

#[test]
fn a_second_place_order_places_a_second_order() {
    let mut server = server(ServerKnobs::default());
    let mut out = Vec::new();
    server.handle(CONN, place_order(), 0, &mut out);
    server.handle(ConnId(2), place_order(), 100, &mut out);
    server.advance(1_000, &mut out);
    let orders: Vec<(&str, u64)> = server
        .ledger()
        .effects
        .iter()
        .map(|e| (e.order.as_str(), e.at_ms))
        .collect();
    assert_eq!(orders, vec![("call-0", 20), ("call-0", 120)]);
}

#[test]
fn place_order_refuses_a_commit_step_past_its_steps() {
    let mut server = server(ServerKnobs::default());
    let response = answer(
        &mut server,
        call(
            "place_order",
            json!({"order": "x", "steps": 2, "commit_step": 3}),
        ),
    );
    assert_eq!(code(&response), Some(-32602));
    assert!(server.ledger().jobs.is_empty());
}

/// The ledger keeps each commit's order key whole, so a key is short: a long one is
/// refused before anything runs.
#[test]
fn place_order_refuses_an_order_key_longer_than_the_ledger_keeps() {
    let mut server = server(ServerKnobs::default());
    let response = answer(
        &mut server,
        call("place_order", json!({"order": "k".repeat(129), "steps": 1})),
    );
    assert_eq!(code(&response), Some(-32602));
    assert!(server.ledger().jobs.is_empty());
    let mut out = Vec::new();
    let accepted = call("place_order", json!({"order": "k".repeat(128), "steps": 1}));
    server.handle(CONN, accepted, 0, &mut out);
    assert_eq!(server.ledger().jobs.len(), 1, "128 bytes is enough");
}

/// A restart cuts a request stream still being written as a dropped connection does: the
/// ledger says when (what `duplicate_effect` names as the cut that made the client send
/// the call again), though the job dies with the process. A stream that had completed
/// before the restart was not cut.
#[test]
fn a_restart_cuts_a_request_stream_still_being_written() {
    let (server, _) = run_cut(
        ServerKnobs::default(),
        call("long_job", json!({"steps": 5, "interval_ms": 10})),
        15,
        |server, out| server.restart(15, out),
    );
    let ledger = server.ledger();
    assert_eq!(ledger.streams[0].closed_ms, Some(15));
    assert_eq!(ledger.jobs[0].ended, Some((15, JobEnd::Killed)));
    let (server, _) = run_cut(
        ServerKnobs::default(),
        call("long_job", json!({"steps": 1, "interval_ms": 10})),
        15,
        |server, out| server.restart(15, out),
    );
    assert_eq!(server.ledger().streams[0].closed_ms, None);
}
