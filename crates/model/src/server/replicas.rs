//! One replica of a fleet going down, and which replicas are up.
//!
//! A replica is a process: when it crashes, the connections it served are reset and the
//! jobs it ran die, exactly as in a whole-server [`restart`](Server::restart), but only
//! its own. What it kept in memory (its sessions when the session store is per replica,
//! the logs of the streams it opened when the event store is) goes the way
//! `restart_persistence` says; a shared store lives outside the replica and loses nothing. While it is down the balancer sends nothing
//! to it (pinned traffic fails over); when `down` has passed it is back, as a fresh
//! process. A fleet can also be scaled ([`Server::scale`]): a replica removed is a down
//! that never ends, a replica added starts empty. With one replica nothing here runs.

use crate::fleet::{EventStoreScope, SessionStoreScope};
use crate::http::{EndMode, HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, JobId, SessionKey};
use crate::jsonrpc;
use crate::knobs::{IdScheme, RestartPersistence};
use crate::ledger::{DeathCause, JobEnd, ReplicaChange, ReplicaEvent};
use crate::route::ReplicaId;

use super::Server;

/// The JSON-RPC error code of the balancer's 503 (implementation-defined server error).
const NO_REPLICA_UP: i64 = -32000;

impl Server {
    /// The replicas up at the model's current time, as a bit set (bit r: replica r). A
    /// single server is always up.
    pub fn replicas_up(&self) -> u16 {
        if !self.multi {
            return 1;
        }
        self.down_until
            .iter()
            .enumerate()
            .filter(|&(_, &until)| until <= self.now_ms)
            .fold(0u16, |set, (r, _)| set | (1 << r))
    }

    /// How many replicas the fleet has (1 for a single server).
    pub fn replica_count(&self) -> u8 {
        u8::try_from(self.down_until.len()).map_or(u8::MAX, |n| n.max(1))
    }

    /// Whether replica `r` takes requests now.
    pub fn is_up(&self, r: ReplicaId) -> bool {
        self.replicas_up() & (1u16 << r.0.min(15)) != 0
    }

    /// Replica `replica` crashes at `now_ms` and stays down for `down_ms`. Returns the
    /// connections it reset. Nothing happens to a single server or to a replica the
    /// fleet does not have.
    pub fn replica_down(
        &mut self,
        replica: ReplicaId,
        down_ms: u64,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Vec<ConnId> {
        self.advance(now_ms, out);
        let Some(slot) = self.down_until.get_mut(usize::from(replica.0)) else {
            return Vec::new();
        };
        let now = self.now_ms;
        let until_ms = now.saturating_add(down_ms);
        *slot = (*slot).max(until_ms);
        self.ledger.replica_events.push(ReplicaEvent {
            at_ms: now,
            replica,
            what: ReplicaChange::Down { until_ms },
        });
        let conns = self.crash_replica(replica, now, out);
        let persistence = self.knobs.restart_persistence;
        if self.fleet.event_store == EventStoreScope::PerReplica
            && persistence != RestartPersistence::Everything
        {
            self.log.clear_where(|l| l.home == replica);
        }
        if self.fleet.session_store == SessionStoreScope::PerReplica {
            self.forget_replica_sessions(replica, now, out);
        }
        conns
    }

    /// The fleet is scaled to `to` replicas at `now_ms` (clamped to 1..=16). A shrink
    /// removes the highest replicas: each is a down that never ends (its connections
    /// reset, its jobs killed) and what it held in memory is lost whatever
    /// `restart_persistence` says, since no process ever comes back to read it (its
    /// per-replica sessions die as [`DeathCause::ReplicaRemoved`], the logs of the streams
    /// it opened go when the event store is per replica). A growth adds empty replicas,
    /// up at once. Returns the connections reset. Nothing happens to a single server.
    pub fn scale(&mut self, to: u8, now_ms: u64, out: &mut Vec<Output>) -> Vec<ConnId> {
        self.advance(now_ms, out);
        if !self.multi {
            return Vec::new();
        }
        let now = self.now_ms;
        let to = usize::from(to.clamp(1, crate::fleet::MAX_REPLICAS));
        let mut conns = Vec::new();
        while self.down_until.len() > to {
            let r = self.down_until.len() - 1;
            let replica = ReplicaId(u8::try_from(r).unwrap_or(u8::MAX));
            self.down_until.truncate(r);
            self.ledger.replica_events.push(ReplicaEvent {
                at_ms: now,
                replica,
                what: ReplicaChange::Removed,
            });
            conns.extend(self.crash_replica(replica, now, out));
            if self.fleet.event_store == EventStoreScope::PerReplica {
                self.log.clear_where(|l| l.home == replica);
            }
            if self.fleet.session_store == SessionStoreScope::PerReplica {
                let held: Vec<SessionKey> = self
                    .sessions
                    .keys()
                    .filter(|&k| self.sessions.get(k).is_some_and(|s| s.home == replica))
                    .collect();
                for key in held {
                    self.kill_session(key, now, DeathCause::ReplicaRemoved, out);
                }
            }
        }
        while self.down_until.len() < to {
            let replica = ReplicaId(u8::try_from(self.down_until.len()).unwrap_or(u8::MAX));
            self.down_until.push(now);
            self.ledger.replica_events.push(ReplicaEvent {
                at_ms: now,
                replica,
                what: ReplicaChange::Added,
            });
        }
        conns
    }

    /// The process of `replica` ends: the connections it served are reset and the jobs it
    /// ran are killed. Returns the connections.
    fn crash_replica(
        &mut self,
        replica: ReplicaId,
        now: u64,
        out: &mut Vec<Output>,
    ) -> Vec<ConnId> {
        let conns: Vec<ConnId> = self
            .conn_replica
            .iter()
            .filter(|&(_, &on)| on == replica)
            .map(|(&conn, _)| conn)
            .collect();
        for &conn in &conns {
            self.note_request_stream_cut(conn);
            self.detach(conn);
            out.push(Output::End {
                conn,
                how: EndMode::Reset,
            });
        }
        let jobs: Vec<JobId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.replica == replica)
            .map(|(&id, _)| id)
            .collect();
        for job in jobs {
            self.end_job(job, now, JobEnd::Killed, out);
        }
        conns
    }

    /// The sessions a crashed replica kept in memory go the way `restart_persistence`
    /// says, as in a whole-server restart (their logs went with the event store).
    fn forget_replica_sessions(&mut self, replica: ReplicaId, now: u64, out: &mut Vec<Output>) {
        let held: Vec<SessionKey> = self
            .sessions
            .keys()
            .filter(|&k| self.sessions.get(k).is_some_and(|s| s.home == replica))
            .collect();
        let persistence = self.knobs.restart_persistence;
        for key in held {
            if persistence == RestartPersistence::Nothing {
                self.kill_session(key, now, DeathCause::ReplicaDown, out);
                continue;
            }
            let scheme = self.knobs.id_scheme;
            if let Some(s) = self.sessions.get_mut(key) {
                s.generation += 1;
                if persistence != RestartPersistence::Everything {
                    s.standalone = None;
                }
                if scheme != IdScheme::SessionMonotonic {
                    s.counter = 0;
                }
            }
            self.ledger.session_mut(key).generations.push(now);
        }
    }

    /// The balancer found no replica up: it answers 503 itself, and the request reaches
    /// no replica.
    pub(super) fn refuse_unavailable(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        out: &mut Vec<Output>,
    ) {
        let body = jsonrpc::error_without_id(
            NO_REPLICA_UP,
            "Service Unavailable: no replica of the fleet is up",
        );
        self.respond(conn, request, None, HttpResponse::json(503, body), out);
    }
}
