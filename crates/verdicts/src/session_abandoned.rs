//! `session_abandoned`: the client dropped a session the server still held alive, on an
//! answer that did not say it was gone, and started another.
//!
//! Nothing need be lost for it to hurt: what the old session held (subscriptions, a
//! standalone stream's notifications, work in flight) is left behind, and the server keeps
//! an orphan until it expires. The field's cases are answers a client reads as "session
//! gone" when they are not: a `400` or `406` to a `GET`
//! (<https://github.com/modelcontextprotocol/typescript-sdk/issues/1635>), a `409` for a
//! second stream, a `400` to a reconnecting `GET` after a client read timeout
//! (<https://github.com/render-oss/render-mcp-server/issues/26>).
//!
//! **The rule**, read from the server's ledger alone: an `initialize` answered with success
//! while the client's session created before it was still alive on the server (not expired, not
//! lost, not deleted: a client that deliberately ends a session says so with `DELETE`),
//! and the answers naming the old session since it last answered with success were errors
//! other than the spec's death notice (`404`, `410`) and other than a balancer's misroute
//! (that is `misrouted_session`, the fleet's fault): the last of them is the answer the
//! client gave up on. All of them, not the last alone: answers to requests sent together
//! reach the client in an order the ledger does not keep (a 404 it acted on may be
//! followed in the ledger by a 400 it read after it had started the new session). The client's
//! sessions are those some request of its named ([`client_sessions`]): a fleet's tenant,
//! which the scenario plays without HTTP, is someone else's session, neither one the
//! client left nor one it started.
//!
//! **The guard.** A session ends on a `404` to a request that named it, or on the client's
//! own `DELETE`; any other failure (a refused or cut stream, a 4xx/5xx of a `GET`, a
//! timeout) is a reason to reconnect the stream or settle the doubt with a `ping`, not
//! to drop the session.

use faultline_model::{AnswerEntry, HttpMethod, Ledger, SessionEntry, SessionKey};
use serde::Serialize;

use crate::owed::client_sessions;
use crate::reconnect_loop::request_label;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// What the guard is, in one sentence (for `explain` and the report card).
pub const GUARD: &str = "end a session only on a 404 to a request that named it or with your own DELETE; settle any other failure with a reconnect or a ping, not a new session";

/// One live session left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Abandonment {
    /// The live session the client dropped.
    pub session: String,
    /// The session the client started instead, and when.
    pub replaced_by: String,
    pub at_ms: u64,
    /// The answer the client gave up on: the last one naming the old session.
    pub after_status: u16,
    pub after_request: String,
    pub after_at_ms: u64,
}

impl Abandonment {
    pub fn sentence(&self) -> String {
        format!(
            "the client started session {} at {} although session {} was still alive on the server: it gave up on it after {} was answered {} at {}",
            self.replaced_by,
            vtime(self.at_ms),
            self.session,
            self.after_request,
            self.after_status,
            vtime(self.after_at_ms),
        )
    }
}

/// Every live session the ledger shows abandoned, in time order.
pub fn sessions_abandoned(ledger: &Ledger) -> Vec<Abandonment> {
    let mut out = Vec::new();
    if ledger.sessions.len() < 2 {
        return out;
    }
    let own = client_sessions(ledger);
    let sessions: Vec<&SessionEntry> = (ledger.sessions_base..)
        .zip(&ledger.sessions)
        .filter(|&(key, s)| !s.stateless && own.contains(&SessionKey(key)))
        .map(|(_, s)| s)
        .collect();
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    for pair in sessions.windows(2) {
        let (old, new) = (pair[0], pair[1]);
        let at_ms = new.created_ms;
        if old.died.is_some_and(|(died, _)| died <= at_ms) {
            continue;
        }
        let naming_old: Vec<&AnswerEntry> = ledger
            .answers
            .iter()
            .take_while(|a| a.at_ms <= at_ms)
            .filter(|a| a.session_sent.as_deref() == Some(old.wire_id.as_str()))
            .collect();
        // Ended on purpose: the client said so with `DELETE` (whatever became of it).
        if naming_old.iter().any(|a| a.method == HttpMethod::Delete) {
            continue;
        }
        // What the client may have given up on: the failures since the session last
        // answered with success. Not only the last of them: the answers to requests sent
        // together reach the client in an order the ledger does not keep, and it may have
        // started the new session on an earlier one before a later one arrived.
        let since_success = naming_old
            .iter()
            .rposition(|a| a.status < 400 && !a.dead_session)
            .map_or(0, |i| i + 1);
        let failures = &naming_old[since_success..];
        // A 404 or 410 naming the session is the spec's death notice: a client that
        // believes it follows the rule, even where a balancer's misroute lied (that is
        // `misrouted_session`, the fleet's fault). A misroute lied about a live session
        // whatever its status: `misrouted_session` too.
        if failures
            .iter()
            .any(|a| matches!(a.status, 404 | 410) || misrouted.contains(a.conn.0))
        {
            continue;
        }
        let Some(&last) = failures.last() else {
            continue;
        };
        let after_request = request_label(last);
        out.push(Abandonment {
            session: old.wire_id.clone(),
            replaced_by: new.wire_id.clone(),
            at_ms,
            after_status: last.status,
            after_request,
            after_at_ms: last.at_ms,
        });
    }
    out
}

/// The verdicts, for every kind of client ([`sessions_abandoned`]).
pub(crate) fn verdicts(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    for found in sessions_abandoned(ledger) {
        verdicts.push(Verdict {
            kind: VerdictKind::SessionAbandoned,
            at_ms: found.at_ms,
            summary: words.say(|| found.sentence()),
            evidence: Evidence::SessionAbandoned(found),
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{AnswerEntry, DeathCause, HttpMethod, Ledger, SessionEntry};

    use super::sessions_abandoned;

    fn session(id: &str, created_ms: u64, died: Option<(u64, DeathCause)>) -> SessionEntry {
        SessionEntry {
            wire_id: id.into(),
            created_ms,
            generations: vec![created_ms],
            died,
            held_by: None,
            stateless: false,
        }
    }

    fn answer(
        conn: u64,
        at_ms: u64,
        method: HttpMethod,
        session: &str,
        status: u16,
    ) -> AnswerEntry {
        AnswerEntry {
            method,
            session_sent: Some(session.into()),
            ..crate::test_answer::answer(conn, at_ms, status)
        }
    }

    /// Session `a` answers `status` to a GET at 10 s, then the client starts `b` at 11 s
    /// (and names it at 11.5 s).
    fn ledger(status: u16, a_died: Option<(u64, DeathCause)>, delete: bool) -> Ledger {
        let mut ledger = Ledger {
            sessions: vec![session("a", 0, a_died), session("b", 11_000, None)],
            ..Ledger::default()
        };
        ledger
            .answers
            .push(answer(1, 5_000, HttpMethod::Post, "a", 200));
        ledger
            .answers
            .push(answer(2, 10_000, HttpMethod::Get, "a", status));
        if delete {
            ledger
                .answers
                .push(answer(3, 10_500, HttpMethod::Delete, "a", 400));
        }
        ledger
            .answers
            .push(answer(4, 11_500, HttpMethod::Post, "b", 202));
        ledger
    }

    /// A tenant's session `t` (a fleet's other client, played without HTTP: no request
    /// names it) admitted at `t_ms`.
    fn with_tenant(mut ledger: Ledger, t_ms: u64) -> Ledger {
        let at = ledger
            .sessions
            .iter()
            .position(|s| s.created_ms > t_ms)
            .unwrap_or(ledger.sessions.len());
        ledger.sessions.insert(at, session("t", t_ms, None));
        ledger
    }

    #[test]
    fn a_live_session_left_after_a_refused_get_is_abandoned() {
        let found = sessions_abandoned(&ledger(409, None, false));
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].session.as_str(), found[0].replaced_by.as_str()),
            ("a", "b")
        );
        assert_eq!((found[0].after_status, found[0].after_at_ms), (409, 10_000));
        assert_eq!(found[0].after_request, "GET");
    }

    #[test]
    fn a_death_notice_a_dead_session_or_a_delete_is_no_abandonment() {
        assert!(
            sessions_abandoned(&ledger(404, None, false)).is_empty(),
            "the spec's notice"
        );
        let dead = Some((9_000, DeathCause::IdleTtl));
        assert!(
            sessions_abandoned(&ledger(409, dead, false)).is_empty(),
            "it was dead"
        );
        assert!(
            sessions_abandoned(&ledger(409, None, true)).is_empty(),
            "ended on purpose"
        );
        assert!(
            sessions_abandoned(&ledger(200, None, false)).is_empty(),
            "no failure"
        );
    }

    #[test]
    fn a_tenant_admitted_after_a_refused_get_is_not_a_session_the_client_started() {
        // The 409 was the client's (a second standalone GET), the session after it the
        // fleet's tenant: the client kept `a`.
        let mut ledger = with_tenant(ledger(409, None, false), 10_600);
        ledger.sessions.retain(|s| s.wire_id != "b");
        ledger
            .answers
            .retain(|a| a.session_sent.as_deref() != Some("b"));
        assert!(sessions_abandoned(&ledger).is_empty());
    }

    #[test]
    fn a_tenant_between_two_sessions_of_the_client_hides_no_abandonment() {
        let found = sessions_abandoned(&with_tenant(ledger(409, None, false), 10_600));
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].session.as_str(), found[0].replaced_by.as_str()),
            ("a", "b")
        );
    }

    /// Two GETs for `a` answered at 10 s: a 404 from a replica that does not hold `a` (a
    /// misroute) and a 400, in that order in the ledger; `b` at 10 s. The client acted on
    /// the 404 and read the 400 after it had started `b` (explore seed 86097).
    #[test]
    fn a_misrouted_404_among_the_last_failures_is_the_fleets_not_an_abandonment() {
        let mut ledger = ledger(409, None, false);
        ledger.answers.truncate(1);
        ledger.sessions[1].created_ms = 10_000;
        ledger.answers.extend([
            answer(2, 10_000, HttpMethod::Get, "a", 404),
            answer(3, 10_000, HttpMethod::Get, "a", 400),
            answer(4, 10_000, HttpMethod::Post, "b", 202),
        ]);
        ledger.misroutes.push(faultline_model::MisrouteEntry {
            conn: faultline_model::ConnId(2),
            at_ms: 10_000,
            session: faultline_model::SessionKey(0),
            answered_by: faultline_model::ReplicaId(1),
            held_by: faultline_model::ReplicaId(0),
            holder_down_until: None,
        });
        assert!(sessions_abandoned(&ledger).is_empty());
        // Without the misroute the 404 is the spec's death notice: no abandonment either.
        ledger.misroutes.clear();
        assert!(sessions_abandoned(&ledger).is_empty());
        // A success since clears the failures before it: the 400 alone was given up on.
        ledger
            .answers
            .insert(2, answer(5, 10_000, HttpMethod::Get, "a", 200));
        let found = sessions_abandoned(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].after_status, found[0].after_request.as_str()),
            (400, "GET")
        );
    }
}
