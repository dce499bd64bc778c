//! Which protocol eras each replica of a fleet speaks. A rolling deploy of an SDK upgrade
//! (or rollback) restarts the replicas one at a time, so for the length of the deploy the
//! fleet is mixed: behind a round-robin balancer one request meets the old era and the
//! next the new, and a client that probed once and cached the answer has it flip under it.
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning> says a
//! client should probe again when its cached era fails; clients cache discovery for
//! minutes to hours (<https://github.com/adcontextprotocol/adcp-client/pull/2399> caches it
//! five minutes and drops the cache on a failure).
//!
//! A replica speaks the `era` knob until a deploy step moves it; a whole-server `RollEra`
//! moves every replica at once and clears the per-replica eras.

use crate::http::Output;
use crate::knobs::Era;
use crate::ledger::EraChange;
use crate::route::ReplicaId;

use super::super::Server;

impl Server {
    /// The eras the replica serving the current request speaks.
    pub fn era(&self) -> Era {
        self.era_of(self.serving.replica)
    }

    /// The eras replica `replica` speaks.
    pub fn era_of(&self, replica: ReplicaId) -> Era {
        self.replica_eras
            .get(usize::from(replica.0))
            .copied()
            .flatten()
            .unwrap_or(self.knobs.era)
    }

    /// One step of a rolling deploy into another era: replica `replica` crashes for
    /// `down_ms` (as [`Server::replica_down`]) and comes back speaking `to`. Recorded in
    /// `Ledger.era_changes` with the replica. Returns the connections reset.
    pub fn roll_replica_era(
        &mut self,
        replica: ReplicaId,
        to: Era,
        down_ms: u64,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Vec<crate::ids::ConnId> {
        self.advance(now_ms, out);
        let r = usize::from(replica.0);
        if r >= usize::from(self.replica_count()) || !self.multi {
            return Vec::new();
        }
        self.ledger.era_changes.push(EraChange {
            at_ms: self.now_ms,
            from: self.era_of(replica),
            to,
            replica: Some(replica),
        });
        if self.replica_eras.len() <= r {
            self.replica_eras.resize(r + 1, None);
        }
        self.replica_eras[r] = Some(to);
        self.replica_down(replica, down_ms, now_ms, out)
    }
}
