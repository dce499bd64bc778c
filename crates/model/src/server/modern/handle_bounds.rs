//! The bound on a long-lived server's handle store ([`crate::Limits::max_handles`]).
//!
//! Any client can call `create_basket`, so a store that kept every handle ever minted
//! would grow the server's memory without bound. With a bound, a new handle takes, in
//! this order:
//!
//! 1. the room of a handle already lost (expired when last named, lost in a restart);
//! 2. the room of one idle past `handle_idle_ttl`, which expires now (dated, as when it is
//!    named, when its time ran out);
//! 3. the room of the least recently used one (by the order of mints and uses, so that
//!    several on one millisecond are told apart), which is evicted: its basket is given
//!    up and its ledger entry says so ([`HandleLoss::Evicted`]).
//!
//! Unlike a working task, a basket is never worth refusing a new one for: a client that
//! lost one can make another, and is told so. A record whose room is taken leaves a
//! tombstone ([`super::tombstones`]): the next call naming it gets the clear tool error
//! (for an eviction, that the server holds at most N handles) and the ledger a miss;
//! after that the handle is unknown.

use crate::ledger::HandleLoss;

use super::super::Server;
use super::tombstones::Held;

impl Server {
    /// What the 2026-07-28 handle store holds now.
    pub fn handles_held(&self) -> Held {
        Held {
            records: self.modern.handles.by_handle.len(),
            tombstones: self.modern.handles.tombstones.len(),
        }
    }

    /// Makes room for one more handle under `max_handles` (nothing to do without a bound
    /// or below it).
    pub(super) fn make_handle_room(&mut self) {
        let Some(max) = self.limits.max_handles else {
            return;
        };
        let max = max.max(1) as usize;
        while self.modern.handles.by_handle.len() >= max {
            let Some((handle, goes)) = self.handle_room() else {
                return;
            };
            let mut r = self
                .modern
                .handles
                .by_handle
                .remove(&handle)
                .expect("a held handle");
            if let Some((at, how)) = goes {
                Self::lose_handle(&mut self.ledger, &mut r, at, how);
            }
            let loss = r.lost.expect("lost by now");
            self.modern
                .handles
                .tombstones
                .bury(handle, r.entry, loss, max);
        }
    }

    /// The handle whose room a new one takes (see the module docs), and how it goes
    /// (`None`: it was lost already).
    fn handle_room(&self) -> Option<(String, Option<(u64, HandleLoss)>)> {
        let now = self.now_ms;
        let ttl = self.knobs.handle_idle_ttl.map(|d| d.ms());
        let mut lost: Option<(u32, &str)> = None;
        let mut expired: Option<(u32, &str, u64)> = None;
        let mut idlest: Option<(u64, &str)> = None;
        for (handle, r) in &self.modern.handles.by_handle {
            let ran_out = ttl
                .map(|ttl| r.last_used_ms.saturating_add(ttl))
                .filter(|&t| now >= t);
            if r.lost.is_some() {
                if lost.is_none_or(|(e, _)| r.entry < e) {
                    lost = Some((r.entry, handle));
                }
            } else if let Some(at) = ran_out {
                if expired.is_none_or(|(e, _, _)| r.entry < e) {
                    expired = Some((r.entry, handle, at));
                }
            } else {
                if idlest.is_none_or(|(u, _)| r.last_use < u) {
                    idlest = Some((r.last_use, handle));
                }
            }
        }
        if let Some((_, handle)) = lost {
            return Some((handle.to_string(), None));
        }
        if let Some((_, handle, at)) = expired {
            return Some((handle.to_string(), Some((at, HandleLoss::Expired))));
        }
        idlest.map(|(_, handle)| (handle.to_string(), Some((now, HandleLoss::Evicted))))
    }
}
