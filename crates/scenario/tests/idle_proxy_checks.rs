//! What a scenario may say about idle listen streams: `IdleProxy` needs a 2026-07-28 client
//! that listens, a positive timeout and one proxy; `listen_keepalive` must be positive;
//! `DropListen`'s `end` is written only when it is not a reset. Each refusal names where.
//! <https://github.com/modelcontextprotocol/go-sdk/pull/1232>

use faultline_model::ListenEnd;
use faultline_scenario::{ArmedTrigger, Fault, Scenario, arm};

fn parse(server: &str, client: &str, faults: &str) -> Result<Scenario, String> {
    let text = format!(
        "Scenario(name: \"t\", summary: \"t\", server: ({server}), client: ({client}),\n workload: [CallTool(at: \"30s\", tool: Echo(text: \"hi\"))],\n faults: [{faults}])"
    );
    Scenario::parse(&text, "t.ron").map_err(|e| e.to_string())
}

const LISTENS: &str = "era: Modern, lists_tools: true";

#[test]
fn an_idle_proxy_stands_for_the_whole_run_and_draws_nothing() {
    let s = parse(
        "",
        LISTENS,
        r#"IdleProxy(cut_after: "60s"), ChangeList(at: "2m", notify: true)"#,
    )
    .expect("valid");
    let armed = arm(&s, 7);
    assert_eq!(armed.faults[0].trigger, ArmedTrigger::Standing);
    assert_eq!(armed.faults[0].away_ms, None);
    // Adding the proxy moved no other pick: the seed's stream is untouched by it.
    let without = parse("", LISTENS, r#"ChangeList(at: "2m", notify: true)"#).expect("valid");
    assert_eq!(arm(&without, 7).server_seed, armed.server_seed);
    assert_eq!(
        arm(&without, 7).balancer_seed,
        armed.balancer_seed,
        "the last draw too"
    );
    assert!(
        s.to_ron().contains("IdleProxy(") && s.to_ron().contains("cut_after: \"1m\""),
        "{}",
        s.to_ron()
    );
}

#[test]
fn an_idle_proxy_needs_a_listening_client_a_positive_timeout_and_no_twin() {
    for client in ["", "era: Modern"] {
        let err = parse("", client, r#"IdleProxy(cut_after: "60s")"#).expect_err("refused");
        assert!(
            err.contains("t.ron:3:") && err.contains("lists_tools: true"),
            "{err}"
        );
    }
    let err = parse("", LISTENS, r#"IdleProxy(cut_after: "0s")"#).expect_err("refused");
    assert!(
        err.contains("t.ron:3:") && err.contains("cut_after: \"0s\""),
        "{err}"
    );
    let err = parse(
        "",
        LISTENS,
        "IdleProxy(cut_after: \"60s\"),\n IdleProxy(cut_after: \"30s\")",
    )
    .expect_err("refused");
    assert!(
        err.contains("t.ron:4:") && err.contains("a second IdleProxy"),
        "{err}"
    );
}

#[test]
fn a_zero_keep_alive_is_refused_where_it_is_written() {
    let err = parse(r#"listen_keepalive: Some("0s")"#, LISTENS, "").expect_err("refused");
    assert!(err.starts_with("t.ron:1:") && err.contains("zero"), "{err}");
    let s = parse(r#"listen_keepalive: Some("15s")"#, LISTENS, "").expect("valid");
    assert_eq!(s.server.listen_keepalive.map(|d| d.ms()), Some(15_000));
    assert!(s.to_ron().contains("listen_keepalive: Some(\"15s\")"));
    let plain = parse("", LISTENS, "").expect("valid");
    assert!(!plain.to_ron().contains("listen_keepalive"));
}

#[test]
fn a_listen_drop_is_a_reset_unless_it_says_how_the_server_ends_it() {
    let reset = parse("", LISTENS, r#"DropListen(when: At("10s"))"#).expect("valid");
    let Fault::DropListen { end, .. } = reset.faults[0] else {
        panic!("a DropListen");
    };
    assert_eq!(end, ListenEnd::Reset);
    assert!(!reset.to_ron().contains("end:"), "{}", reset.to_ron());
    for (word, want) in [
        ("Complete", ListenEnd::Complete),
        ("Cancelled", ListenEnd::Cancelled),
    ] {
        let s = parse(
            "",
            LISTENS,
            &format!(r#"DropListen(when: At("10s"), end: {word})"#),
        )
        .expect("valid");
        let Fault::DropListen { end, .. } = s.faults[0] else {
            panic!("a DropListen");
        };
        assert_eq!(end, want);
        assert!(s.to_ron().contains(&format!("end: {word}")));
    }
    let err =
        parse("", LISTENS, r#"DropListen(when: At("10s"), end: Abrupt)"#).expect_err("refused");
    assert!(err.starts_with("t.ron:3:"), "{err}");
}
