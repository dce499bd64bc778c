//! The modelled 2026-07-28 client: its requests are accepted by the model's modern path
//! (no session, `_meta` and headers as the revision requires), a cut idempotent call is
//! re-issued by both policies and completes, and a network that cuts every attempt makes
//! the naive client give up after three re-issues, loudly.

use faultline_model::JobEnd;
use faultline_sim::{ClientError, ClientModel, Scenario, VerdictKind};

fn scenario(workload: &str, faults: &str) -> Scenario {
    Scenario::parse(
        &format!(
            r#"Scenario(name: "t", summary: "t", client: (era: Modern),
                workload: [{workload}], faults: [{faults}], horizon: Some("1h"))"#
        ),
        "t.ron",
    )
    .expect("valid")
}

#[test]
fn both_clients_re_issue_a_cut_idempotent_call_and_it_completes() {
    let s = scenario(
        r#"CallTool(at: "1s", tool: LongJob(steps: 3, interval: "1s"))"#,
        "CutCall(call: 0, at: AfterProgress(2))",
    );
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = faultline_sim::run(&s, 1, client);
        let ledger = &outcome.result.ledger;
        let record = &outcome.result.record;
        // Every request went down the stateless path: no session, all answered 200.
        assert!(
            ledger
                .answers
                .iter()
                .all(|a| a.status == 200 && a.session_sent.is_none())
        );
        assert!(
            ledger.sessions.iter().all(|s| s.stateless),
            "no session was created"
        );
        assert_eq!(record.calls[0].attempts, 2, "{client:?}");
        assert_eq!(record.calls[0].completed_at_ms, Some(7_000), "{client:?}");
        let ends: Vec<Option<JobEnd>> = ledger
            .jobs
            .iter()
            .map(|j| j.ended.map(|(_, e)| e))
            .collect();
        assert_eq!(
            ends,
            vec![Some(JobEnd::StreamClosed), Some(JobEnd::Finished)]
        );
        assert!(record.errors.is_empty(), "{:?}", record.errors);
        assert_eq!(outcome.kinds(), vec![VerdictKind::Clean], "{client:?}");
    }
}

#[test]
fn a_network_that_cuts_every_attempt_stops_the_naive_client_after_three_re_issues() {
    let s = scenario(
        r#"CallTool(at: "1s", tool: PlaceOrder(steps: 2, interval: "1s", commit_step: Some(1)))"#,
        // Each attempt commits and sends progress 1 a second after it is sent; the cut
        // follows at that instant (a fault at a time runs after the model's due work).
        &["2s", "4s", "6s", "8s"]
            .map(|t| format!("CutCall(call: 0, at: At({t:?}))"))
            .join(", "),
    );
    let outcome = faultline_sim::run(&s, 1, ClientModel::Naive);
    let record = &outcome.result.record;
    assert_eq!(record.calls[0].attempts, 4, "the call and three re-issues");
    assert!(record.calls[0].failed_at_ms.is_some());
    assert!(
        matches!(&record.errors[..], [e] if matches!(&e.error, ClientError::Surfaced { message } if message.contains("4 times; gave up re-issuing"))),
        "{:?}",
        record.errors
    );
    assert_eq!(
        outcome.result.ledger.effects.len(),
        4,
        "every attempt committed"
    );
    assert!(outcome.has(VerdictKind::DuplicateEffect));
    // The guarded client never re-issues it: one attempt, one commit, a typed error.
    let guarded = faultline_sim::run(&s, 1, ClientModel::Guarded);
    assert_eq!(guarded.result.record.calls[0].attempts, 1);
    assert_eq!(guarded.result.ledger.effects.len(), 1);
    assert_eq!(guarded.kinds(), vec![VerdictKind::Detected]);
}
