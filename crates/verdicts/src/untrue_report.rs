//! A real client's report that claims what the server never sent: `bad_report`, never
//! `clean`.
//!
//! A report is the client's word for what its application was handed. The judge checks
//! it against the ledger for what is missing or repeated, and must check it for what is
//! invented too: a progress step of the call's tool, or a notification number, that no
//! event the server sent carried (whatever it produced, only what it sent can have reached
//! the client; no client library makes such values up), or a result while no call reached
//! the server at all. A report with such a claim cannot be judged: a client that lost a
//! value and one that made it up would read alike, and `clean` over made-up values says
//! the application got what the server never sent. So the run is judged as one with no
//! report that reads (`bad_report`), with the claims as evidence; the rules that read the
//! ledger alone still judge the wire.
//!
//! A result for a call that did reach the server, which produced none (its work never
//! finished, or the call was refused), is another matter: a client library can hand one
//! over itself (it resolves a call when its stream ends, or takes an error for
//! completion), and then the application really was handed it. That is the call's outcome
//! lost behind a result the server never sent, the loss rule's to name
//! (`ValuesLost::result_not_sent`).
//!
//! Only what the ledger rules out is claimed: a ledger trimmed to a window (a long-lived
//! `serve`) has dropped entries a claim may rest on, and then nothing is ruled out.

use faultline_model::{Ledger, Payload};
use serde::Serialize;

use crate::client_context::ClientContext;
use crate::client_report::ClientReport;
use crate::id_ranges::ranges;

/// What a report claims that the server never sent, and what it did produce.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnsentClaims {
    /// Progress values reported that no event the server sent carried (for a job of the
    /// call's tool), as reported, each once: the server's values are whole steps, so
    /// `2.4` or a fraction `0.1` is a claim, not a value to round.
    pub progress: Vec<f64>,
    /// Notification numbers (`data.seq`) reported that no event the server sent carried.
    pub notifications: Vec<u64>,
    /// A result reported while the call produced none.
    pub result: bool,
    /// Whether the call reached the server (`owed::call_reached`): what the result's
    /// claim is set against.
    pub call_reached_server: bool,
    /// The steps the server did send for the call's jobs (each once).
    pub sent_progress: Vec<u32>,
}

impl UnsentClaims {
    /// What the report claims, in one sentence.
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if !self.progress.is_empty() {
            parts.push(format!(
                "progress {} (the server sent {})",
                values(&self.progress),
                if self.sent_progress.is_empty() {
                    "none".to_string()
                } else {
                    ranges(&self.sent_progress)
                }
            ));
        }
        if !self.notifications.is_empty() {
            parts.push(format!("notifications seq {}", ranges(&self.notifications)));
        }
        if self.result {
            parts.push("a result, while no call reached the server".to_string());
        }
        format!(
            "the report claims what the server never sent: {}; it cannot be judged (a report lists only what the application was handed)",
            parts.join("; ")
        )
    }
}

/// Reported values as a sentence shows them: whole numbers as ranges (`4..=81`), others
/// as the first few, as reported.
fn values(progress: &[f64]) -> String {
    let whole: Option<Vec<u32>> = progress
        .iter()
        .map(|&p| {
            (p.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&p)).then_some(p as u32)
        })
        .collect();
    if let Some(whole) = whole {
        return ranges(&whole);
    }
    let shown: Vec<String> = progress.iter().take(5).map(|p| p.to_string()).collect();
    if progress.len() > shown.len() {
        format!("{}, … ({} values)", shown.join(", "), progress.len())
    } else {
        shown.join(", ")
    }
}

/// The claims of `report` the ledger rules out, if any.
pub(crate) fn unsent_claims(
    ledger: &Ledger,
    context: &ClientContext,
    report: &ClientReport,
) -> Option<UnsentClaims> {
    let tool_jobs = crate::owed::tool_jobs(ledger, &context.call.tool);
    let whole_events = ledger.events_base == 0 && ledger.jobs_base == 0;
    let mut sent_progress: Vec<u32> = Vec::new();
    let mut sent_seq: Vec<u64> = Vec::new();
    for send in &ledger.sends {
        let Some(index) = send.event.0.checked_sub(ledger.events_base) else {
            continue;
        };
        let Some(event) = ledger.events.get(index as usize) else {
            continue;
        };
        match event.payload {
            Payload::Progress { job, step, .. } if tool_jobs.contains(&job) => {
                sent_progress.push(step);
            }
            Payload::Notification { seq } => sent_seq.push(seq),
            _ => {}
        }
    }
    sent_progress.sort_unstable();
    sent_progress.dedup();
    sent_seq.sort_unstable();
    sent_seq.dedup();
    let mut progress: Vec<f64> = Vec::new();
    let mut notifications: Vec<u64> = Vec::new();
    if whole_events {
        for &p in &report.progress {
            let sent = sent_progress.iter().any(|&step| f64::from(step) == p);
            if !sent && !progress.contains(&p) {
                progress.push(p);
            }
        }
        progress.sort_by(f64::total_cmp);
        notifications = report
            .notifications
            .iter()
            .copied()
            .filter(|seq| sent_seq.binary_search(seq).is_err())
            .collect();
        notifications.sort_unstable();
        notifications.dedup();
    }
    let result_produced = crate::owed::any_result(ledger, context);
    // A tool that runs as a job reached the server as a job of its own or a refusal; a
    // follow-up `echo` answered is not the call.
    let call_reached_server = crate::owed::call_reached(ledger, context);
    // A result for a call that reached the server and produced none may be the client's
    // own doing (it resolved the call when its stream ended, or took an error for
    // completion): the application really was handed it, and the loss rule names the
    // outcome lost. With no call at all, nothing could have answered it: the report is
    // untrue.
    let result = report.result.is_some()
        && !result_produced
        && !call_reached_server
        && ledger.jobs_base == 0;
    (!progress.is_empty() || !notifications.is_empty() || result).then_some(UnsentClaims {
        progress,
        notifications,
        result,
        call_reached_server,
        sent_progress,
    })
}

#[cfg(test)]
mod tests {
    use faultline_model::{AnswerEntry, JobEnd, JobEntry, JobId, Ledger, Payload, SessionKey};
    use serde_json::json;

    use super::unsent_claims;
    use crate::client_context::{CallSpec, ClientContext};
    use crate::client_report::ClientReport;

    fn context() -> ClientContext {
        ClientContext {
            call: CallSpec {
                tool: "long_job".into(),
                arguments: json!({}),
                progress: true,
            },
            followup_echo: 0,
            lists_tools: false,
            use_tasks: false,
        }
    }

    /// A call of `echo`, a tool answered at once (no job).
    fn echo_context() -> ClientContext {
        ClientContext {
            call: CallSpec {
                tool: "echo".into(),
                arguments: json!({"text": "x"}),
                progress: false,
            },
            ..context()
        }
    }

    fn report(line: &str) -> ClientReport {
        ClientReport::from_stdout(line).expect("reads")
    }

    /// One job of the call's tool that produced steps 1..=3, each sent, and is still
    /// running (or finished).
    fn ledger(finished: bool) -> Ledger {
        let mut ledger = Ledger::default();
        ledger.jobs.push(JobEntry {
            session: SessionKey(0),
            generation: 0,
            tool: "long_job".into(),
            request_id: json!(1),
            progress_token: Some(json!("p")),
            idempotency_key: None,
            steps: 10,
            started_ms: 0,
            ended: finished.then_some((3_000, JobEnd::Finished)),
        });
        for step in 1..=3 {
            ledger.sends.push(faultline_model::SendEntry {
                event: faultline_model::EventRef(step - 1),
                conn: faultline_model::ConnId(1),
                at_ms: u64::from(step) * 100,
                replay: false,
            });
            ledger.events.push(faultline_model::ProducedEvent {
                payload: Payload::Progress {
                    job: JobId(0),
                    step,
                    total: 10,
                },
                ..crate::test_records::notification(u64::from(step), 0, u64::from(step) * 100)
            });
        }
        ledger
    }

    #[test]
    fn a_report_of_what_was_produced_claims_nothing_unsent() {
        let l = ledger(true);
        let r = report(r#"{"progress": [1, 2, 3], "result": "done"}"#);
        assert_eq!(unsent_claims(&l, &context(), &r), None);
        // Fewer than produced is a loss, for the loss rule: nothing invented.
        let r = report(r#"{"progress": [1]}"#);
        assert_eq!(unsent_claims(&l, &context(), &r), None);
    }

    #[test]
    fn steps_and_notifications_never_sent_are_claims() {
        let l = ledger(false);
        let r =
            report(r#"{"progress": [1, 2, 3, 4, 5], "notifications": [777], "result": "done"}"#);
        let claims = unsent_claims(&l, &context(), &r).expect("claims");
        assert_eq!(claims.progress, [4.0, 5.0]);
        assert_eq!(claims.notifications, [777]);
        // The call reached the server: its result is the loss rule's to judge.
        assert!(!claims.result);
        let sentence = claims.sentence();
        assert!(
            sentence.contains("progress 4..=5 (the server sent 1..=3)")
                && sentence.contains("notifications seq 777")
                && !sentence.contains("a result"),
            "{sentence}"
        );
    }

    #[test]
    fn an_immediate_tools_result_needs_a_successful_answer() {
        let mut l = Ledger::default();
        let refused = AnswerEntry {
            rpc_method: Some("tools/call".into()),
            ..crate::test_answer::answer(1, 1_000, 404)
        };
        l.answers.push(refused.clone());
        let r = report(r#"{"result": "done"}"#);
        // The call reached the server: a result it never answered with is the loss
        // rule's (the outcome lost), not a claim against the report.
        assert_eq!(unsent_claims(&l, &echo_context(), &r), None);
        // With no call at all, it is a claim, and the sentence says so.
        let none = unsent_claims(&Ledger::default(), &echo_context(), &r).expect("a claim");
        assert!(
            none.sentence()
                .contains("a result, while no call reached the server"),
            "{}",
            none.sentence()
        );
        l.answers.push(AnswerEntry {
            status: 200,
            ..refused
        });
        assert_eq!(unsent_claims(&l, &echo_context(), &r), None);
    }

    #[test]
    fn a_trimmed_ledger_rules_nothing_out() {
        let mut l = ledger(false);
        l.events_base = 10;
        l.jobs_base = 1;
        let r = report(r#"{"progress": [9], "notifications": [5], "result": "x"}"#);
        assert_eq!(unsent_claims(&l, &context(), &r), None);
    }

    /// A value produced but never sent (no connection took it) cannot have reached the
    /// client: claiming it is claiming what the server never sent.
    #[test]
    fn a_value_produced_but_never_sent_is_a_claim() {
        let mut l = ledger(true);
        l.sends.pop();
        let r = report(r#"{"progress": [1, 2, 3], "result": "done"}"#);
        let claims = unsent_claims(&l, &context(), &r).expect("claims");
        assert_eq!(claims.progress, [3.0]);
        assert_eq!(claims.sent_progress, [1, 2]);
    }

    /// Values are compared as reported: a fraction, or a step off by 0.4, was never sent,
    /// and the sentence shows it as reported (not rounded to a step).
    #[test]
    fn progress_is_compared_as_reported_not_rounded() {
        let l = ledger(true);
        let r = report(r#"{"progress": [0.1, 0.2, 1.4], "result": "done"}"#);
        let claims = unsent_claims(&l, &context(), &r).expect("claims");
        assert_eq!(claims.progress, [0.1, 0.2, 1.4]);
        assert!(
            claims
                .sentence()
                .contains("progress 0.1, 0.2, 1.4 (the server sent 1..=3)"),
            "{}",
            claims.sentence()
        );
    }

    /// A job tool's call reached the server only as a job: a follow-up `echo` answered
    /// is not the call, and a result reported for it is a claim.
    #[test]
    fn another_tools_answer_is_not_the_calls() {
        let mut l = Ledger::default();
        l.answers.push(AnswerEntry {
            rpc_method: Some("tools/call".into()),
            ..crate::test_answer::answer(1, 1_000, 200)
        });
        let r = report(r#"{"result": "done"}"#);
        let claims = unsent_claims(&l, &context(), &r).expect("a claim");
        assert!(claims.result && !claims.call_reached_server);
    }
}
