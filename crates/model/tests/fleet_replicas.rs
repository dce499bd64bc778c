//! One replica of a fleet going down: its connections are reset and its jobs die, while
//! the other replicas' go on; what it held in memory follows `restart_persistence` when
//! sessions are per replica and survives in a shared store; with no replica up the
//! balancer's 503 reaches no replica.

use faultline_model::{
    ConnId, DeathCause, EndMode, HttpRequest, JobEnd, Output, ReplicaChange, ReplicaId,
    RestartPersistence, Route, RouteWhy, Server, ServerKnobs, SessionStoreScope,
};
use serde_json::json;

use crate::fleet_common::{answer, fleet, ping, session_with_call};

#[test]
fn a_replica_down_resets_its_connections_and_kills_its_jobs_only() {
    let mut server = fleet(SessionStoreScope::PerReplica, RestartPersistence::Nothing);
    let on_0 = session_with_call(&mut server, 0, 1);
    let on_1 = session_with_call(&mut server, 1, 10);
    let mut out = Vec::new();
    let reset = server.replica_down(ReplicaId(1), 60_000, 500, &mut out);
    assert_eq!(reset, vec![ConnId(11)], "only replica 1's stream");
    assert!(out.contains(&Output::End {
        conn: ConnId(11),
        how: EndMode::Reset
    }));
    assert!(!out.iter().any(|o| matches!(
        o,
        Output::End {
            conn: ConnId(2),
            ..
        }
    )));
    let ledger = server.ledger();
    assert_eq!(ledger.jobs[1].ended, Some((500, JobEnd::Killed)));
    assert_eq!(ledger.jobs[0].ended, None, "replica 0's job goes on");
    assert_eq!(
        ledger.sessions[1].died,
        Some((500, DeathCause::ReplicaDown))
    );
    assert_eq!(ledger.sessions[0].died, None);
    assert_eq!(ledger.replica_events.len(), 1);
    assert_eq!(ledger.replica_events[0].replica, ReplicaId(1));
    assert_eq!(
        ledger.replica_events[0].what,
        ReplicaChange::Down { until_ms: 60_500 }
    );
    assert!(!server.is_up(ReplicaId(1)));
    assert_eq!(server.replicas_up(), 0b101);
    assert_eq!(ping(&mut server, 20, &on_0, 0, 600), 200);
    // The session died with its replica: 404 anywhere, and no misroute (it is not alive).
    assert_eq!(ping(&mut server, 21, &on_1, 2, 700), 404);
    assert!(server.ledger().misroutes.is_empty());
    // Back up once `down` has passed, as a fresh process.
    let mut out = Vec::new();
    server.advance(60_500, &mut out);
    assert_eq!(server.replicas_up(), 0b111);
}

#[test]
fn a_replica_down_keeps_per_replica_sessions_in_a_new_generation_when_ids_persist() {
    let mut server = fleet(
        SessionStoreScope::PerReplica,
        RestartPersistence::SessionIdsOnly,
    );
    let session = session_with_call(&mut server, 1, 1);
    let mut out = Vec::new();
    server.replica_down(ReplicaId(1), 1_000, 500, &mut out);
    let entry = &server.ledger().sessions[0];
    assert_eq!(entry.died, None);
    assert_eq!(entry.generations, vec![0, 500]);
    // While its holder is down, a request for it reaches another replica: a misroute
    // that says the holder was down.
    assert_eq!(ping(&mut server, 5, &session, 0, 600), 404);
    let misroute = &server.ledger().misroutes[0];
    assert_eq!(misroute.held_by, ReplicaId(1));
    assert_eq!(misroute.holder_down_until, Some(1_500));
    assert_eq!(ping(&mut server, 6, &session, 1, 1_500), 200, "back up");
}

#[test]
fn a_shared_session_store_loses_nothing_when_a_replica_goes_down() {
    let mut server = fleet(SessionStoreScope::Shared, RestartPersistence::Nothing);
    let session = session_with_call(&mut server, 1, 1);
    let mut out = Vec::new();
    server.replica_down(ReplicaId(1), 60_000, 500, &mut out);
    let ledger = server.ledger();
    assert_eq!(ledger.sessions[0].died, None);
    assert_eq!(ledger.sessions[0].generations, vec![0]);
    assert_eq!(
        ledger.jobs[0].ended,
        Some((500, JobEnd::Killed)),
        "the job ran in the replica's process"
    );
    assert_eq!(ping(&mut server, 5, &session, 2, 600), 200);
}

#[test]
fn with_no_replica_up_the_balancer_answers_503_and_no_replica_sees_the_request() {
    let mut server = fleet(SessionStoreScope::Shared, RestartPersistence::Nothing);
    let session = session_with_call(&mut server, 0, 1);
    let mut out = Vec::new();
    for r in 0..3 {
        server.replica_down(ReplicaId(r), 10_000, 100, &mut out);
    }
    assert_eq!(server.replicas_up(), 0);
    let mut request = HttpRequest::post(
        Some(session),
        json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    );
    request.protocol_version = Some("2025-06-18".into());
    let none = Route {
        replica: ReplicaId(0),
        why: RouteWhy::NoneHealthy,
    };
    let touched = server.ledger().sessions[0].clone();
    out.clear();
    server.handle_routed(ConnId(7), request, none, 200, &mut out);
    assert_eq!(answer(&out, ConnId(7)).0, 503);
    let ledger = server.ledger();
    assert_eq!(ledger.answers.last().unwrap().route, Some(none));
    assert_eq!(ledger.sessions[0], touched);
}

#[test]
fn a_single_server_ignores_replica_down_and_is_always_up() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let mut out = Vec::new();
    assert!(
        server
            .replica_down(ReplicaId(0), 1_000, 0, &mut out)
            .is_empty()
    );
    assert!(server.ledger().replica_events.is_empty());
    assert!(server.is_up(ReplicaId(0)));
}
