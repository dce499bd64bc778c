//! A rolling deploy into another era moves one replica at a time: the moved replica
//! answers in its new era, the others in the old, the ledger names each move, and a
//! whole-server `roll_era` afterwards moves every replica again.

use crate::fleet_common::{fleet, on};
use crate::modern_common::{modern_post, with_meta};
use faultline_model::{ConnId, Era, ReplicaId, RestartPersistence, ServerKnobs, SessionStoreScope};
use serde_json::json;

/// The status a `server/discover` probe gets from `replica` at `now`.
fn probe(server: &mut faultline_model::Server, replica: u8, conn: u64, now: u64) -> u16 {
    let mut out = Vec::new();
    server.handle_routed(
        ConnId(conn),
        modern_post(conn, "server/discover", with_meta(json!({}))),
        on(replica),
        now,
        &mut out,
    );
    crate::fleet_common::answer(&out, ConnId(conn)).0
}

#[test]
fn a_rolled_replica_speaks_its_new_era_and_the_others_the_old() {
    let mut server = fleet(SessionStoreScope::Shared, RestartPersistence::Everything);
    assert_eq!(server.knobs().era, Era::DualStatefulLegacy);
    let mut out = Vec::new();
    server.roll_replica_era(ReplicaId(0), Era::LegacyOnly, 1_000, 5_000, &mut out);
    assert_eq!(server.era_of(ReplicaId(0)), Era::LegacyOnly);
    assert_eq!(server.era_of(ReplicaId(1)), Era::DualStatefulLegacy);
    // r0 is down until 6s; then it refuses a 2026-07-28 probe, r1 still answers it.
    assert_eq!(probe(&mut server, 0, 1, 7_000), 400);
    assert_eq!(probe(&mut server, 1, 2, 7_000), 200);
    let change = &server.ledger().era_changes[0];
    assert_eq!(
        (change.at_ms, change.from, change.to, change.replica),
        (
            5_000,
            Era::DualStatefulLegacy,
            Era::LegacyOnly,
            Some(ReplicaId(0))
        )
    );
    let refusal = &server.ledger().era_answers[0];
    assert_eq!(
        refusal.server_era,
        Era::LegacyOnly,
        "the answering replica's era"
    );
    assert!(
        server
            .ledger()
            .replica_events
            .iter()
            .any(|e| e.replica == ReplicaId(0) && e.at_ms == 5_000),
        "the step is a replica down"
    );

    // A whole-server roll moves every replica, the rolled one included.
    server.roll_era(Era::ModernOnly, 8_000, &mut out);
    assert_eq!(server.era_of(ReplicaId(0)), Era::ModernOnly);
    assert_eq!(server.era_of(ReplicaId(2)), Era::ModernOnly);
}

#[test]
fn a_single_server_has_no_replica_to_roll() {
    let mut server = faultline_model::Server::new(ServerKnobs::default(), 1);
    let mut out = Vec::new();
    let conns = server.roll_replica_era(ReplicaId(0), Era::LegacyOnly, 1_000, 0, &mut out);
    assert!(conns.is_empty());
    assert!(server.ledger().era_changes.is_empty());
    assert_eq!(server.era(), Era::DualStatefulLegacy);
}
