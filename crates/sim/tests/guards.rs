//! Ablations: the guarded client minus one guard loses in the incident that guard exists
//! for. Each test fails if its guard stops mattering (or stops working).

use faultline_sim::{ClientModel, Policy, Scenario, VerdictKind, run_with_policy};

fn scenario(name: &str) -> Scenario {
    Scenario::load(std::path::Path::new(&format!(
        "{}/../../scenarios/{name}.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

fn kinds(name: &str, policy: Policy) -> Vec<VerdictKind> {
    let s = scenario(name);
    run_with_policy(&s, s.seed, ClientModel::Guarded, policy)
        .verdicts
        .iter()
        .map(|v| v.kind)
        .collect()
}

fn guarded() -> Policy {
    Policy::of(ClientModel::Guarded)
}

#[test]
fn the_full_guard_set_detects_all_three_incidents() {
    for name in ["behavior_a", "behavior_b", "replay_404_cascade"] {
        assert_eq!(
            kinds(name, guarded()),
            vec![VerdictKind::Detected],
            "{name}"
        );
    }
}

#[test]
fn without_the_contiguity_check_the_dedup_drops_the_fresh_stream() {
    let policy = Policy {
        contiguity_check: false,
        skip_ids_at_or_below_cursor: true,
        ..guarded()
    };
    assert!(kinds("behavior_a", policy).contains(&VerdictKind::SilentGap));
}

#[test]
fn without_capability_gating_the_cursor_is_reused_across_generations() {
    let policy = Policy {
        cursor_only_if_advertised: false,
        contiguity_check: false,
        ..guarded()
    };
    let k = kinds("behavior_b", policy);
    assert!(k.contains(&VerdictKind::CursorReuse), "{k:?}");
    assert!(k.contains(&VerdictKind::SilentGap), "{k:?}");
}

#[test]
fn without_the_liveness_probe_the_replay_200_is_a_zombie() {
    let policy = Policy {
        liveness_probe_after_replay: false,
        ..guarded()
    };
    assert!(kinds("replay_404_cascade", policy).contains(&VerdictKind::ZombieSession));
}

#[test]
fn with_retries_into_a_dead_session_the_load_is_amplified() {
    let policy = Policy {
        typed_errors: false,
        reinit: faultline_scenario::Reinit::AfterRetries(3),
        ..guarded()
    };
    assert!(kinds("replay_404_cascade", policy).contains(&VerdictKind::RetryAmplification));
}

#[test]
fn without_a_shared_session_handle_the_other_task_collides() {
    let policy = Policy {
        shared_session_handle: false,
        ..guarded()
    };
    assert!(kinds("replay_404_cascade", policy).contains(&VerdictKind::ReinitCollision));
}

#[test]
fn without_reissue_the_failed_call_is_not_recovered() {
    let policy = Policy {
        reissue_after_reinit: false,
        ..guarded()
    };
    let s = scenario("behavior_a");
    let outcome = run_with_policy(&s, s.seed, ClientModel::Guarded, policy);
    assert!(
        outcome.result.record.calls[0].completed_at_ms.is_none(),
        "nobody asked again"
    );
    assert!(
        !outcome.has(VerdictKind::SilentGap),
        "the loss is still declared by the typed error"
    );
}

#[test]
fn without_the_per_event_session_check_a_shared_store_replays_foreign_events_into_the_session() {
    let name = "field/shared_store_cross_session";
    let k = kinds(name, guarded());
    assert!(!k.contains(&VerdictKind::ForeignEvent), "{k:?}");
    assert!(k.contains(&VerdictKind::Detected), "{k:?}");
    // The contiguity check alone would also refuse the first replayed id (the tenant's
    // numbering is not the session's): without it the session check still catches it,
    // and without both the foreign events are applied.
    let alone = Policy {
        contiguity_check: false,
        ..guarded()
    };
    let k = kinds(name, alone);
    assert!(!k.contains(&VerdictKind::ForeignEvent), "{k:?}");
    let policy = Policy {
        session_check_per_event: false,
        contiguity_check: false,
        ..guarded()
    };
    assert!(
        kinds(name, policy).contains(&VerdictKind::ForeignEvent),
        "{:?}",
        kinds(name, policy)
    );
}

/// A standalone stream the server closes gracefully while idle (a SEP-1699 poll, a proxy's
/// idle close), resumed with nothing new to replay: on a server that primes its streams
/// the guarded client keeps its session and reads what comes later on the resumed
/// stream. When notifications sent while it was away expired before it came back, and
/// its cursor is answered by a fresh stream (which begins with its own priming event), the
/// guarded client still refuses it.
#[test]
fn a_graceful_idle_close_with_nothing_new_keeps_the_guarded_session() {
    let text = |extra: &str, away: &str| {
        format!(
            r#"Scenario(
    name: "idle_close",
    summary: "inline",
    seed: 7,
    server: (priming_events: true{extra}),
    client: (model: Guarded),
    workload: [
        Notify(from: "10s", every: "1s", count: 2),
        Notify(from: "2m30s", every: "1s", count: 2),
        Notify(from: "5m", every: "1s", count: 2),
    ],
    faults: [
        Drop(when: At("2m"), mode: Close, stream: Standalone, away: {away}),
    ],
)"#
        )
    };
    let honest = Scenario::parse(&text("", "None"), "idle_close.ron").unwrap();
    let outcome = run_with_policy(&honest, honest.seed, ClientModel::Guarded, guarded());
    assert_eq!(
        outcome.result.ledger.sessions.len(),
        1,
        "the session is kept"
    );
    assert_eq!(outcome.result.record.applied.len(), 6, "every notification");
    assert_eq!(
        outcome.verdicts.iter().map(|v| v.kind).collect::<Vec<_>>(),
        vec![VerdictKind::Clean]
    );
    let expired = Scenario::parse(
        &text(
            r#", event_log_ttl: "30s", unknown_cursor: FreshStream"#,
            r#"Some("2m")"#,
        ),
        "idle_close_expired.ron",
    )
    .unwrap();
    let outcome = run_with_policy(&expired, expired.seed, ClientModel::Guarded, guarded());
    assert_eq!(
        outcome.result.ledger.sessions.len(),
        2,
        "a fresh stream is refused"
    );
    assert!(outcome.has(VerdictKind::Detected));
}
