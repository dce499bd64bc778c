//! What the server produced for a real client's application, in the terms its report
//! uses: the judged call's progress steps and result, and the notifications of the
//! client's own sessions. A report names values, not events, so the loss and duplicate
//! rules compare these counts with the values handed over; the simulator's judge, which
//! knows each applied event, compares events.

use std::collections::BTreeMap;

use faultline_model::{JobEnd, JobId, Ledger, Payload, RouteWhy};
use serde::Serialize;

use crate::client_context::ClientContext;
use crate::client_report::{ClientReport, Supports};

/// What the server produced for the application: the judged call's progress steps and
/// result, and the notifications of its sessions produced before its last request was
/// answered (then it was still at work, its report still to come). A
/// session no request of the client named is someone else's (a fleet's tenant, played
/// without HTTP): its notifications are not owed to the graded client.
#[derive(Debug, Default)]
pub(crate) struct Owed {
    /// Steps of the judged (last) job of the call's tool.
    pub(crate) steps: Vec<u32>,
    /// How many of the call's jobs produced each step (a re-issued call produces again).
    pub(crate) step_counts: BTreeMap<u32, usize>,
    pub(crate) result: bool,
    /// The judged job was still running when the run ended: its result was on its way.
    pub(crate) result_pending: bool,
    /// The call reached the server ([`call_reached`]).
    pub(crate) call_started: bool,
    /// Some attempt of the call produced a result (a job of its tool finished, or a
    /// `tools/call` was answered with success): what a result in the report can be.
    pub(crate) any_result: bool,
    /// seq -> how many times produced (per-session numbering: a re-initialized client
    /// meets each value again).
    pub(crate) notifications: BTreeMap<u64, usize>,
    /// When the server answered the client's last request: the client was there until
    /// then (`None`: no request was answered).
    pub(crate) last_answer_ms: Option<u64>,
}

/// The sessions that are the graded client's own: those some request of its named (a
/// session no request named is someone else's, a fleet's tenant played without HTTP).
pub fn client_sessions(ledger: &Ledger) -> std::collections::BTreeSet<faultline_model::SessionKey> {
    let named: std::collections::BTreeSet<&str> = ledger
        .answers
        .iter()
        .filter_map(|a| a.session_sent.as_deref())
        .collect();
    ledger
        .sessions
        .iter()
        .enumerate()
        .filter(|(_, s)| named.contains(s.wire_id.as_str()))
        .map(|(i, _)| faultline_model::SessionKey(ledger.sessions_base + i as u32))
        .collect()
}

/// The ids of the jobs of `tool` the ledger holds, in order: every attempt of the call
/// that reached the server as a job.
pub(crate) fn tool_jobs(ledger: &Ledger, tool: &str) -> Vec<JobId> {
    ledger
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.tool == tool)
        .map(|(i, _)| JobId(ledger.jobs_base + i as u32))
        .collect()
}

/// Whether the call runs as a job on the server (`long_job`), so that it reached the
/// server only as a job of its tool; otherwise it is answered at once.
pub(crate) fn is_job_tool(context: &ClientContext) -> bool {
    matches!(
        faultline_model::tools::call(&serde_json::json!({
            "name": context.call.tool,
            "arguments": context.call.arguments,
        })),
        faultline_model::tools::ToolCall::Job { .. }
    )
}

/// Whether some attempt of the call produced a result: a job of its tool finished, or,
/// for a tool answered at once, a `tools/call` was answered with success.
pub(crate) fn any_result(ledger: &Ledger, context: &ClientContext) -> bool {
    let tool = context.call.tool.as_str();
    if is_job_tool(context) {
        return ledger
            .jobs
            .iter()
            .any(|j| j.tool == tool && matches!(j.ended, Some((_, JobEnd::Finished))));
    }
    ledger.answers.iter().any(|a| {
        a.rpc_method.as_deref() == Some("tools/call") && a.status == 200 && !a.dead_session
    })
}

/// Whether the contract's call reached the server: the one answer every rule that asks
/// reads (`untested`'s count of calls made, the report's claims, the outcome owed). For a
/// tool that runs as a job, a job of its tool or a `tools/call` a server refused (which
/// call a refusal answered is not written, so it counts for the call; a follow-up `echo`
/// answered is not the call); for a tool answered at once, any `tools/call` a server
/// answered. A 503 the fleet's balancer gave itself, with no replica up, reached no
/// server.
pub(crate) fn call_reached(ledger: &Ledger, context: &ClientContext) -> bool {
    let mut calls = ledger.answers.iter().filter(|a| {
        a.rpc_method.as_deref() == Some("tools/call")
            && a.route.is_none_or(|r| r.why != RouteWhy::NoneHealthy)
    });
    if is_job_tool(context) {
        !tool_jobs(ledger, &context.call.tool).is_empty()
            || calls.any(|a| a.status >= 300 || a.dead_session)
    } else {
        calls.next().is_some()
    }
}

/// [`call_reached`] as `untested` counts it: 1 or 0 for a job tool, whose call the
/// ledger tells from the follow-ups; `None` for a tool answered at once, whose every
/// `tools/call` answered is counted.
pub(crate) fn contract_call_reached(ledger: &Ledger, context: &ClientContext) -> Option<usize> {
    is_job_tool(context).then(|| usize::from(call_reached(ledger, context)))
}

/// What was owed to a client that can do what `supports` says: progress only to one with a
/// progress handler, notifications only to one with a notification handler.
pub(crate) fn owed(ledger: &Ledger, context: &ClientContext, supports: Supports) -> Owed {
    let tool = context.call.tool.as_str();
    let jobs = tool_jobs(ledger, tool);
    let judged = jobs.last().copied();
    // A notification produced before the client's last request was answered (any
    // request: a follow-up, a retry, a reconnect) was owed to it: the client was still at
    // work after it. One produced later may have reached a client that had already
    // reported: its report says nothing of it either way.
    let last_answer_ms = ledger.answers.iter().map(|a| a.at_ms).max();
    let client_there_until = last_answer_ms.unwrap_or(0);
    let own = client_sessions(ledger);
    let clients_session =
        |key: faultline_model::SessionKey| key.0 < ledger.sessions_base || own.contains(&key);
    let mut owed = Owed {
        last_answer_ms,
        ..Owed::default()
    };
    for event in &ledger.events {
        match event.payload {
            Payload::Progress { job, step, .. } if jobs.contains(&job) => {
                *owed.step_counts.entry(step).or_default() += 1;
                if Some(job) == judged && context.call.progress && supports.progress {
                    owed.steps.push(step);
                }
            }
            Payload::Notification { seq }
                if supports.notifications
                    && event.at_ms <= client_there_until
                    && clients_session(event.session) =>
            {
                *owed.notifications.entry(seq).or_default() += 1;
            }
            _ => {}
        }
    }
    owed.result_pending = judged.is_some_and(|job| ledger.job(job).ended.is_none());
    owed.call_started = call_reached(ledger, context);
    owed.any_result = any_result(ledger, context);
    owed.result = match judged {
        // A job's result is produced when it finishes.
        Some(job) => matches!(ledger.job(job).ended, Some((_, JobEnd::Finished))),
        // An immediate tool's result is the answer to the first call.
        None => ledger
            .answers
            .iter()
            .find(|a| a.rpc_method.as_deref() == Some("tools/call"))
            .is_some_and(|a| a.status == 200),
    };
    owed
}

/// The evidence of a real client's loss (or of its clean run): what was owed and what
/// its report lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValuesLost {
    pub missing_progress: Vec<u32>,
    pub missing_notifications: Vec<u64>,
    pub result_missing: bool,
    /// The missing result was still on its way: the server was at work on the call when
    /// the client left (the grading clock stops with the client, so it was never
    /// produced).
    #[serde(skip_serializing_if = "is_false")]
    pub result_pending: bool,
    /// The call reached the server, its work ended without a result (killed by a restart,
    /// cut, refused), and the report has neither a result nor an error: the application
    /// was told nothing of its outcome (a modelled client in that state is `hung`).
    #[serde(skip_serializing_if = "is_false")]
    pub outcome_unreported: bool,
    /// The call reached the server and produced no result (its work never finished, or
    /// the call was refused), yet the report has one: the application was handed a result
    /// the server never sent (a client that resolves a call when its stream ends, or takes
    /// an error for completion), and the call's real outcome never reached it.
    #[serde(skip_serializing_if = "is_false")]
    pub result_not_sent: bool,
    pub produced_progress: usize,
    pub produced_notifications: usize,
    pub result_produced: bool,
}

impl ValuesLost {
    /// What `report` lacks of what `owed` says was produced for it.
    pub(crate) fn of(owed: &Owed, report: &ClientReport) -> ValuesLost {
        let mut seen_steps: BTreeMap<u32, usize> = BTreeMap::new();
        for p in &report.progress {
            *seen_steps.entry(p.round() as u32).or_default() += 1;
        }
        let mut seen_seq: BTreeMap<u64, usize> = BTreeMap::new();
        for s in &report.notifications {
            *seen_seq.entry(*s).or_default() += 1;
        }
        // A client that left while the server was still at work on the call gave up on
        // its result: the grading clock stops when the client does, so the result was
        // never produced, but it was on its way and no one will take it. Quietly (no
        // error) that is a silent loss; loudly, a loss the application was told of, as a
        // modelled client that fails the call is, whose run goes on to the horizon and
        // produces the result it no longer waits for.
        let result_missing = (owed.result || owed.result_pending) && report.result.is_none();
        ValuesLost {
            missing_progress: owed
                .steps
                .iter()
                .copied()
                .filter(|s| !seen_steps.contains_key(s))
                .collect(),
            missing_notifications: owed
                .notifications
                .iter()
                .flat_map(|(&seq, &n)| {
                    let seen = seen_seq.get(&seq).copied().unwrap_or(0);
                    std::iter::repeat_n(seq, n.saturating_sub(seen))
                })
                .collect(),
            result_missing,
            result_pending: result_missing && !owed.result && owed.result_pending,
            outcome_unreported: owed.call_started
                && !result_missing
                && report.result.is_none()
                && report.error.is_none(),
            result_not_sent: owed.call_started && !owed.any_result && report.result.is_some(),
            produced_progress: owed.steps.len(),
            produced_notifications: owed.notifications.values().sum(),
            result_produced: owed.result,
        }
    }

    /// Nothing owed is missing.
    pub fn is_empty(&self) -> bool {
        self.missing_progress.is_empty()
            && self.missing_notifications.is_empty()
            && !self.result_missing
            && !self.outcome_unreported
            && !self.result_not_sent
    }

    /// The only thing lost is the call's outcome behind a result the server never sent.
    pub(crate) fn only_result_not_sent(&self) -> bool {
        self.result_not_sent
            && self.missing_progress.is_empty()
            && self.missing_notifications.is_empty()
            && !self.result_missing
            && !self.outcome_unreported
    }

    /// `progress 3..=5 of 10, notifications seq 2 (1 of 4), the result`.
    pub fn what(&self) -> String {
        let mut lost = Vec::new();
        if !self.missing_progress.is_empty() {
            lost.push(format!(
                "progress {} of {}",
                crate::ranges(&self.missing_progress),
                self.produced_progress
            ));
        }
        if !self.missing_notifications.is_empty() {
            lost.push(format!(
                "notifications seq {} ({} of {})",
                crate::ranges(&self.missing_notifications),
                self.missing_notifications.len(),
                self.produced_notifications
            ));
        }
        if self.result_pending {
            lost.push(
                "the result (the server was still at work on the call when the client left)".into(),
            );
        } else if self.result_missing {
            lost.push("the result".into());
        }
        if self.outcome_unreported {
            lost.push(
                "the call's outcome (its work ended without a result, and the report has neither a result nor an error)"
                    .into(),
            );
        }
        if self.result_not_sent {
            lost.push(
                "the call's outcome (the application was handed a result the server never sent: the call's work never finished, or the call was refused)"
                    .into(),
            );
        }
        lost.join(", ")
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use crate::client_report::ClientReport;

    use super::{Owed, ValuesLost};

    /// A result in the report for a call that reached the server and produced none is the
    /// call's outcome lost behind a result the server never sent; with the result
    /// produced, or with no call at all (then the report is untrue, not a loss), it is not.
    #[test]
    fn a_result_the_server_never_sent_is_the_outcome_lost() {
        let started = Owed {
            call_started: true,
            result_pending: true,
            ..Owed::default()
        };
        let resolved = ClientReport {
            result: Some(String::new()),
            ..ClientReport::default()
        };
        let lost = ValuesLost::of(&started, &resolved);
        assert!(lost.result_not_sent && lost.only_result_not_sent() && !lost.is_empty());
        assert!(
            lost.what().contains("a result the server never sent"),
            "{}",
            lost.what()
        );
        let produced = Owed {
            any_result: true,
            ..started
        };
        assert!(ValuesLost::of(&produced, &resolved).is_empty());
        assert!(!ValuesLost::of(&Owed::default(), &resolved).result_not_sent);
    }

    /// A call that reached the server, whose work ended without a result, reported with
    /// neither a result nor an error: the application was told nothing of its outcome,
    /// which is a loss (a modelled client in that state is `hung`). With an error, or
    /// before any call reached the server, it is not.
    #[test]
    fn a_call_reported_with_neither_result_nor_error_lost_its_outcome() {
        let started = Owed {
            call_started: true,
            ..Owed::default()
        };
        let silent = ClientReport::default();
        let lost = ValuesLost::of(&started, &silent);
        assert!(lost.outcome_unreported && !lost.result_missing && !lost.is_empty());
        assert!(
            lost.what().starts_with("the call's outcome"),
            "{}",
            lost.what()
        );

        let told = ClientReport {
            error: Some("connection reset".into()),
            ..ClientReport::default()
        };
        assert!(ValuesLost::of(&started, &told).is_empty());
        assert!(ValuesLost::of(&Owed::default(), &silent).is_empty());
        // A result owed and missing is the result, not the outcome again.
        let finished = Owed {
            call_started: true,
            result: true,
            ..Owed::default()
        };
        let lost = ValuesLost::of(&finished, &silent);
        assert!(lost.result_missing && !lost.outcome_unreported);
    }

    /// A client that left while the server was still at work on its call gave up on the
    /// result, quietly or loudly: the result is missing either way (the error decides
    /// silent or surfaced), and the evidence says it was still on its way. A result
    /// produced and missing is not called pending.
    #[test]
    fn a_result_still_on_its_way_when_the_client_left_is_lost() {
        let pending = Owed {
            call_started: true,
            result_pending: true,
            ..Owed::default()
        };
        for report in [
            ClientReport::default(),
            ClientReport {
                error: Some("SSE stream ended without a response".into()),
                ..ClientReport::default()
            },
        ] {
            let lost = ValuesLost::of(&pending, &report);
            assert!(lost.result_missing && lost.result_pending, "{lost:?}");
            assert!(!lost.outcome_unreported && !lost.is_empty(), "{lost:?}");
            assert!(lost.what().contains("still at work"), "{}", lost.what());
        }
        let finished = Owed {
            result: true,
            result_pending: false,
            ..pending
        };
        let lost = ValuesLost::of(&finished, &ClientReport::default());
        assert!(lost.result_missing && !lost.result_pending, "{lost:?}");
        assert_eq!(lost.what(), "the result");
    }

    /// The contract's call of a job tool reached the server when a job of its tool
    /// started or a `tools/call` was refused; follow-up `echo` calls answered 200 are not
    /// it. A tool answered at once cannot be told from the follow-ups: `None`.
    #[test]
    fn one_answer_to_whether_the_contract_call_reached_the_server() {
        use crate::client_context::{CallSpec, ClientContext};
        use faultline_model::{AnswerEntry, JobEntry, Ledger, SessionKey};
        use serde_json::json;

        let context = |tool: &str| ClientContext {
            call: CallSpec {
                tool: tool.into(),
                arguments: json!({"steps": 3, "interval_ms": 1000}),
                progress: true,
            },
            followup_echo: 1,
            lists_tools: false,
            use_tasks: false,
        };
        let call = |status: u16| AnswerEntry {
            rpc_method: Some("tools/call".into()),
            ..crate::test_answer::answer(1, 0, status)
        };
        let echoes_only = Ledger {
            answers: vec![call(200)],
            ..Ledger::default()
        };
        let reached = |ledger: &Ledger| super::contract_call_reached(ledger, &context("long_job"));
        assert_eq!(reached(&echoes_only), Some(0));
        let refused = Ledger {
            answers: vec![call(404)],
            ..Ledger::default()
        };
        assert_eq!(reached(&refused), Some(1));
        let started = Ledger {
            jobs: vec![JobEntry {
                session: SessionKey(0),
                generation: 0,
                tool: "long_job".into(),
                request_id: json!(2),
                progress_token: None,
                idempotency_key: None,
                steps: 3,
                started_ms: 0,
                ended: None,
            }],
            ..echoes_only.clone()
        };
        assert_eq!(reached(&started), Some(1));
        assert_eq!(
            super::contract_call_reached(&echoes_only, &context("echo")),
            None
        );
        // A 503 the balancer gave itself, with no replica up, reached no server.
        let balancer_refused = Ledger {
            answers: vec![AnswerEntry {
                route: Some(faultline_model::Route {
                    replica: faultline_model::ReplicaId(0),
                    why: faultline_model::RouteWhy::NoneHealthy,
                }),
                ..call(503)
            }],
            ..Ledger::default()
        };
        assert_eq!(reached(&balancer_refused), Some(0));

        // Every rule that asks gets the same answer: untested's count, the report's
        // claims, and the outcome owed (a refusal is the call, a follow-up is not).
        let job = context("long_job");
        let supports = crate::client_report::Supports::default();
        let with_result = ClientReport::from_stdout(r#"{"result": "done"}"#).expect("a report");
        let with_nothing = ClientReport::from_stdout("{}").expect("a report");
        for (ledger, reached) in [
            (&echoes_only, false),
            (&refused, true),
            (&started, true),
            (&balancer_refused, false),
        ] {
            assert_eq!(super::call_reached(ledger, &job), reached);
            assert_eq!(super::owed(ledger, &job, supports).call_started, reached);
            let claims = crate::untrue_report::unsent_claims(ledger, &job, &with_result);
            assert_eq!(
                claims.is_some_and(|c| c.result),
                !reached,
                "a result is claimed against the ledger only where no call reached it"
            );
            let lost = ValuesLost::of(&super::owed(ledger, &job, supports), &with_nothing);
            assert_eq!(
                lost.outcome_unreported,
                reached && !started_and_running(ledger)
            );
        }
    }

    /// A job still running owes its result (`result_missing`), not an outcome unreported.
    fn started_and_running(ledger: &faultline_model::Ledger) -> bool {
        ledger.jobs.iter().any(|j| j.ended.is_none())
    }
}
