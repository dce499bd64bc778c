//! Operator and network actions: what happens to the server from outside any request.
//!
//! Faults are made of these (a dropped connection, a restart, an early GC sweep), plus the
//! application emitting notifications. Each first runs the work due before its instant.

use crate::http::{EndMode, Output};
use crate::ids::{ConnId, JobId, SessionKey};
use crate::knobs::{IdScheme, RestartPersistence};
use crate::ledger::{CutEntry, CutReason, DeathCause, JobEnd, Payload};

use super::Server;

impl Server {
    /// The client (or the network) closed `conn`. Its stream stays in the log, detached.
    pub fn disconnect(&mut self, conn: ConnId, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        self.forget_hang(conn);
        let stream = self.stream_of(conn);
        self.detach(conn);
        self.close_modern_stream(stream, out);
    }

    /// The driver cut `conn` on its own account (`reason`); recorded in the ledger's
    /// `cuts`, then handled like a client that went away: its stream stays in the log,
    /// detached, for a resumption. `conn` may have ended already on the model's side (the
    /// driver still held its frames for a reader that stopped reading).
    pub fn cut_connection(
        &mut self,
        conn: ConnId,
        reason: CutReason,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        // A stream that already ended (its frames still waiting for the reader) is no
        // longer attached: its last send says which it was.
        let base = self.ledger.events_base;
        let stream = self.stream_of(conn).or_else(|| {
            self.ledger
                .sends
                .iter()
                .rev()
                .find(|s| s.conn == conn && s.event.0 >= base)
                .map(|s| self.ledger.event(s.event).stream)
        });
        self.ledger.cuts.push(CutEntry {
            conn,
            at_ms: self.now_ms,
            stream,
            reason,
        });
        let attached = self.stream_of(conn);
        self.detach(conn);
        self.close_modern_stream(attached, out);
    }

    /// A middlebox in front of the server resets `conn` on its own rule (`reason`: an
    /// idle proxy's timeout): recorded in the ledger's `cuts`, then dropped as a reset
    /// (the client sees the connection abort). Nothing happens to a connection already
    /// gone.
    pub fn reset_connection(
        &mut self,
        conn: ConnId,
        reason: CutReason,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        if !self.conns.contains_key(&conn) {
            return;
        }
        self.ledger.cuts.push(CutEntry {
            conn,
            at_ms: self.now_ms,
            stream: self.stream_of(conn),
            reason,
        });
        self.drop_connection(conn, EndMode::Reset, now_ms, out);
    }

    /// The server (or a middlebox) cuts `conn`, gracefully or not.
    pub fn drop_connection(
        &mut self,
        conn: ConnId,
        how: EndMode,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        if self.conns.contains_key(&conn) {
            let stream = self.stream_of(conn);
            self.detach(conn);
            out.push(Output::End { conn, how });
            self.close_modern_stream(stream, out);
        }
    }

    /// The application emits a server notification on the session's standalone stream.
    /// Returns false when the session is not alive or nobody ever listened (nothing is
    /// produced). Its `seq` counts the session's notifications from 0, across generations.
    pub fn notify(&mut self, session_wire_id: &str, now_ms: u64, out: &mut Vec<Output>) -> bool {
        self.advance(now_ms, out);
        match self.sessions.lookup(session_wire_id) {
            Some(key) => self.produce_notification(key, out),
            None => false,
        }
    }

    /// [`notify`](Server::notify) for the session the ledger knows as `key`: what a driver
    /// that already holds the key calls (the engine, once per scripted notification),
    /// sparing a copy and a lookup of the wire id. Wire ids are unique, so the two agree.
    #[inline]
    pub fn notify_key(&mut self, key: SessionKey, now_ms: u64, out: &mut Vec<Output>) -> bool {
        self.advance(now_ms, out);
        self.produce_notification(key, out)
    }

    fn produce_notification(&mut self, key: SessionKey, out: &mut Vec<Output>) -> bool {
        let Some(session) = self.sessions.get_mut(key).filter(|s| s.listening) else {
            return false;
        };
        let seq = session.notifications;
        session.notifications += 1;
        // Buffered on a detached stream if nobody has opened (or resumed) one in this
        // generation, for whoever resumes it. (The session's current one read from this
        // lookup: a notification is the cascade's inner loop.)
        let current = session.standalone;
        let stream = self.standalone_stream_from(key, current);
        self.emit(stream, Payload::Notification { seq }, out);
        true
    }

    /// Restarts the server process: every connection is reset, every job dies, and
    /// `restart_persistence` decides what survives. Surviving sessions enter a new generation.
    pub fn restart(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.restart_keeping(self.knobs.restart_persistence, now_ms, out);
    }

    /// [`restart`](Server::restart), with `persistence` deciding what survives.
    pub(in crate::server) fn restart_keeping(
        &mut self,
        persistence: RestartPersistence,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        let now = self.now_ms;
        self.ledger.restarts.push(now);
        let conns: Vec<ConnId> = self.conns.keys().copied().collect();
        for conn in conns {
            self.note_request_stream_cut(conn);
            self.detach(conn);
            out.push(Output::End {
                conn,
                how: EndMode::Reset,
            });
        }
        // Every job dies with the process. Its stream has no writer left: a stream the
        // log keeps (`Everything`) is complete, so a resume replays what it holds and then
        // ends, instead of waiting for a job that no longer exists. (Every connection was
        // cut above, so nothing goes on the wire now.)
        let jobs: Vec<JobId> = self.jobs.keys().copied().collect();
        for job in jobs {
            self.end_job(job, now, JobEnd::Killed, out);
        }
        // 2026-07-28 subscriptions die with their connections.
        self.close_all_listens();
        self.job_due.clear();
        self.restart_tasks(now);
        self.restart_handles(now);
        match persistence {
            RestartPersistence::Nothing => {
                for (key, _) in self.sessions.clear() {
                    self.ledger.session_mut(key).died = Some((now, DeathCause::Restart));
                }
                self.log.clear_where(|_| true);
            }
            RestartPersistence::SessionIdsOnly | RestartPersistence::Everything => {
                if persistence == RestartPersistence::SessionIdsOnly {
                    self.log.clear_where(|_| true);
                }
                let logs_kept = persistence == RestartPersistence::Everything;
                let keys: Vec<SessionKey> = self.sessions.keys().collect();
                for key in keys {
                    let scheme = self.knobs.id_scheme;
                    if let Some(s) = self.sessions.get_mut(key) {
                        s.generation += 1;
                        if !logs_kept {
                            s.standalone = None;
                        }
                        if scheme != IdScheme::SessionMonotonic {
                            s.counter = 0;
                        }
                    }
                    self.ledger.session_mut(key).generations.push(now);
                }
            }
        }
    }

    /// Runs the sweeper now: everything whose TTL has passed is removed, whatever
    /// `gc_interval` says.
    pub fn gc_now(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        let now = self.now_ms;
        if let Some(ttl) = self.knobs.event_log_ttl {
            self.log.expire(now, ttl.ms());
        }
        let keys: Vec<SessionKey> = self.sessions.keys().collect();
        for key in keys {
            let due = self.sessions.get(key).and_then(|s| self.deadline_of(s));
            if due.is_some_and(|d| d <= now) {
                let idle = self.knobs.session_idle_ttl.is_some_and(|t| {
                    self.sessions.get(key).is_some_and(|s| {
                        s.last_touch_ms
                            .checked_add(t.ms())
                            .is_some_and(|d| d <= now)
                    })
                });
                let cause = if idle {
                    DeathCause::IdleTtl
                } else {
                    DeathCause::AbsoluteTtl
                };
                self.kill_session(key, now, cause, out);
            }
        }
    }
}
