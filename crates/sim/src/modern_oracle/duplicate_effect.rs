//! `duplicate_effect`: one `order` committed more than once. On 2026-07-28 a cut request
//! stream cannot be resumed, so a client that re-issues a non-idempotent call whose
//! stream was cut after the server committed places the order twice
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).
//!
//! The evidence comes from the ledger alone: the order key, and for each commit the job,
//! the request id, when it committed, when that job started (a re-issue's start is when
//! the client re-issued) and when its stream was cut, if it was.

use std::collections::BTreeMap;

use faultline_model::{JobId, Ledger};
use serde::Serialize;
use serde_json::Value;

use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};

/// One commit of a duplicated order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Commit {
    pub job: JobId,
    pub request_id: Value,
    pub at_ms: u64,
    /// When the job started (for every commit but the first: when the call was re-issued).
    pub started_ms: Option<u64>,
    /// When the request stream of this commit was cut, if it was.
    pub stream_cut_ms: Option<u64>,
}

/// An order committed more than once, its commits in ledger order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuplicateEffect {
    pub order: String,
    pub commits: Vec<Commit>,
}

/// Every order the ledger shows committed more than once, by order key.
pub fn duplicate_effects(ledger: &Ledger) -> Vec<DuplicateEffect> {
    let mut by_order: BTreeMap<&str, Vec<Commit>> = BTreeMap::new();
    for effect in &ledger.effects {
        let started_ms = effect
            .job
            .0
            .checked_sub(ledger.jobs_base)
            .and_then(|i| ledger.jobs.get(i as usize))
            .map(|j| j.started_ms);
        let stream_cut_ms = effect
            .stream
            .0
            .checked_sub(ledger.streams_base)
            .and_then(|i| ledger.streams.get(i as usize))
            .and_then(|s| s.closed_ms);
        by_order.entry(&effect.order).or_default().push(Commit {
            job: effect.job,
            request_id: effect.request_id.clone(),
            at_ms: effect.at_ms,
            started_ms,
            stream_cut_ms,
        });
    }
    by_order
        .into_iter()
        .filter(|(_, commits)| commits.len() > 1)
        .map(|(order, commits)| DuplicateEffect {
            order: order.to_string(),
            commits,
        })
        .collect()
}

/// The `duplicate_effect` verdicts of a run: one per order committed more than once, at
/// the time of its second commit (the harm).
pub(crate) fn verdicts(ledger: &Ledger, out: &mut Vec<Verdict>) {
    for dup in duplicate_effects(ledger) {
        let first = &dup.commits[0];
        let later = &dup.commits[1..];
        let request = |c: &Commit| match &c.request_id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let cut = match first.stream_cut_ms {
            Some(at) => format!(", whose request stream was cut at {}", vtime(at)),
            None => String::new(),
        };
        let again: Vec<String> = later
            .iter()
            .map(|c| {
                format!(
                    "request {} (job #{}{}) committed it again at {}",
                    request(c),
                    c.job.0,
                    c.started_ms
                        .map(|t| format!(", sent at {}", vtime(t)))
                        .unwrap_or_default(),
                    vtime(c.at_ms)
                )
            })
            .collect();
        out.push(Verdict {
            kind: VerdictKind::DuplicateEffect,
            at_ms: later[0].at_ms,
            summary: format!(
                "order {} was committed {} times: request {} (job #{}) committed it at {}{cut}; {}",
                dup.order,
                dup.commits.len(),
                request(first),
                first.job.0,
                vtime(first.at_ms),
                again.join("; ")
            ),
            evidence: Evidence::DuplicateEffect {
                order: dup.order.clone(),
                cut_at_ms: first.stream_cut_ms,
                reissued_at_ms: later.iter().filter_map(|c| c.started_ms).collect(),
                commits: dup.commits,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use faultline_model::{EffectEntry, JobEntry, SessionKey, StreamEntry, StreamId, StreamKind};
    use serde_json::json;

    use super::*;

    fn job(request_id: u64, started_ms: u64) -> JobEntry {
        JobEntry {
            session: SessionKey(0),
            generation: 1,
            tool: "place_order".into(),
            request_id: json!(request_id),
            progress_token: None,
            idempotency_key: None,
            steps: 3,
            started_ms,
            ended: None,
        }
    }

    fn stream(closed_ms: Option<u64>) -> StreamEntry {
        StreamEntry {
            session: SessionKey(0),
            generation: 1,
            kind: StreamKind::Request,
            opened_ms: 0,
            modern: true,
            closed_ms,
        }
    }

    fn effect(order: &str, job: u32, at_ms: u64) -> EffectEntry {
        EffectEntry {
            order: order.into(),
            job: JobId(job),
            request_id: json!(job + 1),
            stream: StreamId(job),
            at_ms,
        }
    }

    #[test]
    fn an_order_committed_twice_is_reported_with_each_commit() {
        // call-0 committed at 20 ms; its stream was cut at 25 ms; the client re-issued it
        // at 40 ms and it committed again at 60 ms. call-1 committed once.
        let ledger = Ledger {
            jobs: vec![job(1, 0), job(2, 5), job(3, 40)],
            streams: vec![stream(Some(25)), stream(None), stream(None)],
            effects: vec![
                effect("call-0", 0, 20),
                effect("call-1", 1, 30),
                effect("call-0", 2, 60),
            ],
            ..Ledger::default()
        };
        assert_eq!(
            duplicate_effects(&ledger),
            vec![DuplicateEffect {
                order: "call-0".into(),
                commits: vec![
                    Commit {
                        job: JobId(0),
                        request_id: json!(1),
                        at_ms: 20,
                        started_ms: Some(0),
                        stream_cut_ms: Some(25),
                    },
                    Commit {
                        job: JobId(2),
                        request_id: json!(3),
                        at_ms: 60,
                        started_ms: Some(40),
                        stream_cut_ms: None,
                    },
                ],
            }]
        );
    }

    #[test]
    fn orders_committed_once_are_not_duplicates() {
        let ledger = Ledger {
            jobs: vec![job(1, 0), job(2, 5)],
            streams: vec![stream(Some(25)), stream(None)],
            effects: vec![effect("call-0", 0, 20), effect("call-1", 1, 30)],
            ..Ledger::default()
        };
        assert!(duplicate_effects(&ledger).is_empty());
        assert!(duplicate_effects(&Ledger::default()).is_empty());
    }
}
