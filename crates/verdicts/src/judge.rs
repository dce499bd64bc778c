//! The one judge: joins the server's ledger (ground truth) with what the client's side
//! tells of a run, and names what was lost or misapplied, and why.
//!
//! Every verdict is derived from evidence the reader can check in the ledger: which event
//! ids of which stream and generation, which requests at which times. Nothing here trusts
//! the client's own opinion of whether it lost something. Each verdict's rule lives in its
//! own file with both its readings, a modelled client's record and a real client's report
//! ([`crate::observation`]); this function only asks each rule in turn and then says
//! whether anything went wrong (`clean`), nothing was tested (`untested`), or the scenario
//! did not apply (`not_applicable`, `other_era`).

use std::collections::BTreeMap;

use faultline_model::{ConnId, Ledger, ResumeEntry};

use crate::client_context::ClientContext;
use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::dead_session::Misrouted;
use crate::missing_report::MissingReport;
use crate::observation::{ClientSide, Observation};
use crate::request_index::LazyRequestIndex;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use crate::{
    cursor_reuse, detected, duplicate, duplicate_effect, era_mismatch, foreign_event, gap, hung,
    lost_task, misrouted_session, missed_change, owed, quarantine_violation, reconnect_loop,
    refused_without_recovery, reinit_collision, retry_amplification, session_abandoned,
    zombie_session,
};

/// The verdicts of one run, whoever the client was, sorted by kind and time.
pub fn judge(observation: &Observation, words: Words) -> Vec<Verdict> {
    // A real report that claims what the server never sent is judged as no report.
    let untrue = match observation.client {
        ClientSide::Real {
            context,
            report: Ok(report),
        } => crate::untrue_report::unsent_claims(observation.ledger, context, report)
            .map(|claims| (context, MissingReport::Untrue { claims })),
        _ => None,
    };
    let believed;
    let observation = match &untrue {
        Some((context, missing)) => {
            believed = Observation {
                client: ClientSide::Real {
                    context,
                    report: Err(missing),
                },
                ..*observation
            };
            &believed
        }
        None => observation,
    };
    let ledger = observation.ledger;
    let mut verdicts = Vec::new();
    // What the client's own side shows: losses, duplicates, and the verdicts only one
    // kind of client can have.
    let (clean_summary, clean_evidence) = match observation.client {
        ClientSide::Modelled(record) => modelled(ledger, record, words, &mut verdicts),
        ClientSide::Real { context, report } => real(ledger, context, report, words, &mut verdicts),
    };
    // What the ledger shows, read as each kind of client allows.
    duplicate_effect::verdicts(ledger, words, &mut verdicts);
    missed_change::verdicts(ledger, words, &mut verdicts);
    era_mismatch::verdicts(ledger, words, &mut verdicts);
    reconnect_loop::verdicts(ledger, words, &mut verdicts);
    refused_without_recovery::verdicts(ledger, words, &mut verdicts);
    session_abandoned::verdicts(ledger, words, &mut verdicts);
    match observation.client {
        ClientSide::Modelled(record) => {
            lost_task::modelled(ledger, record, words, &mut verdicts);
            hung::modelled(record, words, &mut verdicts);
        }
        ClientSide::Real { report, .. } => {
            lost_task::real(ledger, report.ok(), words, &mut verdicts);
            // A task lost in a restart that the client took for finished is the result
            // the server never sent, named by its cause: one verdict, not two.
            if verdicts.iter().any(|v| v.kind == VerdictKind::LostTask) {
                verdicts.retain(|v| {
                    !matches!(&v.evidence, Evidence::Values(lost) if lost.only_result_not_sent())
                });
            }
        }
    }
    // Typed errors and nothing lost: the client knew.
    if let Some(record) = observation.record()
        && !verdicts
            .iter()
            .any(|v| v.kind.is_loss() || v.kind == VerdictKind::SurfacedLoss)
    {
        detected::modelled(record, words, &mut verdicts);
    }
    // `clean` is a claim that nothing went wrong: it stands alone, never beside a loss, a
    // duplicate or any other harm; and only when the scenario's faults were exercised
    // and it applied to this client.
    if verdicts.is_empty() {
        verdicts.push(nothing_found(
            observation,
            clean_summary,
            clean_evidence,
            words,
        ));
    }
    verdicts.sort_by_key(|v| (v.kind, v.at_ms));
    // A real client of the other era met none of the scenario's faults as meant: the run
    // says so in place of everything it found (kept as evidence).
    if let ClientSide::Real { .. } = observation.client {
        let kinds = verdicts.iter().map(|v| v.kind).collect();
        if let Some(other) = crate::other_era::other_era(ledger, observation.exercise.era, kinds) {
            verdicts = vec![Verdict {
                kind: VerdictKind::OtherEra,
                at_ms: 0,
                summary: words.say(|| other.sentence()),
                evidence: Evidence::OtherEra {
                    other,
                    judged: verdicts,
                },
            }];
        }
    }
    verdicts
}

/// The rules that read a modelled client's record; returns what its `clean` would say.
fn modelled(
    ledger: &Ledger,
    record: &ClientRecord,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) -> (String, Evidence) {
    let applied = applied_counts(ledger, record);
    let superseded = gap::modelled(ledger, record, &applied, words, verdicts);
    if verdicts.is_empty() {
        gap::given_up_while_pending(ledger, record, words, verdicts);
    }
    duplicate::modelled(ledger, record, &applied, words, verdicts);
    let requests = LazyRequestIndex::new(record);
    let resumed = resumptions_by_conn(ledger, record);
    let misrouted = Misrouted::of(ledger);
    cursor_reuse::modelled(ledger, record, &resumed, words, verdicts);
    zombie_session::modelled(
        ledger, record, &requests, &resumed, &misrouted, words, verdicts,
    );
    retry_amplification::modelled(record, &requests, &misrouted, words, verdicts);
    reinit_collision::modelled(record, &requests, words, verdicts);
    quarantine_violation::modelled(ledger, record, words, verdicts);
    foreign_event::modelled(ledger, record, words, verdicts);
    misrouted_session::modelled(ledger, record, words, verdicts);
    let clean = words.say(|| {
        let produced = ledger.data_events();
        let applied = if superseded == 0 {
            format!(
                "every one of the {produced} events produced for the client was applied exactly once"
            )
        } else {
            format!(
                "every one of the {} events owed to the client was applied exactly once; \
                 {superseded} more belonged to attempts of calls that a later attempt completed",
                produced - superseded
            )
        };
        // A call that failed and said so lost nothing produced, but it is not done: the
        // sentence says so, as a real client's `clean` names the error its report carries.
        let failed = record.calls_failed_loudly();
        if failed.is_empty() {
            applied
        } else {
            let calls: Vec<String> = failed
                .iter()
                .map(|(call, error)| match error {
                    Some(crate::client_error::ClientError::Surfaced { message }) => {
                        format!("{call} ({message})")
                    }
                    Some(error) => format!("{call} ({error})"),
                    None => call.to_string(),
                })
                .collect();
            format!(
                "{applied}; nothing produced was lost, and the application was told these calls failed: {}",
                calls.join("; ")
            )
        }
    });
    (clean, Evidence::None)
}

/// The rules that read a real client's report and the ledger's order; returns what its
/// `clean` would say.
fn real(
    ledger: &Ledger,
    context: &ClientContext,
    report: Result<&ClientReport, &MissingReport>,
    words: Words,
    verdicts: &mut Vec<Verdict>,
) -> (String, Evidence) {
    // The requests in the ledger's order tell what they tell, report or none.
    cursor_reuse::real(ledger, words, verdicts);
    zombie_session::real(ledger, words, verdicts);
    retry_amplification::real(ledger, words, verdicts);
    reinit_collision::real(ledger, words, verdicts);
    misrouted_session::real(ledger, words, verdicts);
    let report = match report {
        Ok(report) => report,
        Err(missing) => {
            verdicts.push(missing.verdict(ledger, words));
            return (String::new(), Evidence::None);
        }
    };
    let supports = crate::not_applicable::supports_shown(report);
    let owed = owed::owed(ledger, context, supports);
    let clean = match gap::real(ledger, &owed, context, report, words) {
        Ok(loss) => {
            verdicts.push(loss);
            (String::new(), Evidence::None)
        }
        Err(nothing_lost) => {
            let summary = words.say(|| match (&report.error, &report.result) {
                (None, _) => "everything produced reached the application".to_string(),
                // The call's result came: the error the application saw was not the
                // call's failure.
                (Some(error), Some(_)) => format!(
                    "everything produced reached the application, the call's result with it; the application also saw an error: {error}"
                ),
                (Some(error), None) => {
                    format!("nothing produced was lost; the call failed loudly: {error}")
                }
            });
            (summary, Evidence::Values(nothing_lost))
        }
    };
    verdicts.extend(duplicate::real(ledger, &owed, report, words));
    if let Some(found) = crate::out_of_order::out_of_order(&report.progress) {
        verdicts.push(Verdict {
            kind: VerdictKind::OutOfOrder,
            at_ms: 0,
            summary: words.say(|| found.sentence()),
            evidence: Evidence::OutOfOrder(found),
        });
    }
    quarantine_violation::real(ledger, report, words, verdicts);
    foreign_event::real(ledger, report, words, verdicts);
    clean
}

/// No rule found anything: `not_applicable` when the scenario needs what a real client
/// declared it cannot do, `untested` when nothing the scenario tests happened, else
/// `clean`.
fn nothing_found(
    observation: &Observation,
    summary: String,
    evidence: Evidence,
    words: Words,
) -> Verdict {
    let ledger = observation.ledger;
    if let Some(report) = observation.report()
        && let Some(not_applicable) = crate::not_applicable::not_applicable(
            observation.exercise.needs,
            crate::not_applicable::supports_shown(report),
        )
    {
        return Verdict {
            kind: VerdictKind::NotApplicable,
            at_ms: 0,
            summary: words.say(|| not_applicable.sentence()),
            evidence: Evidence::NotApplicable(not_applicable),
        };
    }
    // Which calls reached the server, as the client's side tells them apart: a retry of
    // one call is not another call made.
    let mut exercise = observation.exercise;
    if exercise.calls_reached.is_none() {
        exercise.calls_reached = match observation.client {
            ClientSide::Modelled(record) => Some(record.calls_reached(ledger)),
            ClientSide::Real { context, .. } => owed::contract_call_reached(ledger, context),
        };
    }
    if let Some(untested) = crate::untested::untested(ledger, exercise) {
        return Verdict {
            kind: VerdictKind::Untested,
            at_ms: 0,
            summary: words.say(|| untested.sentence()),
            evidence: Evidence::Untested(untested),
        };
    }
    Verdict {
        kind: VerdictKind::Clean,
        at_ms: 0,
        summary,
        evidence,
    }
}

/// The ledger's entry for each connection the client resumed on (its first, as the checks
/// always read it); empty for a client that never resumed.
fn resumptions_by_conn<'a>(
    ledger: &'a Ledger,
    record: &ClientRecord,
) -> BTreeMap<ConnId, &'a ResumeEntry> {
    let mut by_conn = BTreeMap::new();
    if !record.resumptions.is_empty() {
        for e in &ledger.resumptions {
            by_conn.entry(e.conn).or_insert(e);
        }
    }
    by_conn
}

/// How many times the client applied each event of the ledger, by index.
fn applied_counts(ledger: &Ledger, record: &ClientRecord) -> Vec<u32> {
    let mut counts = vec![0u32; ledger.events.len()];
    for a in &record.applied {
        counts[a.event.0 as usize] += 1;
    }
    counts
}
