//! What a modelled client did and believed: requests it sent, events it applied, skipped or
//! quarantined, errors it raised. The oracle joins this with the server's ledger; neither
//! side is trusted to describe the other.

use faultline_model::{ConnId, EventRef};
use serde::Serialize;

use crate::client_error::ClientError;

/// Which of the client's concurrent tasks sent a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// The agent's main task: workload calls, streams, re-initialization.
    Main,
    /// The liveness probe of a guarded client.
    Probe,
    /// Another coroutine holding a remembered session id (`StaleTask` fault `n`).
    Stale(u32),
}

impl Task {
    pub fn label(self) -> String {
        match self {
            Task::Main => "main".into(),
            Task::Probe => "probe".into(),
            Task::Stale(n) => format!("stale-{n}"),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord {
    pub at_ms: u64,
    pub conn: ConnId,
    pub task: Task,
    pub http: &'static str,
    /// JSON-RPC method of a POST.
    pub rpc: Option<String>,
    pub session: Option<String>,
    pub last_event_id: Option<u64>,
    pub status: Option<u16>,
    /// Client-wide order of what the client did: when it sent this request...
    pub sent_seq: u64,
    /// ...and when it read the answer (`None`: never answered).
    pub answered_seq: Option<u64>,
    /// The workload call a `tools/call` was an attempt of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
}

impl RequestRecord {
    /// `POST tools/call`, `GET`: joined by hand, not formatted (the evidence of every
    /// retried request names it).
    pub fn describe(&self) -> String {
        match &self.rpc {
            Some(rpc) => [self.http, rpc.as_str()].join(" "),
            None => self.http.to_string(),
        }
    }
}

/// What an error covers, for deciding whether a loss was silent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "scope", content = "of", rename_all = "snake_case")]
pub enum ErrorScope {
    /// Everything in this session from now on (and what was pending in it).
    Session(String),
    /// One workload call.
    Call(usize),
    /// The standalone stream of this session.
    Standalone(String),
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorRecord {
    pub at_ms: u64,
    pub error: ClientError,
    pub scope: ErrorScope,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct AppliedRecord {
    pub event: EventRef,
    pub at_ms: u64,
    pub conn: ConnId,
}

/// A GET the client sent with `Last-Event-ID`.
#[derive(Debug, Clone, Serialize)]
pub struct ResumeRecord {
    pub at_ms: u64,
    pub conn: ConnId,
    pub session: String,
    pub cursor: u64,
    /// The event whose id became the cursor (ground truth, kept by the simulator).
    pub cursor_event: Option<EventRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    pub key: String,
    /// When the application asked for the call (the workload's time for it); `None`: the
    /// run ended before it did, so nothing was owed for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_at_ms: Option<u64>,
    pub attempts: u32,
    pub completed_at_ms: Option<u64>,
    pub failed_at_ms: Option<u64>,
    /// The call's result came as a JSON answer, and the client failed the call with it in
    /// hand (`result_check: ListsToolsFirst`, whose list failed): the application never
    /// got the result the server sent. A result that came as an SSE event is in the
    /// ledger's events, and its loss is read from there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub result_dropped: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ClientRecord {
    pub requests: Vec<RequestRecord>,
    pub applied: Vec<AppliedRecord>,
    pub skipped: Vec<(EventRef, u64)>,
    pub quarantined: Vec<(EventRef, u64)>,
    pub errors: Vec<ErrorRecord>,
    pub resumptions: Vec<ResumeRecord>,
    /// (time obtained, wire id) of every session the client initialized.
    pub sessions: Vec<(u64, String)>,
    pub calls: Vec<CallRecord>,
    /// The run stopped at the scenario's horizon with work still due (the client's or the
    /// server's): the time of the horizon. `None` when the run ended with nothing to do.
    pub horizon_cut_ms: Option<u64>,
    /// The run ended by itself, with nothing left to do for anyone, at this time (`None`
    /// when the horizon cut it). A call neither completed nor failed by then never will be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_at_ms: Option<u64>,
    /// The application exited at this time, its calls done (`habits: (when_done: Exit)`):
    /// the client closed and heard nothing more, so nothing produced after it is owed.
    /// `None`: it stayed to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_at_ms: Option<u64>,
    /// What the run was meant to exercise and what of it happened (the world fills it
    /// in, not the client): for `untested`.
    #[serde(skip)]
    pub exercise: crate::untested::Exercise,
}

impl ClientRecord {
    /// The calls that ended in a failure the application was told of and never completed,
    /// each with the first error the client raised for it (`None` when it raised none
    /// scoped to the call).
    pub fn calls_failed_loudly(&self) -> Vec<(&str, Option<&crate::client_error::ClientError>)> {
        self.calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.completed_at_ms.is_none() && c.failed_at_ms.is_some())
            .map(|(i, c)| {
                let error = self
                    .errors
                    .iter()
                    .find(|e| e.scope == ErrorScope::Call(i))
                    .map(|e| &e.error);
                (c.key.as_str(), error)
            })
            .collect()
    }

    /// How many of the workload's calls reached the server: those with an attempt the
    /// server answered (a connection of the ledger's answers; a fleet's balancer that
    /// refused a POST itself read no call). Retries of one call count once.
    pub fn calls_reached(&self, ledger: &faultline_model::Ledger) -> usize {
        let answered: std::collections::BTreeSet<ConnId> = ledger
            .answers
            .iter()
            .filter(|a| {
                a.route
                    .is_none_or(|r| r.why != faultline_model::RouteWhy::NoneHealthy)
            })
            .map(|a| a.conn)
            .collect();
        let mut reached: Vec<usize> = self
            .requests
            .iter()
            .filter(|q| answered.contains(&q.conn))
            .filter_map(|q| q.call)
            .collect();
        reached.sort_unstable();
        reached.dedup();
        reached.len()
    }

    /// The session the client held at `at_ms` (None before the first initialize).
    pub fn session_at(&self, at_ms: u64) -> Option<&str> {
        self.sessions
            .iter()
            .rev()
            .find(|(t, _)| *t <= at_ms)
            .map(|(_, s)| s.as_str())
    }
}

/// The key a workload call carries as progress token and idempotency key (`call-k`).
pub fn call_key(call: usize) -> String {
    format!("call-{call}")
}

/// The workload call an idempotency key names (`call-k`, see [`call_key`]).
pub fn call_of_key(key: &str) -> Option<usize> {
    key.strip_prefix("call-")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use faultline_model::{AnswerEntry, ConnId, Ledger, Route, RouteWhy};

    use super::ClientRecord;

    /// A call reached the server when an attempt of it was answered by the server: two
    /// answered attempts of one call are one call, an attempt the server never answered
    /// (no ledger entry for its connection) or a POST a balancer refused itself is none.
    #[test]
    fn calls_reached_counts_calls_not_attempts() {
        let mut record = ClientRecord::default();
        for (conn, call) in [
            (1, Some(0)),
            (2, Some(0)),
            (3, Some(1)),
            (4, Some(2)),
            (5, None),
        ] {
            let mut q = crate::test_records::get(conn, "a");
            q.http = "POST";
            q.call = call;
            record.requests.push(q);
        }
        let ledger = Ledger {
            answers: vec![
                crate::test_answer::answer(1, 0, 200),
                crate::test_answer::answer(2, 10, 200),
                AnswerEntry {
                    route: Some(Route {
                        replica: faultline_model::ReplicaId(0),
                        why: RouteWhy::NoneHealthy,
                    }),
                    ..crate::test_answer::answer(4, 20, 503)
                },
                crate::test_answer::answer(5, 30, 200),
            ],
            ..Ledger::default()
        };
        assert_eq!(record.calls_reached(&ledger), 1);
        let mut all = ledger.clone();
        all.answers.push(crate::test_answer::answer(3, 40, 404));
        assert_eq!(record.calls_reached(&all), 2);
        assert_eq!(ConnId(3), record.requests[2].conn);
    }
}
