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
//!   though the run had gone quiet (821 of 100,000 naive seeds). Those retries are
//!   `retry_amplification`'s and `misrouted_session`'s.

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

/// The explorer's shrunk witness of seed 37810: two rolling deploys of a 2-replica fleet,
/// each with both replicas down for a while; the guarded client retries `initialize` with
/// back-off through each outage and gets a session in between.
const RETRIES_THROUGH_TWO_OUTAGES: &str = r#"Scenario(
    name: "retries_through_two_outages",
    summary: "A guarded client retries initialize through two fleet outages, with a session between them.",
    seed: 37810,
    server: ServerKnobs(
        session_idle_ttl: None,
        session_absolute_ttl: None,
        event_log_ttl: None,
        event_log_capacity: Some(10000),
        gc_interval: None,
        id_scheme: PerGeneration,
        unknown_cursor: NotFound,
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
        balancer: RoundRobin,
        session_store: PerReplica,
    ),
    client: ClientConfig(
        model: Guarded,
        start_at: "1s",
        protocol_version: "2025-06-18",
        reconnect_delay: "623ms",
        standalone_stream: true,
    ),
    workload: [],
    faults: [
        RollingDeploy(
            when: At("1m"),
            every: "2s",
            down: "1m",
        ),
        RollingDeploy(
            when: At("18s"),
            every: "3s",
            down: "15s",
        ),
    ],
    horizon: Some("1d"),
)
"#;

#[test]
fn retries_with_a_success_between_two_outages_are_no_reconnect_loop() {
    let scenario = Scenario::parse(
        RETRIES_THROUGH_TWO_OUTAGES,
        "retries_through_two_outages.ron",
    )
    .unwrap();
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

/// The explorer's shrunk witness of seed 256: the session expires (idle TTL 34 s); the
/// main task and two stale ones each retry their call three times on its 404 and give up,
/// the second stale task after the client re-initialized.
const STALE_TASKS_DEAD_SESSION: &str = r#"Scenario(
    name: "stale_tasks_retry_a_dead_session",
    summary: "Three tasks each retry a call into a session that expired, three times, and give up.",
    seed: 256,
    server: ServerKnobs(
        session_idle_ttl: Some("34s"),
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
    client: ClientConfig(
        model: Naive,
        start_at: "1s",
        protocol_version: "2025-06-18",
        reconnect_delay: "1m",
        standalone_stream: false,
    ),
    workload: [
        CallTool(
            at: "1m",
            tool: LongJob(
                steps: 1,
                interval: "1m",
            ),
            progress: true,
        ),
    ],
    faults: [
        StaleTask(
            at: "1m",
            holds_session_from: "1m",
        ),
        StaleTask(
            at: "1m22s",
            holds_session_from: "1m",
        ),
    ],
    horizon: Some("1d"),
)
"#;

/// The explorer's shrunk witness of seed 73685: a fleet of 4 behind a session-id hash
/// that is not where the session lives (per-replica stores); three tasks each retry their
/// call three times on the misrouted 404 and give up.
const STALE_TASKS_MISROUTED: &str = r#"Scenario(
    name: "stale_tasks_retry_a_misrouted_session",
    summary: "Three tasks each retry a call misrouted to a replica without their session, three times, and give up.",
    seed: 73685,
    server: ServerKnobs(
        session_idle_ttl: None,
        session_absolute_ttl: None,
        event_log_ttl: None,
        event_log_capacity: Some(10000),
        gc_interval: None,
        id_scheme: SessionMonotonic,
        unknown_cursor: FreshStream,
        get_validates_session: true,
        restart_persistence: Everything,
        advertise_monotonic_ids: true,
        priming_events: false,
        retry: None,
        dead_session_answer: NotFound,
        json_responses: true,
        max_sessions: 10000,
    ),
    fleet: FleetKnobs(
        replicas: 4,
        balancer: StickySessionId,
        session_store: PerReplica,
    ),
    client: ClientConfig(
        model: Naive,
        start_at: "9s716ms",
        protocol_version: "2025-03-26",
        reconnect_delay: "1m",
        standalone_stream: false,
    ),
    workload: [
        CallTool(
            at: "1m",
            tool: LongJob(
                steps: 1,
                interval: "1m",
            ),
            progress: false,
        ),
    ],
    faults: [
        StaleTask(
            at: "1m",
            holds_session_from: "1m",
        ),
        StaleTask(
            at: "1m",
            holds_session_from: "1m",
        ),
    ],
    horizon: Some("1d"),
)
"#;

#[test]
fn bounded_retries_of_several_tasks_into_a_gone_session_are_no_reconnect_loop() {
    for (text, gone) in [
        (STALE_TASKS_DEAD_SESSION, VerdictKind::RetryAmplification),
        (STALE_TASKS_MISROUTED, VerdictKind::MisroutedSession),
    ] {
        let scenario = Scenario::parse(text, "stale_tasks.ron").unwrap();
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
