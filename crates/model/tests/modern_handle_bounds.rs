//! A long-lived server's handle store is bounded (`Limits::max_handles`): a new basket
//! takes the room of a lost handle, else of an idle-expired one, else of the least
//! recently used one (evicted, and the ledger says so). Naming an evicted basket gets a
//! clear tool error once, then the handle is unknown. A basket holds at most
//! `MAX_BASKET_ITEMS` items. The ledger window trims handle entries too, and a basket
//! that outlives its entry still works. With `Limits::default()` nothing is bounded.

use crate::modern_common::*;
use faultline_model::modern::handles::{MAX_BASKET_BYTES, MAX_BASKET_ITEMS};
use faultline_model::{
    HandleLoss, HandlePersistence, HttpRequest, Limits, PositiveDurationMs, Server, ServerKnobs,
};
use serde_json::{Value, json};

fn call(id: u64, name: &str, arguments: Value) -> HttpRequest {
    modern_post(
        id,
        "tools/call",
        with_meta(json!({"name": name, "arguments": arguments})),
    )
}

fn create(server: &mut Server, now_ms: u64) -> String {
    let r = answer_at(server, call(1, "create_basket", json!({})), now_ms);
    assert_eq!(r.status, 200);
    body(&r)["result"]["structuredContent"]["basket"]
        .as_str()
        .expect("a handle")
        .to_string()
}

/// `add_item`'s result.
fn add(server: &mut Server, handle: &str, item: &str, now_ms: u64) -> Value {
    let r = answer_at(
        server,
        call(2, "add_item", json!({"basket": handle, "item": item})),
        now_ms,
    );
    assert_eq!(r.status, 200);
    body(&r)["result"].clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text")
}

fn bounded(max_handles: u32, knobs: ServerKnobs) -> Server {
    let limits = Limits {
        max_handles: Some(max_handles),
        ..Limits::default()
    };
    limited(knobs, limits)
}

fn entry<'a>(server: &'a Server, handle: &str) -> &'a faultline_model::HandleEntry {
    server
        .ledger()
        .handles
        .iter()
        .find(|h| h.handle == handle)
        .expect("a ledger entry")
}

#[test]
fn the_store_never_holds_more_than_the_bound() {
    let mut server = bounded(3, ServerKnobs::default());
    let mut handles = Vec::new();
    for i in 0..30u64 {
        handles.push(create(&mut server, i));
        let held = server.handles_held();
        assert!(held.records <= 3, "{i}: {held:?}");
        assert!(held.tombstones <= 3, "{i}: {held:?}");
    }
    let ledger = server.ledger();
    assert_eq!(ledger.handles.len(), 30);
    let evicted = ledger
        .handles
        .iter()
        .filter(|h| matches!(h.lost, Some((_, HandleLoss::Evicted))))
        .count();
    assert_eq!(evicted, 27);
    assert_eq!(ledger.handles[0].lost, Some((3, HandleLoss::Evicted)));
    assert_eq!(
        add(&mut server, &handles[29], "apple", 40)["isError"],
        false
    );
}

#[test]
fn a_new_basket_takes_a_lost_room_then_an_idle_expired_one_then_the_least_recently_used() {
    let knobs = ServerKnobs {
        handle_idle_ttl: PositiveDurationMs::new(1_000),
        handle_persistence: HandlePersistence::Nothing,
        ..ServerKnobs::default()
    };
    let mut server = bounded(3, knobs);
    let lost = create(&mut server, 0);
    server.restart(5, &mut Vec::new());
    let x = create(&mut server, 10);
    let y = create(&mut server, 20);

    // The lost handle's room goes first (the others are live).
    let a = create(&mut server, 100);
    assert_eq!(entry(&server, &lost).lost, Some((5, HandleLoss::Restart)));
    assert_eq!(entry(&server, &x).lost, None);
    assert_eq!(server.handles_held().records, 3);

    // Next, one idle past its TTL: it expired when its time ran out, not now.
    let b = create(&mut server, 1_015);
    assert_eq!(entry(&server, &x).lost, Some((1_010, HandleLoss::Expired)));
    assert_eq!(entry(&server, &y).lost, None);

    // Last, the least recently used: `y` is older than `a` but was used just now.
    assert_eq!(add(&mut server, &y, "apple", 1_016)["isError"], false);
    let c = create(&mut server, 1_017);
    assert_eq!(entry(&server, &a).lost, Some((1_017, HandleLoss::Evicted)));
    for h in [&y, &b, &c] {
        assert_eq!(entry(&server, h).lost, None);
    }
    assert_eq!(server.handles_held().records, 3);

    // Naming the evicted basket: a clear tool error, recorded as a miss; then its
    // record is gone and it is unknown.
    let gone = add(&mut server, &a, "pear", 1_018);
    assert_eq!(gone["isError"], true);
    assert!(
        text(&gone).contains(&a)
            && text(&gone).contains("evicted")
            && text(&gone).contains("at most 3 handles"),
        "{}",
        text(&gone)
    );
    assert_eq!(entry(&server, &a).misses.len(), 1);
    let unknown = add(&mut server, &a, "pear", 1_019);
    assert_eq!(unknown["isError"], true);
    assert!(
        text(&unknown).contains("unknown to this server"),
        "{}",
        text(&unknown)
    );
    assert_eq!(entry(&server, &a).misses.len(), 1);
    assert_eq!(server.handles_held().tombstones, 2, "lost and x remain");

    // The restarted one's tombstone still says why.
    let restarted = add(&mut server, &lost, "pear", 1_020);
    assert!(
        text(&restarted).contains("restarted"),
        "{}",
        text(&restarted)
    );
    assert_eq!(entry(&server, &lost).misses.len(), 1);
}

#[test]
fn a_basket_holds_at_most_max_basket_items() {
    let mut server = server(ServerKnobs::default());
    let handle = create(&mut server, 0);
    for i in 0..MAX_BASKET_ITEMS {
        let result = add(&mut server, &handle, "x", i as u64);
        assert_eq!(result["isError"], false, "{i}");
    }
    let full = add(&mut server, &handle, "one more", 2_000);
    assert_eq!(full["isError"], true);
    assert!(
        text(&full).contains("full") && text(&full).contains("at most 1000 items"),
        "{}",
        text(&full)
    );
    assert_eq!(entry(&server, &handle).used_ms.len(), MAX_BASKET_ITEMS);
}

#[test]
fn a_basket_holds_at_most_max_basket_bytes_of_items() {
    let mut server = server(ServerKnobs::default());
    let handle = create(&mut server, 0);
    let quarter = "q".repeat(MAX_BASKET_BYTES / 4);
    for i in 0..4 {
        let result = add(&mut server, &handle, &quarter, i);
        assert_eq!(result["isError"], false, "{i}");
    }
    let over = add(&mut server, &handle, "x", 10);
    assert_eq!(over["isError"], true);
    assert!(
        text(&over).contains("full") && text(&over).contains(&format!("{MAX_BASKET_BYTES} bytes")),
        "{}",
        text(&over)
    );
    // A fresh basket takes a big item whole, and refuses one bigger than a basket.
    let other = create(&mut server, 20);
    assert_eq!(add(&mut server, &other, &quarter, 21)["isError"], false);
    let huge = "h".repeat(MAX_BASKET_BYTES + 1);
    assert_eq!(add(&mut server, &other, &huge, 22)["isError"], true);
    assert_eq!(entry(&server, &other).used_ms.len(), 1);
}

#[test]
fn with_default_limits_no_handle_is_ever_given_up() {
    let mut server = server(ServerKnobs::default());
    assert_eq!(server.limits().max_handles, None);
    for i in 0..50u64 {
        create(&mut server, i);
    }
    assert_eq!(server.handles_held().records, 50);
    assert!(server.ledger().handles.iter().all(|h| h.lost.is_none()));
}

#[test]
fn the_ledger_window_trims_handle_entries_and_a_basket_that_outlives_its_entry_still_works() {
    let mut server = bounded(5, ServerKnobs::default());
    server.bound_ledger(10);
    let kept = create(&mut server, 0);
    for i in 1..=100u64 {
        // Used before every new basket: never the least recently used.
        add(&mut server, &kept, &format!("item-{i}"), i * 10);
        create(&mut server, i * 10 + 1);
        server.trim_ledger();
        assert!(server.ledger().handles.len() <= 20, "{i}");
    }
    let ledger = server.ledger();
    assert!(ledger.handles_base > 0);
    assert_eq!(ledger.handles_end(), 101);
    assert!(ledger.kept_handle(0).is_none(), "its entry was trimmed");
    let text = serde_json::to_string(ledger).unwrap();
    assert!(text.contains("\"handles_base\""));

    let result = add(&mut server, &kept, "last", 2_000);
    assert_eq!(result["isError"], false);
    let items = result["structuredContent"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 101);
    assert_eq!(items[0], "item-1");
}

#[test]
fn uses_on_the_same_millisecond_are_told_apart_by_their_order() {
    let mut server = bounded(2, ServerKnobs::default());
    let a = create(&mut server, 0);
    let b = create(&mut server, 0);
    add(&mut server, &a, "apple", 0);
    create(&mut server, 0);
    assert_eq!(entry(&server, &b).lost, Some((0, HandleLoss::Evicted)));
    assert_eq!(entry(&server, &a).lost, None);
}
