//! The field's odd answers end to end: what the modelled clients get from a standalone GET
//! refused or never answered, an unknown cursor never answered, a dead session answered
//! 401, ids that repeat. Each scenario is inline: it is a demonstration, not a field report.
//! A hang must end the run (at its horizon) with a sound verdict, never stall it.

use faultline_model::{HangCause, StandaloneGet};
use faultline_sim::{ClientModel, RunOutcome, VerdictKind, run};

use crate::common::scenario;

/// Behavior A's timings (the log forgets the cursor while the client is away), with the
/// unknown-cursor answer and the id scheme given.
fn cursor_lost(unknown_cursor: &str, id_scheme: &str, log_ttl: &str) -> String {
    format!(
        r#"Scenario(
    name: "cursor_lost",
    summary: "inline",
    seed: 41,
    horizon: Some("3h"),
    server: (
        session_idle_ttl: Some("2h"),
        event_log_ttl: {log_ttl},
        id_scheme: {id_scheme},
        unknown_cursor: {unknown_cursor},
    ),
    client: (model: Naive, standalone_stream: false),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 81, interval: "1m"))],
    faults: [Drop(when: AfterEvent(n: 41, on: Call(0)), mode: Reset, stream: Call(0), away: Some("45s"))],
)"#
    )
}

fn outcome(text: &str, client: ClientModel) -> RunOutcome {
    let s = scenario(text);
    run(&s, s.seed, client)
}

fn kinds(o: &RunOutcome) -> Vec<VerdictKind> {
    o.verdicts.iter().map(|v| v.kind).collect()
}

#[test]
fn an_unknown_cursor_answered_by_a_hang_leaves_the_call_hung_at_the_horizon() {
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let hung = outcome(
            &cursor_lost("Hang", "SessionMonotonic", r#"Some("30s")"#),
            client,
        );
        assert!(
            hung.has(VerdictKind::Hung),
            "{client:?}: {:?}",
            kinds(&hung)
        );
        assert_eq!(
            hung.result.record.horizon_cut_ms,
            Some(3 * 3_600_000),
            "the run ends at its horizon, not stalled and not early"
        );
        assert_eq!(hung.result.ledger.hangs[0].why, HangCause::UnknownCursor);
        // The same run with the answer the spec's SDKs give: loud, and nobody waits.
        let refused = outcome(
            &cursor_lost("BadRequest", "SessionMonotonic", r#"Some("30s")"#),
            client,
        );
        assert!(
            !refused.has(VerdictKind::Hung),
            "{client:?}: {:?}",
            kinds(&refused)
        );
        assert!(refused.result.ledger.hangs.is_empty());
    }
}

#[test]
fn constant_ids_cost_the_naive_client_the_result_and_the_guarded_client_detects_them() {
    // The log keeps everything: only the numbering is at fault. Every replay starts after
    // the first `id: 1` and the naive dedup skips it all as already seen, until it gives up.
    let constant = cursor_lost("BadRequest", "Constant", "None");
    let naive = outcome(&constant, ClientModel::Naive);
    assert!(naive.has(VerdictKind::SurfacedLoss), "{:?}", kinds(&naive));
    assert!(
        naive.result.record.calls[0].completed_at_ms.is_none(),
        "the result never reached the application"
    );
    let guarded = outcome(&constant, ClientModel::Guarded);
    assert_eq!(kinds(&guarded), vec![VerdictKind::Detected]);
    // With ids that count, the same resumption loses nothing.
    let counted = outcome(
        &cursor_lost("BadRequest", "SessionMonotonic", "None"),
        ClientModel::Naive,
    );
    assert_eq!(kinds(&counted), vec![VerdictKind::Clean]);
}

/// A session with a standalone stream and notifications, the GET answered as given.
fn with_standalone(answer: StandaloneGet) -> String {
    format!(
        r#"Scenario(
    name: "standalone_get",
    summary: "inline",
    seed: 7,
    horizon: Some("1h"),
    server: (standalone_get: {answer:?}),
    client: (model: Naive, standalone_stream: true),
    workload: [
        CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1s")),
        Notify(from: "10s", every: "10s", count: 3),
    ],
    faults: [],
)"#
    )
}

#[test]
fn a_standalone_get_that_hangs_ends_the_run_at_its_horizon_with_the_call_done() {
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let o = outcome(&with_standalone(StandaloneGet::Hang), client);
        assert_eq!(o.result.ledger.hangs.len(), 1, "{client:?}");
        assert_eq!(o.result.ledger.hangs[0].why, HangCause::StandaloneGet);
        assert!(
            o.result
                .record
                .calls
                .iter()
                .all(|c| c.completed_at_ms.is_some()),
            "the calls go over POST and complete: {client:?}"
        );
        assert!(!o.has(VerdictKind::Hung), "{client:?}: {:?}", kinds(&o));
        assert_eq!(o.result.record.horizon_cut_ms, Some(3_600_000));
        let served = outcome(&with_standalone(StandaloneGet::ServeStream), client);
        assert_eq!(served.result.record.horizon_cut_ms, None, "{client:?}");
    }
}

#[test]
fn a_standalone_get_refused_400_or_404_is_answered_and_the_run_ends_by_itself() {
    for answer in [StandaloneGet::BadRequest400, StandaloneGet::NotFound404] {
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let o = outcome(&with_standalone(answer), client);
            let get_statuses: Vec<u16> = o
                .result
                .ledger
                .answers
                .iter()
                .filter(|a| a.method == faultline_model::HttpMethod::Get)
                .map(|a| a.status)
                .collect();
            let expected = if answer == StandaloneGet::BadRequest400 {
                400
            } else {
                404
            };
            assert!(
                !get_statuses.is_empty() && get_statuses.iter().all(|s| *s == expected),
                "{answer:?} {client:?}: {get_statuses:?}"
            );
            assert_eq!(
                o.result.record.horizon_cut_ms, None,
                "{answer:?} {client:?}"
            );
        }
    }
}

#[test]
fn a_dead_session_answered_401_is_re_initialized_only_by_the_client_that_checks() {
    let text = |answer: &str| {
        format!(
            r#"Scenario(
    name: "dead_401",
    summary: "inline",
    seed: 3,
    server: (session_idle_ttl: Some("1m"), dead_session_answer: {answer}),
    client: (model: Naive, standalone_stream: false),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "hi")),
        CallTool(at: "5m", tool: Echo(text: "hi")),
    ],
    faults: [],
)"#
        )
    };
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let not_found = outcome(&text("NotFound"), client);
        assert_eq!(
            not_found.result.ledger.sessions.len(),
            2,
            "{client:?}: a 404 makes the client initialize again"
        );
        let unauthorized = outcome(&text("Unauthorized401"), client);
        // The naive client reads a 401 as lost credentials, not a lost session; the
        // guarded one settles it with a ping, which is refused too, and starts again.
        let sessions = match client {
            ClientModel::Naive => 1,
            ClientModel::Guarded => 2,
        };
        assert_eq!(
            unauthorized.result.ledger.sessions.len(),
            sessions,
            "{client:?}: a 401 to a call and to a ping"
        );
        assert!(
            unauthorized
                .result
                .ledger
                .answers
                .iter()
                .any(|a| a.status == 401),
            "{client:?}"
        );
    }
}

/// A session that idles out at 1 min, answered dead with `answer`, and three calls after
/// it: the naive client keeps the dead id; the guarded one settles the odd status with a
/// ping, is refused again, and starts a new session.
fn dead_answered(answer: &str) -> String {
    format!(
        r#"Scenario(
    name: "dead_other",
    summary: "inline",
    seed: 3,
    server: (session_idle_ttl: Some("1m"), dead_session_answer: {answer}),
    client: (model: Naive, standalone_stream: false),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "hi")),
        CallTool(at: "5m", tool: Echo(text: "hi")),
        CallTool(at: "6m", tool: Echo(text: "hi")),
        CallTool(at: "7m", tool: Echo(text: "hi")),
    ],
    faults: [],
)"#
    )
}

#[test]
fn a_dead_session_answered_409_429_503_or_200_is_refused_without_recovery_unless_checked() {
    for (answer, status) in [
        ("Conflict409", 409),
        ("TooManyRequests429", 429),
        ("Unavailable503", 503),
        ("OkWithError200", 200),
    ] {
        let naive = outcome(&dead_answered(answer), ClientModel::Naive);
        assert_eq!(naive.result.ledger.sessions.len(), 1, "{answer}");
        assert!(
            naive.has(VerdictKind::RefusedWithoutRecovery),
            "{answer}: {:?}",
            kinds(&naive)
        );
        let calls = &naive.result.record.calls;
        assert!(
            calls[1..].iter().all(|c| c.failed_at_ms.is_some()),
            "{answer}"
        );
        assert!(
            naive
                .result
                .ledger
                .answers
                .iter()
                .any(|a| a.status == status && a.session_sent.is_some()),
            "{answer}"
        );
        let guarded = outcome(&dead_answered(answer), ClientModel::Guarded);
        // Each call comes after the session's idle minute: each finds it dead.
        assert_eq!(
            guarded.result.ledger.sessions.len(),
            4,
            "{answer}: the guarded client pings, is refused again, and starts anew"
        );
        assert!(
            !guarded.has(VerdictKind::RefusedWithoutRecovery),
            "{answer}: {:?}",
            kinds(&guarded)
        );
        assert!(
            guarded.result.record.calls[1..]
                .iter()
                .all(|c| c.completed_at_ms.is_some()),
            "{answer}: re-issued in the new session"
        );
    }
}

/// A standalone stream cut by a drop at 5 min; the server takes `stale` to notice.
fn stale_get(stale: &str) -> String {
    format!(
        r#"Scenario(
    name: "stale_standalone",
    summary: "inline",
    seed: 26,
    horizon: Some("1h"),
    server: (stale_standalone: {stale}),
    client: (model: Naive, standalone_stream: true),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "hi")),
        Notify(from: "10m", every: "1m", count: 3),
    ],
    faults: [Drop(when: At("5m"), mode: Reset, stream: Standalone, away: None)],
)"#
    )
}

#[test]
fn a_standalone_get_refused_while_the_server_holds_the_dropped_one() {
    for (stale, status) in [
        (r#"Some((answer: Conflict409, for: "120s"))"#, 409),
        (r#"Some((answer: BadRequest400, for: "120s"))"#, 400),
    ] {
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let o = outcome(&stale_get(stale), client);
            let refused = o
                .result
                .ledger
                .answers
                .iter()
                .filter(|a| a.status == status && a.rpc_method.is_none())
                .count();
            // The naive client reconnects the GET in the same session and meets the
            // stale stream; the guarded one cannot resume a stream with no id and starts
            // a new session, whose first GET nothing stands in the way of.
            assert_eq!(
                refused >= 1,
                client == ClientModel::Naive,
                "{client:?} {stale}: {:?} {:?}",
                kinds(&o),
                o.result
                    .ledger
                    .answers
                    .iter()
                    .map(|a| (a.at_ms, a.method, a.status))
                    .collect::<Vec<_>>()
            );
            let fresh = outcome(&stale_get("None"), client);
            assert!(
                !fresh
                    .result
                    .ledger
                    .answers
                    .iter()
                    .any(|a| a.status == status),
                "{client:?}: without the knob the reconnect is served"
            );
        }
    }
}
