//! `duplicate`: the application was handed the same thing twice.
//!
//! For a modelled client, an event applied more than once. A real client's report names
//! values: a progress step or notification handed over more often than the server
//! produced it (a re-issued call produces its steps again, and each of those may be
//! handed once) or sent it as distinct events (another session's notifications, sent
//! on the client's streams by a shared event store, reuse its numbers: that is
//! `foreign_event`). The guard that prevents it: remember the highest id applied per stream
//! and generation, and drop a replayed event at or below it.

use std::collections::BTreeMap;

use faultline_model::Ledger;

use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::owed::Owed;
use crate::verdict::{AppliedNote, Evidence, Verdict, VerdictKind};
use crate::words::Words;

pub(crate) fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    applied: &[u32],
    words: Words,
    verdicts: &mut Vec<Verdict>,
) {
    let dups: Vec<usize> = applied
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 1)
        .map(|(i, _)| i)
        .collect();
    if dups.is_empty() {
        return;
    }
    let first = ledger.events[dups[0]].session;
    let events: Vec<AppliedNote> = dups
        .iter()
        .map(|&i| {
            let e = &ledger.events[i];
            let at = record
                .applied
                .iter()
                .filter(|a| a.event.0 as usize == i)
                .nth(1)
                .map_or(0, |a| a.at_ms);
            AppliedNote {
                id: e.id,
                stream: e.stream.0,
                at_ms: at,
                detail: format!("applied {} times", applied[i]),
            }
        })
        .collect();
    verdicts.push(Verdict {
        kind: VerdictKind::Duplicate,
        at_ms: events.iter().map(|e| e.at_ms).min().unwrap_or(0),
        summary: words.say(|| format!("{} event(s) were applied more than once", events.len())),
        evidence: Evidence::Applied {
            session: ledger.session(first).wire_id.clone(),
            events,
        },
    });
}

/// Values a real client handed over more often than they were produced.
pub(crate) fn real(
    ledger: &Ledger,
    owed: &Owed,
    report: &ClientReport,
    words: Words,
) -> Option<Verdict> {
    let mut seen_steps: BTreeMap<u32, usize> = BTreeMap::new();
    for p in &report.progress {
        *seen_steps.entry(p.round() as u32).or_default() += 1;
    }
    let mut seen_seq: BTreeMap<u64, usize> = BTreeMap::new();
    for s in &report.notifications {
        *seen_seq.entry(*s).or_default() += 1;
    }
    let progress: Vec<u32> = seen_steps
        .iter()
        .filter(|&(s, &n)| n > owed.step_counts.get(s).copied().unwrap_or(0).max(1))
        .map(|(&s, _)| s)
        .collect();
    // Each notification event the server sent on the client's streams, once: another
    // session's (a shared event store's) carries a value of its own numbering, and handing
    // it over is `foreign_event`, not the client's own value twice.
    let mut sent_events = std::collections::BTreeSet::new();
    let mut sent_seq: BTreeMap<u64, usize> = BTreeMap::new();
    for send in &ledger.sends {
        if send.event.0 < ledger.events_base || !sent_events.insert(send.event) {
            continue;
        }
        if let faultline_model::Payload::Notification { seq } = ledger.event(send.event).payload {
            *sent_seq.entry(seq).or_default() += 1;
        }
    }
    let produced = |s: &u64| {
        let owed = owed.notifications.get(s).copied().unwrap_or(0);
        owed.max(sent_seq.get(s).copied().unwrap_or(0))
    };
    let notifications: Vec<u64> = seen_seq
        .iter()
        .filter(|&(s, &n)| n > produced(s).max(1))
        .map(|(&s, _)| s)
        .collect();
    if progress.is_empty() && notifications.is_empty() {
        return None;
    }
    let summary = words.say(|| {
        let mut what = Vec::new();
        if !progress.is_empty() {
            what.push(format!("progress {}", crate::ranges(&progress)));
        }
        if !notifications.is_empty() {
            what.push(format!(
                "notifications seq {}",
                crate::ranges(&notifications)
            ));
        }
        format!("handed over more often than produced: {}", what.join(", "))
    });
    Some(Verdict {
        kind: VerdictKind::Duplicate,
        at_ms: second_send_at(ledger, &progress, &notifications),
        summary,
        evidence: Evidence::RepeatedValues {
            progress,
            notifications,
        },
    })
}

/// When the server first sent one of the repeated values a second time (a replay, or a
/// re-issued call producing it again): the earliest moment the client could hand it over
/// twice; 0 when the ledger shows no second send (the client repeated it by itself).
fn second_send_at(ledger: &Ledger, progress: &[u32], notifications: &[u64]) -> u64 {
    let mut sends: BTreeMap<(bool, u64), usize> = BTreeMap::new();
    for send in &ledger.sends {
        if send.event.0 < ledger.events_base {
            continue;
        }
        let value = match ledger.event(send.event).payload {
            faultline_model::Payload::Progress { step, .. } if progress.contains(&step) => {
                (false, u64::from(step))
            }
            faultline_model::Payload::Notification { seq } if notifications.contains(&seq) => {
                (true, seq)
            }
            _ => continue,
        };
        let count = sends.entry(value).or_default();
        *count += 1;
        if *count == 2 {
            return send.at_ms;
        }
    }
    0
}
