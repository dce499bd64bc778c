//! `reconnect_loop`: the same resumption, or the same failing request, repeated again and
//! again with nothing new reaching the client in between.
//!
//! Read from the server's ledger alone, so that a simulated client and a real one are
//! judged by the same rule. The field reports that motivate it are clients whose retry
//! counter resets on a clean end of stream or an empty `200` and which then reconnect for
//! ever: <https://github.com/modelcontextprotocol/rust-sdk/issues/958>,
//! <https://github.com/modelcontextprotocol/python-sdk/issues/2393>,
//! <https://github.com/modelcontextprotocol/typescript-sdk/issues/2682>.
//!
//! **The rule.** Two requests are *the same attempt* when they share HTTP method, JSON-RPC
//! method, `Mcp-Session-Id` and `Last-Event-ID` (a POST whose JSON-RPC method the ledger
//! does not know, refused by a fleet with no replica up before any replica read it, is the
//! same attempt as any POST on its session). An attempt is *fruitless* when it was
//! answered with an error status (4xx/5xx), or when its `Last-Event-ID` was answered by a
//! stream that ended at once with nothing on it (the `Empty200` answer to an unknown or
//! evicted cursor). [`LOOP_ATTEMPTS`] fruitless answers to the same attempt in a row, with
//! no event reaching the client for the first time in between and no successful answer to
//! that attempt, are a loop. A stream that stays open (a quiet standalone `GET`) is not
//! fruitless, however often an idle proxy cuts it. A loop is still going at the end when
//! nothing broke it and the client had no success after its last attempt. A run into a
//! session the server had already killed (or misrouted by a fleet to a replica that does not
//! hold it, `misrouted_session`) is a loop only if its attempts came at
//! [`LOOP_ATTEMPTS`] distinct instants, one after another, and the client had no success
//! from its start on (<https://github.com/UsefulSoftwareCo/executor/pull/1622>: a
//! standalone GET retried into a dead session every 30 s for ever): the ledger cannot tell
//! a client's tasks apart, and several tasks that each retry a few times side by side would
//! otherwise add up to a loop none of them is in; retries into a session that is gone are
//! `retry_amplification`'s and `misrouted_session`'s.
//!
//! **The guard.** Count reconnects without progress and give up after a few, with the
//! count reset only by a delivered event, never by a clean end of stream or an empty
//! `200`; then surface the failure (and re-initialize) rather than try again.

use std::collections::BTreeMap;

use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{CursorResolution, HttpMethod, Ledger, UnknownCursor};
use serde::Serialize;

/// Fruitless answers in a row to the same attempt that make a loop. The modelled clients
/// with their default habits stop well before it (five reconnects without progress, three
/// retries of a 404).
pub const LOOP_ATTEMPTS: u32 = 10;

/// What the guard is, in one sentence (for `explain` and the report card).
pub const GUARD: &str = "count reconnects without progress and give up after a few; reset the count only when an event arrives, not on a clean end of stream or an empty 200";

/// One loop: the attempt repeated, how often, over which span of time, and how it was
/// answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReconnectLoop {
    /// `GET`, `POST` or `DELETE`.
    pub method: &'static str,
    /// The JSON-RPC method of a repeated POST.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_method: Option<String>,
    /// The `Mcp-Session-Id` every attempt carried.
    pub session: Option<String>,
    /// The `Last-Event-ID` every attempt carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The longest run of fruitless answers in a row.
    pub attempts: u32,
    /// When that run's first and last attempts were answered.
    pub first_at_ms: u64,
    pub last_at_ms: u64,
    /// The answers the run got, each status once, in order of first appearance
    /// (`200` stands for a stream that ended at once, empty).
    pub statuses: Vec<u16>,
    /// The run was still going when the ledger ended: nothing ever broke it, and the
    /// client had no success after its last attempt.
    pub unbroken: bool,
}

impl ReconnectLoop {
    /// The repeated request, as a reader would name it: `GET Last-Event-ID 41`.
    pub fn request(&self) -> String {
        match (&self.cursor, &self.rpc_method) {
            (Some(cursor), _) => format!("{} Last-Event-ID {cursor}", self.method),
            (None, Some(rpc)) => format!("{} {rpc}", self.method),
            (None, None) => self.method.to_string(),
        }
    }

    /// One sentence a reader can check against the ledger. `time` spells a virtual time.
    pub fn sentence(&self, time: impl Fn(u64) -> String) -> String {
        let answers = self
            .statuses
            .iter()
            .map(|s| match s {
                200 => "an empty 200".to_string(),
                s => s.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "the client sent {} {} times in a row from {} to {}, each answered with {answers} and nothing new delivered in between{}",
            self.request(),
            self.attempts,
            time(self.first_at_ms),
            time(self.last_at_ms),
            if self.unbroken {
                "; it was still at it when the run ended"
            } else {
                ""
            }
        )
    }
}

/// What makes two requests the same attempt: borrowed from the ledger, so that the
/// answers that are not part of any run (nearly all of them) copy nothing. Ordered as
/// owned strings would be, so the loops come out in the same order.
type AttemptKey<'l> = (
    &'static str,
    Option<&'l str>,
    Option<&'l str>,
    Option<&'l str>,
);

#[derive(Default)]
struct Streak {
    attempts: u32,
    first_at_ms: u64,
    last_at_ms: u64,
    /// The ledger indexes of the run's first and last answers.
    first_index: usize,
    last_index: usize,
    /// Some attempt of the run named a session the server had already killed, or was
    /// misrouted to a replica that does not hold its session.
    into_dead: bool,
    /// The distinct instants the run's attempts were answered at.
    instants: u32,
    statuses: Vec<u16>,
}

/// Every loop in the ledger, one per repeated attempt (its longest run), in the order the
/// runs began.
pub fn reconnect_loops(ledger: &Ledger) -> Vec<ReconnectLoop> {
    let cursors: BTreeMap<u64, (&str, &CursorResolution)> = ledger
        .resumptions
        .iter()
        .map(|r| (r.conn.0, (r.cursor.as_str(), &r.resolution)))
        .collect();
    // A loop is LOOP_ATTEMPTS fruitless answers to one attempt: a ledger with fewer
    // fruitless answers in all has none, and most runs' ledgers are such. Counting them
    // reads no string; the runs below compare requests by theirs.
    let fruitless_answers = ledger
        .answers
        .iter()
        .filter(|a| fruitless(a.status, cursors.get(&a.conn.0)))
        .count();
    if fruitless_answers < LOOP_ATTEMPTS as usize {
        return Vec::new();
    }
    // When each event first reached the client, in order: progress that breaks every run.
    let mut first_sent = vec![false; ledger.events.len()];
    let mut progress_at: Vec<u64> = Vec::new();
    for send in &ledger.sends {
        let Some(i) = send.event.0.checked_sub(ledger.events_base) else {
            continue;
        };
        if let Some(seen) = first_sent.get_mut(i as usize)
            && !*seen
        {
            *seen = true;
            progress_at.push(send.at_ms);
        }
    }
    // When each session the server killed died: a request naming it after that is
    // refused for a session that is gone (see `into_dead` below).
    let died = crate::dead_session::death_times(ledger);
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    let mut progress = progress_at.iter().peekable();
    let mut streaks: BTreeMap<AttemptKey, Streak> = BTreeMap::new();
    let mut longest: BTreeMap<AttemptKey, Streak> = BTreeMap::new();
    // The ledger index of the last answer that was not fruitless: a run that ended before
    // it was not still going at the end, whatever became of its own attempt.
    let mut last_success: Option<usize> = None;
    for (index, answer) in ledger.answers.iter().enumerate() {
        let mut progressed = false;
        while progress.next_if(|&&t| t <= answer.at_ms).is_some() {
            progressed = true;
        }
        if progressed {
            streaks.clear();
        }
        let resumption = cursors.get(&answer.conn.0);
        let key: AttemptKey = (
            method_name(answer.method),
            answer.rpc_method.as_deref(),
            answer.session_sent.as_deref(),
            resumption.map(|&(cursor, _)| cursor),
        );
        if !fruitless(answer.status, resumption) {
            last_success = Some(index);
            streaks.remove(&key);
            // A POST refused before any replica read it (a fleet with no replica up) has
            // no JSON-RPC method in the ledger: it is the same attempt as any POST on its
            // session, and a success of one ends its run too.
            if key.1.is_some() {
                streaks.remove(&(key.0, None, key.2, key.3));
            }
            continue;
        }
        // Refused as a session that is gone: dead on the server, or, behind a fleet,
        // misrouted to a replica that does not hold it (`misrouted_session`).
        let into_dead = misrouted.contains(answer.conn.0)
            || key
                .2
                .and_then(|session| died.get(session))
                .is_some_and(|&at| at <= answer.at_ms);
        let streak = streaks.entry(key).or_default();
        streak.into_dead |= into_dead;
        if streak.attempts == 0 || streak.last_at_ms != answer.at_ms {
            streak.instants += 1;
        }
        if streak.attempts == 0 {
            streak.first_at_ms = answer.at_ms;
            streak.first_index = index;
        }
        streak.attempts += 1;
        streak.last_at_ms = answer.at_ms;
        streak.last_index = index;
        if !streak.statuses.contains(&answer.status) {
            streak.statuses.push(answer.status);
        }
        if streak.attempts >= LOOP_ATTEMPTS
            && longest
                .get(&key)
                .is_none_or(|best| best.attempts < streak.attempts)
        {
            longest.insert(
                key,
                Streak {
                    attempts: streak.attempts,
                    first_at_ms: streak.first_at_ms,
                    last_at_ms: streak.last_at_ms,
                    first_index: streak.first_index,
                    last_index: streak.last_index,
                    into_dead: streak.into_dead,
                    instants: streak.instants,
                    statuses: streak.statuses.clone(),
                },
            );
        }
    }
    let mut loops: Vec<ReconnectLoop> = longest
        .into_iter()
        .filter_map(|((method, rpc_method, session, cursor), run)| {
            let unbroken = streaks
                .get(&(method, rpc_method, session, cursor))
                .is_some_and(|s| s.first_at_ms == run.first_at_ms && s.attempts == run.attempts)
                && progress.peek().is_none()
                && last_success.is_none_or(|i| i < run.last_index);
            // Retries into a session that is gone are `retry_amplification`'s and
            // `misrouted_session`'s; a loop only if they came one instant after another
            // (not several tasks' few retries side by side) and the client had no success
            // from the run's start on: one that did had moved on, and what still named the
            // old session were leftovers (`reinit_collision`).
            let moved_on = last_success.is_some_and(|i| i > run.first_index);
            if run.into_dead && (run.instants < LOOP_ATTEMPTS || moved_on) {
                return None;
            }
            Some(ReconnectLoop {
                method,
                rpc_method: rpc_method.map(str::to_string),
                session: session.map(str::to_string),
                cursor: cursor.map(str::to_string),
                attempts: run.attempts,
                first_at_ms: run.first_at_ms,
                last_at_ms: run.last_at_ms,
                statuses: run.statuses,
                unbroken,
            })
        })
        .collect();
    loops.sort_by_key(|l| l.first_at_ms);
    loops
}

/// An answer that gave the client nothing: an error status, or a stream that ended at
/// once, empty, on a cursor the server did not know or had evicted (`resumption`: the
/// connection's cursor and how the server resolved it, if it was a resumption).
fn fruitless(status: u16, resumption: Option<&(&str, &CursorResolution)>) -> bool {
    let ended_empty = matches!(
        resumption,
        Some((
            _,
            CursorResolution::Unknown {
                answer: UnknownCursor::Empty200
            } | CursorResolution::Stale {
                answer: UnknownCursor::Empty200,
                ..
            }
        ))
    );
    status >= 400 || ended_empty
}

/// A request as a reader names it: `POST tools/call`, `GET`.
pub fn request_label(answer: &faultline_model::AnswerEntry) -> String {
    match &answer.rpc_method {
        Some(rpc) => [method_name(answer.method), rpc.as_str()].join(" "),
        None => method_name(answer.method).to_string(),
    }
}

/// The HTTP method as it is written on the wire.
pub fn method_name(method: HttpMethod) -> &'static str {
    match method {
        HttpMethod::Post => "POST",
        HttpMethod::Get => "GET",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Other => "OTHER",
    }
}

/// Loops of fruitless reconnects or retries, by the ledger-only rule real clients are
/// graded by too ([`crate::reconnect_loop`]).
pub(crate) fn verdicts(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    for found in reconnect_loops(ledger) {
        verdicts.push(Verdict {
            kind: VerdictKind::ReconnectLoop,
            at_ms: found.first_at_ms,
            summary: words.say(|| found.sentence(vtime)),
            evidence: Evidence::ReconnectLoop(found),
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{
        AnswerEntry, ConnId, CursorResolution, HttpMethod, Ledger, ResumeEntry, UnknownCursor,
    };

    use super::{LOOP_ATTEMPTS, reconnect_loops};

    /// A GET resuming at cursor `7` on connection `conn`, answered by an empty stream.
    fn empty_resumption(ledger: &mut Ledger, conn: u64, at_ms: u64) {
        ledger.answers.push(AnswerEntry {
            method: HttpMethod::Get,
            session_sent: Some("a".into()),
            ..crate::test_answer::answer(conn, at_ms, 200)
        });
        ledger.resumptions.push(ResumeEntry {
            conn: ConnId(conn),
            at_ms,
            session_sent: Some("a".into()),
            cursor: "7".into(),
            resolution: CursorResolution::Unknown {
                answer: UnknownCursor::Empty200,
            },
            attached_to: None,
            session_sent_len: None,
            cursor_len: None,
            session_unchecked: false,
        });
    }

    /// The count of fruitless answers that lets most ledgers skip the rule must not hide
    /// a loop of exactly `LOOP_ATTEMPTS`, whether its answers are error statuses or empty
    /// streams.
    #[test]
    fn exactly_loop_attempts_fruitless_answers_are_a_loop_and_one_fewer_is_not() {
        for empty in [false, true] {
            let ledger = |n: u32| {
                let mut ledger = Ledger::default();
                ledger.answers.push(crate::test_answer::answer(0, 0, 200));
                for k in 0..n {
                    let (conn, at_ms) = (u64::from(k) + 1, 1_000 * (u64::from(k) + 1));
                    if empty {
                        empty_resumption(&mut ledger, conn, at_ms);
                    } else {
                        ledger
                            .answers
                            .push(crate::test_answer::answer(conn, at_ms, 503));
                    }
                }
                ledger
            };
            let found = reconnect_loops(&ledger(LOOP_ATTEMPTS));
            assert_eq!(found.len(), 1, "empty streams: {empty}");
            assert_eq!(found[0].attempts, LOOP_ATTEMPTS);
            assert!(found[0].unbroken);
            assert!(reconnect_loops(&ledger(LOOP_ATTEMPTS - 1)).is_empty());
        }
    }

    /// A client that retries `initialize` with back-off through two outages of a fleet,
    /// and gets a session between them, is not in a loop: the balancer's 503s carry no
    /// JSON-RPC method, and the success of `POST initialize` ends their run all the same
    /// (explore `--era mixed --client guarded`, seed 11169).
    #[test]
    fn a_success_between_outages_ends_the_run_of_refusals_without_a_method() {
        let post = |conn: u64, at_ms: u64, rpc: Option<&str>, status: u16| AnswerEntry {
            rpc_method: rpc.map(str::to_string),
            ..crate::test_answer::answer(conn, at_ms, status)
        };
        let mut ledger = Ledger::default();
        let half = LOOP_ATTEMPTS / 2 + 1;
        let mut conn = 0;
        for outage in 0..2u64 {
            for k in 0..half {
                conn += 1;
                let at = outage * 100_000 + 1_000 * u64::from(k);
                ledger.answers.push(post(conn, at, None, 503));
            }
            conn += 1;
            let at = outage * 100_000 + 50_000;
            ledger.answers.push(post(conn, at, Some("initialize"), 200));
        }
        assert!(reconnect_loops(&ledger).is_empty());
        // Without the successes the refusals are one run of 2 * half.
        ledger.answers.retain(|a| a.status == 503);
        let found = reconnect_loops(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].attempts, 2 * half);
    }

    /// Three tasks each retry a call into a session the server killed, three times, and
    /// surface the error; the client re-initializes (the naive client's stale tasks,
    /// explore seed 256): twelve 404s in a row to the same request, but no task is in a
    /// loop, and the requests into a dead session are `retry_amplification`'s.
    #[test]
    fn retries_into_a_session_the_server_killed_are_no_loop() {
        let mut ledger = Ledger {
            sessions: vec![faultline_model::SessionEntry {
                wire_id: "a".into(),
                created_ms: 0,
                generations: vec![0],
                died: Some((30_000, faultline_model::DeathCause::IdleTtl)),
                held_by: None,
                stateless: false,
            }],
            ..Ledger::default()
        };
        let call = |conn: u64, at_ms: u64, status: u16| AnswerEntry {
            rpc_method: Some("tools/call".into()),
            session_sent: Some("a".into()),
            ..crate::test_answer::answer(conn, at_ms, status)
        };
        for k in 0..12 {
            ledger
                .answers
                .push(call(k + 1, 60_000 + 1_000 * (k / 3), 404));
        }
        // The client re-initializes.
        ledger
            .answers
            .push(crate::test_answer::answer(13, 70_000, 200));
        assert!(reconnect_loops(&ledger).is_empty());
        // One retry after another, at twelve instants, is a loop only if it never
        // stopped: not with the success after it, but without it (executor PR#1622).
        for (k, answer) in ledger.answers.iter_mut().take(12).enumerate() {
            answer.at_ms = 60_000 + 500 * k as u64;
        }
        assert!(reconnect_loops(&ledger).is_empty());
        let success = ledger.answers.pop();
        let found = reconnect_loops(&ledger);
        assert_eq!(found.len(), 1);
        assert!(found[0].unbroken);
        // Nor when the success came amid them (a task still naming the old session after
        // the client re-initialized).
        let mut amid = ledger.clone();
        amid.answers
            .insert(6, crate::test_answer::answer(14, 62_600, 200));
        assert!(reconnect_loops(&amid).is_empty());
        ledger.answers.extend(success);
        // Had the session been alive (a 404 that is no death notice), the twelve side by
        // side would be one too.
        for (k, answer) in ledger.answers.iter_mut().take(12).enumerate() {
            answer.at_ms = 60_000 + 1_000 * (k as u64 / 3);
        }
        ledger.sessions[0].died = None;
        let found = reconnect_loops(&ledger);
        assert_eq!(found.len(), 1);
        assert!(!found[0].unbroken);
    }
}
