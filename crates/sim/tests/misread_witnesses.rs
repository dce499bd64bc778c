//! Runs the explorer reported that were misreadings of the ledger, not the client: each
//! witness, shrunk, judged by the rules as they now read.
//!
//! `session_abandoned`:
//! - A fleet's tenant (`Work::Tenant`: another client's session, admitted by the workload
//!   without HTTP) is not a session the modelled client started. The swarm adds tenants to
//!   fleets; before `session_abandoned` paired the client's own sessions, every fleet seed
//!   whose client met a failed GET before a tenant arrived was reported (seed 3433 was the
//!   smallest witness).
//! - Answers to requests sent together reach the client in an order the ledger does not
//!   keep: a client that started a new session on a misrouted 404 was said to have given
//!   up on the 400 the ledger wrote after it (seed 86097).
//!
//! `reconnect_loop`:
//! - A fleet with no replica up refuses a POST before any replica reads it, so the ledger
//!   has no JSON-RPC method for it; the guarded client's `initialize`, retried with
//!   back-off through two outages, was one run of refusals though it got a session between
//!   them (36 of 100,000 seeds; seed 37810 below).
//! - The ledger cannot tell a client's tasks apart: three stale tasks that each retried a
//!   call three times into a session that had expired (seed 256) or that a fleet misrouted
//!   (seed 73685), and gave up, were one run of twelve, "still at it when the run ended"
//!   though the run had gone quiet (821 of 100,000 naive seeds; 58 left, see
//!   `faultline_verdicts::reconnect_loop`). Those retries are `retry_amplification`'s and
//!   `misrouted_session`'s.

use faultline_sim::{ClientModel, Scenario, VerdictKind, run};

/// A witness of `misread_witnesses/`, each file the explorer's shrunk scenario with the
/// scenario's words put in place of the explorer's.
fn witness(name: &str) -> Scenario {
    Scenario::load(std::path::Path::new(&format!(
        "{}/tests/misread_witnesses/{name}.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

#[test]
fn a_tenant_admitted_after_a_failed_get_is_no_abandonment() {
    let scenario = witness("tenant_after_a_failed_get");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence the old rule misread: the client's session, its GET refused, then a
    // session no request named.
    assert_eq!(ledger.sessions.len(), 2, "{:?}", ledger.sessions);
    let (client, tenant) = (&ledger.sessions[0], &ledger.sessions[1]);
    let named = |wire: &str| {
        ledger
            .answers
            .iter()
            .any(|a| a.session_sent.as_deref() == Some(wire))
    };
    assert!(named(&client.wire_id) && !named(&tenant.wire_id));
    let last_of_client = ledger
        .answers
        .iter()
        .rfind(|a| a.session_sent.as_deref() == Some(client.wire_id.as_str()))
        .unwrap();
    assert!(last_of_client.status >= 500 && last_of_client.at_ms < tenant.created_ms);
    assert!(client.died.is_none(), "the client's session was alive");
    assert!(
        !outcome.has(VerdictKind::SessionAbandoned),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_new_session_on_a_misrouted_404_is_not_an_abandonment_of_the_400_after_it() {
    let scenario = witness("misrouted_then_400");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    let (old, new) = (&ledger.sessions[0], &ledger.sessions[1]);
    // The evidence: at the instant the new session was made, a misrouted 404 and then a
    // 400 named the old one, which was alive.
    let last_two: Vec<(u16, bool)> = ledger
        .answers
        .iter()
        .filter(|a| a.at_ms == new.created_ms)
        .filter(|a| a.session_sent.as_deref() == Some(old.wire_id.as_str()))
        .map(|a| (a.status, ledger.misroutes.iter().any(|m| m.conn == a.conn)))
        .collect();
    assert_eq!(last_two, [(404, true), (400, false)]);
    assert!(old.died.is_none_or(|(at, _)| at > new.created_ms));
    assert!(outcome.has(VerdictKind::MisroutedSession));
    assert!(
        !outcome.has(VerdictKind::SessionAbandoned),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn retries_with_a_success_between_two_outages_are_no_reconnect_loop() {
    let scenario = witness("retries_through_two_outages");
    let outcome = run(&scenario, scenario.seed, ClientModel::Guarded);
    let ledger = &outcome.result.ledger;
    // The evidence: POSTs without a session refused 503 with no JSON-RPC method (no
    // replica up), 10 or more of them in all, and an `initialize` answered 200 between
    // the first and the last of them.
    let refused: Vec<u64> = ledger
        .answers
        .iter()
        .filter(|a| a.status == 503 && a.session_sent.is_none() && a.rpc_method.is_none())
        .map(|a| a.at_ms)
        .collect();
    assert!(refused.len() >= 10, "{refused:?}");
    let (first, last) = (refused[0], refused[refused.len() - 1]);
    assert!(ledger.answers.iter().any(|a| {
        a.rpc_method.as_deref() == Some("initialize")
            && a.status == 200
            && (first..last).contains(&a.at_ms)
    }));
    assert!(
        !outcome.has(VerdictKind::ReconnectLoop),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn bounded_retries_of_several_tasks_into_a_gone_session_are_no_reconnect_loop() {
    for (name, gone) in [
        ("stale_tasks_dead_session", VerdictKind::RetryAmplification),
        ("stale_tasks_misrouted", VerdictKind::MisroutedSession),
    ] {
        let scenario = witness(name);
        let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
        let ledger = &outcome.result.ledger;
        // The evidence: ten or more `POST tools/call` refused 404 in a row for one
        // session, from three tasks, and a run that went quiet rather than being cut.
        let refused = ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("tools/call") && a.status == 404)
            .count();
        assert!(refused >= 10, "{}: {refused}", scenario.name);
        assert!(outcome.result.record.horizon_cut_ms.is_none());
        assert!(
            outcome.has(gone),
            "{}: {:?}",
            scenario.name,
            outcome.verdicts
        );
        assert!(
            !outcome.has(VerdictKind::ReconnectLoop),
            "{}: {:?}",
            scenario.name,
            outcome.verdicts
        );
    }
}
