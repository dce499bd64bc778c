//! A resumption answered `409 Conflict` is asked again before the 409 is its answer.
//!
//! The probe closes each resumption's stream and sends the next at once; a server learns
//! of the close only when it next touches that connection, so it may still count the
//! closed stream as open and answer the next GET 409 (the TypeScript SDK 1.32.2's server,
//! under load, did for `resume_finished` in 6 probes of 14, and for `resume_malformed`
//! in 1). The server here (`common`) answers the malformed cursor's GET 409 a given
//! number of times, then 400.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

const MALFORMED: &str = "not a cursor!";

/// Probes a server that answers the malformed cursor 409 `conflicts` times, then 400;
/// returns the `resume_malformed` row's status and how many such GETs the server saw.
fn probe_with_conflicts(conflicts: usize) -> (u16, usize) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let url = common::serve(move |get| {
        if get.last_event_id.as_deref() != Some(MALFORMED) {
            return ("404 Not Found", String::new());
        }
        if counter.fetch_add(1, Ordering::SeqCst) < conflicts {
            let error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Conflict: only one SSE stream is allowed per session"}}"#;
            ("409 Conflict", error.into())
        } else {
            let error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: malformed Last-Event-ID"}}"#;
            ("400 Bad Request", error.into())
        }
    });
    let probed = faultline_probe::probe(&url).expect("the probe runs");
    let row = probed
        .rows
        .iter()
        .find(|r| r.step == "resume_malformed")
        .expect("a resume_malformed row");
    assert_eq!(
        probed
            .rows
            .iter()
            .filter(|r| r.step == "resume_malformed")
            .count(),
        1,
        "one row a step, however many times it was asked"
    );
    (row.status, seen.load(Ordering::SeqCst))
}

#[test]
fn a_conflict_that_clears_is_not_the_answer() {
    assert_eq!(probe_with_conflicts(2), (400, 3));
}

#[test]
fn a_conflict_that_stays_is_the_answer_after_five_more_asks() {
    assert_eq!(probe_with_conflicts(usize::MAX), (409, 6));
}
