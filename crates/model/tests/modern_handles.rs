//! Explicit state handles on the 2026-07-28 path: `create_basket` mints a handle,
//! `add_item` appends to the basket it names; `handle_idle_ttl`, `handle_persistence`,
//! `unknown_handle` and a fleet's session store decide when a handle is unknown and how
//! that is answered. The ledger records every handle minted, used, lost and missed.

use crate::modern_common::*;
use faultline_model::{
    Balancer, ConnId, FleetKnobs, HandleLoss, HandlePersistence, HttpRequest, HttpResponse,
    PositiveDurationMs, ReplicaId, Route, RouteWhy, Server, ServerKnobs, SessionStoreScope,
    UnknownHandle,
};
use serde_json::{Value, json};

fn on(replica: u8) -> Route {
    Route {
        replica: ReplicaId(replica),
        why: RouteWhy::RoundRobin,
    }
}

/// Sends `request` at `now_ms` on `replica` and returns its answer.
fn at(server: &mut Server, request: HttpRequest, replica: u8, now_ms: u64) -> HttpResponse {
    let mut out = Vec::new();
    let conn = ConnId(server.ledger().answers.len() as u64 + 1);
    server.handle_routed(conn, request, on(replica), now_ms, &mut out);
    the_answer(out)
}

fn call(id: u64, name: &str, arguments: Value) -> HttpRequest {
    modern_post(
        id,
        "tools/call",
        with_meta(json!({"name": name, "arguments": arguments})),
    )
}

/// Mints a basket on `replica` at `now_ms` and returns its handle.
fn create(server: &mut Server, replica: u8, now_ms: u64) -> String {
    let r = at(server, call(1, "create_basket", json!({})), replica, now_ms);
    assert_eq!(r.status, 200);
    let result = &body(&r)["result"];
    assert_eq!(result["isError"], false);
    let handle = result["structuredContent"]["basket"]
        .as_str()
        .expect("a handle")
        .to_string();
    assert!(handle.starts_with("bsk_"), "{handle}");
    assert_eq!(handle.len(), 4 + 32, "128 bits in hex: {handle}");
    handle
}

fn add(server: &mut Server, handle: &str, item: &str, replica: u8, now_ms: u64) -> Value {
    let r = at(
        server,
        call(2, "add_item", json!({"basket": handle, "item": item})),
        replica,
        now_ms,
    );
    assert_eq!(r.status, 200);
    body(&r).into_owned()
}

fn with(f: impl FnOnce(&mut ServerKnobs)) -> Server {
    let mut knobs = ServerKnobs::default();
    f(&mut knobs);
    server(knobs)
}

fn ttl(ms: u64) -> Option<PositiveDurationMs> {
    PositiveDurationMs::new(ms)
}

#[test]
fn a_basket_keeps_what_is_added_and_the_ledger_records_each_use() {
    let mut server = server(ServerKnobs::default());
    let handle = create(&mut server, 0, 0);
    add(&mut server, &handle, "apple", 0, 10);
    let answer = add(&mut server, &handle, "pear", 0, 20);
    assert_eq!(answer["result"]["isError"], false);
    assert_eq!(
        answer["result"]["structuredContent"]["items"],
        json!(["apple", "pear"])
    );
    let entry = &server.ledger().handles[0];
    assert_eq!(entry.handle, handle);
    assert_eq!(entry.minted_ms, 0);
    assert_eq!(entry.used_ms, vec![10, 20]);
    assert_eq!(entry.lost, None);
}

#[test]
fn handles_come_from_their_own_stream_so_the_same_seed_mints_the_same_handles() {
    let mut a = server(ServerKnobs::default());
    let mut b = server(ServerKnobs::default());
    let first = create(&mut a, 0, 0);
    assert_eq!(first, create(&mut b, 0, 0));
    assert_ne!(first, create(&mut a, 0, 1), "each handle is new");
}

#[test]
fn only_the_modern_tools_list_names_the_basket_tools() {
    let mut server = server(ServerKnobs::default());
    let r = at(
        &mut server,
        modern_post(1, "tools/list", with_meta(json!({}))),
        0,
        0,
    );
    let listed = body(&r);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"create_basket") && names.contains(&"add_item"));
    let legacy = faultline_model::tools::list();
    assert!(
        !legacy.to_string().contains("create_basket"),
        "the 2025 list is unchanged"
    );
}

#[test]
fn an_idle_handle_expires_after_its_ttl_and_each_use_restarts_the_clock() {
    let mut server = with(|k| k.handle_idle_ttl = ttl(1_000));
    let handle = create(&mut server, 0, 0);
    let kept = add(&mut server, &handle, "apple", 0, 999);
    assert_eq!(kept["result"]["isError"], false);
    let kept = add(&mut server, &handle, "pear", 0, 1_998);
    assert_eq!(
        kept["result"]["isError"], false,
        "the use at 999 reset the clock"
    );
    let gone = add(&mut server, &handle, "plum", 0, 2_998);
    assert_eq!(gone["result"]["isError"], true);
    let text = gone["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!("basket {handle} has expired; call create_basket again")
    );
    let entry = &server.ledger().handles[0];
    assert_eq!(entry.lost, Some((2_998, HandleLoss::Expired)));
    assert_eq!(entry.used_ms, vec![999, 1_998]);
    assert_eq!(entry.misses.len(), 1);
    assert_eq!(entry.misses[0].at_ms, 2_998);
}

#[test]
fn without_a_ttl_a_handle_lives_for_ever() {
    let mut server = server(ServerKnobs::default());
    let handle = create(&mut server, 0, 0);
    let kept = add(&mut server, &handle, "apple", 0, 365 * 24 * 3_600_000);
    assert_eq!(kept["result"]["isError"], false);
}

#[test]
fn a_restart_keeps_handles_under_everything() {
    let mut server = server(ServerKnobs::default());
    let handle = create(&mut server, 0, 0);
    add(&mut server, &handle, "apple", 0, 1);
    server.restart(5, &mut Vec::new());
    let kept = add(&mut server, &handle, "pear", 0, 10);
    assert_eq!(kept["result"]["isError"], false);
    assert_eq!(
        kept["result"]["structuredContent"]["items"],
        json!(["apple", "pear"])
    );
    assert_eq!(server.ledger().handles[0].lost, None);
}

#[test]
fn a_restart_loses_every_handle_under_nothing() {
    let mut server = with(|k| k.handle_persistence = HandlePersistence::Nothing);
    let handle = create(&mut server, 0, 0);
    server.restart(5, &mut Vec::new());
    let gone = add(&mut server, &handle, "pear", 0, 10);
    assert_eq!(gone["result"]["isError"], true);
    let text = gone["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&handle) && text.contains("create_basket"),
        "{text}"
    );
    assert_eq!(
        server.ledger().handles[0].lost,
        Some((5, HandleLoss::Restart))
    );
    let fresh = create(&mut server, 0, 11);
    assert_eq!(
        add(&mut server, &fresh, "pear", 0, 12)["result"]["isError"],
        false
    );
}

#[test]
fn an_opaque_answer_names_neither_the_handle_nor_the_remedy() {
    let mut server = with(|k| {
        k.handle_idle_ttl = ttl(100);
        k.unknown_handle = UnknownHandle::OpaqueIsError;
    });
    let handle = create(&mut server, 0, 0);
    let gone = add(&mut server, &handle, "apple", 0, 100);
    assert_eq!(gone["result"]["isError"], true);
    let text = gone["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        !text.contains(&handle) && !text.contains("create_basket"),
        "{text}"
    );
}

#[test]
fn invalid_params_answers_a_json_rpc_error_and_no_tool_result() {
    let mut server = with(|k| {
        k.handle_idle_ttl = ttl(100);
        k.unknown_handle = UnknownHandle::InvalidParams;
    });
    let handle = create(&mut server, 0, 0);
    let gone = add(&mut server, &handle, "apple", 0, 100);
    assert_eq!(gone["error"]["code"], -32602);
    assert!(gone.get("result").is_none());
    assert_eq!(server.ledger().handles[0].misses.len(), 1);
}

#[test]
fn a_handle_never_minted_is_unknown_and_recorded_nowhere() {
    let mut server = server(ServerKnobs::default());
    let gone = add(&mut server, "bsk_0", "apple", 0, 0);
    assert_eq!(gone["result"]["isError"], true);
    assert!(server.ledger().handles.is_empty());
}

#[test]
fn add_item_without_its_arguments_is_invalid_params() {
    let mut server = server(ServerKnobs::default());
    let r = at(&mut server, call(2, "add_item", json!({"item": "x"})), 0, 0);
    assert_eq!(body(&r)["error"]["code"], -32602);
}

fn fleet(session_store: SessionStoreScope) -> Server {
    Server::new(ServerKnobs::default(), 7).with_fleet(FleetKnobs {
        replicas: 3,
        balancer: Balancer::RoundRobin,
        session_store,
        ..FleetKnobs::default()
    })
}

#[test]
fn with_per_replica_stores_a_handle_lives_on_the_replica_that_minted_it() {
    let mut server = fleet(SessionStoreScope::PerReplica);
    let handle = create(&mut server, 1, 0);
    let elsewhere = add(&mut server, &handle, "apple", 2, 10);
    assert_eq!(elsewhere["result"]["isError"], true);
    let home = add(&mut server, &handle, "pear", 1, 20);
    assert_eq!(home["result"]["isError"], false);
    assert_eq!(
        home["result"]["structuredContent"]["items"],
        json!(["pear"])
    );
    let entry = &server.ledger().handles[0];
    assert_eq!(entry.replica, ReplicaId(1));
    assert_eq!(entry.lost, None, "elsewhere, not lost");
    assert_eq!(entry.misses.len(), 1);
    assert_eq!(entry.misses[0].replica, ReplicaId(2));
}

#[test]
fn with_a_shared_store_every_replica_knows_every_handle() {
    let mut server = fleet(SessionStoreScope::Shared);
    let handle = create(&mut server, 1, 0);
    add(&mut server, &handle, "apple", 2, 10);
    let answer = add(&mut server, &handle, "pear", 0, 20);
    assert_eq!(
        answer["result"]["structuredContent"]["items"],
        json!(["apple", "pear"])
    );
    assert!(server.ledger().handles[0].misses.is_empty());
}

#[test]
fn the_knobs_are_left_out_of_a_scenario_when_default() {
    let text = serde_json::to_string(&ServerKnobs::default()).unwrap();
    assert!(!text.contains("handle"), "{text}");
    let knobs = ServerKnobs {
        unknown_handle: UnknownHandle::InvalidParams,
        handle_persistence: HandlePersistence::Nothing,
        handle_idle_ttl: ttl(60_000),
        ..ServerKnobs::default()
    };
    let text = serde_json::to_string(&knobs).unwrap();
    let back: ServerKnobs = serde_json::from_str(&text).unwrap();
    assert_eq!(back, knobs);
}
