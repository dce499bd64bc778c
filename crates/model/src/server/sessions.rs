//! A session's life in the store: touched by the requests that validate it, killed by a
//! TTL, a DELETE or the operator.
//!
//! Killing a session never touches its event log: the two expire independently, and that
//! independence is the precondition of the 404-after-replay cascade.

use crate::http::{EndMode, HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, JobId, SessionKey};
use crate::jsonrpc;
use crate::ledger::{DeathCause, JobEnd};

use super::Server;

impl Server {
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
    /// TTL, and that independence is the cascade's precondition.
    pub(super) fn kill_session(
        &mut self,
        key: SessionKey,
        now: u64,
        cause: DeathCause,
        out: &mut Vec<Output>,
    ) {
        if self.sessions.remove(key).is_none() {
            return;
        }
        self.ledger.sessions[key.0 as usize].died = Some((now, cause));
        let doomed: Vec<JobId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.session == key)
            .map(|(&id, _)| id)
            .collect();
        for job in doomed {
            self.end_job(job, now, JobEnd::Killed, out);
        }
    }

    pub(super) fn handle_delete(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        out: &mut Vec<Output>,
    ) {
        if !Self::protocol_ok(&request) {
            self.reject(
                conn,
                &request,
                None,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
                out,
            );
            return;
        }
        let Some(key) = self.require_session(conn, &request, None, out) else {
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
        self.respond(conn, &request, None, HttpResponse::empty(200), out);
    }
}
