//! A fleet's session stores: a request that reaches a replica other than the one holding
//! its session is answered as for an unknown session when each replica keeps its own store,
//! and served when the store is shared. Both are recorded in the ledger.

use faultline_model::{
    Balancer, ConnId, FleetKnobs, HeldBy, HttpRequest, Output, ReplicaId, Route, RouteWhy, Server,
    ServerKnobs, SessionStoreScope,
};
use serde_json::json;

fn fleet(session_store: SessionStoreScope) -> Server {
    Server::new(ServerKnobs::default(), 1).with_fleet(FleetKnobs {
        replicas: 3,
        balancer: Balancer::RoundRobin,
        session_store,
        ..FleetKnobs::default()
    })
}

fn on(replica: u8) -> Route {
    Route {
        replica: ReplicaId(replica),
        why: RouteWhy::RoundRobin,
    }
}

fn status(out: &[Output], conn: ConnId) -> u16 {
    out.iter()
        .find_map(|o| match o {
            Output::Respond { conn: c, response } if *c == conn => Some(response.status),
            _ => None,
        })
        .expect("an answer")
}

/// Initializes on replica 0, then pings the session on replica 2.
fn initialize_then_ping_elsewhere(server: &mut Server) -> (String, u16) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let mut out = Vec::new();
    server.handle_routed(ConnId(1), HttpRequest::post(None, init), on(0), 0, &mut out);
    let session = match &out[0] {
        Output::Respond { response, .. } => response.session_id.clone().expect("a session id"),
        other => panic!("{other:?}"),
    };
    out.clear();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let request = HttpRequest::post(Some(session.clone()), ping);
    server.handle_routed(ConnId(2), request, on(2), 1_000, &mut out);
    (session, status(&out, ConnId(2)))
}

#[test]
fn a_per_replica_store_answers_404_elsewhere_and_records_the_misroute() {
    let mut server = fleet(SessionStoreScope::PerReplica);
    let (_, status) = initialize_then_ping_elsewhere(&mut server);
    assert_eq!(status, 404, "replica 2 does not know replica 0's session");
    let ledger = server.ledger();
    assert_eq!(ledger.misroutes.len(), 1);
    let misroute = &ledger.misroutes[0];
    assert_eq!(misroute.conn, ConnId(2));
    assert_eq!(misroute.at_ms, 1_000);
    assert_eq!(misroute.answered_by, ReplicaId(2));
    assert_eq!(misroute.held_by, ReplicaId(0));
    assert_eq!(
        ledger.sessions[0].held_by,
        Some(HeldBy::Replica(ReplicaId(0)))
    );
    let routes: Vec<Option<Route>> = ledger.answers.iter().map(|a| a.route).collect();
    assert_eq!(routes, vec![Some(on(0)), Some(on(2))]);
    assert!(
        ledger.sessions[0].died.is_none(),
        "the session lives on replica 0"
    );
}

#[test]
fn a_per_replica_store_serves_the_holder() {
    let mut server = fleet(SessionStoreScope::PerReplica);
    let (session, _) = initialize_then_ping_elsewhere(&mut server);
    let mut out = Vec::new();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    server.handle_routed(
        ConnId(3),
        HttpRequest::post(Some(session), ping),
        on(0),
        2_000,
        &mut out,
    );
    assert_eq!(status(&out, ConnId(3)), 200);
    assert_eq!(server.ledger().misroutes.len(), 1, "only the first ping");
}

#[test]
fn a_shared_store_answers_200_anywhere_and_records_no_misroute() {
    let mut server = fleet(SessionStoreScope::Shared);
    let (_, status) = initialize_then_ping_elsewhere(&mut server);
    assert_eq!(status, 200);
    let ledger = server.ledger();
    assert!(ledger.misroutes.is_empty());
    assert_eq!(ledger.sessions[0].held_by, Some(HeldBy::Shared));
}

#[test]
fn a_single_server_writes_no_fleet_fields() {
    let mut server = Server::new(ServerKnobs::default(), 1);
    let (_, status) = initialize_then_ping_elsewhere(&mut server);
    assert_eq!(status, 200, "one replica: every route is replica 0");
    let text = serde_json::to_string(server.ledger()).expect("serializes");
    for field in ["route", "held_by", "misroutes"] {
        assert!(!text.contains(field), "{field} in {text}");
    }
}
