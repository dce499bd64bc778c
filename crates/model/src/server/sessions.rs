//! A session's life in the store: minted by `initialize`, touched by the requests that
//! validate it, killed by a TTL, a DELETE or a restart.
//!
//! Killing a session never touches its event log: the two expire independently, and that
//! independence is the precondition of the 404-after-replay cascade. (The one exception is
//! a log no request can reach again and no TTL would ever remove: `dead_logs.rs`.)

use rand_chacha::rand_core::Rng;

use crate::http::{EndMode, HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, JobId, SessionKey};
use crate::ledger::{DeathCause, JobEnd, SessionEntry};
use crate::session_store::Session;

use super::Server;
use super::admission::check_protocol_version;

impl Server {
    /// Creates a live session speaking `version` and returns its wire id, drawn from the
    /// seeded generator so that a run is reproducible from its seed.
    pub(super) fn mint_session(
        &mut self,
        version: &'static str,
        peer: Option<std::net::IpAddr>,
    ) -> String {
        let (high, low) = (self.rng.next_u64(), self.rng.next_u64());
        let wire_id = crate::hex::hex_id("", &[high, low]);
        let key = SessionKey(self.ledger.sessions_end());
        let now = self.now_ms;
        self.ledger.sessions.push(SessionEntry {
            wire_id: wire_id.clone(),
            created_ms: now,
            generations: vec![now],
            died: None,
            held_by: self.held_by_new(),
            stateless: false,
        });
        self.ever_minted.insert(wire_id.clone(), key);
        let session = Session {
            wire_id: wire_id.clone(),
            generation: 1,
            created_ms: now,
            last_touch_ms: now,
            protocol_version: version,
            counter: 0,
            notifications: 0,
            standalone: None,
            listening: false,
            home: self.serving.replica,
            queued_deadline: None,
            // Only a live server bounding sessions per client keeps the address.
            peer: peer.filter(|_| self.limits.max_sessions_per_peer.is_some()),
            used: false,
        };
        let deadline = self.deadline_of(&session);
        self.sessions.insert(key, session, deadline);
        wire_id
    }

    /// Extends the idle TTL: the session was validated by a request.
    pub(super) fn touch(&mut self, key: SessionKey) {
        let now = self.now_ms;
        let Some(session) = self.sessions.get_mut(key) else {
            return;
        };
        // Only the timestamp moves: the deadline queued earlier is now early, and
        // `expire_session_if_due` re-queues the real one when it pops. Queueing on every
        // request would grow the queue by one entry per request for a whole TTL.
        session.last_touch_ms = now;
    }

    /// Removes a session from the store. Its event log is left alone: the log has its own
    /// TTL, and that independence is the cascade's precondition (unless no request can
    /// ever reach the log again: see `dead_logs.rs`).
    pub(super) fn kill_session(
        &mut self,
        key: SessionKey,
        now: u64,
        cause: DeathCause,
        out: &mut Vec<Output>,
    ) {
        let keep_deadline = !self.limits.forget_dead_sessions;
        if self.sessions.remove(key, keep_deadline).is_none() {
            return;
        }
        self.ledger.session_mut(key).died = Some((now, cause));
        let doomed: Vec<JobId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.session == key)
            .map(|(&id, _)| id)
            .collect();
        for job in doomed {
            self.end_job(job, now, JobEnd::Killed, out);
        }
        self.forget_dead_session_logs(key);
    }

    /// DELETE: the client ends its session; its open streams are closed.
    pub(super) fn handle_delete(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        out: &mut Vec<Output>,
    ) {
        let checked = check_protocol_version(&request).and_then(|()| self.live_session(&request));
        let Some(key) = self.admit(conn, &request, None, checked, out) else {
            return;
        };
        let now = self.now_ms;
        let conns = self.conns_of_session(key);
        self.kill_session(key, now, DeathCause::Deleted, out);
        for c in conns {
            self.detach(c);
            out.push(Output::End {
                conn: c,
                how: EndMode::Close,
            });
        }
        let status = self.knobs.delete_answer.status();
        self.respond(conn, &request, None, HttpResponse::empty(status), out);
    }
}
