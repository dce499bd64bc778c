//! `refused_without_recovery`: the server refused the client's session again and again,
//! and the client never took a new one. Nothing need be lost for the application to be
//! cut off: every call it makes fails, until someone restarts it.
//!
//! The field's most common session report: a server drops an idle session or loses it
//! in a restart, and a client keeps the dead `Mcp-Session-Id` for ever
//! (<https://github.com/modelcontextprotocol/typescript-sdk/issues/1708>,
//! <https://github.com/modelcontextprotocol/python-sdk/issues/1676>,
//! <https://github.com/modelcontextprotocol/rust-sdk/issues/733>), or a server answers the
//! dead session with a status the client does not read as "session gone" (400, 401: see
//! <https://github.com/DAWNCR0W/affine-mcp-server/issues/301>).
//!
//! **The rule**, read from the server's ledger alone, so that a simulated client and a
//! real one are judged alike: a *refusal* is a 4xx answer (or an answer the ledger marks
//! `dead_session`: a 200 with an error body, a 503) to a request that named a
//! session the server no longer held alive (it died before the answer: expiry, restart,
//! `DELETE`); a misrouted live session is not one (that is `misrouted_session`). A session
//! that served the client (a request naming it answered with success), then at least
//! [`REFUSALS`] POSTs naming it refused, and after its death no POST answered with success
//! (a new session's `initialize`, sessionless work in another era, or a server that
//! stopped keeping sessions serving the dead id itself) and no request naming another
//! session either: the client never recovered.
//!
//! **The guard.** Read a 404 to a request that named the session as the session's end
//! (the spec's rule), and a refusal in any other status as a question to settle (a
//! `ping`): then drop the session id, initialize once, and send the work again.

use std::collections::BTreeMap;

use faultline_model::{AnswerEntry, ConnId, EraAnswerKind, HttpMethod, Ledger};
use serde::Serialize;

use crate::dead_session::Misrouted;
use crate::reconnect_loop::request_label;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// Refused POSTs of one session (the application's requests: a call, a list), with no new
/// session after the first, that make the verdict: one refused call is a failure the
/// application saw; a second, in the same dead session, is a client that does not recover.
pub const REFUSALS: usize = 2;

/// What the guard is, in one sentence (for `explain` and the report card).
pub const GUARD: &str = "read a 404 to a request that named the session as the session's end, and any other refusal as a question to settle with a ping; then drop the session id, initialize once and send the work again";

/// One session refused without recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusals {
    /// The dead session the client kept naming.
    pub session: String,
    /// When the server stopped holding it.
    pub died_at_ms: u64,
    /// How many requests naming it were refused, and when the first and last were.
    pub refused: usize,
    pub first_at_ms: u64,
    pub last_at_ms: u64,
    /// The statuses of the refusals, each once, in order of first appearance.
    pub statuses: Vec<u16>,
    /// The refused requests' methods (`POST tools/call`, `GET`), each once, in order.
    pub requests: Vec<String>,
}

impl Refusals {
    /// One sentence a reader can check against the ledger.
    pub fn sentence(&self) -> String {
        let statuses = self
            .statuses
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "session {} was gone from the server at {}, and the client kept naming it: {} requests ({}) refused with {statuses} from {} to {}, and no new session was ever initialized",
            self.session,
            vtime(self.died_at_ms),
            self.refused,
            self.requests.join(", "),
            vtime(self.first_at_ms),
            vtime(self.last_at_ms),
        )
    }
}

/// One session's refusals as they are read: the evidence so far, the index of its first
/// refused answer, how many of them were POSTs, and the distinct requests refused (HTTP
/// and JSON-RPC method: what `Refusals::requests` spells, one label each).
struct Open<'l> {
    refusals: Refusals,
    first: usize,
    posted: usize,
    requests: Vec<(HttpMethod, Option<&'l str>)>,
}

/// Every session the ledger shows refused without recovery, in the order of their first
/// refusal.
pub fn refused_without_recovery(ledger: &Ledger) -> Vec<Refusals> {
    let died = crate::dead_session::death_times(ledger);
    // Only a dead session's requests are refusals: a run whose sessions all lived has none
    // (most runs), and its answers are not read.
    if died.is_empty() {
        return Vec::new();
    }
    let misrouted = Misrouted::of(ledger);
    // A request refused for its era (a 2025 request to a server that rolled to
    // 2026-07-28 only) is not a session refused: a new session's `initialize` in that
    // era is refused alike, and `era_mismatch` names the cause.
    let era_refused: Vec<ConnId> = ledger
        .era_answers
        .iter()
        .filter(|e| e.kind == EraAnswerKind::Refused)
        .map(|e| e.conn)
        .collect();
    let mut found: BTreeMap<&str, Open> = BTreeMap::new();
    for (index, answer) in ledger.answers.iter().enumerate() {
        let Some(session) = answer.session_sent.as_deref() else {
            continue;
        };
        let Some(&died_at_ms) = died.get(session) else {
            continue;
        };
        if !refusal(answer)
            || answer.at_ms < died_at_ms
            || misrouted.contains(answer.conn.0)
            || era_refused.contains(&answer.conn)
        {
            continue;
        }
        let open = found.entry(session).or_insert_with(|| Open {
            refusals: Refusals {
                session: session.to_string(),
                died_at_ms,
                refused: 0,
                first_at_ms: answer.at_ms,
                last_at_ms: answer.at_ms,
                statuses: Vec::new(),
                requests: Vec::new(),
            },
            first: index,
            posted: 0,
            requests: Vec::new(),
        });
        let r = &mut open.refusals;
        r.refused += 1;
        r.last_at_ms = answer.at_ms;
        if !r.statuses.contains(&answer.status) {
            r.statuses.push(answer.status);
        }
        // The label is written once per distinct request, not once per refusal.
        let request = (answer.method, answer.rpc_method.as_deref());
        if !open.requests.contains(&request) {
            open.requests.push(request);
            r.requests.push(request_label(answer));
        }
        open.posted += usize::from(answer.method == HttpMethod::Post);
    }
    let mut out: Vec<Refusals> = found
        .into_values()
        .filter(|open| {
            open.posted >= REFUSALS
                && worked(ledger, &open.refusals.session, open.first)
                && !recovered(ledger, &open.refusals.session, open.refusals.died_at_ms)
        })
        .map(|open| open.refusals)
        .collect();
    out.sort_by_key(|r| r.first_at_ms);
    out
}

/// A refusal by its status (a 4xx), or by the server's word where the status does not
/// say it (a dead session answered 200 with an error body, or 503: the ledger marks them).
fn refusal(answer: &AnswerEntry) -> bool {
    (400..500).contains(&answer.status) || answer.dead_session
}

/// An answer that served the client: a 2xx that is not a dead session's refusal.
fn success(answer: &AnswerEntry) -> bool {
    (200..300).contains(&answer.status) && !answer.dead_session
}

/// The session worked before the answer at `first`: a request naming it was answered
/// with success (a session refused from its first request never served the client, and
/// its refusals are the environment's, not a client habit's).
fn worked(ledger: &Ledger, session: &str, first: usize) -> bool {
    ledger.answers[..first]
        .iter()
        .any(|a| success(a) && a.session_sent.as_deref() == Some(session))
}

/// The client worked after `session` died at `died_at_ms`: a POST was answered with
/// success, whether it named another session (a new session's `initialize`), none (work
/// without a session in another era), or the dead one itself (a server that no longer
/// keeps sessions serves whatever id a request carries: the call went through); or any
/// request naming another session was (a client that had moved to a new session, while
/// a stale task of its still names the old one: that is `reinit_collision`'s).
fn recovered(ledger: &Ledger, session: &str, died_at_ms: u64) -> bool {
    ledger
        .answers
        .iter()
        .filter(|a| a.at_ms >= died_at_ms && success(a))
        .any(|a| a.method == HttpMethod::Post || a.session_sent.as_deref() != Some(session))
}

/// The verdicts, for every kind of client ([`refused_without_recovery`]).
pub(crate) fn verdicts(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    for found in refused_without_recovery(ledger) {
        verdicts.push(Verdict {
            kind: VerdictKind::RefusedWithoutRecovery,
            at_ms: found.first_at_ms,
            summary: words.say(|| found.sentence()),
            evidence: Evidence::RefusedWithoutRecovery(found),
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{AnswerEntry, DeathCause, Ledger, SessionEntry};

    use super::refused_without_recovery;

    fn answer(conn: u64, at_ms: u64, rpc: &str, session: Option<&str>, status: u16) -> AnswerEntry {
        AnswerEntry {
            rpc_method: Some(rpc.into()),
            session_sent: session.map(Into::into),
            ..crate::test_answer::answer(conn, at_ms, status)
        }
    }

    /// Session `a` serves a call, dies at 60 s, then `refused` calls naming it get 404.
    fn ledger(refused: u64) -> Ledger {
        let mut ledger = Ledger {
            sessions: vec![SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0],
                died: Some((60_000, DeathCause::IdleTtl)),
                held_by: None,
                stateless: false,
            }],
            ..Ledger::default()
        };
        ledger.answers.push(answer(1, 0, "initialize", None, 200));
        ledger
            .answers
            .push(answer(2, 1_000, "tools/call", Some("a"), 200));
        for k in 0..refused {
            ledger.answers.push(answer(
                3 + k,
                70_000 + k * 1_000,
                "tools/call",
                Some("a"),
                404,
            ));
        }
        ledger
    }

    #[test]
    fn a_second_refused_call_in_a_dead_session_is_no_recovery() {
        assert!(
            refused_without_recovery(&ledger(1)).is_empty(),
            "one failure seen"
        );
        let found = refused_without_recovery(&ledger(2));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].refused, 2);
        assert_eq!(found[0].died_at_ms, 60_000);
        assert_eq!(found[0].requests, ["POST tools/call"]);
    }

    #[test]
    fn a_new_session_after_the_refusals_is_recovery() {
        let mut recovered = ledger(2);
        recovered
            .answers
            .push(answer(9, 75_000, "initialize", None, 200));
        assert!(refused_without_recovery(&recovered).is_empty());
    }

    /// Each distinct request refused is named once, in order of first refusal, however
    /// often it was refused (the labels are written only for the first).
    #[test]
    fn the_refused_requests_are_named_once_each_in_order() {
        let mut ledger = ledger(2);
        ledger
            .answers
            .push(answer(7, 80_000, "resources/list", Some("a"), 404));
        ledger.answers.push(faultline_model::AnswerEntry {
            method: faultline_model::HttpMethod::Get,
            rpc_method: None,
            ..answer(8, 81_000, "", Some("a"), 404)
        });
        ledger
            .answers
            .push(answer(9, 82_000, "tools/call", Some("a"), 400));
        let found = refused_without_recovery(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].refused, 5);
        assert_eq!(
            found[0].requests,
            ["POST tools/call", "POST resources/list", "GET"]
        );
        assert_eq!(found[0].statuses, [404, 400]);
    }

    /// Calls refused for their era (a 2025 session's requests after a roll to a
    /// 2026-07-28-only server) are not refusals of the session: no new session in that era
    /// would be served either, and `era_mismatch` says so.
    #[test]
    fn calls_refused_for_their_era_are_not_session_refusals() {
        let mut ledger = ledger(2);
        for conn in [3, 4] {
            ledger.era_answers.push(faultline_model::EraAnswer {
                at_ms: 70_000,
                conn: faultline_model::ConnId(conn),
                rpc_method: Some("tools/call".into()),
                status: 404,
                request_era: faultline_model::RequestEra::Legacy,
                server_era: faultline_model::Era::ModernOnly,
                kind: faultline_model::EraAnswerKind::Refused,
                rpc_error: None,
            });
        }
        assert!(refused_without_recovery(&ledger).is_empty());
    }

    /// A server that stopped keeping sessions (a deploy into a sessionless era) serves a
    /// request that still names the dead session: the client works again.
    #[test]
    fn a_success_naming_the_dead_session_is_recovery() {
        let mut served = ledger(2);
        served
            .answers
            .push(answer(9, 75_000, "tools/call", Some("a"), 200));
        assert!(refused_without_recovery(&served).is_empty());
    }

    /// A client that re-initialized after the death, before the refusals (a stale task of
    /// its names the old session; its new session answers): it recovered, and the stale
    /// task's refusals are `reinit_collision`'s.
    #[test]
    fn a_new_session_before_the_refusals_is_recovery() {
        let mut moved_on = ledger(2);
        moved_on
            .answers
            .insert(2, answer(9, 65_000, "initialize", None, 200));
        assert!(refused_without_recovery(&moved_on).is_empty());
        // Its GET answered on the new session counts too.
        let mut listening = ledger(2);
        listening.answers.insert(
            2,
            faultline_model::AnswerEntry {
                method: faultline_model::HttpMethod::Get,
                rpc_method: None,
                ..answer(9, 65_000, "", Some("b"), 200)
            },
        );
        assert!(refused_without_recovery(&listening).is_empty());
    }
}
