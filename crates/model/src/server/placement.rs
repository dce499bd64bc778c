//! Placement: which replica of a fleet holds a session, and what happens to a request that
//! reaches a replica that does not.
//!
//! There is one session store for the whole fleet; visibility is checked on lookups only
//! ([`Server::live_session`] and the non-validating GET). A live session held by another
//! replica is refused as [`Rejection::SessionElsewhere`], answered on the wire exactly like
//! a session never minted here (what a replica with its own in-memory store really says),
//! and recorded as a [`MisrouteEntry`] naming both replicas. With one replica nothing here
//! runs past its first test of `self.multi`.

use crate::fleet::{FleetKnobs, SessionStoreScope};
use crate::ids::{ConnId, SessionKey};
use crate::ledger::MisrouteEntry;
use crate::route::{HeldBy, Route};

use super::Server;
use super::admission::Rejection;

impl Server {
    /// Puts the server behind a balancer: `fleet.replicas` replicas sharing (or not) one
    /// session store. Call before the first request.
    pub fn set_fleet(&mut self, fleet: FleetKnobs) {
        self.fleet = fleet;
        self.multi = fleet.is_multi();
        self.down_until = if self.multi {
            vec![0; usize::from(fleet.replicas)]
        } else {
            Vec::new()
        };
    }

    /// A server with these fleet knobs (see [`Server::set_fleet`]).
    pub fn with_fleet(mut self, fleet: FleetKnobs) -> Self {
        self.set_fleet(fleet);
        self
    }

    pub fn fleet(&self) -> &FleetKnobs {
        &self.fleet
    }

    /// The replica answering the request being handled (or that answered the last one).
    pub fn serving(&self) -> Route {
        self.serving
    }

    /// Whether the serving replica can see live session `key`.
    pub(super) fn holds_session(&self, key: SessionKey) -> bool {
        if !self.multi || self.fleet.session_store == SessionStoreScope::Shared {
            return true;
        }
        self.sessions
            .get(key)
            .is_none_or(|s| s.home == self.serving.replica)
    }

    /// A live session found in the store, as the serving replica sees it.
    pub(super) fn visible(&self, key: SessionKey) -> Result<SessionKey, Rejection> {
        if self.holds_session(key) {
            Ok(key)
        } else {
            Err(Rejection::SessionElsewhere(key))
        }
    }

    /// What a session minted now records as its holder (nothing for a single server).
    pub(super) fn held_by_new(&self) -> Option<HeldBy> {
        if !self.multi {
            return None;
        }
        Some(match self.fleet.session_store {
            SessionStoreScope::Shared => HeldBy::Shared,
            SessionStoreScope::PerReplica => HeldBy::Replica(self.serving.replica),
        })
    }

    /// Records that the request on `conn` named live session `key`, held by another replica.
    pub(super) fn push_misroute(&mut self, conn: ConnId, key: SessionKey) {
        let Some(session) = self.sessions.get(key) else {
            return;
        };
        let held_by = session.home;
        let holder_down_until = self
            .down_until
            .get(usize::from(held_by.0))
            .copied()
            .filter(|&until| until > self.now_ms);
        self.ledger.misroutes.push(MisrouteEntry {
            conn,
            at_ms: self.now_ms,
            session: key,
            answered_by: self.serving.replica,
            held_by,
            holder_down_until,
        });
    }
}
