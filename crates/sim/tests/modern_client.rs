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

/// Found by the 2026-07-28 swarm (seed 15182, shrunk): a long_job's stream is cut and the
/// client is away for 8 minutes; meanwhile the tools list changes (published, heard) and a
/// restart drops the listen stream. The guarded client's re-issue of the cut call, due
/// while it is away, must list first like any call made without a current list: before
/// the fix it went out from the old list (`missed_change`).
#[test]
fn a_re_issue_made_without_a_current_list_lists_first() {
    let mut s = scenario(
        r#"CallTool(at: "0s", tool: LongJob(steps: 2, interval: "1554ms"), progress: true)"#,
        r#"ChangeList(at: "1m", list: tools, notify: true),
           Restart(when: At("1m")),
           CutCall(call: 0, at: AfterProgress(1), away: Some("8m"))"#,
    );
    s.client.lists_tools = true;
    s.client.reconnect_delay = faultline_model::DurationMs(60_000);
    let outcome = faultline_sim::run(&s, 15_182, ClientModel::Guarded);
    assert!(
        !outcome.has(VerdictKind::MissedChange),
        "{:?}",
        outcome.verdicts
    );
    let record = &outcome.result.record;
    assert_eq!(record.calls[0].attempts, 2);
    assert!(record.calls[0].completed_at_ms.is_some());
    // The re-issue left after a tools/list that was answered.
    let rpc = |r: &faultline_sim::RequestRecord| r.rpc.clone().unwrap_or_default();
    let reissue = record
        .requests
        .iter()
        .filter(|r| rpc(r) == "tools/call")
        .nth(1)
        .expect("a re-issue");
    let lists_answered_before = record
        .requests
        .iter()
        .filter(|r| rpc(r) == "tools/list" && r.answered_seq.is_some_and(|a| a < reissue.sent_seq))
        .count();
    assert!(lists_answered_before >= 2, "{:?}", record.requests);
}
