//! Answers that are no answer: a request the server takes and never replies to.
//!
//! A hang is an open exchange, not a blocked server. The model records it (the ledger's
//! `hangs`) and emits nothing for the connection; the connection stays open until the
//! client closes it ([`Server::disconnect`]) or the run ends. A driver asks
//! [`Server::open_hangs`] to know that a client is still waiting for a status line: the
//! simulator's world ends such a run at its horizon (nothing will ever come), and the
//! live server holds the HTTP exchange open without a response head.

use std::collections::BTreeSet;

use crate::http::HttpRequest;
use crate::ids::ConnId;
use crate::ledger::{HangCause, HangEntry};
use crate::limits::kept_text;

use super::Server;

/// The connections holding a request the server will never answer.
#[derive(Debug, Default, Clone)]
pub(super) struct Hangs {
    open: BTreeSet<ConnId>,
}

impl Server {
    /// Leaves the request on `conn` without an answer, and records it.
    pub(super) fn hang(&mut self, conn: ConnId, request: &HttpRequest, why: HangCause) {
        let session_sent = request.session_id.as_deref().map(|s| kept_text(s).0);
        self.ledger.hangs.push(HangEntry {
            conn,
            at_ms: self.now_ms,
            session_sent,
            why,
        });
        self.hangs.open.insert(conn);
    }

    /// The client closed `conn`: if it was waiting on a hang, it waits no more.
    pub(super) fn forget_hang(&mut self, conn: ConnId) {
        self.hangs.open.remove(&conn);
    }

    /// The connections still waiting for an answer the server will never give, in order.
    pub fn open_hangs(&self) -> impl Iterator<Item = ConnId> + '_ {
        self.hangs.open.iter().copied()
    }

    /// Whether `conn` holds a request the server will never answer.
    pub fn is_hung(&self, conn: ConnId) -> bool {
        self.hangs.open.contains(&conn)
    }
}
