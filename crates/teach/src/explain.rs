//! `explain`: a run told in plain words, generated from the run itself.
//!
//! Nothing here is written per scenario. The story has five parts, each read from a
//! different witness so none of them can flatter another:
//!
//! 1. the trap: the server's knobs (see `knobs_story`) and the faults the run injected;
//! 2. what the client believed: its own record (requests, statuses, what it did with each
//!    replayed event, the errors it raised);
//! 3. what was really true: the server's ledger (when sessions died and why, generations,
//!    how each cursor was resolved, when the cursor's event left the log);
//! 4. what was lost: the oracle's verdict evidence;
//! 5. which guard would have caught it: the shared guard table (see `guards`).

use std::fmt::Write as _;

use faultline_model::{CursorResolution, DeathCause, JobEnd, Ledger, OnStreamCut, UnknownCursor};

use faultline_sim::{
    ClientEra, ClientModel, Evidence, RunOutcome, Scenario, TraceWhat, Verdict, VerdictKind,
    short_id, vtime,
};

use crate::fleet_story::fleet_trap;
use crate::guards::{guard_for, guard_for_verdict, guards_fired};
use crate::knobs_story::trap;

/// The explanation of one run. `contrast` is the same scenario and seed run with the other
/// client model, when the caller has it, to say what the guards changed.
pub fn explain(scenario: &Scenario, outcome: &RunOutcome, contrast: Option<&RunOutcome>) -> String {
    let mut out = String::new();
    let kinds: Vec<&str> = outcome.kinds().iter().map(|k| k.name()).collect();
    let _ = writeln!(
        out,
        "{} (seed {}, {} client): {}",
        scenario.name,
        outcome.seed,
        outcome.client.name(),
        kinds.join(", ")
    );
    let _ = writeln!(out, "{}", scenario.summary);

    section(&mut out, "The trap");
    let modern = scenario.client.era == ClientEra::Modern;
    if modern {
        // Sessions, cursors and logs do not exist for a 2026-07-28 client: its trap is
        // what a cut request stream does to the call, or a dropped listen to the changes
        // it would have heard, whichever the run cut.
        let cuts = ModernCuts::of(outcome);
        if cuts.calls || !cuts.listens {
            bullet(&mut out, &modern_trap(scenario.server.on_stream_cut));
        }
        if cuts.listens {
            bullet(&mut out, LISTEN_TRAP);
        }
    } else {
        let restarts = !outcome.result.ledger.restarts.is_empty();
        for line in trap(&scenario.server, restarts) {
            bullet(&mut out, &line);
        }
    }
    for line in fleet_trap(&scenario.fleet) {
        bullet(&mut out, &line);
    }
    for e in &outcome.result.trace {
        if let TraceWhat::Fault { fault } = &e.what {
            bullet(
                &mut out,
                &format!("At {} the run injected a fault: {fault}.", vtime(e.at_ms)),
            );
        }
    }

    section(&mut out, "What the client believed, and why");
    for line in beliefs(outcome, modern) {
        bullet(&mut out, &line);
    }

    section(&mut out, "What was really true (the server's ledger)");
    for line in truths(scenario, outcome) {
        bullet(&mut out, &line);
    }

    section(&mut out, "What was lost");
    for v in &outcome.verdicts {
        bullet(&mut out, &loss(v));
    }

    section(&mut out, "Which guard would have caught it");
    for line in guards(outcome) {
        bullet(&mut out, &line);
    }
    if let Some(other) = contrast {
        let kinds: Vec<&str> = other.kinds().iter().map(|k| k.name()).collect();
        let _ = writeln!(
            out,
            "\nThe {} client on the same server and seed gets: {}.",
            other.client.name(),
            kinds.join(", ")
        );
    }
    out
}

fn section(out: &mut String, title: &str) {
    let _ = writeln!(out, "\n{title}");
}

fn bullet(out: &mut String, text: &str) {
    let _ = writeln!(out, "  - {text}");
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The JSON-RPC method of a 2026-07-28 listen.
const LISTEN: &str = "subscriptions/listen";

/// The 2026-07-28 trap of a dropped listen.
const LISTEN_TRAP: &str = "The client speaks 2026-07-28: it hears of list changes only on a listen stream (`subscriptions/listen`), which keeps no state: a change is sent to the listen streams open when it is made, and a new listen replays nothing, so a change made while the client's listen was down never reaches it.";

/// Which 2026-07-28 streams of the client's the run cut before they were done: a call's
/// request stream (ended before the call's result), or a listen stream.
struct ModernCuts {
    calls: bool,
    listens: bool,
}

impl ModernCuts {
    fn of(outcome: &RunOutcome) -> ModernCuts {
        let mut cuts = ModernCuts {
            calls: false,
            listens: false,
        };
        for (q, _) in cut_streams(outcome) {
            if q.rpc.as_deref() == Some(LISTEN) {
                cuts.listens = true;
            } else {
                cuts.calls = true;
            }
        }
        cuts
    }
}

/// Each of the client's 2026-07-28 streams that ended before a result came on it, with the
/// request it answered and the end's trace entry.
fn cut_streams(
    outcome: &RunOutcome,
) -> impl Iterator<Item = (&faultline_sim::RequestRecord, &faultline_sim::TraceEntry)> {
    let trace = &outcome.result.trace;
    let record = &outcome.result.record;
    trace.iter().filter_map(move |e| {
        let TraceWhat::End { conn, .. } = &e.what else {
            return None;
        };
        let q = record.requests.iter().find(|q| q.conn.0 == *conn)?;
        let answered = trace.iter().any(|t| {
            matches!(&t.what, TraceWhat::Event { conn: c, payload: faultline_model::Payload::ToolResult { .. }, .. } if c == conn)
        });
        (!answered).then_some((q, e))
    })
}

/// The 2026-07-28 trap: a request stream is the call, and a cut one cannot be resumed.
fn modern_trap(on_cut: OnStreamCut) -> String {
    let job = match on_cut {
        OnStreamCut::StopAtOnce => {
            "stops the call's job at the cut (`on_stream_cut: StopAtOnce`): what it committed before the cut stays committed"
        }
        OnStreamCut::FinishThroughCommit => {
            "lets the call's job run on silently through its commit (`on_stream_cut: FinishThroughCommit`)"
        }
        OnStreamCut::RunToEnd => {
            "lets the call's job run on silently to its end (`on_stream_cut: RunToEnd`)"
        }
    };
    format!(
        "The client speaks 2026-07-28: each call is one POST answered on its own SSE stream, with no event ids, so a cut stream cannot be resumed and the client cannot ask what became of the call. The server {job}."
    )
}

/// What the client saw and concluded, from its record and the trace.
fn beliefs(outcome: &RunOutcome, modern: bool) -> Vec<String> {
    let record = &outcome.result.record;
    let mut out: Vec<(u64, String)> = Vec::new();
    for (i, (at, session)) in record.sessions.iter().enumerate() {
        if i == 0 {
            out.push((
                *at,
                format!(
                    "At {} it initialized session {}.",
                    vtime(*at),
                    short_id(session)
                ),
            ));
        }
    }
    for r in &record.resumptions {
        let status = record
            .requests
            .iter()
            .find(|q| q.conn == r.conn)
            .and_then(|q| q.status);
        let mut s = format!(
            "At {} it resumed session {} with Last-Event-ID {}; the GET answered {}",
            vtime(r.at_ms),
            short_id(&r.session),
            r.cursor,
            status.map_or("nothing".to_string(), |s| s.to_string())
        );
        // What arrived on that connection, and what the client did with it.
        let mut arrived: Vec<(u64, bool, &'static str)> = Vec::new();
        for e in &outcome.result.trace {
            if let TraceWhat::Event {
                conn,
                id,
                replay,
                fate,
                ..
            } = &e.what
                && *conn == r.conn.0
                && let Some(id) = id
            {
                arrived.push((*id, *replay, fate_words(*fate)));
            }
        }
        if let Some((first, _, _)) = arrived.first() {
            let replayed = arrived.iter().filter(|a| a.1).count();
            let _ = write!(
                s,
                " and brought {} starting at id {first}",
                plural(arrived.len(), "event")
            );
            if replayed > 0 {
                let _ = write!(s, " ({replayed} replayed from the log)");
            }
            s.push('.');
            let mut fates: Vec<&str> = arrived.iter().map(|a| a.2).collect();
            fates.dedup();
            if *first == r.cursor + 1 {
                let _ = write!(
                    s,
                    " The first id was cursor + 1, so the stream looked contiguous"
                );
            } else if *first <= r.cursor {
                let _ = write!(
                    s,
                    " The ids restarted at {first}, at or below its cursor {}",
                    r.cursor
                );
            } else {
                let _ = write!(s, " The ids jumped ahead of cursor + 1 = {}", r.cursor + 1);
            }
            let _ = write!(s, "; it {}.", fates.join(", then "));
        } else {
            s.push_str(" and brought no event.");
        }
        let probe = record
            .requests
            .iter()
            .find(|q| q.conn.0 > r.conn.0 && q.task == faultline_sim::Task::Probe);
        match (status, probe) {
            (Some(200), Some(p)) if p.at_ms == r.at_ms => {
                let _ = write!(
                    s,
                    " It did not take the 200 as proof of life: it sent a liveness probe ({}), answered {}.",
                    p.describe(),
                    p.status.map_or("nothing".into(), |x| x.to_string())
                );
            }
            (Some(200), _) => s.push_str(
                " A 200 on the GET looked like proof the session was alive, so it marked the session healthy.",
            ),
            _ => {}
        }
        out.push((r.at_ms, s));
    }
    // Requests that met a dead session, and what the client did next.
    let mut told_dead: Vec<&str> = Vec::new();
    for q in &record.requests {
        let (Some(session), Some(status @ (404 | 410))) = (q.session.as_deref(), q.status) else {
            continue;
        };
        if told_dead.contains(&session) {
            continue;
        }
        told_dead.push(session);
        let later: Vec<_> = record
            .requests
            .iter()
            .filter(|x| x.conn.0 > q.conn.0 && x.session.as_deref() == Some(session))
            .collect();
        let mut s = format!(
            "At {} its {} on session {} answered {status}.",
            vtime(q.at_ms),
            q.describe(),
            short_id(session)
        );
        if !later.is_empty() {
            let tasks: Vec<String> = later.iter().map(|x| x.task.label()).collect();
            let mut uniq = tasks.clone();
            uniq.dedup();
            let _ = write!(
                s,
                " It took that for a failure of the request, not of the session: {} more {} went to the same session afterwards (task {}), from {} to {}.",
                later.len(),
                if later.len() == 1 {
                    "request"
                } else {
                    "requests"
                },
                uniq.join(", "),
                vtime(later[0].at_ms),
                vtime(later[later.len() - 1].at_ms)
            );
        } else {
            s.push_str(" It took that as the end of the session and sent it nothing more.");
        }
        out.push((q.at_ms, s));
    }
    for (q, e) in cut_streams(outcome).filter(|_| modern) {
        let TraceWhat::End { how, .. } = &e.what else {
            continue;
        };
        let believed = if q.rpc.as_deref() == Some(LISTEN) {
            format!(
                "At {} its listen stream ({} sent at {}) ended ({how:?}): until it listened again, no list change could reach it.",
                vtime(e.at_ms),
                q.describe(),
                vtime(q.at_ms)
            )
        } else {
            format!(
                "At {} the stream answering its {} sent at {} ended ({how:?}) before the response: it could not tell whether the call had taken effect.",
                vtime(e.at_ms),
                q.describe(),
                vtime(q.at_ms)
            )
        };
        out.push((e.at_ms, believed));
    }
    for e in &record.errors {
        out.push((
            e.at_ms,
            format!(
                "At {} it raised: {}{}",
                vtime(e.at_ms),
                e.error,
                if matches!(
                    e.error,
                    faultline_sim::ClientError::CallCut(_)
                        | faultline_sim::ClientError::TaskLost(_)
                ) {
                    " (a typed error: a guard fired)."
                } else if e.error.is_typed() {
                    " (a typed resumption error: a guard fired)."
                } else {
                    " (untyped: the application learns that something failed, not what was lost)."
                }
            ),
        ));
    }
    for (at, session) in record.sessions.iter().skip(1) {
        out.push((
            *at,
            format!(
                "At {} it re-initialized and got session {}.",
                vtime(*at),
                short_id(session)
            ),
        ));
    }
    for c in &record.calls {
        if c.attempts > 1 {
            out.push((
                u64::MAX,
                format!(
                    "It sent {} {} times, {}{}.",
                    c.key,
                    c.attempts,
                    if modern {
                        "each as a new request with a new id (a 2026-07-28 client has no idempotency key to send)"
                    } else {
                        "under the same idempotency key"
                    },
                    c.completed_at_ms.map_or_else(
                        || "; it never completed".to_string(),
                        |t| format!("; it completed at {}", vtime(t))
                    )
                ),
            ));
        } else if c.completed_at_ms.is_none() && c.failed_at_ms.is_none() {
            out.push((u64::MAX, format!(
                "It never saw {} finish, and nothing told it so: it is still waiting for the result.",
                c.key
            )));
        }
    }
    // A 2025 client's first line is its initialize; a 2026-07-28 client has none.
    if out.len() <= usize::from(!modern) {
        out.push((
            u64::MAX,
            "Nothing went wrong that it could see: every stream it opened stayed healthy.".into(),
        ));
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, s)| s).collect()
}

fn fate_words(fate: faultline_sim::Fate) -> &'static str {
    use faultline_sim::Fate;
    match fate {
        Fate::Applied => "applied them",
        Fate::SkippedAsSeen => "discarded them as already seen (id <= cursor)",
        Fate::Buffered => "held them back until its liveness probe answered",
        Fate::Quarantined => "quarantined them",
        Fate::Ignored => "lost them in flight",
        Fate::Primed => "took the priming event's id as its cursor",
    }
}

fn cause_words(cause: DeathCause) -> &'static str {
    match cause {
        DeathCause::IdleTtl => "its idle TTL ran out",
        DeathCause::AbsoluteTtl => "its absolute TTL ran out",
        DeathCause::Deleted => "the client deleted it",
        DeathCause::Restart => "a restart forgot it",
        DeathCause::ReplicaDown => "its replica went down and forgot it",
        DeathCause::ReplicaRemoved => "its replica was scaled away and took it along",
    }
}

fn answer_words(answer: UnknownCursor) -> &'static str {
    match answer {
        UnknownCursor::FreshStream => "opened a fresh stream with a 200 instead of an error",
        UnknownCursor::BadRequest => "answered 400",
        UnknownCursor::NotFound => "answered 404",
        UnknownCursor::Empty200 => "answered 200 with an empty stream",
        UnknownCursor::ReplayRemaining => "replayed what was left, gap or not",
        UnknownCursor::ServerError => "answered 500",
        UnknownCursor::Hang => "never answered at all",
    }
}

/// The ground truth, from the ledger.
fn truths(scenario: &Scenario, outcome: &RunOutcome) -> Vec<String> {
    let ledger: &Ledger = &outcome.result.ledger;
    let mut out = Vec::new();
    for s in &ledger.sessions {
        if s.stateless {
            out.push(format!(
                "From {} the 2026-07-28 requests ran without a session (the ledger's stateless scope).",
                vtime(s.created_ms)
            ));
            continue;
        }
        let mut line = format!(
            "Session {} was created at {}",
            short_id(&s.wire_id),
            vtime(s.created_ms)
        );
        for (g, at) in s.generations.iter().enumerate().skip(1) {
            let _ = write!(
                line,
                "; a restart at {} made it generation {}, numbered afresh by `id_scheme: {:?}`",
                vtime(*at),
                g + 1,
                scenario.server.id_scheme
            );
        }
        match s.died {
            Some((at, cause)) => {
                let _ = write!(line, "; it died at {} ({}).", vtime(at), cause_words(cause));
            }
            None => line.push_str("; it was alive when the run ended."),
        }
        out.push(line);
    }
    for (i, job) in ledger.jobs.iter().enumerate() {
        if let Some((at, JobEnd::StreamClosed)) = job.ended {
            out.push(format!(
                "Job #{} ({}, request {}) ended at {} because its request stream was cut (`on_stream_cut: {:?}`); it produced nothing after the cut.",
                ledger.jobs_base + i as u32,
                job.tool,
                job.request_id,
                vtime(at),
                scenario.server.on_stream_cut
            ));
        }
    }
    for e in &ledger.effects {
        out.push(format!(
            "At {} order {} was committed by request {} (job #{}).",
            vtime(e.at_ms),
            e.order,
            e.request_id,
            e.job.0
        ));
    }
    let log_ttl = scenario.server.event_log_ttl.map(|d| d.ms());
    for r in &outcome.result.record.resumptions {
        let Some(entry) = ledger.resumptions.iter().find(|e| e.conn == r.conn) else {
            continue;
        };
        let cursor_event = r.cursor_event.map(|e| ledger.event(e));
        let mut line = format!("At {} the cursor {} ", vtime(r.at_ms), r.cursor);
        match entry.resolution {
            CursorResolution::Honoured {
                generation,
                replayed,
                ..
            } => {
                let _ = write!(
                    line,
                    "was honoured against generation {generation}'s numbering: {} replayed",
                    plural(replayed as usize, "event")
                );
                if let Some(ev) = cursor_event
                    && ev.generation != generation
                {
                    let _ = write!(
                        line,
                        ", although it had been minted in generation {}: the same number named a different event",
                        ev.generation
                    );
                }
                line.push('.');
            }
            CursorResolution::Stale {
                answer, replayed, ..
            } => {
                let _ = write!(
                    line,
                    "named a stream whose later events had been evicted; the server {} ({} replayed).",
                    answer_words(answer),
                    plural(replayed as usize, "event")
                );
            }
            CursorResolution::Unknown { answer } => {
                let _ = write!(line, "was unknown to the event log");
                if let (Some(ev), Some(ttl)) = (cursor_event, log_ttl) {
                    let _ = write!(
                        line,
                        " (event {} was produced at {} and left the log at {}, `event_log_ttl` {})",
                        ev.id,
                        vtime(ev.at_ms),
                        vtime(ev.at_ms + ttl),
                        faultline_model::DurationMs(ttl)
                    );
                }
                let _ = write!(line, "; the server {}.", answer_words(answer));
            }
            CursorResolution::SessionRejected { status } => {
                let _ = write!(
                    line,
                    "was never looked at: the GET was rejected with {status} because the session was gone."
                );
            }
        }
        if let Some(s) = ledger.sessions.iter().find(|s| s.wire_id == r.session) {
            match s.died {
                Some((died, _)) if died < r.at_ms => {
                    let _ = write!(
                        line,
                        " The session was already dead then (it died at {}).",
                        vtime(died)
                    );
                }
                Some((died, DeathCause::Deleted)) if died == r.at_ms => {
                    let _ = write!(
                        line,
                        " The session was alive for this answer; the client deleted it right after, at the same instant, once its guard had judged the resumption broken."
                    );
                }
                Some((died, _)) if died == r.at_ms => {
                    let _ = write!(
                        line,
                        " The session died at that same instant, right after this answer."
                    );
                }
                Some((died, _)) if !scenario.server.get_validates_session => {
                    let _ = write!(
                        line,
                        " The GET never asked the session store; the session had {} left to live.",
                        faultline_model::DurationMs(died - r.at_ms)
                    );
                }
                _ => {}
            }
        }
        out.push(line);
    }
    let produced = ledger
        .events
        .iter()
        .filter(|e| e.payload.carries_data())
        .count();
    out.push(format!(
        "The server produced {} for the client; the client applied {}.",
        plural(produced, "event"),
        plural(outcome.result.record.applied.len(), "event")
    ));
    out
}

/// "ids 4472..=4473" or "nothing".
fn replayed_words(ids: &faultline_sim::IdRanges) -> String {
    if ids.0.is_empty() {
        "nothing".to_string()
    } else {
        format!("ids {ids}")
    }
}

/// What a verdict says was lost, from its evidence.
fn loss(v: &Verdict) -> String {
    let name = v.kind.name();
    match &v.evidence {
        Evidence::Gap {
            session,
            generation,
            stream,
            ids,
            count,
            skipped_as_seen,
            never_delivered,
            lost_results,
        } => {
            let mut s = format!(
                "{name}: {count} event(s) of stream #{stream} (session {}, generation {generation}), ids {ids}, were never applied",
                short_id(session)
            );
            if !skipped_as_seen.0.is_empty() {
                let _ = write!(
                    s,
                    "; ids {skipped_as_seen} reached the client and were discarded as already seen"
                );
            }
            if !never_delivered.0.is_empty() {
                let _ = write!(s, "; ids {never_delivered} never reached it at all");
            }
            if !lost_results.is_empty() {
                let _ = write!(
                    s,
                    "; among them the final result of {}",
                    lost_results.join(", ")
                );
            }
            s.push_str(if v.kind == VerdictKind::SilentGap {
                ". No error said so."
            } else {
                ". An untyped error said something failed, not what."
            });
            s
        }
        Evidence::CursorReuse {
            cursor,
            minted_in_generation,
            honoured_in_generation,
            replayed,
            resumed_at_ms,
            ..
        } => format!(
            "{name}: at {} Last-Event-ID {cursor}, minted in generation {minted_in_generation}, was honoured in generation {honoured_in_generation}; {replayed} event(s) were replayed after it as if contiguous, so the transport called the gap delivered.",
            vtime(*resumed_at_ms)
        ),
        Evidence::Zombie(faultline_verdicts::zombie_session::Zombie {
            session,
            replay_at_ms,
            cursor,
            replayed_ids,
            rejected_at_ms,
            rejected_method,
            status,
            session_died_at_ms,
            cause,
        }) => format!(
            "{name}: session {} answered 200 to the resumption at {} (Last-Event-ID {cursor}, {} replayed), which proved nothing about the session{}; the next session-scoped request, {rejected_method} at {}, got {status}, {} after the replay. The failure surfaced far from its cause.",
            short_id(session),
            vtime(*replay_at_ms),
            replayed_words(replayed_ids),
            match (session_died_at_ms, cause) {
                (Some(at), Some(c)) => format!(
                    "; it died at {} ({c}) without the client noticing",
                    vtime(*at)
                ),
                _ => String::new(),
            },
            vtime(*rejected_at_ms),
            faultline_model::DurationMs(rejected_at_ms.saturating_sub(*replay_at_ms))
        ),
        Evidence::Requests(faultline_verdicts::session_requests::SessionRequests {
            session,
            since_ms,
            requests,
        }) => {
            let list: Vec<String> = requests
                .iter()
                .map(|r| {
                    format!(
                        "{} {} ({}) -> {}",
                        vtime(r.at_ms),
                        r.method,
                        r.task,
                        r.status.map_or("-".into(), |s| s.to_string())
                    )
                })
                .collect();
            let since = if v.kind == VerdictKind::ReinitCollision {
                "after the client re-initialized away from it"
            } else {
                "after it had answered 404/410"
            };
            format!(
                "{name}: {} still went to session {} {since} at {}: {}.",
                plural(requests.len(), "request"),
                short_id(session),
                vtime(*since_ms),
                list.join("; ")
            )
        }
        Evidence::Applied { session, events } => {
            let ids: Vec<String> = events.iter().take(8).map(|e| e.id.to_string()).collect();
            format!(
                "{name}: {} of session {} were applied when they should not have been (ids {}{}): {}.",
                plural(events.len(), "event"),
                short_id(session),
                ids.join(", "),
                if events.len() > 8 { ", …" } else { "" },
                events.first().map_or(String::new(), |e| e.detail.clone())
            )
        }
        Evidence::Detected {
            errors,
            recovered_calls,
        } => format!(
            "{name}: nothing was lost silently. The client raised {}{}.",
            errors.join("; "),
            if recovered_calls.is_empty() {
                String::new()
            } else {
                format!(
                    ", and re-issued and completed {}",
                    recovered_calls.join(", ")
                )
            }
        ),
        Evidence::Misrouted(faultline_verdicts::misrouted_session::MisroutedSession {
            session,
            held_by,
            requests,
        }) => {
            let list: Vec<String> = requests
                .iter()
                .map(|r| {
                    format!(
                        "{} {} ({}) went to r{}{} -> {}",
                        vtime(r.at_ms),
                        r.method,
                        r.task,
                        r.answered_by,
                        r.why
                            .map(|w| format!(" by {}", w.label()))
                            .unwrap_or_default(),
                        r.status.map_or("-".into(), |s| s.to_string())
                    )
                })
                .collect();
            format!(
                "{name}: session {} was alive on r{held_by} (per-replica session store), but {} reached another replica and got the unknown-session answer: {}.",
                short_id(session),
                plural(requests.len(), "request"),
                list.join("; ")
            )
        }
        Evidence::DuplicateEffect { order, commits, .. }
            if commits.len() > 1 && commits[1..].iter().all(|c| c.rerun_of_task.is_some()) =>
        {
            let rerun = &commits[1];
            format!(
                "{name}: order {order} was placed {} times. The first call committed it at {}; the server restarted{} while its task {} was running, kept the task (task_persistence: Everything) and ran its work again under the same task id, which committed it again at {}. No client re-issued the call, and nothing on the wire could tell it: the task was `working` again and the 2026-07-28 revision has no idempotency key. The server did the work again, at least once, on its own.",
                commits.len(),
                vtime(commits[0].at_ms),
                rerun
                    .started_ms
                    .map(|t| format!(" at {}", vtime(t)))
                    .unwrap_or_default(),
                rerun.rerun_of_task.as_deref().unwrap_or_default(),
                vtime(rerun.at_ms),
            )
        }
        Evidence::DuplicateEffect {
            order,
            commits,
            cut_at_ms,
            reissued_at_ms,
        } => format!(
            "{name}: order {order} was placed {} times. {}{}; the 2026-07-28 stream could not be resumed, so the client could not learn that the order had gone through, and {}. The server did the work again.",
            commits.len(),
            commits
                .first()
                .map(|c| format!("The first call committed it at {}", vtime(c.at_ms)))
                .unwrap_or_default(),
            cut_at_ms
                .map(|t| format!(", and its request stream was cut at {}", vtime(t)))
                .unwrap_or_default(),
            if reissued_at_ms.is_empty() {
                "the call was made again".to_string()
            } else {
                format!(
                    "the call was re-issued with a new request id at {}",
                    reissued_at_ms
                        .iter()
                        .map(|t| vtime(*t))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
        Evidence::MissedChange(m) => format!(
            "{name}: the {list} list changed to version {to} at {at}, while the client's listen stream was down ({down}); a 2026-07-28 server sends a change only to the listen streams open when it is made and replays nothing to a new one, so the client never heard of it. At {used} it called a tool from version {v} of the list, with version {cur} current.",
            list = m.list.word(),
            to = m.changed_to,
            at = vtime(m.changed_at_ms),
            down = match m.listen_down_to_ms {
                Some(t) => format!("from {} until {}", vtime(m.listen_down_from_ms), vtime(t)),
                None => format!(
                    "from {}, never listened again",
                    vtime(m.listen_down_from_ms)
                ),
            },
            used = vtime(m.used_at_ms),
            v = m.version_used,
            cur = m.version_current,
        ),
        Evidence::LostTask(task) => format!(
            "{name}: task {} ({}) was created at {} and {} at {}; {} {} asked for it at {} and got -32602 (unknown task), and the client took that for the end of the work. {}",
            task.task_id,
            task.tool,
            vtime(task.created_ms),
            faultline_verdicts::lost_task::loss_words(task.how),
            vtime(task.lost_at_ms),
            plural(task.misses.len(), "request"),
            task.misses
                .first()
                .map(|m| m.method.as_str())
                .unwrap_or("tasks/get"),
            task.misses
                .first()
                .map(|m| vtime(m.at_ms))
                .unwrap_or_default(),
            match task.work_ended {
                Some((at, JobEnd::Finished)) if at > task.lost_at_ms => format!(
                    "The work finished afterwards, at {}, with no record left to hold its result.",
                    vtime(at)
                ),
                Some((at, JobEnd::Finished)) => format!(
                    "The work had finished at {}, but its result went with the record.",
                    vtime(at)
                ),
                Some((at, how)) => format!("The work itself ended {how:?} at {}.", vtime(at)),
                None => "The work was still running, unreachable.".to_string(),
            }
        ),
        Evidence::EraMismatch(m) => {
            let failed = m
                .failed
                .iter()
                .map(|f| {
                    format!(
                        "{} at {} ({})",
                        f.rpc_method.as_deref().unwrap_or("GET/DELETE"),
                        vtime(f.at_ms),
                        f.status
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            if m.sessionless {
                format!(
                    "{name}: the server speaks sessionless 2025 (era {}): it answered initialize without Mcp-Session-Id, which 2025 allows, and the client, requiring a session, went no further: {failed}.",
                    m.server_era
                )
            } else {
                format!(
                    "{name}: the client spoke {:?} to a server speaking {}. {} The requests that failed for it: {failed}. {}",
                    m.client_era,
                    m.server_era,
                    match &m.probe {
                        Some(p) => format!(
                            "Its era probe, server/discover at {}, was answered {}{}.",
                            vtime(p.at_ms),
                            p.status,
                            p.rpc_error.map(|c| format!(" {c}")).unwrap_or_default()
                        ),
                        None => "It never probed.".to_string(),
                    },
                    if m.reprobed {
                        "It probed again and still did not recover."
                    } else {
                        "It never probed again."
                    }
                )
            }
        }
        Evidence::ReconnectLoop(found) => format!(
            "{name}: {}. Each answer was the same and nothing new arrived, so no number of further attempts could help; the client never stopped to tell the application.",
            found.sentence(vtime)
        ),
        Evidence::RefusedWithoutRecovery(found) => format!(
            "{name}: {}. Every call the application made in that session failed, and nothing in the client would ever have made it work again.",
            found.sentence()
        ),
        Evidence::SessionAbandoned(found) => format!(
            "{name}: {}. What the old session held was left behind: the answer the client gave up on did not say the session was gone.",
            found.sentence()
        ),
        Evidence::Untested(untested) => format!("{name}: {}.", untested.sentence()),
        Evidence::Hung {
            horizon_ms,
            pending_calls,
        } => format!(
            "{name}: at {} (the scenario's horizon) {} had neither completed nor failed: nothing need be lost for the application to wait for ever.",
            vtime(*horizon_ms),
            pending_calls.join(", ")
        ),
        Evidence::None => format!("{name}: {}.", v.summary),
        // A real client's evidence (values from its report, or why there is none): its
        // sentence says it all. `teach` explains simulated runs, which never carry it.
        Evidence::Values(_)
        | Evidence::RepeatedValues { .. }
        | Evidence::HandedAfterDeath(_)
        | Evidence::HandedForeign(_)
        | Evidence::NoReport { .. }
        | Evidence::NotApplicable(_)
        | Evidence::OutOfOrder(_)
        | Evidence::OtherEra { .. } => format!("{name}: {}.", v.summary),
    }
}

/// The guard per verdict, and which guards fired.
fn guards(outcome: &RunOutcome) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut named: Vec<&str> = Vec::new();
    for v in &outcome.verdicts {
        let g = guard_for_verdict(v, &outcome.verdicts);
        let line = match v.kind {
            VerdictKind::Detected => {
                let mut fired: Vec<&str> = Vec::new();
                for e in &outcome.result.record.errors {
                    for name in guards_fired(&e.error.to_string()) {
                        if !fired.contains(&name) {
                            fired.push(name);
                        }
                    }
                }
                if outcome.result.record.calls.iter().any(|c| c.attempts > 1) {
                    fired.push("idempotent re-issue");
                }
                let cut = guard_for(VerdictKind::DuplicateEffect);
                let lost = guard_for(VerdictKind::LostTask);
                if fired == [cut.name] {
                    // A 2026-07-28 client: no session to tear down, one guard that fired.
                    format!("detected: {} fired: {}", cut.name, cut.rule)
                } else if fired == [lost.name] {
                    format!("detected: {} fired: {}", lost.name, lost.rule)
                } else {
                    format!(
                        "detected: {} ({}) fired: {}",
                        g.name,
                        if fired.is_empty() {
                            "unnamed".to_string()
                        } else {
                            fired.join(", ")
                        },
                        g.rule
                    )
                }
            }
            VerdictKind::Clean => {
                let failed = outcome.result.record.calls_failed_loudly();
                if failed.is_empty() {
                    format!("clean: {}; {}", g.name, g.rule)
                } else {
                    // Nothing produced was lost, but not everything asked for was done:
                    // "no guard had to fire" would hide the calls that failed out loud.
                    let keys: Vec<&str> = failed.iter().map(|(key, _)| *key).collect();
                    format!(
                        "clean: {} for what the server produced: nothing of it was lost or misapplied. \
                         Not everything asked for was done: the application was told {} failed ({}), \
                         which is the guard that worked here, a failure said out loud. Whether to \
                         re-issue {} (under {} idempotency key) is the application's decision.",
                        g.name,
                        if keys.len() == 1 {
                            "this call"
                        } else {
                            "these calls"
                        },
                        keys.join(", "),
                        if keys.len() == 1 { "it" } else { "them" },
                        if keys.len() == 1 { "its" } else { "their" },
                    )
                }
            }
            kind if named.contains(&g.name) => {
                format!("{}: caught by the same guard, \"{}\".", kind.name(), g.name)
            }
            kind => format!(
                "{}: caught by the guard \"{}\". {}",
                kind.name(),
                g.name,
                capitalize(g.rule)
            ),
        };
        named.push(g.name);
        if !out.contains(&line) {
            out.push(line);
        }
    }
    if outcome.client == ClientModel::Naive
        && outcome
            .kinds()
            .iter()
            .any(|k| k.is_loss() || *k == VerdictKind::SurfacedLoss)
    {
        out.push("Run it again with `--client guarded` to see these guards fire.".into());
    }
    out
}

fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
