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
