//! Forgetting the logs nobody can ever read again: those of a dead session, on a server
//! whose GET validates the session.
//!
//! The log is kept apart from the session on purpose (see [`crate::event_log`]): on a
//! server whose GET does not check the session, a dead session's log still answers a
//! `Last-Event-ID`, and that is the 404-after-replay cascade. On a server whose GET does
//! check it, a dead session's streams can never be resumed (every request naming the
//! session is refused before the log is consulted), so its log is dead weight until its
//! TTL runs out, or for ever without one. A long-lived server that kept them would hold
//! every recent session's events, stream entries and, through them, ledger records: a
//! live server that created and deleted 10,000 sessions in 20 s kept all of them (their
//! logs live 10 minutes). So a log goes with its session, or, for a stream still being
//! read when the session died, with its last reader.
//!
//! Nothing a client can observe changes: the ledger records what happened as before, and
//! no request can tell a forgotten log from a kept one, since none reaches it. What
//! changes is the server's view of its own state, and the instants its log expiry runs,
//! which the simulator's trace shows at every step: so this is the
//! [`crate::Limits::forget_dead_sessions`] bound, which the long-lived live server sets
//! and the simulator leaves off.

use crate::ids::{SessionKey, StreamId};

use super::Server;

impl Server {
    /// True when `session` is dead and no request can reach its logs any more.
    fn logs_unreachable(&self, session: SessionKey) -> bool {
        self.limits.forget_dead_sessions
            && self.knobs.get_validates_session
            && self.sessions.get(session).is_none()
            && session
                .0
                .checked_sub(self.ledger.sessions_base)
                .and_then(|i| self.ledger.sessions.get(i as usize))
                .is_some_and(|s| s.died.is_some())
    }

    /// After `session` died: forgets its streams nobody reads.
    pub(super) fn forget_dead_session_logs(&mut self, session: SessionKey) {
        if !self.logs_unreachable(session) {
            return;
        }
        let detached: Vec<StreamId> = self
            .log
            .streams
            .iter()
            .filter(|(_, l)| l.session == session && l.attached.is_none())
            .map(|(&s, _)| s)
            .collect();
        for stream in detached {
            self.log.remove(stream);
        }
    }

    /// After `stream` lost its reader: forgets it if its session is dead and unreachable.
    pub(super) fn forget_if_dead(&mut self, stream: StreamId) {
        let Some(session) = self.log.get(stream).map(|l| l.session) else {
            return;
        };
        if self.logs_unreachable(session) {
            self.log.remove(stream);
        }
    }
}
