//! A fleet's tenant (`Work::Tenant`: another client's session, admitted by the workload
//! without HTTP) is not a session the modelled client started. The explorer's swarm adds
//! tenants to fleets; before `session_abandoned` paired the client's own sessions, every
//! fleet seed whose client met a failed GET before a tenant arrived was reported as
//! `session_abandoned` (seed 3433, shrunk below, was the smallest witness).

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
