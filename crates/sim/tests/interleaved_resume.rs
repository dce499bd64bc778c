//! Resuming one of two streams that share a session-wide id counter (`SessionMonotonic`,
//! advertised at `initialize`). While call 0's stream is away, call 1's stream takes the
//! next id, so the first event replayed to call 0 is the cursor plus two. The guarded
//! client saw the id in between on call 1's stream: nothing is missing, and it must not
//! call the resumption failed. An id in the gap that it never saw anywhere is still a gap
//! (it may have been this stream's, evicted), and an id at or below the cursor still fails
//! (Behavior A's reset counter).

use faultline_sim::{ClientModel, Scenario, VerdictKind};

use crate::common::{cursor_errors, scenario};

/// Two calls of three one-per-10-s steps, 5 s apart, on one session-monotonic counter;
/// call 0's stream drops after its first event (id 1) and comes back 12 s later, when its
/// next event (id 3, at 20 s) waits to be replayed. `more_faults` are added to the script.
fn two_calls(more_faults: &str) -> Scenario {
    scenario(&format!(
        r#"Scenario(name: "interleaved", summary: "t", seed: 1,
            server: (id_scheme: SessionMonotonic, advertise_monotonic_ids: true,
                unknown_cursor: NotFound, priming_events: false),
            client: (standalone_stream: false, reconnect_delay: "100ms"),
            workload: [
                CallTool(at: "0s", tool: LongJob(steps: 3, interval: "10s")),
                CallTool(at: "5s", tool: LongJob(steps: 3, interval: "10s")),
            ],
            faults: [Drop(when: AfterEvent(n: 1, on: Call(0)), mode: Reset, stream: Call(0),
                away: Some("12s")){more_faults}])"#
    ))
}

#[test]
fn ids_taken_by_the_sessions_other_stream_are_no_gap() {
    let s = two_calls("");
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    // The replay after cursor 1 starts at id 3: id 2 came on call 1's stream at 15 s.
    assert_eq!(cursor_errors(&guarded), Vec::<String>::new());
    assert_eq!(guarded.kinds(), vec![VerdictKind::Clean]);
    let ids: Vec<u64> = guarded.result.ledger.events.iter().map(|e| e.id).collect();
    assert_eq!(&ids[..3], &[1, 2, 3], "the counter is shared: {ids:?}");
}

#[test]
fn an_id_in_the_gap_never_seen_anywhere_is_still_a_gap() {
    // Call 1's stream drops too, before its first event, and the client is away until
    // 42 s: id 2 came on no stream it read, so it cannot tell id 2 from a lost event of
    // call 0, and the resumption fails rather than guess.
    let s =
        two_calls(r#", Drop(when: At("12s"), mode: Reset, stream: Call(1), away: Some("30s"))"#);
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    let errors = cursor_errors(&guarded);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("non-contiguous replay; expected event 2, got 3")),
        "{errors:?}"
    );
    assert!(guarded.has(VerdictKind::Detected), "{:?}", guarded.kinds());
    assert!(
        !guarded.has(VerdictKind::SilentGap),
        "{:?}",
        guarded.kinds()
    );
}
