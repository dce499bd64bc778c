//! Reports: a readable timeline in virtual time for people, one JSON object for machines.
//!
//! The timeline folds long runs of alike events ("ids 1..=4471, 4471 notifications,
//! applied") so a 4,000-event incident still reads in a screenful, and prints what the
//! session store and event log held at every fault and every session death.

use faultline_model::Payload;
use serde_json::{Value, json};

use crate::client::Fate;
use crate::spell::{short_id, vtime};
use crate::trace::{TraceEntry, TraceWhat};
use crate::{ExpectationCheck, RunOutcome};

fn payload_label(p: &Payload) -> &'static str {
    match p {
        Payload::Priming => "priming",
        Payload::Progress { .. } => "progress",
        Payload::ToolResult { .. } => "tool result",
        Payload::Notification { .. } => "notification",
        Payload::Response { .. } => "response",
    }
}

fn fate_label(f: Fate) -> &'static str {
    match f {
        Fate::Applied => "applied",
        Fate::SkippedAsSeen => "SKIPPED as already seen",
        Fate::Buffered => "buffered until the liveness probe answers",
        Fate::Quarantined => "quarantined",
        Fate::Ignored => "lost in flight (connection already gone)",
        Fate::Primed => "cursor primed",
    }
}

fn line(out: &mut String, at: u64, actor: &str, text: &str) {
    out.push_str(&format!("{:<16} {:<7} {text}\n", vtime(at), actor));
}

/// The human report: timeline, verdicts with evidence, expectation.
pub fn text_report(outcome: &RunOutcome, check: &ExpectationCheck, reproduce: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "faultline run: {} (seed {}, client {})\n",
        outcome.scenario,
        outcome.seed,
        outcome.client.name()
    ));
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
        out.push_str("  holds\n");
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

/// One folded run of alike events.
struct Run {
    first_at: u64,
    last_at: u64,
    conn: u64,
    stream: u32,
    generation: u32,
    label: &'static str,
    replay: bool,
    fate: Fate,
    first_id: Option<u64>,
    last_id: Option<u64>,
    count: u32,
}

fn flush(out: &mut String, run: &mut Option<Run>) {
    let Some(r) = run.take() else {
        return;
    };
    let ids = match (r.first_id, r.last_id) {
        (Some(a), Some(b)) if a == b => format!("id {a}"),
        (Some(a), Some(b)) => format!("ids {a}..={b}"),
        _ => "no id".to_string(),
    };
    let what = if r.count == 1 {
        r.label.to_string()
    } else {
        format!("{} x{}", r.label, r.count)
    };
    let replay = if r.replay { " (replay)" } else { "" };
    let span = if r.count > 1 && r.last_at != r.first_at {
        format!(" until {}", vtime(r.last_at))
    } else {
        String::new()
    };
    line(
        out,
        r.first_at,
        "server",
        &format!(
            "=> conn {}: {ids} {what}{replay}, stream #{} gen {}{span} -> {}",
            r.conn,
            r.stream,
            r.generation,
            fate_label(r.fate)
        ),
    );
}

fn timeline(out: &mut String, outcome: &RunOutcome) {
    let mut run: Option<Run> = None;
    for TraceEntry { at_ms, what } in &outcome.result.trace {
        let at = *at_ms;
        if let TraceWhat::Event {
            conn,
            id,
            stream,
            generation,
            payload,
            replay,
            fate,
            ..
        } = what
        {
            let label = payload_label(payload);
            if let Some(r) = &mut run {
                let contiguous = match (r.last_id, id) {
                    (Some(a), Some(b)) => *b > a,
                    _ => false,
                };
                if r.conn == *conn
                    && r.stream == *stream
                    && r.label == label
                    && r.replay == *replay
                    && r.fate == *fate
                    && contiguous
                {
                    r.last_at = at;
                    r.last_id = *id;
                    r.count += 1;
                    continue;
                }
            }
            flush(out, &mut run);
            run = Some(Run {
                first_at: at,
                last_at: at,
                conn: *conn,
                stream: *stream,
                generation: *generation,
                label,
                replay: *replay,
                fate: *fate,
                first_id: *id,
                last_id: *id,
                count: 1,
            });
            continue;
        }
        flush(out, &mut run);
        match what {
            TraceWhat::Request {
                conn,
                task,
                http,
                rpc,
                session,
                last_event_id,
                deferred,
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
            TraceWhat::Event { .. } => unreachable!("handled above"),
        }
    }
    flush(out, &mut run);
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
    })
}
