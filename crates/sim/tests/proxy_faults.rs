//! Faults of the proxy in front of the server, end to end: what the modelled clients get,
//! and that the server never hears of what the proxy answered itself.

use faultline_sim::{ClientModel, run};

use crate::common::scenario;

fn three_echoes(faults: &str) -> String {
    format!(
        r#"Scenario(
    name: "proxy_502",
    summary: "inline",
    seed: 5,
    client: (model: Naive, standalone_stream: false),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "a")),
        CallTool(at: "70s", tool: Echo(text: "b")),
        CallTool(at: "2m", tool: Echo(text: "c")),
    ],
    faults: [{faults}],
)"#
    )
}

#[test]
fn a_proxy_answering_502_fails_the_calls_of_its_window_and_the_server_never_sees_them() {
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let s = scenario(&three_echoes(r#"Proxy502(when: At("1m"), lasting: "30s")"#));
        let o = run(&s, s.seed, client);
        let calls = &o.result.record.calls;
        assert!(calls[0].completed_at_ms.is_some(), "{client:?}");
        assert_eq!(calls[1].failed_at_ms, Some(70_000), "{client:?}");
        assert!(
            calls[2].completed_at_ms.is_some(),
            "{client:?}: after the window"
        );
        assert!(
            o.result
                .record
                .errors
                .iter()
                .any(|e| e.error.to_string().contains("502")),
            "{client:?}"
        );
        let ledger = &o.result.ledger;
        assert!(
            !ledger.answers.iter().any(|a| a.at_ms == 70_000),
            "{client:?}: the proxy answered, not the server"
        );
        let calls_answered = ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("tools/call"))
            .count();
        assert_eq!(
            calls_answered, 2,
            "{client:?}: two calls reached the server"
        );
        // Without the proxy's window every call goes through.
        let s = scenario(&three_echoes(""));
        let o = run(&s, s.seed, client);
        assert!(
            o.result
                .record
                .calls
                .iter()
                .all(|c| c.completed_at_ms.is_some()),
            "{client:?}"
        );
    }
}

/// A long tool whose progress comes every 2 minutes, behind a proxy that cuts an SSE
/// response after a minute without bytes.
fn slow_progress(priming: bool, faults: &str) -> String {
    format!(
        r#"Scenario(
    name: "idle_sse",
    summary: "inline",
    seed: 9,
    server: (priming_events: {priming}),
    client: (model: Naive, standalone_stream: false),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 3, interval: "2m"))],
    faults: [{faults}],
)"#
    )
}

#[test]
fn an_idle_proxy_cuts_quiet_2025_streams_and_only_a_primed_cursor_resumes_them() {
    let proxy = r#"IdleProxySse(cut_after: "60s")"#;
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let s = scenario(&slow_progress(true, proxy));
        let primed = run(&s, s.seed, client);
        let cuts = &primed.result.ledger.cuts;
        assert!(cuts.len() >= 2, "{client:?}: {cuts:?}");
        assert!(
            cuts.iter().all(|c| matches!(
                c.reason,
                faultline_model::CutReason::IdleProxy {
                    idle_ms: 60_000,
                    ..
                }
            )),
            "{client:?}"
        );
        // The naive client resumes every cut from the priming event's id and completes.
        // (The guarded client takes a resumption that replays nothing, because nothing
        // happened since its cursor, for an expired buffer and rebuilds its session after
        // every cut: its replay check cannot tell a quiet stream from a forgotten one.)
        if client == ClientModel::Naive {
            assert!(
                primed.result.record.calls[0].completed_at_ms.is_some(),
                "the priming event's id lets the client resume every cut"
            );
        }
        assert!(!primed.result.ledger.resumptions.is_empty(), "{client:?}");

        let s = scenario(&slow_progress(false, proxy));
        let unprimed = run(&s, s.seed, client);
        assert!(!unprimed.result.ledger.cuts.is_empty(), "{client:?}");
        assert!(
            unprimed.result.record.calls[0].completed_at_ms.is_none(),
            "{client:?}: cut before any id, the stream cannot be resumed"
        );

        let s = scenario(&slow_progress(false, ""));
        let direct = run(&s, s.seed, client);
        assert!(direct.result.ledger.cuts.is_empty(), "{client:?}");
        assert!(
            direct.result.record.calls[0].completed_at_ms.is_some(),
            "{client:?}"
        );
    }
}

#[test]
fn an_idle_proxy_with_no_timeout_is_refused() {
    let err = faultline_sim::Scenario::parse(
        &slow_progress(true, r#"IdleProxySse(cut_after: "0s")"#),
        "t.ron",
    )
    .expect_err("refused");
    assert!(
        err.to_string().contains("would cut every SSE response"),
        "{err}"
    );
}

#[test]
fn a_proxy_answering_404_reads_as_a_dead_session_and_the_server_never_sees_it() {
    let window = r#"Proxy502(when: At("70s"), lasting: "100ms", status: 404)"#;
    let s = scenario(&three_echoes(window));
    let o = run(&s, s.seed, ClientModel::Naive);
    let record = &o.result.record;
    // The proxy's 404 reads as the session's end: the naive client retries the call a
    // second later, when the proxy has its route back, and the call goes through.
    assert_eq!(
        record
            .requests
            .iter()
            .filter(|r| r.status == Some(404))
            .count(),
        1
    );
    assert!(record.calls[1].completed_at_ms.is_some_and(|t| t > 70_000));
    let ledger = &o.result.ledger;
    assert!(
        !ledger.answers.iter().any(|a| a.status == 404),
        "the proxy answered, not the server"
    );
    // A 502 in the same window fails the call instead.
    let s = scenario(&three_echoes(
        r#"Proxy502(when: At("70s"), lasting: "100ms")"#,
    ));
    let o = run(&s, s.seed, ClientModel::Naive);
    assert_eq!(o.result.record.calls[1].failed_at_ms, Some(70_000));
}

#[test]
fn a_proxy_status_that_is_not_an_error_is_refused_with_its_place() {
    let text = three_echoes(r#"Proxy502(when: At("70s"), lasting: "1s", status: 200)"#);
    let err = faultline_sim::Scenario::parse(&text, "t.ron").expect_err("refused");
    let said = err.to_string();
    assert!(said.contains("status: 200 is not an error"), "{said}");
    assert!(said.contains("t.ron:"), "the file and the line: {said}");
}
