//! Resuming behind a balancer, where the replicas share the session store (and with it the
//! session's id counter) but each keeps its own event log: a resumption that lands on
//! another replica meets a log that never held its stream. Two ways that looked contiguous
//! to the guarded client, each found by `explore --client guarded` past seed 100,000:
//!
//! - the replica opens a new stream whose priming event (SEP-1699) takes the next id of the
//!   session, exactly the cursor plus one (seed 115543);
//! - the replica replays another stream's events after the cursor (`ReplayRemaining` on a
//!   cursor it does not know), ids the client had applied already (seed 127368).
//!
//! The guarded client now treats a priming event at the head of a resumed stream, and an id
//! it saw before in a session that advertised unique ids, as a failed resumption.

use faultline_sim::{ClientModel, VerdictKind};

use crate::common::{cursor_errors, scenario};

#[test]
fn a_priming_event_at_the_head_of_a_resumed_stream_is_a_failed_resumption() {
    let s = scenario(
        r#"Scenario(name: "priming_on_resume", summary: "t", seed: 115543,
            server: (id_scheme: SessionMonotonic, unknown_cursor: ReplayRemaining,
                priming_events: true, restart_persistence: Everything),
            fleet: (replicas: 2, balancer: RoundRobin, session_store: Shared),
            client: (start_at: "1m", protocol_version: "2025-11-25", reconnect_delay: "1s",
                standalone_stream: false),
            workload: [
                CallTool(at: "1m", tool: LongJob(steps: 1, interval: "4s")),
                CallTool(at: "1m", tool: LongJob(steps: 2, interval: "50s")),
            ],
            faults: [Drop(when: At("2m"), mode: Reset)],
            horizon: Some("1d"))"#,
    );
    // The trap: the resumed GET reaches the replica that never held call 1's stream; its
    // new stream's priming id follows the cursor, and call 1's result stays on the other.
    let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    assert!(naive.has(VerdictKind::SilentGap), "{:?}", naive.kinds());

    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    assert_eq!(guarded.kinds(), vec![VerdictKind::Detected]);
    let errors = cursor_errors(&guarded);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("began with a priming event (id 6)")
            && errors[0].contains("after cursor 5"),
        "{}",
        errors[0]
    );
    assert!(guarded.result.record.calls[1].completed_at_ms.is_some());
}

#[test]
fn an_id_applied_before_at_the_head_of_a_resumed_stream_is_a_failed_resumption() {
    let s = scenario(
        r#"Scenario(name: "cross_stream_replay", summary: "t", seed: 127368,
            server: (id_scheme: SessionMonotonic, unknown_cursor: ReplayRemaining,
                event_log_capacity: Some(2), restart_persistence: Everything),
            fleet: (replicas: 3, balancer: Random, session_store: Shared),
            client: (start_at: "0s", protocol_version: "2025-11-25", reconnect_delay: "1s",
                standalone_stream: true),
            workload: [
                CallTool(at: "2m", tool: LongJob(steps: 66, interval: "1m")),
                CallTool(at: "24m48s", tool: LongJob(steps: 60, interval: "2s345ms")),
                CallTool(at: "21m17s", tool: LongJob(steps: 35, interval: "14s273ms")),
                Notify(from: "1m", every: "1m", count: 1),
            ],
            faults: [Drop(when: AfterEvent(n: 52, on: Call(1)), mode: Close)],
            horizon: Some("1d"))"#,
    );
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    let errors = cursor_errors(&guarded);
    assert!(
        errors.iter().any(|e| e.contains("arrived a second time")),
        "{errors:?}"
    );
    assert_eq!(guarded.kinds(), vec![VerdictKind::Detected]);
    // The trap loses data for a client without the check (the naive one here).
    let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    assert!(
        naive.kinds().iter().any(|k| k.is_loss()),
        "{:?}",
        naive.kinds()
    );
}
