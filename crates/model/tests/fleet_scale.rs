//! Scaling a fleet: a shrink removes the highest replicas for good (their connections
//! reset, their jobs killed, what they held in memory lost whatever `restart_persistence`
//! says), a growth adds empty replicas that are up at once; a single server does not scale.

use faultline_model::{
    ConnId, DeathCause, EndMode, JobEnd, Output, ReplicaChange, ReplicaId, RestartPersistence,
    Server, ServerKnobs, SessionStoreScope,
};

use crate::fleet_common::{ping, session_with_call};

/// `Everything` survives a restart; a removed replica never restarts.
fn fleet(session_store: SessionStoreScope) -> Server {
    crate::fleet_common::fleet(session_store, RestartPersistence::Everything)
}

#[test]
fn a_shrink_removes_the_highest_replicas_and_loses_what_they_held() {
    let mut server = fleet(SessionStoreScope::PerReplica);
    let on_0 = session_with_call(&mut server, 0, 1);
    let on_2 = session_with_call(&mut server, 2, 10);
    let mut out = Vec::new();
    let reset = server.scale(2, 500, &mut out);
    assert_eq!(reset, vec![ConnId(11)], "only replica 2's stream");
    assert!(out.contains(&Output::End {
        conn: ConnId(11),
        how: EndMode::Reset
    }));
    let ledger = server.ledger();
    assert_eq!(ledger.jobs[1].ended, Some((500, JobEnd::Killed)));
    assert_eq!(ledger.jobs[0].ended, None, "replica 0's job goes on");
    assert_eq!(
        ledger.sessions[1].died,
        Some((500, DeathCause::ReplicaRemoved)),
        "lost although restart_persistence is Everything: nothing restarts"
    );
    assert_eq!(ledger.sessions[0].died, None);
    assert_eq!(ledger.replica_events.len(), 1);
    assert_eq!(ledger.replica_events[0].replica, ReplicaId(2));
    assert_eq!(ledger.replica_events[0].what, ReplicaChange::Removed);
    assert_eq!(server.replica_count(), 2);
    assert_eq!(server.replicas_up(), 0b011);
    // A down that never ends.
    server.advance(10_000_000, &mut out);
    assert_eq!(server.replicas_up(), 0b011);
    assert_eq!(ping(&mut server, 20, &on_0, 0, 10_000_100), 200);
    assert_eq!(ping(&mut server, 21, &on_2, 1, 10_000_200), 404);
}

#[test]
fn a_growth_adds_empty_replicas_up_at_once() {
    let mut server = fleet(SessionStoreScope::PerReplica);
    let on_0 = session_with_call(&mut server, 0, 1);
    let mut out = Vec::new();
    assert!(server.scale(5, 500, &mut out).is_empty());
    assert_eq!(server.replica_count(), 5);
    assert_eq!(server.replicas_up(), 0b1_1111);
    let added: Vec<(u8, ReplicaChange)> = server
        .ledger()
        .replica_events
        .iter()
        .map(|e| (e.replica.0, e.what))
        .collect();
    assert_eq!(
        added,
        vec![(3, ReplicaChange::Added), (4, ReplicaChange::Added)]
    );
    assert_eq!(server.ledger().jobs[0].ended, None, "nothing was cut");
    // An added replica starts empty: it never heard of replica 0's session.
    assert_eq!(ping(&mut server, 20, &on_0, 4, 600), 404);
    assert_eq!(server.ledger().misroutes.len(), 1);
    assert_eq!(ping(&mut server, 21, &on_0, 0, 700), 200);
    // Past the most a fleet has: 16.
    server.scale(200, 800, &mut out);
    assert_eq!(server.replica_count(), 16);
}

#[test]
fn a_shared_session_store_keeps_the_sessions_of_a_removed_replica() {
    let mut server = fleet(SessionStoreScope::Shared);
    let on_2 = session_with_call(&mut server, 2, 1);
    let mut out = Vec::new();
    server.scale(1, 500, &mut out);
    let ledger = server.ledger();
    assert_eq!(ledger.sessions[0].died, None);
    assert_eq!(
        ledger.jobs[0].ended,
        Some((500, JobEnd::Killed)),
        "the job ran in the removed replica's process"
    );
    assert_eq!(server.replicas_up(), 0b1);
    assert_eq!(ping(&mut server, 5, &on_2, 0, 600), 200);
}

#[test]
fn a_single_server_does_not_scale() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let mut out = Vec::new();
    assert!(server.scale(4, 500, &mut out).is_empty());
    assert_eq!(server.replica_count(), 1);
    assert!(server.ledger().replica_events.is_empty());
}
