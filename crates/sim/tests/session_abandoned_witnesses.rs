//! Runs the explorer reported as `session_abandoned` that were not: each witness, shrunk,
//! judged by the rule as it now reads.
//!
//! - A fleet's tenant (`Work::Tenant`: another client's session, admitted by the workload
//!   without HTTP) is not a session the modelled client started. The swarm adds tenants to
//!   fleets; before `session_abandoned` paired the client's own sessions, every fleet seed
//!   whose client met a failed GET before a tenant arrived was reported (seed 3433 was the
//!   smallest witness).
//! - Answers to requests sent together reach the client in an order the ledger does not
//!   keep: a client that started a new session on a misrouted 404 was said to have given
//!   up on the 400 the ledger wrote after it (seed 86097).

use faultline_sim::{ClientModel, Scenario, VerdictKind, run};

/// The explorer's shrunk witness: a rolling deploy takes both replicas down, the naive
/// client's standalone GET is answered 503 until it gives up, and a tenant arrives at 1m.
const WITNESS: &str = r#"Scenario(
    name: "tenant_after_a_failed_get",
    summary: "A tenant admitted after the client's GET was answered 503.",
    seed: 3433,
    server: ServerKnobs(
        session_idle_ttl: None,
        session_absolute_ttl: None,
        event_log_ttl: None,
        event_log_capacity: Some(10000),
        gc_interval: None,
        id_scheme: PerGeneration,
        unknown_cursor: ReplayRemaining,
        get_validates_session: true,
        restart_persistence: Everything,
        advertise_monotonic_ids: false,
        priming_events: false,
        retry: None,
        dead_session_answer: NotFound,
        json_responses: true,
        max_sessions: 10000,
    ),
    fleet: FleetKnobs(
        replicas: 2,
        balancer: Random,
        session_store: PerReplica,
    ),
    client: ClientConfig(
        model: Naive,
        start_at: "1s",
        protocol_version: "2025-11-25",
        reconnect_delay: "1s",
        standalone_stream: true,
    ),
    workload: [
        Tenant(
            at: "1m",
            every: "1m",
            count: 1,
        ),
    ],
    faults: [
        RollingDeploy(
            when: At("1s"),
            every: "3s",
            down: "1m",
        ),
    ],
    horizon: Some("1d"),
)
"#;

#[test]
fn a_tenant_admitted_after_a_failed_get_is_no_abandonment() {
    let scenario = Scenario::parse(WITNESS, "tenant_after_a_failed_get.ron").unwrap();
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

/// The explorer's shrunk witness of seed 86097: behind a balancer that drops its sticky
/// cookie, the client's two GETs held back while it was away reach the server together;
/// the first is misrouted and answered 404, and the client starts a new session on it
/// before it reads the second's 400 (its cursor expired with the 2 s log TTL).
const MISROUTED_THEN_400: &str = r#"Scenario(
    name: "misrouted_404_then_400",
    summary: "A misrouted 404 and a 400 for the same session at one instant.",
    seed: 86097,
    server: ServerKnobs(
        session_idle_ttl: None,
        session_absolute_ttl: None,
        event_log_ttl: Some("2s"),
        event_log_capacity: Some(10000),
        gc_interval: None,
        id_scheme: PerStream,
        unknown_cursor: BadRequest,
        get_validates_session: true,
        restart_persistence: Everything,
        advertise_monotonic_ids: false,
        priming_events: false,
        retry: None,
        dead_session_answer: NotFound,
        json_responses: true,
        max_sessions: 10000,
    ),
    fleet: FleetKnobs(
        replicas: 2,
        balancer: StickyCookie,
        session_store: PerReplica,
    ),
    client: ClientConfig(
        model: Naive,
        start_at: "0s",
        protocol_version: "2025-06-18",
        reconnect_delay: "1s",
        standalone_stream: true,
    ),
    workload: [
        CallTool(
            at: "1m",
            tool: LongJob(
                steps: 2,
                interval: "1m",
            ),
            progress: true,
        ),
    ],
    faults: [
        Drop(
            when: AfterEvent(
                n: 1,
                on: Call(0),
            ),
            mode: Close,
            stream: Any,
            away: Some("3s"),
        ),
        Drop(
            when: At("1s"),
            mode: Reset,
            stream: Any,
            away: None,
        ),
    ],
    horizon: Some("1d"),
)
"#;

#[test]
fn a_new_session_on_a_misrouted_404_is_not_an_abandonment_of_the_400_after_it() {
    let scenario = Scenario::parse(MISROUTED_THEN_400, "misrouted_404_then_400.ron").unwrap();
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
