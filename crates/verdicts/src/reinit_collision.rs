//! `reinit_collision`: after a second `initialize` gave the client a new session, requests
//! still carried an older session's id (a task that kept its own copy of the header).
//!
//! The simulator counts what its client sent after it read the new session; a real
//! client's rule counts what the ledger shows after the second `initialize` was answered.
//! The guard that prevents it: one place holds the session id, and every request reads it
//! there when it is sent.

use faultline_model::{HttpMethod, Ledger};

use crate::client_record::{ClientRecord, RequestRecord};
use crate::request_index::LazyRequestIndex;
use crate::session_requests::{RequestNote, SessionRequests};
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// A modelled client's requests with an old session id after it read the answer to its
/// next `initialize`.
pub(crate) fn modelled(
    record: &ClientRecord,
    requests: &LazyRequestIndex,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let inits: Vec<&RequestRecord> = record
        .requests
        .iter()
        .filter(|q| q.rpc.as_deref() == Some("initialize") && q.status == Some(200))
        .collect();
    for pair in record.sessions.windows(2).zip(inits.iter().skip(1)) {
        let ([(_, old), (t_new, new)], init) = pair else {
            continue;
        };
        let Some(reinit_seq) = init.answered_seq else {
            continue;
        };
        let stale: Vec<RequestNote> = requests
            .get()
            .of_session_after(old, reinit_seq)
            .map(RequestNote::of_record)
            .collect();
        if stale.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: old.clone(),
            since_ms: *t_new,
            requests: stale,
        };
        verdicts.push(Verdict {
            kind: VerdictKind::ReinitCollision,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.collision_sentence(new)),
            evidence: Evidence::Requests(evidence),
        });
    }
}

/// After a second `initialize`, requests that still carried an older session id.
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let inits: Vec<usize> = ledger
        .answers
        .iter()
        .enumerate()
        .filter(|(_, a)| a.rpc_method.as_deref() == Some("initialize") && a.status == 200)
        .map(|(i, _)| i)
        .collect();
    let Some(&reinit) = inits.get(1) else {
        return;
    };
    let current: Vec<&str> = ledger
        .sessions
        .iter()
        .skip(1)
        .map(|s| s.wire_id.as_str())
        .collect();
    let stale: Vec<_> = ledger.answers[reinit + 1..]
        .iter()
        .filter(|a| {
            a.method != HttpMethod::Delete
                && a.session_sent
                    .as_deref()
                    .is_some_and(|s| !current.contains(&s))
        })
        .collect();
    if stale.is_empty() {
        return;
    }
    let new_session = current.first().copied().unwrap_or("?");
    // One verdict per old session the stale requests carried, as the simulator's judge.
    let mut old_sessions: Vec<&str> = Vec::new();
    for a in &stale {
        if let Some(s) = a.session_sent.as_deref()
            && !old_sessions.contains(&s)
        {
            old_sessions.push(s);
        }
    }
    for old in old_sessions {
        let evidence = SessionRequests {
            session: old.to_string(),
            since_ms: ledger.answers[reinit].at_ms,
            requests: stale
                .iter()
                .filter(|a| a.session_sent.as_deref() == Some(old))
                .map(|a| RequestNote::of_answer(a))
                .collect(),
        };
        verdicts.push(Verdict {
            kind: VerdictKind::ReinitCollision,
            at_ms: evidence.requests[0].at_ms,
            summary: words.say(|| evidence.collision_sentence(new_session)),
            evidence: Evidence::Requests(evidence),
        });
    }
}
