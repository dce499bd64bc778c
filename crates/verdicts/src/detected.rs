//! `detected`: the client raised typed errors and lost nothing silently: it knew what
//! failed, and rebuilt or left the outcome to the application.
//!
//! Only a modelled client's errors are typed for the judge (`SessionResumptionError`,
//! `ResumptionCursorError`, the 2026-07-28 `CallCutError` and `TaskLostError`); a real
//! client's report carries one error as text, so a real client that failed loudly and
//! lost nothing is `clean`, with the error in the sentence.

use crate::client_error::ClientError;
use crate::client_record::{ClientRecord, ErrorScope};
use crate::spell::vtime;
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
        // When the application was first told call `i` failed, if it was: the record's
        // failure (the 2025 client clears it when a result comes later) or the error the
        // 2025 client surfaced for the call. A result that arrives afterwards (an earlier
        // attempt's stream still open) does not make the call one the client recovered.
        let told_failed = |i: usize| {
            record.calls[i].failed_at_ms.or_else(|| {
                record
                    .errors
                    .iter()
                    .find(|e| e.scope == ErrorScope::Call(i) && !e.error.is_typed())
                    .map(|e| e.at_ms)
            })
        };
        let late = |i: usize, completed: u64| told_failed(i).is_some_and(|t| t <= completed);
        // Calls the application was told failed whose result came afterwards anyway.
        let came_late: Vec<(&str, u64)> = record
            .calls
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let done = c.completed_at_ms?;
                late(i, done).then_some((c.key.as_str(), done))
            })
            .collect();
        let recovered_calls: Vec<String> = record
            .calls
            .iter()
            .enumerate()
            .filter(|(i, c)| {
                c.attempts > 1 && c.completed_at_ms.is_some_and(|done| !late(*i, done))
            })
            .map(|(_, c)| c.key.clone())
            .collect();
        let summary = words.say(|| {
            // Calls that ended in a failure the application was told of (not lost silently,
            // but not done either: "none needed" would hide them).
            let failed: Vec<&str> = record
                .calls_failed_loudly()
                .into_iter()
                .map(|(call, _)| call)
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
            let vanished: Vec<&crate::client_error::TaskLostError> = record
                .errors
                .iter()
                .filter_map(|e| match &e.error {
                    ClientError::TaskLost(lost) => Some(lost),
                    _ => None,
                })
                .collect();
            // What became of the calls: tasks the server forgot and calls cut and left (the
            // 2026-07-28 client's typed errors), then the calls re-issued and completed;
            // each part that applies, so that one does not hide another.
            let mut parts = Vec::new();
            if !vanished.is_empty() {
                let tasks: Vec<String> = vanished
                    .iter()
                    .map(|lost| format!("{} (task {})", lost.call, lost.task_id))
                    .collect();
                parts.push(format!(
                    "task ids the server no longer knew, their outcome left to the application: {}",
                    tasks.join(", ")
                ));
            }
            if !left.is_empty() {
                parts.push(format!(
                    "cut and not re-issued, their outcome left to the application: {}",
                    left.join(", ")
                ));
            }
            let noun = if parts.is_empty() {
                "typed resumption error(s)"
            } else {
                "typed error(s)"
            };
            if !recovered_calls.is_empty() {
                parts.push(format!(
                    "re-issued and completed: {}",
                    recovered_calls.join(", ")
                ));
            } else if parts.is_empty() && failed.is_empty() && came_late.is_empty() {
                parts.push("re-issued and completed: none needed".to_string());
            } else if parts.is_empty() {
                parts.push("re-issued and completed: none".to_string());
            }
            let outcome = parts.join("; ");
            // A call already named as cut and left, or as a lost task, is not named again.
            let failed: Vec<&str> = failed
                .into_iter()
                .filter(|call| !left.contains(call) && !vanished.iter().any(|v| v.call == *call))
                .collect();
            let mut told = if failed.is_empty() {
                String::new()
            } else {
                format!(
                    "; failed, and the application was told: {}",
                    failed.join(", ")
                )
            };
            if !came_late.is_empty() {
                told.push_str(&format!(
                    "; failed, and the application was told, then its result arrived anyway: {}",
                    came_late
                        .iter()
                        .map(|(call, at)| format!("{call} (at {})", vtime(*at)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
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
            asked_at_ms: Some(0),
            attempts: 1,
            completed_at_ms: (!failed).then_some(2_000),
            failed_at_ms: failed.then_some(2_000),
            result_dropped: false,
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

    /// A call the 2025 client gave up on (the application told, the record's failure
    /// cleared when a result came later) is not "re-issued and completed": its late result
    /// is named as such.
    #[test]
    fn a_result_after_the_application_was_told_is_no_recovery() {
        let mut record = ClientRecord::default();
        record.errors.push(ErrorRecord {
            at_ms: 1_000,
            error: ClientError::SessionResumption(SessionResumptionError {
                session: "a".into(),
                message: "gone".into(),
            }),
            scope: ErrorScope::Session("a".into()),
        });
        record.errors.push(ErrorRecord {
            at_ms: 1_000,
            error: ClientError::Surfaced {
                message: "gave up after re-issuing the call 3 times".into(),
            },
            scope: ErrorScope::Call(0),
        });
        record.calls.push(CallRecord {
            key: "call-0".into(),
            asked_at_ms: Some(0),
            attempts: 4,
            completed_at_ms: Some(120_000),
            failed_at_ms: None,
            result_dropped: false,
        });
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        let said = &verdicts[0].summary;
        assert!(said.contains("re-issued and completed: none;"), "{said}");
        assert!(
            said.ends_with("then its result arrived anyway: call-0 (at T+2m)"),
            "{said}"
        );
        match &verdicts[0].evidence {
            crate::verdict::Evidence::Detected {
                recovered_calls, ..
            } => assert!(recovered_calls.is_empty()),
            other => panic!("{other:?}"),
        }
        // Completed before any failure was told: recovered.
        record.errors.pop();
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        assert!(
            verdicts[0]
                .summary
                .ends_with("re-issued and completed: call-0"),
            "{}",
            verdicts[0].summary
        );
    }

    /// A call cut and left to the application does not hide another call the client
    /// re-issued and completed in the same run, and is not named again as failed.
    #[test]
    fn a_call_cut_and_left_does_not_hide_one_re_issued() {
        let mut record = ClientRecord::default();
        record.errors.push(ErrorRecord {
            at_ms: 1_000,
            error: ClientError::CallCut(crate::client_error::CallCutError {
                call: "call-1".into(),
                tool: "place_order".into(),
                message: "cut".into(),
            }),
            scope: ErrorScope::Call(1),
        });
        record.calls.push(CallRecord {
            key: "call-0".into(),
            asked_at_ms: Some(0),
            attempts: 2,
            completed_at_ms: Some(5_000),
            failed_at_ms: None,
            result_dropped: false,
        });
        record.calls.push(CallRecord {
            key: "call-1".into(),
            asked_at_ms: Some(0),
            attempts: 1,
            completed_at_ms: None,
            failed_at_ms: Some(1_000),
            result_dropped: false,
        });
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        assert_eq!(
            verdicts[0].summary,
            "the client raised 1 typed error(s) and lost nothing silently; cut and not re-issued, \
             their outcome left to the application: call-1; re-issued and completed: call-0"
        );
    }
}
