//! What an era probe's switch (`era: Auto`, `crates/sim/src/era_probe.rs`) leaves owed.
//!
//! When a deploy moves the server from 2025 to 2026-07-28 and the client's probe finds it,
//! the client of the new era re-runs the calls the old era failed. Two rules of the oracle
//! meet there, each found by `explore --era migration` against the guarded client:
//!
//! - a call that the new era's client completed owes nothing more from its abandoned 2025
//!   attempt, although the 2026-07-28 client sends no idempotency key to link the two;
//! - a typed resumption error the 2025 client raised (a cursor refused, a standalone stream
//!   cut before its first id) stays in the record across the switch: it is what made the
//!   loss of the old era's events a detected one, and the re-run does not bring them back.

use faultline_sim::{ClientError, ClientModel, Evidence, VerdictKind};

use crate::common::scenario;

/// A long job's stream is dropped while the client is away; a deploy into 2026-07-28
/// follows. The naive client cannot resume (405 three times: a surfaced error), its cached
/// era has expired, so it probes, switches and re-runs the call, which completes. Events
/// 4..=6 of the abandoned attempt were produced while the client was away and never sent:
/// owed no longer, since the re-run delivered the call's every step and its result.
#[test]
fn a_call_re_run_in_the_new_era_owes_nothing_from_its_abandoned_attempt() {
    let s = scenario(
        r#"Scenario(name: "naive_switch", summary: "t", seed: 5,
            server: (era: LegacyOnly, legacy_probe_answer: NotFound),
            client: (model: Naive, era: Auto(era_cache: "1m"), standalone_stream: false),
            workload: [CallTool(at: "0s", tool: LongJob(steps: 10, interval: "30s"))],
            faults: [
                Drop(when: At("1m45s"), mode: Reset, away: Some("2m")),
                RollEra(when: At("3m15s"), to: ModernOnly),
            ],
            horizon: Some("1h"))"#,
    );
    let outcome = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    let (ledger, record) = (&outcome.result.ledger, &outcome.result.record);

    // The evidence: two attempts of call 0, the keyed 2025 one and the keyless re-run.
    assert_eq!(ledger.jobs.len(), 2);
    assert_eq!(ledger.jobs[0].idempotency_key.as_deref(), Some("call-0"));
    assert_eq!(ledger.jobs[1].idempotency_key, None);
    assert!(ledger.session(ledger.jobs[1].session).stateless);
    assert_eq!(record.calls[0].completed_at_ms, Some(8 * 60_000 + 47_000));
    let applied: Vec<u32> = record.applied.iter().map(|a| a.event.0).collect();
    let abandoned: Vec<u64> = ledger
        .events
        .iter()
        .enumerate()
        .filter(|(i, e)| e.stream == ledger.events[0].stream && !applied.contains(&(*i as u32)))
        .map(|(_, e)| e.id)
        .collect();
    assert_eq!(abandoned, vec![4, 5, 6], "produced while away, never sent");

    // The verdict: clean, and its sentence counts the events owed no longer.
    assert_eq!(outcome.kinds(), vec![VerdictKind::Clean]);
    let summary = &outcome.verdicts[0].summary;
    assert!(
        summary.contains("14 events owed") && summary.contains("3 more belonged to attempts"),
        "{summary}"
    );
}

/// The guarded client's standalone stream is cut before its first id: it raises a
/// `ResumptionCursorError` (nothing proves no notification was missed). The tools list
/// changes while it is away, and a deploy into 2026-07-28 follows, which its probe finds.
/// The error still stands after the switch, so the list change the cut stream never
/// carried is a detected loss, not a silent gap. (Swarm seed 34710, shrunk.)
#[test]
fn a_typed_error_raised_before_the_switch_still_covers_what_it_reported() {
    let s = scenario(
        r#"Scenario(name: "guarded_switch", summary: "t", seed: 34710,
            server: (era: LegacyOnly, id_scheme: SessionMonotonic, unknown_cursor: BadRequest,
                restart_persistence: Everything),
            client: (model: Guarded, start_at: "1m", protocol_version: "2025-03-26",
                reconnect_delay: "1m", standalone_stream: true, era: Auto(era_cache: "1m"),
                lists_tools: true),
            faults: [
                ChangeList(at: "6m", list: tools, notify: true),
                Drop(when: At("4m"), mode: Reset, away: Some("4m")),
                RollEra(when: At("7m"), to: ModernOnly),
            ],
            horizon: Some("1d"))"#,
    );
    let outcome = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    let record = &outcome.result.record;
    let typed: Vec<(u64, &ClientError)> = record
        .errors
        .iter()
        .filter(|e| e.error.is_typed())
        .map(|e| (e.at_ms, &e.error))
        .collect();
    assert_eq!(typed.len(), 1, "{typed:?}");
    assert_eq!(typed[0].0, 4 * 60_000, "raised when the stream was cut");
    assert!(matches!(typed[0].1, ClientError::ResumptionCursor(_)));
    // The client did move to 2026-07-28: its last requests carry no session.
    assert!(record.requests.last().is_some_and(|r| r.session.is_none()));
    assert_eq!(outcome.kinds(), vec![VerdictKind::Detected]);
}

/// The original witness (swarm seed 8938878917602393392, shrunk): a long job's stream is
/// dropped, a deploy into 2026-07-28 follows; the guarded client's resumption is refused
/// (405), it probes, switches and re-runs the call. Detected, with the call re-run and
/// completed.
#[test]
fn a_refused_cursor_then_a_switch_is_detected_and_the_call_completed() {
    let s = scenario(
        r#"Scenario(name: "guarded_cursor_switch", summary: "t", seed: 8938878917602393392,
            server: (era: LegacyOnly, id_scheme: SessionMonotonic, unknown_cursor: BadRequest,
                restart_persistence: Everything),
            client: (model: Guarded, start_at: "1m", reconnect_delay: "1m",
                standalone_stream: false, era: Auto(era_cache: "16m")),
            workload: [
                CallTool(at: "1m", tool: Echo(text: "swarm")),
                CallTool(at: "2m", tool: LongJob(steps: 11, interval: "1m")),
            ],
            faults: [
                Drop(when: At("10m"), mode: Reset, away: Some("3m")),
                RollEra(when: At("12m"), to: ModernOnly),
            ],
            horizon: Some("1d"))"#,
    );
    let outcome = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    assert_eq!(outcome.kinds(), vec![VerdictKind::Detected]);
    let Evidence::Detected {
        recovered_calls, ..
    } = &outcome.verdicts[0].evidence
    else {
        panic!("{:?}", outcome.verdicts[0]);
    };
    assert_eq!(recovered_calls, &vec!["call-1".to_string()]);
    assert!(outcome.result.record.calls[1].completed_at_ms.is_some());
}
