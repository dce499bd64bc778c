//! A fleet behind cookie affinity, over real loopback HTTP: the balancer's `Set-Cookie`
//! reaches a raw client as a header, a client that sends the cookie back stays on its
//! replica, and after the balancer forgets its pins (`StickyLost`) the same cookie names
//! nothing and the client is pinned anew, elsewhere. The clock is frozen: time moves only
//! by `/_chaos/clock/advance`, so the fault fires exactly between two requests.

use crate::common::*;
use faultline_model::{ReplicaId, RouteWhy};
use faultline_scenario::Scenario;
use faultline_server::Config;
use serde_json::json;

const SCENARIO: &str = r#"Scenario(
    name: "cookie_fleet",
    summary: "three replicas behind cookie affinity; the balancer forgets its pins at 10s",
    seed: 11,
    fleet: (replicas: 3, balancer: StickyCookie, session_store: Shared),
    faults: [StickyLost(when: At("10s"))],
)"#;

async fn ping(addr: std::net::SocketAddr, session: &str, cookie: Option<&str>) -> Option<String> {
    let mut req = Req::post(Some(session), &rpc(9, "ping", json!({})))
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(cookie) = cookie {
        req = req.header("cookie", cookie);
    }
    let response = req.send(addr).await;
    assert_eq!(response.status(), 200);
    let set = header(&response, "set-cookie");
    json_body(response).await;
    set
}

#[tokio::test]
async fn a_raw_client_gets_set_cookie_stays_pinned_and_moves_after_sticky_lost() {
    let scenario = Scenario::parse(SCENARIO, "cookie_fleet.ron").expect("a valid scenario");
    let server = start(
        Config::from_scenario(scenario)
            .with_control(true)
            .with_time_scale(0.0),
    )
    .await;
    let addr = server.addr;

    // `initialize` has no cookie: pinned anew, round robin (r0), with a real header.
    let response = Req::post(
        None,
        &rpc(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
        ),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    let session = header(&response, "mcp-session-id").expect("a session");
    let set = header(&response, "set-cookie").expect("Set-Cookie on the first answer");
    assert_eq!(set, "faultline-replica=0.0; Path=/");
    json_body(response).await;
    let cookie = set.split(';').next().unwrap().to_string();

    // Sent back, the cookie keeps every request on r0, and nothing new is set.
    for _ in 0..4 {
        assert_eq!(ping(addr, &session, Some(&cookie)).await, None);
    }
    // Without it, a request is pinned anew: the next replica in turn.
    assert_eq!(
        ping(addr, &session, None).await.as_deref(),
        Some("faultline-replica=0.1; Path=/")
    );

    // The balancer forgets its pins: the old cookie names nothing any more.
    advance(addr, 10_000).await;
    let moved = ping(addr, &session, Some(&cookie)).await;
    assert_eq!(moved.as_deref(), Some("faultline-replica=1.2; Path=/"));

    let body = ledger(addr).await;
    assert!(
        body.faults_fired
            .iter()
            .any(|f| f.note.contains("forgot its pins (epoch 1)")),
        "{:?}",
        body.faults_fired
    );
    let routes: Vec<(u8, RouteWhy)> = body
        .ledger
        .answers
        .iter()
        .map(|a| {
            let route = a.route.expect("a fleet records routes");
            (route.replica.0, route.why)
        })
        .collect();
    assert_eq!(
        routes,
        vec![
            (0, RouteWhy::NewPin),
            (0, RouteWhy::Cookie),
            (0, RouteWhy::Cookie),
            (0, RouteWhy::Cookie),
            (0, RouteWhy::Cookie),
            (1, RouteWhy::NewPin),
            (2, RouteWhy::NewPin),
        ]
    );
    assert_ne!(
        body.ledger.answers.last().unwrap().route.unwrap().replica,
        ReplicaId(0),
        "moved off r0 after StickyLost"
    );
    server.shutdown().await.expect("a clean shutdown");
}
