//! `misrouted_session`: requests for a session alive on one replica of a fleet that the
//! balancer sent to another, which answered as for an unknown session (404). Nothing was
//! lost yet, but a client that takes the 404 at its word abandons a live session and its
//! work. The ledger records each misroute (`faultline_model::MisrouteEntry`): who held
//! the session, who answered, and why the balancer chose that replica.
//!
//! One rule for both judges: each says how it knows the request (the simulator from its
//! client's record, with the task that sent it; grade from the ledger's answer).
//!
//! Guard: none on the client's side that keeps the session; the fix is the balancer's
//! (sticky routing that survives what the fleet does) or a session store every replica
//! shares.

use std::collections::BTreeMap;

use faultline_model::{ConnId, Ledger, ReplicaId, RouteWhy, SessionKey};
use serde::Serialize;

use crate::client_record::ClientRecord;
use crate::session_requests::RequestNote;
use crate::spell::{short_id, vtime};
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// One misrouted request: what it was, and which replica answered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MisroutedNote {
    pub at_ms: u64,
    pub task: String,
    pub method: String,
    pub status: Option<u16>,
    pub answered_by: u8,
    /// Why the balancer sent it there (the ledger's route of its answer).
    pub why: Option<RouteWhy>,
}

/// The misrouted requests of one session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MisroutedSession {
    pub session: String,
    /// The replica holding the session.
    pub held_by: u8,
    pub requests: Vec<MisroutedNote>,
}

/// The ledger's misroutes, one entry per session in session order; `request` says what
/// the judge knows of the request on a connection (`None`: not the judged client's).
pub fn misrouted_sessions(
    ledger: &Ledger,
    request: impl Fn(ConnId) -> Option<RequestNote>,
) -> Vec<MisroutedSession> {
    if ledger.misroutes.is_empty() {
        return Vec::new();
    }
    let routes: BTreeMap<ConnId, RouteWhy> = ledger
        .answers
        .iter()
        .filter_map(|a| Some((a.conn, a.route?.why)))
        .collect();
    let mut by_session: BTreeMap<SessionKey, (ReplicaId, Vec<MisroutedNote>)> = BTreeMap::new();
    for m in &ledger.misroutes {
        let Some(q) = request(m.conn) else {
            continue;
        };
        by_session
            .entry(m.session)
            .or_insert_with(|| (m.held_by, Vec::new()))
            .1
            .push(MisroutedNote {
                at_ms: m.at_ms,
                task: q.task,
                method: q.method,
                status: q.status,
                answered_by: m.answered_by.0,
                why: routes.get(&m.conn).copied(),
            });
    }
    by_session
        .into_iter()
        .map(|(key, (held_by, requests))| MisroutedSession {
            // A session the ledger's window trimmed is named by its key.
            session: if key.0 >= ledger.sessions_base {
                ledger.session(key).wire_id.clone()
            } else {
                format!("#{}", key.0)
            },
            held_by: held_by.0,
            requests,
        })
        .collect()
}

impl MisroutedSession {
    /// When the first request was misrouted.
    pub fn at_ms(&self) -> u64 {
        self.requests.first().map_or(0, |n| n.at_ms)
    }

    /// One sentence a reader checks against the timeline.
    pub fn sentence(&self) -> String {
        let first = &self.requests[0];
        format!(
            "{} request(s) for live session {} reached a replica that does not hold it and were answered as for an unknown session; the first, {} at {}, went to r{} while r{} held the session",
            self.requests.len(),
            short_id(&self.session),
            first.method,
            vtime(first.at_ms),
            first.answered_by,
            self.held_by,
        )
    }
}

/// A fleet's misroutes of the client's own requests: one verdict per session, naming each
/// request, the replica that answered it and the replica that held the session.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    if ledger.misroutes.is_empty() {
        return;
    }
    // The request on each connection (the last, if several), by connection id: the
    // modelled client numbers its connections 1, 2, 3...
    let mut on_conn: Vec<Option<&crate::client_record::RequestRecord>> = Vec::new();
    for q in &record.requests {
        let conn = q.conn.0 as usize;
        if on_conn.len() <= conn {
            on_conn.resize(conn + 1, None);
        }
        on_conn[conn] = Some(q);
    }
    let found = misrouted_sessions(ledger, |conn| {
        let q = on_conn.get(conn.0 as usize).copied().flatten();
        q.map(RequestNote::of_record)
    });
    for misrouted in found {
        verdicts.push(Verdict {
            kind: VerdictKind::MisroutedSession,
            at_ms: misrouted.at_ms(),
            summary: words.say(|| misrouted.sentence()),
            evidence: Evidence::Misrouted(misrouted),
        });
    }
}

/// A fleet's misroutes (see `faultline_model::MisrouteEntry`): one verdict per session,
/// by the rule the simulator's judge applies ([`crate::misrouted_session`]); each request
/// as the ledger answered it.
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let found = misrouted_sessions(ledger, |conn| {
        ledger
            .answers
            .iter()
            .find(|a| a.conn == conn)
            .map(RequestNote::of_answer)
    });
    for misrouted in found {
        verdicts.push(Verdict {
            kind: VerdictKind::MisroutedSession,
            at_ms: misrouted.at_ms(),
            summary: words.say(|| misrouted.sentence()),
            evidence: Evidence::Misrouted(misrouted),
        });
    }
}
