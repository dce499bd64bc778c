//! The report judge's rules on the ledgers of bundled runs: what `faultline grade`
//! concludes from the server's ledger and a real client's report (the one judge,
//! `faultline_verdicts::judge`, reading an `Observation::real`).

use faultline_grade::{CallSpec, ClientContext, ClientReport, ReportVerdict, VerdictKind, judge};
use faultline_model::{Ledger, Payload};
use faultline_sim::{ClientModel, Scenario};
use faultline_verdicts::untested::Exercise;
use serde_json::json;

/// The context of a run whose one call is an `echo`.
fn echo_context() -> ClientContext {
    ClientContext {
        call: CallSpec {
            tool: "echo".into(),
            arguments: json!({"text": "still there?"}),
            progress: false,
        },
        followup_echo: 0,
        lists_tools: false,
        use_tasks: false,
    }
}

/// The `foreign_event` verdicts the report judge gives `report` on `ledger`.
fn foreign(ledger: &Ledger, report: &ClientReport) -> Vec<ReportVerdict> {
    judge(ledger, &echo_context(), Ok(report), Exercise::default())
        .into_iter()
        .filter(|v| v.kind == VerdictKind::ForeignEvent)
        .collect()
}

/// The ledger of the bundled `shared_store_cross_session` run with the naive client,
/// which resumes its standalone stream through a store keyed by stream.
fn shared_store_ledger() -> Ledger {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/field/shared_store_cross_session.ron");
    let scenario = Scenario::load(&file).expect("loads");
    faultline_sim::run(&scenario, scenario.seed, ClientModel::Naive)
        .result
        .ledger
}

/// Every notification the server sent on the client's connections, as a client that
/// hands everything over would report it.
fn everything_sent(ledger: &Ledger) -> Vec<u64> {
    ledger
        .sends
        .iter()
        .filter_map(|s| match ledger.event(s.event).payload {
            Payload::Notification { seq } => Some(seq),
            _ => None,
        })
        .collect()
}

#[test]
fn a_client_that_hands_over_another_sessions_notifications_is_foreign_event() {
    let ledger = shared_store_ledger();
    let report = ClientReport {
        notifications: everything_sent(&ledger),
        ..ClientReport::default()
    };
    let verdicts = foreign(&ledger, &report);
    let [v] = verdicts.as_slice() else {
        panic!("one foreign_event verdict: {verdicts:?}");
    };
    assert_eq!(v.kind, VerdictKind::ForeignEvent);
    assert!(v.kind.is_failure());
    let sent_foreign = v.evidence["sent_foreign"].as_u64().unwrap();
    let sent_own = v.evidence["sent_own"].as_u64().unwrap();
    assert!(sent_foreign > 0, "{v:?}");
    assert_eq!(
        v.evidence["handed_foreign_at_least"].as_u64(),
        Some(sent_foreign),
        "everything handed: every foreign one is counted"
    );
    assert_eq!(sent_own + sent_foreign, report.notifications.len() as u64);
}

#[test]
fn a_client_that_hands_over_only_its_own_count_is_not_judged_foreign() {
    let ledger = shared_store_ledger();
    let all = everything_sent(&ledger);
    let probe = foreign(
        &ledger,
        &ClientReport {
            notifications: all.clone(),
            ..ClientReport::default()
        },
    );
    let own = probe[0].evidence["sent_own"].as_u64().unwrap() as usize;
    let report = ClientReport {
        notifications: all[..own].to_vec(),
        ..ClientReport::default()
    };
    let verdicts = foreign(&ledger, &report);
    assert!(verdicts.is_empty(), "{verdicts:?}");
}

/// Every verdict kind the report judge gives `report` on `ledger`.
fn kinds(ledger: &Ledger, report: &ClientReport) -> Vec<VerdictKind> {
    judge(ledger, &echo_context(), Ok(report), Exercise::default())
        .into_iter()
        .map(|v| v.kind)
        .collect()
}

#[test]
fn another_sessions_notifications_whose_seq_collide_with_the_clients_own_are_not_duplicates() {
    let ledger = shared_store_ledger();
    // Each notification event sent on the client's streams, once (a replay sends an event
    // again: handing it over twice would be a duplicate indeed).
    let mut events = std::collections::BTreeSet::new();
    let all: Vec<u64> = ledger
        .sends
        .iter()
        .filter(|s| events.insert(s.event))
        .filter_map(|s| match ledger.event(s.event).payload {
            Payload::Notification { seq } => Some(seq),
            _ => None,
        })
        .collect();
    let mut sorted = all.clone();
    sorted.sort_unstable();
    assert!(
        sorted.windows(2).any(|w| w[0] == w[1]),
        "the tenant's numbering collides with the client's own: {all:?}"
    );
    let judged = kinds(
        &ledger,
        &ClientReport {
            notifications: all.clone(),
            ..ClientReport::default()
        },
    );
    assert!(judged.contains(&VerdictKind::ForeignEvent), "{judged:?}");
    assert!(!judged.contains(&VerdictKind::Duplicate), "{judged:?}");
    // One value handed over once more than everything sent on its streams is a duplicate.
    let mut twice = all.clone();
    twice.push(all[0]);
    let judged = kinds(
        &ledger,
        &ClientReport {
            notifications: twice,
            ..ClientReport::default()
        },
    );
    assert!(judged.contains(&VerdictKind::Duplicate), "{judged:?}");
}

/// The ledger of the bundled `reissue_duplicate_effect` run with `client`.
fn reissue_ledger(client: ClientModel) -> Ledger {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/field/reissue_duplicate_effect.ron");
    let scenario = Scenario::load(&file).expect("loads");
    faultline_sim::run(&scenario, scenario.seed, client)
        .result
        .ledger
}

fn context() -> ClientContext {
    ClientContext {
        call: CallSpec {
            tool: "place_order".into(),
            arguments: json!({"order": "call-0", "steps": 3, "interval_ms": 1000, "commit_step": 2}),
            progress: true,
        },
        followup_echo: 0,
        lists_tools: false,
        use_tasks: false,
    }
}

/// A real client is judged from the same ledger function as the modelled one: an
/// order committed twice is `duplicate_effect` with both commits, the cut and the
/// re-issue, whatever the client reported.
#[test]
fn an_order_committed_twice_is_a_duplicate_effect_from_the_ledger_alone() {
    let report = ClientReport {
        progress: vec![1.0, 2.0, 3.0],
        result: Some("place_order finished 3 steps".into()),
        ..ClientReport::default()
    };
    let verdicts = judge(
        &reissue_ledger(ClientModel::Naive),
        &context(),
        Ok(&report),
        Exercise::default(),
    );
    let dup = verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::DuplicateEffect)
        .expect("duplicate_effect");
    assert!(dup.kind.is_failure());
    assert_eq!(dup.evidence["order"], "call-0");
    assert_eq!(dup.evidence["cut_at_ms"], 3_000);
    assert_eq!(dup.evidence["reissued_at_ms"], json!([4_000]));
    assert_eq!(dup.evidence["commits"].as_array().map(Vec::len), Some(2));
    assert!(
        dup.why.starts_with("order call-0 was committed 2 times"),
        "{}",
        dup.why
    );
    // One commit: no such verdict.
    let once = judge(
        &reissue_ledger(ClientModel::Guarded),
        &context(),
        Ok(&report),
        Exercise::default(),
    );
    assert!(
        once.iter().all(|v| v.kind != VerdictKind::DuplicateEffect),
        "{once:?}"
    );
}

/// What the modelled client of `outcome` handed its application, as a real client would
/// report it.
fn handed(outcome: &faultline_sim::RunOutcome) -> ClientReport {
    let ledger = &outcome.result.ledger;
    let mut report = ClientReport::default();
    for applied in &outcome.result.record.applied {
        match ledger.event(applied.event).payload {
            Payload::Progress { step, .. } => report.progress.push(f64::from(step)),
            Payload::Notification { seq } => report.notifications.push(seq),
            _ => {}
        }
    }
    report
}

/// What the report judge concludes from `outcome`'s ledger and what its client handed over,
/// given the context `scenario`'s grading plan tells the client.
fn judged(scenario: &Scenario, outcome: &faultline_sim::RunOutcome) -> Vec<ReportVerdict> {
    let context = faultline_grade::plan(scenario).expect("fits").context;
    judge(
        &outcome.result.ledger,
        &context,
        Ok(&handed(outcome)),
        Exercise::default(),
    )
}

fn run(path: &str, client: ClientModel) -> (Scenario, faultline_sim::RunOutcome) {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    let scenario = Scenario::load(&file).expect("loads");
    let outcome = faultline_sim::run(&scenario, scenario.seed, client);
    (scenario, outcome)
}

/// A real client that applies what a dead session's log replayed is judged
/// `quarantine_violation` from the ledger and its report, as the modelled one is.
#[test]
fn a_real_client_that_applies_a_dead_sessions_replay_is_a_quarantine_violation() {
    let (scenario, outcome) = run(
        "docs/scenarios/quarantine_violation.ron",
        ClientModel::Naive,
    );
    assert!(
        outcome
            .verdicts
            .iter()
            .any(|v| v.kind == VerdictKind::QuarantineViolation),
        "the modelled client's run is the lesson's"
    );
    let verdicts = judged(&scenario, &outcome);
    let violation = verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::QuarantineViolation)
        .unwrap_or_else(|| panic!("quarantine_violation expected: {verdicts:?}"));
    assert!(
        !violation.evidence["ids"].as_array().unwrap().is_empty(),
        "{violation:?}"
    );
    // A client that handed over only what came while the session lived is not judged.
    let (scenario, guarded) = run(
        "docs/scenarios/quarantine_violation.ron",
        ClientModel::Guarded,
    );
    let verdicts = judged(&scenario, &guarded);
    assert!(
        verdicts
            .iter()
            .all(|v| v.kind != VerdictKind::QuarantineViolation),
        "{verdicts:?}"
    );
}

/// Behind a balancer without affinity, a request for a live session answered 404 by a
/// replica that does not hold it is a misroute: what the client sends next (its GET and
/// `notifications/initialized` together, its retries to the session still alive) is no
/// retry into a dead session.
#[test]
fn requests_to_a_misrouted_live_session_are_not_retry_amplification() {
    for path in [
        "scenarios/field/replicas_round_robin.ron",
        "scenarios/field/sticky_cookie_dropped.ron",
        "scenarios/field/rolling_deploy.ron",
    ] {
        let (scenario, outcome) = run(path, ClientModel::Naive);
        let verdicts = judged(&scenario, &outcome);
        let kinds: Vec<VerdictKind> = verdicts.iter().map(|v| v.kind).collect();
        assert!(
            kinds.contains(&VerdictKind::MisroutedSession),
            "{path}: {kinds:?}"
        );
        assert!(
            !kinds.contains(&VerdictKind::RetryAmplification),
            "{path}: {kinds:?}"
        );
    }
}
