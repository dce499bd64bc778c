//! A finding's label names what sets it off: the knobs and faults without which its
//! verdict disappears, found by taking each away alone and re-running. The explorer's
//! classification signature (knobs at their defaults included) is not that.

use faultline_model::{DeadSessionAnswer, DurationMs, PositiveDurationMs};
use faultline_sim::explore::{Aggregate, explore_seed, shrunk_scenario_text};
use faultline_sim::shrink::{shrink, triggers};
use faultline_sim::{ClientModel, Fault, PickDuration, Scenario, VerdictKind};

fn behavior_a() -> Scenario {
    Scenario::load(std::path::Path::new(&format!(
        "{}/../../scenarios/behavior_a.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

#[test]
fn the_label_names_exactly_what_the_verdict_needs() {
    let mut s = behavior_a();
    // A knob away from its default that has nothing to do with the gap.
    s.server.dead_session_answer = DeadSessionAnswer::Gone;
    let t = triggers(&s, ClientModel::Naive, VerdictKind::SilentGap);
    let names: Vec<&str> = t.knobs.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        ["event_log_ttl", "id_scheme", "unknown_cursor"],
        "{t:?}"
    );
    assert_eq!(t.knobs[0].1, "30s");
    assert_eq!(t.faults.len(), 1, "{t:?}");
    assert!(
        t.faults[0].starts_with("a dropped connection (reset) after event 41"),
        "{t:?}"
    );
    assert!(t.faults[0].ends_with("client away 45s"), "{t:?}");
    let label = t.label();
    assert!(!label.contains("dead_session_answer"), "{label}");
    assert!(!label.contains("session_idle_ttl"), "{label}");
}

#[test]
fn knobs_at_their_defaults_are_never_named() {
    // Behavior A with the server's default numbering and cursor answer: no gap, and
    // nothing to blame on the defaults.
    let mut s = behavior_a();
    s.server.id_scheme = faultline_model::IdScheme::SessionMonotonic;
    s.server.unknown_cursor = faultline_model::UnknownCursor::BadRequest;
    let t = triggers(&s, ClientModel::Naive, VerdictKind::SilentGap);
    assert!(
        t.knobs
            .iter()
            .all(|(k, _)| k != "id_scheme" && k != "unknown_cursor"),
        "{t:?}"
    );
}

#[test]
fn shrunk_durations_are_rounded_where_the_verdict_allows() {
    let mut s = behavior_a();
    s.server.event_log_ttl = PositiveDurationMs::new(30_123);
    for fault in &mut s.faults {
        if let Fault::Drop { away, .. } = fault {
            *away = Some(PickDuration::fixed(DurationMs(45_777)));
        }
    }
    assert!(
        faultline_sim::run_untraced(&s, s.seed, ClientModel::Naive).has(VerdictKind::SilentGap)
    );
    let signature =
        faultline_sim::explore::signature_of(VerdictKind::SilentGap, &s.server, &s.fleet);
    let shrunk = shrink(&s, ClientModel::Naive, VerdictKind::SilentGap, &signature);
    let ron = shrunk.to_ron();
    assert!(
        !ron.contains("ms\""),
        "a duration kept its milliseconds:\n{ron}"
    );
    assert!(
        faultline_sim::run_untraced(&shrunk, shrunk.seed, ClientModel::Naive)
            .has(VerdictKind::SilentGap)
    );
}

#[test]
fn a_shrunk_finding_is_labelled_by_its_triggers_and_written_with_its_path() {
    let mut agg = Aggregate::new(ClientModel::Naive, false);
    for seed in 0..300 {
        explore_seed(&mut agg, seed, &[]).unwrap();
    }
    let finding = agg
        .findings
        .iter()
        .find(|f| f.kind == VerdictKind::SilentGap)
        .expect("300 seeds find a silent gap");
    let (shrunk, text) =
        shrunk_scenario_text(ClientModel::Naive, finding, false, &[], "out/x.ron").unwrap();
    let label = triggers(&shrunk, ClientModel::Naive, finding.kind).label();
    assert!(text.contains(&format!("disappears): {label}.\n")), "{text}");
    assert!(
        text.contains("Reproduce: faultline run out/x.ron --client naive"),
        "{text}"
    );
    assert!(!text.contains("<this file>"), "{text}");
}

/// Behind a fleet, only an event store keyed by stream (which replays other sessions'
/// events) joins a gap's signature: the other stores resolve a cursor as one server would,
/// and naming them would split one finding into several.
#[test]
fn a_fleet_gap_names_its_event_store_only_when_it_is_keyed_by_stream() {
    use faultline_model::{EventStoreScope, FleetKnobs, SharedKey};
    use faultline_sim::explore::signature_of;
    let knobs = behavior_a().server;
    let single = signature_of(VerdictKind::SilentGap, &knobs, &FleetKnobs::default());
    for event_store in [
        EventStoreScope::PerReplica,
        EventStoreScope::Shared {
            by: SharedKey::Session,
        },
    ] {
        let fleet = FleetKnobs {
            replicas: 3,
            event_store,
            ..FleetKnobs::default()
        };
        let sig = signature_of(VerdictKind::SilentGap, &knobs, &fleet);
        assert_eq!(sig, single, "{event_store:?}");
    }
    let by_stream = FleetKnobs {
        replicas: 3,
        event_store: EventStoreScope::Shared {
            by: SharedKey::Stream,
        },
        ..FleetKnobs::default()
    };
    for kind in [
        VerdictKind::SilentGap,
        VerdictKind::Duplicate,
        VerdictKind::ForeignEvent,
    ] {
        let sig = signature_of(kind, &knobs, &by_stream);
        assert!(
            sig.iter()
                .any(|(k, v)| k == "event_store" && v == "SharedByStream"),
            "{kind:?}: {sig:?}"
        );
    }
}

/// Issue 14: a task store that survives a restart and runs the interrupted task again
/// (`task_persistence: Everything`) commits a `place_order` twice with no client
/// re-issuing anything. The finding is named by that knob, for either client, not by
/// `on_stream_cut` (which plays no part: the task has no stream to cut).
#[test]
fn a_duplicate_the_server_made_by_re_running_a_task_is_labelled_by_task_persistence() {
    use faultline_sim::explore::{shrunk_era_scenario_text, verdict_signature};
    use faultline_sim::swarm_era::SwarmEra;
    let task_persistence = vec![("task_persistence".to_string(), "Everything".to_string())];
    // Seed 378 of the modern swarm with dishonest servers: a place_order task and a restart.
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let mut agg = Aggregate::new(client, true).with_era(SwarmEra::Modern);
        explore_seed(&mut agg, 378, &[]).unwrap();
        let finding = agg
            .findings
            .iter()
            .find(|f| f.kind == VerdictKind::DuplicateEffect)
            .expect("seed 378 places its order twice");
        assert_eq!(finding.signature, task_persistence, "{client:?}");
        let (shrunk, text) =
            shrunk_era_scenario_text(client, finding, true, SwarmEra::Modern, &[], "out/x.ron")
                .unwrap();
        assert!(
            text.contains("duplicate_effect with task_persistence=Everything"),
            "{text}"
        );
        let outcome = faultline_sim::run_untraced(&shrunk, shrunk.seed, client);
        let v = outcome
            .verdicts
            .iter()
            .find(|v| v.kind == VerdictKind::DuplicateEffect)
            .expect("the shrunk scenario keeps its verdict");
        assert_eq!(
            verdict_signature(v, &shrunk.server, &shrunk.fleet),
            task_persistence
        );
        assert!(
            v.summary.contains("no client re-issued it"),
            "{}",
            v.summary
        );
        // The server's knob alone decides: a store that reports the task failed instead
        // places the order once.
        let mut terminal = shrunk.clone();
        terminal.server.task_persistence = faultline_model::TaskPersistence::TerminalOnly;
        assert!(
            !faultline_sim::run_untraced(&terminal, terminal.seed, client)
                .has(VerdictKind::DuplicateEffect)
        );
    }
}

/// A duplicate the client made, by re-issuing a cut call, keeps its `on_stream_cut` label.
#[test]
fn a_duplicate_the_client_made_by_re_issuing_is_labelled_by_on_stream_cut() {
    use faultline_sim::explore::verdict_signature;
    let s = Scenario::load(std::path::Path::new(&format!(
        "{}/../../scenarios/field/reissue_duplicate_effect.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap();
    let outcome = faultline_sim::run_untraced(&s, s.seed, ClientModel::Naive);
    let v = outcome
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::DuplicateEffect)
        .expect("the naive client re-issues the cut order");
    let sig = verdict_signature(v, &s.server, &s.fleet);
    assert_eq!(sig.len(), 1);
    assert_eq!(sig[0].0, "on_stream_cut");
}
