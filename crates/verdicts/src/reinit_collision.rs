//! `reinit_collision`: after a second `initialize` gave the client a new session, requests
//! still carried an older session's id (a task that kept its own copy of the header).
//!
//! The simulator counts what its client sent after it read the new session; a real
//! client's rule counts what the ledger shows after the second `initialize` was answered.
//! The guard that prevents it: one place holds the session id, and every request reads it
//! there when it is sent.

use faultline_model::{HttpMethod, Ledger, SessionKey};

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

/// After a later `initialize`, requests that still carried the session it replaced.
///
/// Each successful `initialize` is paired with the session it minted (the client's own
/// session created at its instant: a fleet's tenant is no session of the client's), and,
/// as in the simulator's judge, each session with the one minted after it: the requests
/// answered after that `initialize` that still named the older one collide.
pub(crate) fn real(ledger: &Ledger, words: Words, verdicts: &mut Vec<Verdict>) {
    let inits: Vec<usize> = ledger
        .answers
        .iter()
        .enumerate()
        .filter(|(_, a)| a.rpc_method.as_deref() == Some("initialize") && a.status == 200)
        .map(|(i, _)| i)
        .collect();
    if inits.len() < 2 {
        return;
    }
    let own = crate::owed::client_sessions(ledger);
    let mut taken = std::collections::BTreeSet::new();
    // (the answer's index, the session it minted), in the ledger's order.
    let minted: Vec<(usize, &str)> = inits
        .iter()
        .filter_map(|&i| {
            let at = ledger.answers[i].at_ms;
            let (k, session) = ledger.sessions.iter().enumerate().find(|(k, s)| {
                let key = SessionKey(ledger.sessions_base + *k as u32);
                s.created_ms == at && own.contains(&key) && !taken.contains(k)
            })?;
            taken.insert(k);
            Some((i, session.wire_id.as_str()))
        })
        .collect();
    for pair in minted.windows(2) {
        let [(_, old), (reinit, new)] = pair else {
            continue;
        };
        let stale: Vec<RequestNote> = ledger.answers[reinit + 1..]
            .iter()
            .filter(|a| a.method != HttpMethod::Delete && a.session_sent.as_deref() == Some(*old))
            .map(RequestNote::of_answer)
            .collect();
        if stale.is_empty() {
            continue;
        }
        let evidence = SessionRequests {
            session: old.to_string(),
            since_ms: ledger.answers[*reinit].at_ms,
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
