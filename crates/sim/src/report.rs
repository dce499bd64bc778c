//! Reports: a readable timeline in virtual time for people, one JSON object for machines.
//!
//! The timeline folds long runs of alike events ("ids 1..=4471 notification x4471 ->
//! applied", the same folding as the diagrams: see `fold`) so a 4,000-event incident still
//! reads in a screenful, and prints what the session store and event log held at every
//! fault and every session death.

use serde_json::{Value, json};

use crate::fold::{EventRun, Folded, fold_trace};
use crate::trace::{TraceEntry, TraceWhat};
use crate::verdict::VerdictKind;
use crate::{ExpectationCheck, RunOutcome};
use faultline_verdicts::spell::{short_id, vtime};

fn line(out: &mut String, at: u64, actor: &str, text: &str) {
    out.push_str(&format!("{:<16} {:<7} {text}\n", vtime(at), actor));
}

/// The human report: title and the scenario's summary, timeline, verdicts with evidence,
/// expectation.
pub fn text_report(
    outcome: &RunOutcome,
    summary: &str,
    check: &ExpectationCheck,
    reproduce: &str,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "faultline run: {} (seed {}, client {})\n",
        outcome.scenario,
        outcome.seed,
        outcome.client.name()
    ));
    if !summary.trim().is_empty() {
        out.push_str(&format!("  {}\n", summary.trim()));
    }
    for choice in &outcome.result.choices {
        out.push_str(&format!("  seed chose: {choice}\n"));
    }
    out.push_str("\ntimeline (virtual time)\n");
    timeline(&mut out, outcome);
    out.push_str("\nverdicts\n");
    for v in &outcome.verdicts {
        out.push_str(&format!(
            "  {:<20} at {:<14} {}\n",
            v.kind.name(),
            vtime(v.at_ms),
            v.summary
        ));
    }
    out.push_str("\nexpectation\n");
    if !check.stated {
        out.push_str(&format!(
            "  the scenario states none for client {}\n",
            outcome.client.name()
        ));
    } else if check.holds() {
        out.push_str(&format!("  holds{}\n", harm_expected(outcome)));
    } else {
        for k in &check.missing {
            out.push_str(&format!(
                "  MISSING  {k} (the scenario says it must appear)\n"
            ));
        }
        for k in &check.forbidden {
            out.push_str(&format!(
                "  FORBIDDEN  {k} (the scenario says it must not appear)\n"
            ));
        }
        out.push_str(&format!("  reproduce: {reproduce}\n"));
    }
    out
}

/// For an expectation that holds on a harmed client: one sentence saying that exit 0 means
/// the scenario reproduced its harm, not that the client came through unharmed.
fn harm_expected(outcome: &RunOutcome) -> String {
    let mut harms: Vec<&str> = Vec::new();
    for kind in outcome.kinds() {
        if !matches!(kind, VerdictKind::Clean | VerdictKind::Detected)
            && !harms.contains(&kind.name())
        {
            harms.push(kind.name());
        }
    }
    if harms.is_empty() {
        return String::new();
    }
    let kinds = outcome.kinds();
    let loses = kinds.iter().any(|k| {
        (k.is_loss() && !matches!(k, VerdictKind::DuplicateEffect | VerdictKind::MissedChange))
            || *k == VerdictKind::SurfacedLoss
    });
    let twice = kinds.contains(&VerdictKind::DuplicateEffect);
    let stale = kinds.contains(&VerdictKind::MissedChange);
    // A duplicate the server made alone (a task run again after a restart) is not the
    // client's doing: say so rather than blame it.
    let server_alone = twice
        && !loses
        && !stale
        && outcome.verdicts.iter().all(|v| match &v.evidence {
            crate::Evidence::DuplicateEffect { commits, .. } => {
                commits[1..].iter().all(|c| c.rerun_of_task.is_some())
            }
            _ => v.kind != VerdictKind::DuplicateEffect,
        });
    if server_alone {
        return format!(
            ": the server does work twice here on its own ({harms}: a task it ran again after a restart), whatever the {client} client does, as the scenario says it should; exit 0 means the incident reproduced",
            harms = harms.join(", "),
            client = outcome.client.name(),
        );
    }
    format!(
        ": the {client} client {what} here ({harms}), as the scenario says it should; exit 0 means the incident reproduced, not that the client is safe",
        client = outcome.client.name(),
        what = match (loses, twice, stale) {
            (true, true, _) => "loses data and does work twice",
            (true, false, _) => "loses data",
            (false, true, _) => "does work twice",
            (false, false, true) => "works from a stale tools list",
            (false, false, false) => "goes wrong",
        },
        harms = harms.join(", "),
    )
}

/// One line for a folded run of alike events (see [`fold_trace`]).
fn events_line(out: &mut String, run: &EventRun) {
    let what = if run.count == 1 {
        run.label.to_string()
    } else {
        format!("{} x{}", run.label, run.count)
    };
    let replay = if run.replay { " (replay)" } else { "" };
    let span = if run.last_at != run.first_at {
        format!(" until {}", vtime(run.last_at))
    } else {
        String::new()
    };
    line(
        out,
        run.first_at,
        "server",
        &format!(
            "=> conn {}: {} {what}{replay}, stream #{} gen {}{span} -> {}",
            run.conn,
            run.ids_text(),
            run.stream,
            run.generation,
            run.fate.label()
        ),
    );
}

fn timeline(out: &mut String, outcome: &RunOutcome) {
    for step in fold_trace(&outcome.result.trace) {
        let TraceEntry { at_ms: at, what } = match step {
            Folded::Events(run) => {
                events_line(out, &run);
                continue;
            }
            Folded::Entry(entry) => entry,
        };
        let at = *at;
        match what {
            TraceWhat::Request {
                conn,
                task,
                http,
                rpc,
                session,
                last_event_id,
                deferred,
                route,
            } => {
                let mut text = format!(
                    "{http} {}",
                    rpc.as_deref()
                        .unwrap_or(if *http == "GET" { "(SSE stream)" } else { "" })
                );
                if let Some(s) = session {
                    text.push_str(&format!("  session {}", short_id(s)));
                }
                if let Some(c) = last_event_id {
                    text.push_str(&format!("  Last-Event-ID: {c}"));
                }
                if *deferred {
                    text.push_str("  (held back while away)");
                }
                if let Some(route) = route {
                    text.push_str(&format!("  -> {} by {}", route.replica, route.why.label()));
                }
                line(
                    out,
                    at,
                    "client",
                    &format!("-> conn {conn} [{}] {text}", task.label()),
                );
            }
            TraceWhat::Response {
                conn,
                status,
                session,
                stream,
            } => {
                let mut text = format!("<- conn {conn}: {status}");
                if let Some(s) = session {
                    text.push_str(&format!(", Mcp-Session-Id {}", short_id(s)));
                }
                if let Some(s) = stream {
                    text.push_str(&format!(", SSE stream #{s}"));
                }
                line(out, at, "server", &text);
            }
            TraceWhat::End { conn, how } => {
                line(
                    out,
                    at,
                    "network",
                    &format!(
                        "conn {conn} ended ({})",
                        match how {
                            faultline_model::EndMode::Close => "closed",
                            faultline_model::EndMode::Reset => "reset",
                        }
                    ),
                );
            }
            TraceWhat::KeepAlive { conn } => {
                line(out, at, "server", &format!("conn {conn}: `: keep-alive`"));
            }
            TraceWhat::Fault { fault } => line(out, at, "FAULT", fault),
            TraceWhat::ClientError { error } => line(out, at, "client", &format!("!! {error}")),
            TraceWhat::SessionDied { session, cause } => line(
                out,
                at,
                "store",
                &format!("session {} removed ({cause:?})", short_id(session)),
            ),
            TraceWhat::State { store, log } => {
                line(out, at, "store", store);
                line(out, at, "log", log);
            }
            TraceWhat::Event { .. } => unreachable!("events are folded into runs"),
        }
    }
}

/// The machine report: one JSON object.
pub fn json_report(outcome: &RunOutcome, check: &ExpectationCheck) -> Value {
    json!({
        "scenario": outcome.scenario,
        "seed": outcome.seed,
        "client": outcome.client.name(),
        "verdicts": outcome.verdicts,
        "expectation": {
            "stated": check.stated,
            "holds": check.holds(),
            "missing": check.missing,
            "forbidden": check.forbidden,
        },
        "end_ms": outcome.result.end_ms,
        "events_produced": outcome.result.ledger.events.len(),
        "events_applied": outcome.result.record.applied.len(),
        "trace_sha256": outcome.trace_sha256(),
        "ledger_sha256": outcome.ledger_sha256(),
    })
}
