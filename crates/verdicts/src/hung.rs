//! `hung`: the application got neither everything nor an error: it is still waiting.
//!
//! A modelled client hangs when the scenario's horizon finds calls it neither completed
//! nor failed; a real client, when it gives no report before the grader's timeout
//! ([`crate::missing_report`]). The guard that prevents it: bound every wait (a
//! resumption budget, a deadline per call) and fail the call loudly when it runs out.

use crate::client_record::ClientRecord;
use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;

/// The horizon came while calls were neither completed nor failed, or the run ended by
/// itself with such calls (nothing was left to happen, so they never will be): the
/// application is still waiting. (A real client that gives no report before the
/// grader's timeout is the same verdict.)
pub(crate) fn modelled(record: &ClientRecord, words: Words, verdicts: &mut Vec<Verdict>) {
    let Some(horizon_ms) = record.horizon_cut_ms.or(record.quiet_at_ms) else {
        return;
    };
    let pending_calls: Vec<String> = record
        .calls
        .iter()
        // A call the workload had not asked for yet when the run ended is not awaited.
        .filter(|c| {
            c.asked_at_ms.is_some() && c.completed_at_ms.is_none() && c.failed_at_ms.is_none()
        })
        .map(|c| c.key.clone())
        .collect();
    if pending_calls.is_empty() {
        return;
    }
    let cut = record.horizon_cut_ms.is_some();
    verdicts.push(Verdict {
        kind: VerdictKind::Hung,
        at_ms: horizon_ms,
        summary: words.say(|| {
            if cut {
                format!(
                    "the scenario's horizon came at {} with {} neither completed nor failed: the application is still waiting",
                    vtime(horizon_ms),
                    pending_calls.join(", ")
                )
            } else {
                format!(
                    "the run went quiet at {} with {} neither completed nor failed: nothing was left to happen, so the application waits for ever",
                    vtime(horizon_ms),
                    pending_calls.join(", ")
                )
            }
        }),
        evidence: Evidence::Hung {
            horizon_ms,
            pending_calls,
        },
    });
}

#[cfg(test)]
mod tests {
    use crate::client_record::{CallRecord, ClientRecord};
    use crate::verdict::Evidence;
    use crate::words::Words;

    fn call(key: &str, asked_at_ms: Option<u64>) -> CallRecord {
        CallRecord {
            key: key.into(),
            asked_at_ms,
            attempts: u32::from(asked_at_ms.is_some()),
            completed_at_ms: None,
            failed_at_ms: None,
            result_dropped: false,
        }
    }

    /// Only a call the application asked for is awaited: one the workload would have
    /// asked after the run ended (a time drawn past the horizon) is not hung.
    #[test]
    fn a_call_not_yet_asked_is_not_awaited() {
        let mut record = ClientRecord {
            horizon_cut_ms: Some(3_600_000),
            ..ClientRecord::default()
        };
        record.calls = vec![call("call-0", Some(60_000)), call("call-1", None)];
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        match &verdicts[0].evidence {
            Evidence::Hung { pending_calls, .. } => assert_eq!(pending_calls, &["call-0"]),
            other => panic!("{other:?}"),
        }
        record.calls.remove(0);
        let mut verdicts = Vec::new();
        super::modelled(&record, Words::Written, &mut verdicts);
        assert!(verdicts.is_empty(), "{verdicts:?}");
    }
}
