//! The session store: which `Mcp-Session-Id`s are alive, in which generation, until when.
//!
//! Liveness is a store operation (seed 000): only requests that look a session up here
//! confirm or extend it. A replay from the event log never touches this structure.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use crate::ids::{SessionKey, StreamId};
use crate::min_set::MinSet;
use crate::route::ReplicaId;

#[derive(Debug)]
pub(crate) struct Session {
    pub wire_id: String,
    pub generation: u32,
    pub created_ms: u64,
    pub last_touch_ms: u64,
    pub protocol_version: &'static str,
    /// Counter for session-wide id schemes.
    pub counter: u64,
    /// Server notifications produced for this session so far, across its generations:
    /// the next one's `seq`. Unlike event ids, no other stream or session moves it.
    pub notifications: u64,
    /// The session's current standalone stream, if it has one.
    pub standalone: Option<StreamId>,
    /// A standalone stream was opened at least once: someone listens for notifications.
    /// Until then server notifications are dropped, as the SDKs do.
    pub listening: bool,
    /// The replica that minted the session (always 0 for a single server).
    pub home: ReplicaId,
    /// The deadline queued for it, if any (at most one at a time: a request moves only
    /// the timestamp, and the real deadline is queued when the early one pops).
    pub queued_deadline: Option<u64>,
    /// The client address `initialize` came from, when the driver knows it (the live
    /// server; never the simulator).
    pub peer: Option<IpAddr>,
    /// A request other than `notifications/initialized` named it after `initialize`.
    pub used: bool,
}

#[derive(Debug, Default)]
pub(crate) struct SessionStore {
    live: BTreeMap<SessionKey, Session>,
    by_wire_id: BTreeMap<String, SessionKey>,
    /// (deadline, session): a deadline may be stale (idle TTL moved it); checked on pop.
    deadlines: MinSet<(u64, SessionKey)>,
    /// Live sessions per client address (only sessions whose peer is known).
    per_peer: BTreeMap<IpAddr, u32>,
    /// Live sessions not used yet (see [`Session::used`]), oldest first.
    unused: BTreeSet<SessionKey>,
}

impl SessionStore {
    pub fn len(&self) -> usize {
        self.live.len()
    }

    pub fn insert(&mut self, key: SessionKey, mut session: Session, deadline: Option<u64>) {
        session.queued_deadline = deadline;
        if let Some(peer) = session.peer {
            *self.per_peer.entry(peer).or_default() += 1;
        }
        if !session.used {
            self.unused.insert(key);
        }
        self.by_wire_id.insert(session.wire_id.clone(), key);
        self.live.insert(key, session);
        if let Some(d) = deadline {
            self.deadlines.insert((d, key));
        }
    }

    pub fn lookup(&self, wire_id: &str) -> Option<SessionKey> {
        self.by_wire_id.get(wire_id).copied()
    }

    pub fn get(&self, key: SessionKey) -> Option<&Session> {
        self.live.get(&key)
    }

    pub fn get_mut(&mut self, key: SessionKey) -> Option<&mut Session> {
        self.live.get_mut(&key)
    }

    pub fn keys(&self) -> impl Iterator<Item = SessionKey> + '_ {
        self.live.keys().copied()
    }

    /// A request other than `notifications/initialized` named the session.
    pub fn mark_used(&mut self, key: SessionKey) {
        if let Some(s) = self.live.get_mut(&key)
            && !s.used
        {
            s.used = true;
            self.unused.remove(&key);
        }
    }

    /// Live sessions minted for requests from `peer`.
    pub fn count_of_peer(&self, peer: IpAddr) -> u32 {
        self.per_peer.get(&peer).copied().unwrap_or(0)
    }

    /// The oldest live session not used yet, of `peer` if given.
    pub fn oldest_unused(&self, peer: Option<IpAddr>) -> Option<SessionKey> {
        self.unused
            .iter()
            .copied()
            .find(|k| peer.is_none() || self.live.get(k).is_some_and(|s| s.peer == peer))
    }

    pub fn push_deadline(&mut self, key: SessionKey, deadline: u64) {
        if let Some(s) = self.live.get_mut(&key) {
            s.queued_deadline = Some(deadline);
        }
        self.deadlines.insert((deadline, key));
    }

    #[inline]
    pub fn next_deadline(&self) -> Option<u64> {
        self.deadlines.first().map(|(d, _)| d)
    }

    /// Pops the earliest recorded deadline at or before `cutoff`.
    pub fn pop_deadline(&mut self, cutoff: u64) -> Option<(u64, SessionKey)> {
        let popped = match self.deadlines.first() {
            Some((d, _)) if d <= cutoff => self.deadlines.pop_first(),
            _ => None,
        };
        if let Some((d, key)) = popped
            && let Some(s) = self.live.get_mut(&key)
            && s.queued_deadline == Some(d)
        {
            s.queued_deadline = None;
        }
        popped
    }

    /// Takes a session out of the store. Its queued deadline stays queued when
    /// `keep_deadline` (it pops later and finds nobody: the simulator steps there, as it
    /// always has), else it goes too (a long-lived server would otherwise hold one entry
    /// per dead session for a whole TTL).
    pub fn remove(&mut self, key: SessionKey, keep_deadline: bool) -> Option<Session> {
        let session = self.live.remove(&key)?;
        self.by_wire_id.remove(&session.wire_id);
        self.unused.remove(&key);
        if let Some(peer) = session.peer
            && let Some(n) = self.per_peer.get_mut(&peer)
        {
            *n -= 1;
            if *n == 0 {
                self.per_peer.remove(&peer);
            }
        }
        if !keep_deadline && let Some(d) = session.queued_deadline {
            self.deadlines.remove(&(d, key));
        }
        Some(session)
    }

    pub fn clear(&mut self) -> Vec<(SessionKey, Session)> {
        self.by_wire_id.clear();
        self.deadlines.clear();
        self.per_peer.clear();
        self.unused.clear();
        std::mem::take(&mut self.live).into_iter().collect()
    }
}
