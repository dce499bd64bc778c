//! `detected`: the client raised typed errors and lost nothing silently: it knew what
//! failed, and rebuilt or left the outcome to the application.
//!
//! Only a modelled client's errors are typed for the judge (`SessionResumptionError`,
//! `ResumptionCursorError`, the 2026-07-28 `CallCutError` and `TaskLostError`); a real
//! client's report carries one error as text, so a real client that failed loudly and
//! lost nothing is `clean`, with the error in the sentence.

use crate::client_error::ClientError;
use crate::client_record::ClientRecord;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// The `detected` verdict of a modelled run that raised typed errors; the judge asks only
/// when nothing was lost.
pub(crate) fn modelled(record: &ClientRecord, words: Words, verdicts: &mut Vec<Verdict>) {
    if record.errors.iter().any(|e| e.error.is_typed()) {
        let typed: Vec<String> = record
            .errors
            .iter()
            .filter(|e| e.error.is_typed())
            .map(|e| e.error.to_string())
            .collect();
        let at_ms = record
            .errors
            .iter()
            .find(|e| e.error.is_typed())
            .map_or(0, |e| e.at_ms);
        let recovered_calls: Vec<String> = record
            .calls
            .iter()
            .filter(|c| c.attempts > 1 && c.completed_at_ms.is_some())
            .map(|c| c.key.clone())
            .collect();
        let summary = words.say(|| {
            // Calls that ended in a failure the application was told of (not lost silently,
            // but not done either: "none needed" would hide them).
            let failed: Vec<&str> = record
                .calls
                .iter()
                .filter(|c| c.completed_at_ms.is_none() && c.failed_at_ms.is_some())
                .map(|c| c.key.as_str())
                .collect();
            // 2026-07-28 calls cut and deliberately not re-issued (not idempotent).
            let left: Vec<&str> = record
                .errors
                .iter()
                .filter_map(|e| match &e.error {
                    ClientError::CallCut(cut) => Some(cut.call.as_str()),
                    _ => None,
                })
                .collect();
            // 2026-07-28 tasks the server forgot, flagged rather than taken for done.
            let vanished: Vec<String> = record
                .errors
                .iter()
                .filter_map(|e| match &e.error {
                    ClientError::TaskLost(lost) => {
                        Some(format!("{} (task {})", lost.call, lost.task_id))
                    }
                    _ => None,
                })
                .collect();
            let (noun, outcome) = if !vanished.is_empty() {
                (
                    "typed error(s)",
                    format!(
                        "task ids the server no longer knew, their outcome left to the application: {}",
                        vanished.join(", ")
                    ),
                )
            } else if !left.is_empty() {
                (
                    "typed error(s)",
                    format!(
                        "cut and not re-issued, their outcome left to the application: {}",
                        left.join(", ")
                    ),
                )
            } else if recovered_calls.is_empty() && failed.is_empty() {
                (
                    "typed resumption error(s)",
                    "re-issued and completed: none needed".to_string(),
                )
            } else if recovered_calls.is_empty() {
                (
                    "typed resumption error(s)",
                    "re-issued and completed: none".to_string(),
                )
            } else {
                (
                    "typed resumption error(s)",
                    format!("re-issued and completed: {}", recovered_calls.join(", ")),
                )
            };
            let told = if failed.is_empty() {
                String::new()
            } else {
                format!(
                    "; failed, and the application was told: {}",
                    failed.join(", ")
                )
            };
            format!(
                "the client raised {} {noun} and lost nothing silently; {outcome}{told}",
                typed.len(),
            )
        });
        verdicts.push(Verdict {
            kind: VerdictKind::Detected,
            at_ms,
            summary,
            evidence: Evidence::Detected {
                errors: typed,
                recovered_calls,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::client_error::{ClientError, SessionResumptionError};
    use crate::client_record::{CallRecord, ClientRecord, ErrorRecord, ErrorScope};
    use crate::words::Words;

    /// A typed error, and call-0 in the state given: completed at first try, or failed.
    fn said(failed: bool) -> String {
        let mut record = ClientRecord::default();
        record.errors.push(ErrorRecord {
            at_ms: 1_000,
            error: ClientError::SessionResumption(SessionResumptionError {
                session: "a".into(),
                message: "gone".into(),
            }),
            scope: ErrorScope::Call(0),
        });
        record.calls.push(CallRecord {
            key: "call-0".into(),
            attempts: 1,
            completed_at_ms: (!failed).then_some(2_000),
            failed_at_ms: failed.then_some(2_000),
        });
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        verdicts[0].summary.clone()
    }

    /// "None needed" only when no call failed; a call that failed loudly is named.
    #[test]
    fn a_call_that_failed_loudly_is_not_none_needed() {
        assert!(said(false).ends_with("re-issued and completed: none needed"));
        let failed = said(true);
        assert!(!failed.contains("none needed"), "{failed}");
        assert!(
            failed.ends_with("failed, and the application was told: call-0"),
            "{failed}"
        );
    }
}
