//! Which answers tell a client that its session is dead.
//!
//! A `404` or `410` to a request that named a session means "this session is gone" (the
//! 2025 transport's [session management](https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management)),
//! except where a fleet's balancer sent the request to a replica that does not hold a
//! session alive on another one: that answer is a misroute (`misrouted_session`), and a
//! request sent after it went to a live session. `retry_amplification` and
//! `zombie_session` start only from answers this module calls a death notice, for a
//! simulated client and a real one alike.

use std::collections::{BTreeMap, BTreeSet};

use faultline_model::{AnswerEntry, Ledger};

/// When each session the server killed died, by wire id.
pub(crate) fn death_times(ledger: &Ledger) -> BTreeMap<&str, u64> {
    ledger
        .sessions
        .iter()
        .filter_map(|s| s.died.map(|(at, _)| (s.wire_id.as_str(), at)))
        .collect()
}

/// The answers of `ledger` that misrouted a live session, by connection.
#[derive(Debug, Default)]
pub struct Misrouted(BTreeSet<u64>);

impl Misrouted {
    pub fn of(ledger: &Ledger) -> Misrouted {
        Misrouted(ledger.misroutes.iter().map(|m| m.conn.0).collect())
    }

    /// `answer` told the client its session was dead: a 404/410 to a request naming a
    /// session, not a misroute.
    pub fn is_death_notice(&self, answer: &AnswerEntry) -> bool {
        answer.session_sent.is_some()
            && matches!(answer.status, 404 | 410)
            && !self.0.contains(&answer.conn.0)
    }

    /// The request on `conn` was answered by a replica that does not hold its live session.
    pub fn contains(&self, conn: u64) -> bool {
        self.0.contains(&conn)
    }
}
