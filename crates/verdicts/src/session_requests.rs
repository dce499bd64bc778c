//! The evidence of the two verdicts about requests a client kept sending to a session it
//! should have stopped using, and the sentences that tell them:
//!
//! - `retry_amplification`: requests to a session after the client learned it was dead
//!   (a `404` or `410`, [`crate::dead_session`]): each one is a round trip that cannot
//!   succeed, and a retry loop multiplies them. Guard: on a death notice, stop using the
//!   session id everywhere at once, re-initialize once, and fail what was in flight.
//! - `reinit_collision`: after re-initializing, requests that still carried the old
//!   session id (a second task held it). Guard: one session handle shared by every task.
//!
//! The judge finds the requests by what it knows of the client's order (a modelled
//! client's by when it read each answer, a real client's from the ledger's order); the
//! evidence is this type either way.

use serde::Serialize;

use crate::spell::{short_id, vtime};

/// One request of the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestNote {
    pub at_ms: u64,
    /// Which task of the client sent it (`main`, `probe`, `stale-1` for a simulated
    /// client; `client` for a real one, whose tasks are not seen).
    pub task: String,
    /// `POST tools/call`, `GET`.
    pub method: String,
    /// The answer's status (`None`: never answered).
    pub status: Option<u16>,
}

/// Requests that went to `session` from `since_ms` on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRequests {
    pub session: String,
    /// When the client learned (the death notice) or re-initialized.
    pub since_ms: u64,
    pub requests: Vec<RequestNote>,
}

impl SessionRequests {
    /// `retry_amplification`'s sentence.
    pub fn retries_sentence(&self) -> String {
        format!(
            "{} request(s) went to session {} after it answered 404/410 at {} ({}): {}",
            self.requests.len(),
            short_id(&self.session),
            vtime(self.since_ms),
            self.per_task(),
            self.list()
        )
    }

    /// `reinit_collision`'s sentence; `new_session` is the one the client re-initialized to.
    pub fn collision_sentence(&self, new_session: &str) -> String {
        format!(
            "after re-initializing to session {} at {}, {} request(s) still carried the old session {}: {}",
            short_id(new_session),
            vtime(self.since_ms),
            self.requests.len(),
            short_id(&self.session),
            self.list()
        )
    }

    /// "3 from main, 4 from stale-1": who sent the requests, in order of first appearance.
    fn per_task(&self) -> String {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for n in &self.requests {
            match counts.iter_mut().find(|(task, _)| *task == n.task) {
                Some((_, count)) => *count += 1,
                None => counts.push((&n.task, 1)),
            }
        }
        counts
            .iter()
            .map(|(task, count)| format!("{count} from {task}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn list(&self) -> String {
        self.requests
            .iter()
            .map(|n| {
                format!(
                    "{} {} ({}) -> {}",
                    vtime(n.at_ms),
                    n.method,
                    n.task,
                    n.status.map_or("-".into(), |s| s.to_string())
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl RequestNote {
    /// A modelled client's request as the evidence notes it: the task that sent it too.
    pub fn of_record(q: &crate::client_record::RequestRecord) -> RequestNote {
        RequestNote {
            at_ms: q.at_ms,
            task: q.task.label(),
            method: q.describe(),
            status: q.status,
        }
    }

    /// A request of the ledger as the evidence notes it (a real client's tasks are not
    /// seen: each is `client`).
    pub fn of_answer(a: &faultline_model::AnswerEntry) -> RequestNote {
        let http = crate::reconnect_loop::method_name(a.method);
        RequestNote {
            at_ms: a.at_ms,
            task: "client".to_string(),
            method: match a.rpc_method.as_deref() {
                Some(rpc) => format!("{http} {rpc}"),
                None => http.to_string(),
            },
            status: Some(a.status),
        }
    }
}
