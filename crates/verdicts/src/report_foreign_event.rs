//! `foreign_event` for a real client: notifications of another session sent on the
//! client's own streams, and handed to its application.
//!
//! A shared event store keyed by stream (the TypeScript SDK's example store keys every
//! standalone stream `_GET_stream`; see
//! <https://github.com/modelcontextprotocol/typescript-sdk/issues/1004>) replays every
//! session's events to whoever resumes. The ledger says which events the server sent on a
//! connection and which session the connection's request named; a real client's report
//! says only how many notifications its application was handed. An application cannot be
//! handed a notification nobody sent, so a report with more notifications than the
//! client's own sessions were sent proves that at least that many were another session's:
//! a lower bound, never a guess.

use std::collections::BTreeMap;

use faultline_model::{ConnId, Ledger, Payload};
use serde_json::json;

use crate::VerdictKind;
use crate::client_report::ClientReport;
use crate::report_verdict::ReportVerdict;

pub(crate) fn foreign_events(
    ledger: &Ledger,
    report: Option<&ClientReport>,
    verdicts: &mut Vec<ReportVerdict>,
) {
    let Some(report) = report else {
        return;
    };
    let named: BTreeMap<ConnId, &str> = ledger
        .answers
        .iter()
        .filter_map(|a| Some((a.conn, a.session_sent.as_deref()?)))
        .collect();
    let mut own = 0usize;
    let mut foreign: Vec<(u64, u64, &str)> = Vec::new();
    for send in &ledger.sends {
        let Some(&session) = named.get(&send.conn) else {
            continue;
        };
        if send.event.0 < ledger.events_base {
            continue;
        }
        let event = ledger.event(send.event);
        let Payload::Notification { seq } = event.payload else {
            continue;
        };
        if event.session.0 < ledger.sessions_base {
            continue;
        }
        let owner = ledger.session(event.session).wire_id.as_str();
        if owner == session {
            own += 1;
        } else {
            foreign.push((send.at_ms, seq, owner));
        }
    }
    let handed_foreign = report.notifications.len().saturating_sub(own);
    if foreign.is_empty() || handed_foreign == 0 {
        return;
    }
    let mut sessions: Vec<&str> = foreign.iter().map(|&(_, _, s)| s).collect();
    sessions.sort_unstable();
    sessions.dedup();
    verdicts.push(ReportVerdict {
        kind: VerdictKind::ForeignEvent,
        why: format!(
            "the server sent {} notification(s) of another session on the client's streams (the first at T+{}), and the application was handed at least {handed_foreign} of them: {} notifications for {own} of its own",
            foreign.len(),
            faultline_model::DurationMs(foreign[0].0),
            report.notifications.len()
        ),
        evidence: json!({
            "sent_foreign": foreign.len(),
            "sent_own": own,
            "handed": report.notifications.len(),
            "handed_foreign_at_least": handed_foreign,
            "foreign_sessions": sessions,
            "foreign_seq": foreign.iter().map(|&(_, seq, _)| seq).collect::<Vec<_>>(),
            "first_at_ms": foreign[0].0,
        }),
    });
}
