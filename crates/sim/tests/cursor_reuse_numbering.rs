//! `cursor_reuse` means a `Last-Event-ID` was read in a numbering where its value names
//! another event. Two resumptions read it in the cursor's own numbering and harm nothing;
//! `explore --client guarded` past seed 300,000 called both losses (seeds 365332 and
//! 493471):
//!
//! - a stream that a restart kept (`restart_persistence: Everything`) goes on in the new
//!   generation; a stale cursor of that generation, answered `ReplayRemaining`, was judged
//!   against the generation the stream was opened in;
//! - under session-monotonic ids one counter numbers every stream of the session, so a
//!   cursor honoured against another stream names the same event there.
//!
//! Per-stream numbering still makes a cross-stream replay `cursor_reuse`.

use faultline_sim::{ClientModel, Scenario, VerdictKind};

use crate::common::scenario;

#[test]
fn a_stale_cursor_on_a_stream_a_restart_kept_is_read_in_the_current_generation() {
    // Notifications every 2 s from 10 s (ids 1..=3 in generation 1); a restart at 15 s
    // keeps the stream, which goes on in generation 2 (ids 4..=6); the stream drops at
    // 21 s and resumes at 22.5 s with cursor 6, by when the one-event log holds only id 7.
    let s = scenario(
        r#"Scenario(name: "kept_stream", summary: "t", seed: 1,
            server: (id_scheme: SessionMonotonic, advertise_monotonic_ids: true,
                unknown_cursor: ReplayRemaining, restart_persistence: Everything,
                event_log_capacity: Some(1), priming_events: false),
            client: (standalone_stream: true, reconnect_delay: "500ms"),
            workload: [Notify(from: "10s", every: "2s", count: 10)],
            faults: [
                Restart(when: At("15s"), away: Some("1s")),
                Drop(when: At("21s"), mode: Reset, stream: Any, away: Some("1500ms")),
            ])"#,
    );
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = faultline_sim::run(&s, s.seed, client);
        // The evidence the verdict would stand on: the cursor was minted in generation 2,
        // and the stream the server replayed from was opened in generation 1.
        let ledger = &outcome.result.ledger;
        let cursor = ledger.events.iter().find(|e| e.id == 6).expect("id 6");
        assert_eq!(cursor.generation, 2);
        assert_eq!(ledger.stream(cursor.stream).generation, 1);
        assert_eq!(
            outcome.kinds(),
            vec![VerdictKind::Clean],
            "{}",
            client.name()
        );
    }
}

/// A call streaming one progress event every 2 s from 1 s, and notifications every 4 s
/// from 2 s, on one session; both streams drop at 7 s and resume 3 s later, when the log
/// (3 s TTL) no longer holds either cursor, so `ReplayRemaining` replays what it has.
fn two_streams(id_scheme: &str) -> Scenario {
    scenario(&format!(
        r#"Scenario(name: "cross_stream", summary: "t", seed: 1,
            server: (id_scheme: {id_scheme}, advertise_monotonic_ids: true,
                unknown_cursor: ReplayRemaining, event_log_ttl: Some("3s"),
                priming_events: false),
            client: (standalone_stream: true, reconnect_delay: "3s"),
            workload: [
                CallTool(at: "1s", tool: LongJob(steps: 6, interval: "2s")),
                Notify(from: "2s", every: "4s", count: 3),
            ],
            faults: [Drop(when: At("7s"), mode: Reset, stream: Any)])"#
    ))
}

#[test]
fn a_cursor_honoured_on_a_stream_of_the_same_counter_re_uses_nothing() {
    let s = two_streams("SessionMonotonic");
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = faultline_sim::run(&s, s.seed, client);
        // The server did honour the standalone stream's cursor against the call's stream.
        let cross = outcome.result.ledger.resumptions.iter().any(|r| {
            matches!(
                r.resolution,
                faultline_model::CursorResolution::Stale { stream, .. }
                    if Some(stream) == r.attached_to
                        && outcome.result.ledger.stream(stream).kind
                            != faultline_model::StreamKind::Standalone
            )
        });
        assert!(cross, "{}", client.name());
        assert!(
            !outcome.has(VerdictKind::CursorReuse),
            "{}: {:?}",
            client.name(),
            outcome.kinds()
        );
    }
}

#[test]
fn a_cursor_honoured_on_a_stream_with_its_own_counter_is_still_cursor_reuse() {
    let s = two_streams("PerStream");
    let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    assert!(naive.has(VerdictKind::CursorReuse), "{:?}", naive.kinds());
}
