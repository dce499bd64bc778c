//! A fleet's event store and fan-out: which replica resolves a `Last-Event-ID` against
//! which log, what a shared store keyed by stream replays (another session's events: the
//! cross-session replay of the TypeScript SDK's example store), the session tag on
//! notifications, and a notification that reaches no listener behind `SameReplica`.

use faultline_model::{
    Balancer, ConnId, CursorResolution, EventStoreScope, FleetKnobs, HttpRequest, Notifications,
    Output, ReplicaId, Route, RouteWhy, SESSION_TAG_META, Server, ServerKnobs, SessionKey,
    SessionStoreScope, SharedKey, session_tag_text,
};
use serde_json::json;

fn fleet(event_store: EventStoreScope, notifications: Notifications) -> Server {
    Server::new(ServerKnobs::default(), 1).with_fleet(FleetKnobs {
        replicas: 3,
        balancer: Balancer::RoundRobin,
        session_store: SessionStoreScope::Shared,
        event_store,
        notifications,
    })
}

const BY_STREAM: EventStoreScope = EventStoreScope::Shared {
    by: SharedKey::Stream,
};
const BY_SESSION: EventStoreScope = EventStoreScope::Shared {
    by: SharedKey::Session,
};

fn on(replica: u8) -> Route {
    Route {
        replica: ReplicaId(replica),
        why: RouteWhy::RoundRobin,
    }
}

/// A session initialized on `replica` (conn `conn`): its wire id and key.
fn initialize(server: &mut Server, replica: u8, conn: u64, now: u64) -> (String, SessionKey) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let mut out = Vec::new();
    server.handle_routed(
        ConnId(conn),
        HttpRequest::post(None, init),
        on(replica),
        now,
        &mut out,
    );
    let session = out
        .iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => response.session_id.clone(),
            _ => None,
        })
        .expect("a session id");
    let key = server.session_key(&session).expect("minted");
    (session, key)
}

/// A GET for the session's standalone stream on `replica`, resuming after `cursor` if any.
fn listen(
    server: &mut Server,
    session: &str,
    cursor: Option<u64>,
    replica: u8,
    conn: u64,
    now: u64,
) -> Vec<Output> {
    let mut request = HttpRequest::get(Some(session.to_string()), cursor.map(|c| c.to_string()));
    request.protocol_version = Some("2025-06-18".into());
    let mut out = Vec::new();
    server.handle_routed(ConnId(conn), request, on(replica), now, &mut out);
    out
}

/// The sessions of the events sent on `conn`, in order.
fn sessions_sent(server: &Server, out: &[Output], conn: u64) -> Vec<SessionKey> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event { conn: c, event, .. } if *c == ConnId(conn) => {
                Some(server.ledger().event(*event).session)
            }
            _ => None,
        })
        .collect()
}

/// The client listens on replica 1 and sees one notification; it drops; meanwhile a tenant
/// (admitted by replica 0) gets three notifications and the client one more; the client
/// resumes on replica 2 after the one it saw. Returns the server, the resumption's
/// output, and the client's and the tenant's keys.
fn resume_beside_a_tenant(
    event_store: EventStoreScope,
) -> (Server, Vec<Output>, SessionKey, SessionKey) {
    let mut server = fleet(event_store, Notifications::AllReplicas);
    let (session, client) = initialize(&mut server, 1, 1, 0);
    let mut out = Vec::new();
    let tenant = server.admit_tenant(0, &mut out);
    listen(&mut server, &session, None, 1, 2, 10);
    out.clear();
    server.notify_key(client, 100, &mut out);
    let seen = out
        .iter()
        .find_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .expect("the first notification is sent");
    server.disconnect(ConnId(2), 150, &mut out);
    for t in [200, 300, 400] {
        server.notify_key(tenant, t, &mut out);
    }
    server.notify_key(client, 500, &mut out);
    let resumed = listen(&mut server, &session, Some(seen), 2, 3, 600);
    (server, resumed, client, tenant)
}

#[test]
fn a_store_keyed_by_stream_replays_the_tenants_events_after_the_cursor() {
    let (server, out, client, tenant) = resume_beside_a_tenant(BY_STREAM);
    assert_eq!(
        sessions_sent(&server, &out, 3),
        vec![tenant, tenant, tenant, client],
        "in production order, whichever session produced them"
    );
    let resume = server.ledger().resumptions.last().unwrap();
    assert!(
        matches!(
            resume.resolution,
            CursorResolution::Honoured { replayed: 4, .. }
        ),
        "{:?}",
        resume.resolution
    );
}

#[test]
fn a_store_keyed_by_session_replays_only_the_sessions_own_events() {
    let (server, out, client, _) = resume_beside_a_tenant(BY_SESSION);
    assert_eq!(sessions_sent(&server, &out, 3), vec![client]);
}

#[test]
fn a_per_replica_store_cannot_resolve_a_cursor_on_another_replica() {
    let (server, out, _, _) = resume_beside_a_tenant(EventStoreScope::PerReplica);
    let resume = server.ledger().resumptions.last().unwrap();
    assert!(
        matches!(resume.resolution, CursorResolution::Unknown { .. }),
        "the stream's log is on replica 1, the cursor went to replica 2: {:?}",
        resume.resolution
    );
    assert!(sessions_sent(&server, &out, 3).is_empty());
}

#[test]
fn a_fleets_notifications_carry_their_sessions_tag_and_a_single_servers_do_not() {
    let mut server = fleet(BY_STREAM, Notifications::AllReplicas);
    let (session, key) = initialize(&mut server, 0, 1, 0);
    listen(&mut server, &session, None, 0, 2, 0);
    let mut out = Vec::new();
    server.notify_key(key, 10, &mut out);
    let event = server.ledger().events.last().unwrap();
    assert_eq!(event.session, key);
    let message = server
        .event_message(faultline_model::EventRef(
            server.ledger().next_event().0 - 1,
        ))
        .unwrap();
    assert_eq!(
        message["params"]["_meta"][SESSION_TAG_META],
        json!(session_tag_text(&session))
    );

    let mut single = Server::new(ServerKnobs::default(), 1);
    let (session, key) = initialize(&mut single, 0, 1, 0);
    listen(&mut single, &session, None, 0, 2, 0);
    single.notify_key(key, 10, &mut out);
    let message = single
        .event_message(faultline_model::EventRef(
            single.ledger().next_event().0 - 1,
        ))
        .unwrap();
    assert!(message["params"].get("_meta").is_none(), "{message}");
}

/// A session minted on replica 0 listens through a GET the balancer sent to replica 1.
fn listener_on_another_replica(notifications: Notifications) -> Server {
    let mut server = fleet(EventStoreScope::PerReplica, notifications);
    let (session, key) = initialize(&mut server, 0, 1, 0);
    listen(&mut server, &session, None, 1, 2, 0);
    let mut out = Vec::new();
    assert!(server.notify_key(key, 10, &mut out));
    server
}

#[test]
fn same_replica_fanout_produces_a_notification_that_is_sent_to_nobody() {
    let server = listener_on_another_replica(Notifications::SameReplica);
    let ledger = server.ledger();
    let event = faultline_model::EventRef(ledger.next_event().0 - 1);
    assert!(!ledger.sends.iter().any(|s| s.event == event), "no send");
    let all = listener_on_another_replica(Notifications::AllReplicas);
    let ledger = all.ledger();
    let event = faultline_model::EventRef(ledger.next_event().0 - 1);
    assert!(ledger.sends.iter().any(|s| s.event == event), "sent");
}
