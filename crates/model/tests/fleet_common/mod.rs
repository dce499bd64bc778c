//! A three-replica fleet behind round robin, and a tiny driver, shared by the fleet tests.
#![allow(dead_code)]

use faultline_model::{
    Balancer, ConnId, FleetKnobs, HttpRequest, Output, ReplicaId, RestartPersistence, Route,
    RouteWhy, Server, ServerKnobs, SessionStoreScope,
};
use serde_json::json;

pub fn fleet(session_store: SessionStoreScope, restart_persistence: RestartPersistence) -> Server {
    let knobs = ServerKnobs {
        restart_persistence,
        ..ServerKnobs::default()
    };
    Server::new(knobs, 1).with_fleet(FleetKnobs {
        replicas: 3,
        balancer: Balancer::RoundRobin,
        session_store,
        ..FleetKnobs::default()
    })
}

pub fn on(replica: u8) -> Route {
    Route {
        replica: ReplicaId(replica),
        why: RouteWhy::RoundRobin,
    }
}

pub fn answer(out: &[Output], conn: ConnId) -> (u16, Option<String>) {
    out.iter()
        .find_map(|o| match o {
            Output::Respond { conn: c, response } if *c == conn => {
                Some((response.status, response.session_id.clone()))
            }
            _ => None,
        })
        .expect("an answer")
}

/// A session minted on `replica` (conn `base`) with a long call running there (conn
/// `base + 1`, an SSE stream).
pub fn session_with_call(server: &mut Server, replica: u8, base: u64) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let mut out = Vec::new();
    server.handle_routed(
        ConnId(base),
        HttpRequest::post(None, init),
        on(replica),
        0,
        &mut out,
    );
    let session = answer(&out, ConnId(base)).1.expect("a session id");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "long_job", "arguments": {"steps": 100, "interval_ms": 100},
                   "_meta": {"progressToken": "p"}}});
    let mut request = HttpRequest::post(Some(session.clone()), call);
    request.protocol_version = Some("2025-06-18".into());
    out.clear();
    server.handle_routed(ConnId(base + 1), request, on(replica), 0, &mut out);
    assert_eq!(answer(&out, ConnId(base + 1)).0, 200);
    session
}

pub fn ping(server: &mut Server, conn: u64, session: &str, replica: u8, now: u64) -> u16 {
    let mut request = HttpRequest::post(
        Some(session.to_string()),
        json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    );
    request.protocol_version = Some("2025-06-18".into());
    let mut out = Vec::new();
    server.handle_routed(ConnId(conn), request, on(replica), now, &mut out);
    answer(&out, ConnId(conn)).0
}
