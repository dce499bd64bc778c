//! `retry_amplification`: requests kept going to a session after the server said it was
//! gone (404 or 410 to a request that named it), instead of one re-initialize.
//!
//! What counts is what the client sent *knowing* the session dead. The simulator knows
//! when its client read each answer; a real client does not say, so its rule concludes
//! from the ledger's order what it can (see [`real`]). A 404 that misrouted a live
//! session is no death notice ([`crate::dead_session`]): that is `misrouted_session`.
//! The guard that prevents it: on the first 404 for a session, drop it, stop every
//! request that names it, and initialize once.

use std::collections::BTreeMap;

use faultline_model::{HttpMethod, Ledger};

use crate::client_record::ClientRecord;
use crate::dead_session::Misrouted;
use crate::request_index::LazyRequestIndex;
use crate::session_requests::{RequestNote, SessionRequests};
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// A modelled client's requests to a session after it *read* the death notice.
pub(crate) fn modelled(
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    misrouted: &Misrouted,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    // When the client *read* the first 404/410 for each session (a misroute of a live
    // session is no death notice: that is `misrouted_session`).
    let mut learned: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for q in &record.requests {
        if let (Some(s), Some(404 | 410), Some(seq)) =
            (q.session.as_deref(), q.status, q.answered_seq)
            && !misrouted.contains(q.conn.0)
        {
            let e = learned.entry(s).or_insert((seq, q.at_ms));
            if seq < e.0 {
                *e = (seq, q.at_ms);
            }
        }
    }
    for (session, (seq, since)) in learned {
        let later: Vec<RequestNote> = requests
            .get()
            .of_session_after(session, seq)
            .map(RequestNote::of_record)
            .collect();
        if later.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: session.to_string(),
            since_ms: since,
            requests: later,
        };
        verdicts.push(Verdict {
            kind: VerdictKind::RetryAmplification,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.retries_sentence()),
            evidence: Evidence::Requests(evidence),
        });
    }
}

/// Requests that kept going to a session after it answered 404/410.
///
/// A real client does not report when it *read* the death notice, so the rule concludes
/// from the ledger what it can: a later request was sent knowing the session dead when it
/// repeats a request already answered with the notice (the same method, and for a
/// resumption the same cursor: a client re-sends what failed only after reading the
/// failure), or when it arrived at a later virtual time than the
/// notice (the grading clock stands still while a client is between requests, so requests
/// sent together share an instant). A request sent with the one that got the notice
/// (a GET and `notifications/initialized` in one breath) is not a retry. A 404 that
/// misrouted a live session is no death notice ([`crate::dead_session`]).
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let misrouted = crate::dead_session::Misrouted::of(ledger);
    let mut first_gone: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, a) in ledger.answers.iter().enumerate() {
        if misrouted.is_death_notice(a)
            && let Some(s) = a.session_sent.as_deref()
        {
            first_gone.entry(s).or_insert(i);
        }
    }
    // A resumption's cursor is part of what it asks: two streams' GETs sent together
    // (different cursors) are two requests, not one repeated.
    let cursors: BTreeMap<faultline_model::ConnId, &str> = ledger
        .resumptions
        .iter()
        .map(|r| (r.conn, r.cursor.as_str()))
        .collect();
    for (session, i) in first_gone {
        let notice = &ledger.answers[i];
        let mut failed: Vec<(HttpMethod, Option<&str>, Option<&str>)> = Vec::new();
        let mut later = Vec::new();
        for a in &ledger.answers[i..] {
            if a.session_sent.as_deref() != Some(session) || a.method == HttpMethod::Delete {
                continue;
            }
            let what = (
                a.method,
                a.rpc_method.as_deref(),
                cursors.get(&a.conn).copied(),
            );
            let knowing =
                a.conn != notice.conn && (a.at_ms > notice.at_ms || failed.contains(&what));
            if knowing {
                later.push(a);
            }
            if misrouted.is_death_notice(a) && !failed.contains(&what) {
                failed.push(what);
            }
        }
        if later.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: session.to_string(),
            since_ms: notice.at_ms,
            requests: later.iter().map(|a| RequestNote::of_answer(a)).collect(),
        };
        verdicts.push(Verdict {
            kind: VerdictKind::RetryAmplification,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.retries_sentence()),
            evidence: Evidence::Requests(evidence),
        });
    }
}
