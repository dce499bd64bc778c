//! A live stream skips ids of the session's counter that went to the session's other
//! streams. Found by `explore --client guarded` at seed 1,929,847: behind a balancer, a
//! rolling deploy restarts the session's replica while the client is away; the replica
//! forgets which stream was the session's standalone one and buffers its notifications
//! (ids 22 and 23) on a new stream; the client's resumption, read from the shared event
//! store, goes on on the old stream, which then skips to 26. No stream of the client's
//! carried 24 and 25: with no other stream of the session that could still carry events
//! (the call's stream brought its result and is done) and nothing else in flight, the
//! guarded client now calls that a failed resumption.
//!
//! A skip is no loss where the client had opened another stream the ids may have gone to:
//! a call it re-ran on a new stream, its first attempt's stream left behind (migration
//! seed 16694).

use faultline_sim::{ClientModel, VerdictKind};

use crate::common::{cursor_errors, scenario};

#[test]
fn ids_skipped_on_the_sessions_only_stream_and_seen_nowhere_fail_the_resumption() {
    let s = scenario(
        r#"Scenario(name: "orphaned_stream", summary: "t", seed: 1929847,
            server: (id_scheme: SessionMonotonic, unknown_cursor: ReplayRemaining,
                restart_persistence: SessionIdsOnly, advertise_monotonic_ids: true,
                priming_events: false),
            fleet: (replicas: 4, balancer: StickySessionId, session_store: PerReplica,
                event_store: Shared(by: Session)),
            client: (start_at: "1m", protocol_version: "2025-11-25", reconnect_delay: "1m",
                standalone_stream: true),
            workload: [
                CallTool(at: "1m", tool: LongJob(steps: 1, interval: "1m"), progress: true),
                Notify(from: "1m", every: "1m", count: 235),
            ],
            faults: [
                Drop(when: At("19m"), mode: Reset, stream: Any, away: Some("5m")),
                RollingDeploy(when: At("22m"), every: "7s", down: "1m"),
            ],
            horizon: Some("1d"))"#,
    );
    let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    assert!(naive.has(VerdictKind::SilentGap), "{:?}", naive.kinds());

    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    assert!(
        !guarded.has(VerdictKind::SilentGap),
        "{:?}",
        guarded.kinds()
    );
    assert!(guarded.has(VerdictKind::Detected), "{:?}", guarded.kinds());
    let errors = cursor_errors(&guarded);
    assert!(
        errors.iter().any(|e| e.contains(
            "ids 24..=25 were skipped on the session's only open stream and never arrived anywhere"
        )),
        "{errors:?}"
    );
    // The evidence: ids 24 and 25 were produced on a stream of their own.
    let ledger = &guarded.result.ledger;
    let streams: Vec<_> = ledger
        .events
        .iter()
        .filter(|e| e.id == 24 || e.id == 25)
        .map(|e| e.stream)
        .collect();
    let resumed = ledger
        .events
        .iter()
        .find(|e| e.id == 23)
        .expect("id 23")
        .stream;
    assert!(
        !streams.is_empty() && streams.iter().all(|&st| st != resumed),
        "{streams:?}"
    );
}

#[test]
fn a_skip_past_a_stream_the_client_left_behind_is_no_loss() {
    let s = scenario(
        r#"Scenario(name: "left_behind", summary: "t", seed: 16694,
            server: (id_scheme: SessionMonotonic, unknown_cursor: BadRequest,
                advertise_monotonic_ids: true, priming_events: false),
            client: (start_at: "16s913ms", protocol_version: "2025-11-25",
                reconnect_delay: "538ms", standalone_stream: false, lists_tools: true,
                accepts_sessionless: true),
            workload: [CallTool(at: "9m52s244ms", tool: LongJob(steps: 2, interval: "56s241ms"),
                progress: true)],
            faults: [
                ChangeList(at: "10m13s634ms", list: tools, notify: true),
                Drop(when: At("10m10s766ms"), mode: Reset, stream: Any, away: Some("1s35ms")),
            ],
            horizon: Some("12h"))"#,
    );
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    // The re-run call's stream skips ids 3 and 4: its first attempt's stream took them.
    assert_eq!(cursor_errors(&guarded), Vec::<String>::new());
    assert_eq!(guarded.kinds(), vec![VerdictKind::Clean]);
}
