//! `zombie_session`: a resumption answered `200` for a session the server had already
//! lost, so the client believed it alive, and the failure surfaced only at its next
//! session-scoped request (`404`): the 404-after-replay cascade. A replay proves nothing
//! about the session when the server does not check the session on GET
//! (`get_validates_session: false`) or keeps the event log longer than the session.
//!
//! Both judges find the same pair (the resumption's 200, then the first own POST of that
//! session answered with a death notice, [`crate::dead_session`]), each by what it knows
//! of the client's order: the simulator by when its client read each answer, grade by the
//! ledger's order. The evidence, and the sentence that tells it, are this file's.
//!
//! So the resumption counts when its 200 said nothing of the session: the server did not
//! ask its session store (the ledger marks such an answer `session_unchecked`: the
//! incident's server, whose session then expired under a client that took the replay for
//! proof of life), or the session was already dead when it was answered. A server that
//! checked the session and found it alive told the truth, and the 404 of a later expiry is
//! an ordinary one, which the recovery rules judge.
//!
//! Guard: probe the session (a `ping`) before trusting a replay's 200; the guarded client
//! does (`crates/sim/src/client.rs`), and a probe's 404 is the guard working, not a zombie.

use faultline_model::{ConnId, Ledger};
use serde::Serialize;

use crate::IdRanges;
use crate::client_record::{ClientRecord, Task};
use crate::dead_session::Misrouted;
use crate::request_index::LazyRequestIndex;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{HttpMethod, ResumeEntry};
use std::collections::BTreeMap;

/// The evidence of one zombie session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Zombie {
    pub session: String,
    pub replay_at_ms: u64,
    pub cursor: String,
    /// The ids the resumption replayed after the cursor (the `200` that proved nothing
    /// about the session).
    pub replayed_ids: IdRanges,
    pub rejected_at_ms: u64,
    /// The request that met the death notice: `POST tools/call`.
    pub rejected_method: String,
    pub status: u16,
    pub session_died_at_ms: Option<u64>,
    pub cause: Option<String>,
}

/// The resumption the client took for proof of life.
pub struct Resumed<'a> {
    pub session: &'a str,
    /// Its connection, when the ledger recorded its answer (what it replayed is read
    /// from there).
    pub conn: Option<ConnId>,
    pub at_ms: u64,
    pub cursor: &'a str,
}

/// The next session-scoped request and its death notice.
pub struct Rejected {
    pub at_ms: u64,
    pub method: String,
    pub status: u16,
}

impl Zombie {
    pub fn new(ledger: &Ledger, resumed: Resumed<'_>, rejected: Rejected) -> Zombie {
        let death = death_of(ledger, resumed.session);
        Zombie {
            session: resumed.session.to_string(),
            replay_at_ms: resumed.at_ms,
            cursor: resumed.cursor.to_string(),
            replayed_ids: resumed
                .conn
                .map(|conn| replayed_ids(ledger, conn))
                .unwrap_or_default(),
            rejected_at_ms: rejected.at_ms,
            rejected_method: rejected.method,
            status: rejected.status,
            session_died_at_ms: death.map(|(at, _)| at),
            cause: death.map(|(_, c)| format!("{c:?}")),
        }
    }

    /// One sentence a reader checks against the timeline.
    pub fn sentence(&self) -> String {
        format!(
            "the resumption at {} (Last-Event-ID {}) replayed {} with 200, and the next session-scoped request ({}) at {} got {}{}",
            vtime(self.replay_at_ms),
            self.cursor,
            if self.replayed_ids.0.is_empty() {
                "nothing".to_string()
            } else {
                format!("ids {}", self.replayed_ids)
            },
            self.rejected_method,
            vtime(self.rejected_at_ms),
            self.status,
            match (self.session_died_at_ms, &self.cause) {
                (Some(at), Some(cause)) =>
                    format!("; the session had died at {} ({cause})", vtime(at)),
                _ => String::new(),
            }
        )
    }
}

/// True when the resumption `entry` (of `session`, answered at `at_ms`) proved nothing of
/// the session: its server did not check the session, or the ledger says the session had
/// died before `at_ms`. A death at the answer's instant came after it (a checking server
/// found the session alive; a fault set off by the replay, a restart, kills it after),
/// and a session with no recorded death was alive.
fn proved_nothing(ledger: &Ledger, entry: Option<&ResumeEntry>, session: &str, at_ms: u64) -> bool {
    entry.is_some_and(|e| e.session_unchecked)
        || death_of(ledger, session).is_some_and(|(died, _)| died < at_ms)
}

/// When and why the session the wire knows as `session` died, if it did.
fn death_of(ledger: &Ledger, session: &str) -> Option<(u64, faultline_model::DeathCause)> {
    ledger
        .sessions
        .iter()
        .find(|s| s.wire_id == session)
        .and_then(|s| s.died)
}

/// The ids of the events replayed on `conn` (a resumption's answer), in order.
pub fn replayed_ids(ledger: &Ledger, conn: ConnId) -> IdRanges {
    let mut ids: Vec<u64> = ledger
        .sends
        .iter()
        .filter(|s| s.conn == conn && s.replay)
        .map(|s| ledger.event(s.event).id)
        .collect();
    ids.sort_unstable();
    IdRanges::from_sorted(ids)
}

/// A modelled client's zombie: what it sent after it *read* the resumption's 200.
pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    resumed: &BTreeMap<ConnId, &ResumeEntry>,
    misrouted: &Misrouted,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // A zombie is found by the death notice (404/410) its next POST met: a record with
    // none has no zombie (most records), and the request index is not built for it.
    if !record
        .requests
        .iter()
        .any(|q| matches!(q.status, Some(404 | 410)))
    {
        return;
    }
    let mut reported = std::collections::BTreeSet::new();
    for r in &record.resumptions {
        // The moment the client read the 200: what it sends after that, it sends believing
        // the session is alive.
        let believed_at = requests
            .get()
            .first_200(r.conn)
            .and_then(|q| q.answered_seq);
        let Some(believed_at) = believed_at else {
            continue;
        };
        if reported.contains(&r.session) {
            continue;
        }
        let next = requests.get().first_own_post_after(&r.session, believed_at);
        let Some(next) = next else {
            continue;
        };
        if next.task == Task::Probe {
            // The liveness probe asked before anything else: the guard did its job,
            // whatever it found.
            continue;
        }
        let Some(status @ (404 | 410)) = next.status else {
            continue;
        };
        if misrouted.contains(next.conn.0) {
            // The session lived on another replica: the 200 was right, the 404 a misroute.
            continue;
        }
        if !proved_nothing(ledger, resumed.get(&r.conn).copied(), &r.session, r.at_ms) {
            // The server checked the session and it was alive: the 200 was true.
            continue;
        }
        reported.insert(r.session.clone());
        let cursor = r.cursor.to_string();
        let zombie = Zombie::new(
            ledger,
            Resumed {
                session: &r.session,
                conn: resumed.contains_key(&r.conn).then_some(r.conn),
                at_ms: r.at_ms,
                cursor: &cursor,
            },
            Rejected {
                at_ms: next.at_ms,
                method: next.describe(),
                status,
            },
        );
        verdicts.push(Verdict {
            kind: VerdictKind::ZombieSession,
            at_ms: next.at_ms,
            summary: words.say(|| zombie.sentence()),
            evidence: Evidence::Zombie(zombie),
        });
    }
}

/// A resumption answered 200 (a replay, or a fresh stream for a cursor the server did not
/// know), then the session's next POST got 404/410 (a death notice: a misroute of a live
/// session is `misrouted_session`, not this).
/// A real client's zombie: a real client does not say when it read the 200, so the
/// next POST of the session after the resumption in the ledger's order.
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    let mut reported = Vec::new();
    for r in &ledger.resumptions {
        // Whatever the cursor resolved to: a 200 to a resumption (a replay, or a fresh
        // stream for a cursor the server did not know) told the client the session lived,
        // as the modelled half reads it.
        let Some(session) = r.session_sent.as_deref() else {
            continue;
        };
        if reported.contains(&session) {
            continue;
        }
        let Some(at) = ledger.answers.iter().position(|a| a.conn == r.conn) else {
            continue;
        };
        if ledger.answers[at].status != 200
            || !proved_nothing(ledger, Some(r), session, ledger.answers[at].at_ms)
        {
            continue;
        }
        let next = ledger.answers[at + 1..]
            .iter()
            .find(|a| a.method == HttpMethod::Post && a.session_sent.as_deref() == Some(session));
        let Some(next) = next.filter(|a| misrouted.is_death_notice(a)) else {
            continue;
        };
        if next.rpc_method.as_deref() == Some("ping") {
            // A `ping` straight after the replay is the liveness probe the cascade calls
            // for: the client asked before trusting the 200, and learned the truth (the
            // simulator's judge excuses its guarded client's probe alike).
            continue;
        }
        reported.push(session);
        let zombie = Zombie::new(
            ledger,
            Resumed {
                session,
                conn: Some(r.conn),
                at_ms: r.at_ms,
                cursor: &r.cursor,
            },
            Rejected {
                at_ms: next.at_ms,
                method: match next.rpc_method.as_deref() {
                    Some(rpc) => format!("POST {rpc}"),
                    None => "POST".to_string(),
                },
                status: next.status,
            },
        );
        verdicts.push(Verdict {
            kind: VerdictKind::ZombieSession,
            at_ms: next.at_ms,
            summary: words.say(|| zombie.sentence()),
            evidence: Evidence::Zombie(zombie),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use faultline_model::{
        AnswerEntry, ConnId, CursorResolution, DeathCause, HttpMethod, Ledger, ResumeEntry,
        SessionEntry, StreamId,
    };

    use crate::client_record::{ClientRecord, RequestRecord, ResumeRecord, Task};
    use crate::dead_session::Misrouted;
    use crate::request_index::LazyRequestIndex;
    use crate::verdict::{Verdict, VerdictKind};
    use crate::words::Words;

    fn request(conn: u64, http: &'static str, status: u16, seq: u64) -> RequestRecord {
        RequestRecord {
            at_ms: seq * 1_000,
            conn: ConnId(conn),
            task: Task::Main,
            http,
            rpc: (http == "POST").then(|| "tools/call".to_string()),
            session: Some("a".into()),
            last_event_id: None,
            status: Some(status),
            sent_seq: seq,
            answered_seq: Some(seq + 1),
            call: None,
        }
    }

    /// Session `a`, dead (idle) at `died_ms`.
    fn ledger_with_a(died_ms: u64) -> Ledger {
        Ledger {
            sessions: vec![SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0],
                died: Some((died_ms, DeathCause::IdleTtl)),
                held_by: None,
                stateless: false,
            }],
            ..Ledger::default()
        }
    }

    /// A resumption of session `a` on connection 2 at 3 s answered 200, then the session's
    /// next POST (at 5 s) answered `status`; the session died at 2 s.
    fn judged(status: u16) -> Vec<Verdict> {
        judged_dead_at(status, 2_000)
    }

    /// [`judged`], the session dead at `died_ms`, its GET answered by a server that checks
    /// the session.
    fn judged_dead_at(status: u16, died_ms: u64) -> Vec<Verdict> {
        judged_as(status, died_ms, false)
    }

    /// The resumption as the ledger recorded it: `unchecked` when the server did not ask
    /// its session store.
    fn resumption(unchecked: bool) -> ResumeEntry {
        ResumeEntry {
            conn: ConnId(2),
            at_ms: 3_000,
            session_sent: Some("a".into()),
            cursor: "7".into(),
            resolution: CursorResolution::Honoured {
                stream: StreamId(0),
                generation: 0,
                replayed: 1,
            },
            attached_to: Some(StreamId(0)),
            session_sent_len: None,
            cursor_len: None,
            session_unchecked: unchecked,
        }
    }

    fn judged_as(status: u16, died_ms: u64, unchecked: bool) -> Vec<Verdict> {
        let mut record = ClientRecord::default();
        record.requests.push(request(1, "POST", 200, 1));
        record.requests.push(request(2, "GET", 200, 3));
        record.requests.push(request(3, "POST", status, 5));
        record.resumptions.push(ResumeRecord {
            at_ms: 3_000,
            conn: ConnId(2),
            session: "a".into(),
            cursor: 7,
            cursor_event: None,
        });
        let mut ledger = ledger_with_a(died_ms);
        ledger.resumptions.push(resumption(unchecked));
        let resumed: BTreeMap<ConnId, &ResumeEntry> =
            ledger.resumptions.iter().map(|r| (r.conn, r)).collect();
        let mut verdicts = Vec::new();
        super::modelled(
            &ledger,
            &record,
            &LazyRequestIndex::new(&record),
            &resumed,
            &Misrouted::default(),
            Words::Skipped,
            &mut verdicts,
        );
        verdicts
    }

    /// The rule returns at once for a record with no 404 or 410; with one, the zombie is
    /// still found.
    #[test]
    fn a_404_after_a_replay_s_200_is_a_zombie_and_a_200_is_not() {
        assert!(judged(200).is_empty());
        for status in [404, 410] {
            let verdicts = judged(status);
            assert_eq!(verdicts.len(), 1, "{status}");
            assert_eq!(verdicts[0].kind, VerdictKind::ZombieSession);
        }
    }

    /// A session a checking server found alive when its resumption was answered (it died
    /// at 4 s, between the replay at 3 s and the POST at 5 s, or at the replay's instant,
    /// after the check) made the 200 true: no zombie. Dead before the replay, it is one;
    /// and so is a replay from a server that never asked (the incident: the session
    /// expired later, under a client that took the replay for proof of life).
    #[test]
    fn a_checked_session_that_died_after_the_replay_is_no_zombie() {
        assert!(judged_dead_at(404, 4_000).is_empty());
        assert!(judged_dead_at(404, 3_000).is_empty());
        assert_eq!(judged_dead_at(404, 2_999).len(), 1);
        assert_eq!(judged_as(404, 4_000, true).len(), 1);
    }

    /// The real-client judge, on the ledger alone: a resumption on conn 2 at 3 s answered
    /// 200 (by a server that checks the session unless `unchecked`), the session's next
    /// POST at 5 s answered 404; the session died at `died_ms`.
    fn judged_real(died_ms: u64, unchecked: bool) -> Vec<Verdict> {
        let mut ledger = ledger_with_a(died_ms);
        let answer = |conn: u64, at_ms: u64, method: HttpMethod, status: u16| AnswerEntry {
            method,
            session_sent: Some("a".into()),
            rpc_method: (method == HttpMethod::Post).then(|| "tools/call".into()),
            ..crate::test_answer::answer(conn, at_ms, status)
        };
        ledger.answers = vec![
            answer(2, 3_000, HttpMethod::Get, 200),
            answer(3, 5_000, HttpMethod::Post, 404),
        ];
        ledger.resumptions.push(resumption(unchecked));
        let mut verdicts = Vec::new();
        super::real(&ledger, Words::Skipped, &mut verdicts);
        verdicts
    }

    #[test]
    fn the_real_judge_reads_the_replay_alike() {
        assert_eq!(judged_real(2_000, false).len(), 1);
        assert!(judged_real(4_000, false).is_empty());
        assert_eq!(judged_real(4_000, true).len(), 1);
    }

    /// A 200 that opened a fresh stream for a cursor the server did not know told the
    /// client the session lived just as a replay does: both halves read it alike.
    #[test]
    fn a_fresh_stream_for_an_unknown_cursor_is_read_as_a_replay_by_both_halves() {
        let fresh = |mut ledger: Ledger| {
            ledger.resumptions[0].resolution = CursorResolution::Unknown {
                answer: faultline_model::UnknownCursor::FreshStream,
            };
            ledger
        };
        let mut ledger = ledger_with_a(2_000);
        ledger.answers = vec![
            AnswerEntry {
                method: HttpMethod::Get,
                session_sent: Some("a".into()),
                ..crate::test_answer::answer(2, 3_000, 200)
            },
            AnswerEntry {
                method: HttpMethod::Post,
                session_sent: Some("a".into()),
                rpc_method: Some("tools/call".into()),
                ..crate::test_answer::answer(3, 5_000, 404)
            },
        ];
        ledger.resumptions.push(resumption(false));
        let ledger = fresh(ledger);
        let mut verdicts = Vec::new();
        super::real(&ledger, Words::Skipped, &mut verdicts);
        assert_eq!(verdicts.len(), 1, "{verdicts:?}");
        assert_eq!(verdicts[0].kind, VerdictKind::ZombieSession);
    }
}
