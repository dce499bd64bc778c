//! Room for a new session on a long-lived server: per client address, and in the whole
//! store, sessions nobody has used yet give way first ([`crate::Limits`]'
//! `max_sessions_per_peer` and `unused_session_ttl_ms`; the simulator sets neither).
//!
//! Why: `initialize` is cheap to send and each one holds a session until its idle TTL (a
//! day on `faultline serve`), so 10,000 of them on one connection, in under a second,
//! filled the store and every later client got 503 for a day. A session that was
//! initialized but never named by another request (`notifications/initialized` aside) is
//! what such a flood leaves; a real client names its session at once. So those go
//! first, and early: at their own short TTL, or when a new `initialize` needs their room.
//! Their deaths are recorded as idle-TTL deaths (they are idle sessions that ran out of
//! a shorter time), so that the ledger's vocabulary stays the simulator's.

use std::net::IpAddr;

use crate::http::Output;
use crate::ledger::DeathCause;

use super::Server;
use super::admission::Rejection;

impl Server {
    /// Makes room for a session `initialize`d from `peer`: kills the oldest unused session
    /// of that address when it holds its cap, and the oldest unused one of all when the
    /// store is full (with `unused_session_ttl_ms` set). `Err` when there is no room.
    pub(super) fn make_session_room(
        &mut self,
        peer: Option<IpAddr>,
        out: &mut Vec<Output>,
    ) -> Result<(), Rejection> {
        let now = self.now_ms;
        if let (Some(cap), Some(peer)) = (self.limits.max_sessions_per_peer, peer)
            && self.sessions.count_of_peer(peer) >= cap
        {
            match self.sessions.oldest_unused(Some(peer)) {
                Some(victim) => self.kill_session(victim, now, DeathCause::IdleTtl, out),
                None => return Err(Rejection::PeerSessionLimit(cap)),
            }
        }
        if self.sessions.len() >= self.knobs.max_sessions as usize {
            let victim = self
                .limits
                .unused_session_ttl_ms
                .and_then(|_| self.sessions.oldest_unused(None));
            match victim {
                Some(victim) => self.kill_session(victim, now, DeathCause::IdleTtl, out),
                None => return Err(Rejection::SessionLimit),
            }
        }
        Ok(())
    }
}
