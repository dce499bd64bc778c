//! From trace entries to diagram rows: who sent what to whom, in order.
//!
//! Requests go from the client task that sent them to the HTTP server; responses come
//! back; live events come from the server, replayed events from the event log (a replay is
//! a log operation, not a sign of a live session: that is the lesson of the cascade).
//! Faults and connection ends sit on the network lane, session deaths on the store, state
//! lines on the store and log. Runs of alike events are folded by `faultline_sim::fold_trace`
//! (the same folding as the text report), and harm is marked as it happens (see `harm`).

use std::collections::BTreeSet;

use faultline_model::EndMode;
use faultline_sim::{EventRun, Folded, Task, TraceEntry, TraceWhat, fold_trace, short_id, vtime};

use crate::diagram::{ArrowKind, Diagram, Harm, Lane, Row, Shape, Tone};
use crate::harm::{ConnInfo, HarmTracker};
use crate::replica_lanes::ServerLanes;

/// Builds the diagram of a parsed trace. `title` names the run (file or scenario).
pub fn build(entries: &[TraceEntry], title: &str) -> Diagram {
    let mut tasks: BTreeSet<Task> = BTreeSet::from([Task::Main]);
    for e in entries {
        if let TraceWhat::Request { task, .. } = &e.what {
            tasks.insert(*task);
        }
    }
    let mut servers = ServerLanes::of_trace(entries);
    let mut lanes: Vec<Lane> = tasks.into_iter().map(Lane::Task).collect();
    lanes.extend(servers.lanes());
    lanes.extend([Lane::Store, Lane::Log]);

    let mut rows: Vec<Row> = Vec::new();
    let mut harm = HarmTracker::default();
    for step in fold_trace(entries) {
        rows.push(match step {
            Folded::Events(run) => event_row(&run, &mut harm, &servers),
            Folded::Entry(entry) => row_of(entry.at_ms, &entry.what, &mut harm, &mut servers),
        });
    }

    let end = entries.last().map_or(0, |e| e.at_ms);
    Diagram {
        title: title.to_string(),
        subtitle: format!(
            "{} trace entries, {} diagram rows, virtual time T+0s to {}",
            entries.len(),
            rows.len(),
            vtime(end)
        ),
        lanes,
        rows,
        verdicts: Vec::new(),
        entries: entries.len(),
        anchor: "row".into(),
    }
}

fn event_row(run: &EventRun, harm: &mut HarmTracker, servers: &ServerLanes) -> Row {
    let from = if run.replay {
        Lane::Log
    } else {
        servers.of_conn(run.conn)
    };
    let to = Lane::Task(harm.task_of(run.conn));
    let times = if run.count > 1 {
        format!(" x{}", run.count)
    } else {
        String::new()
    };
    let replay = if run.replay { " (replay)" } else { "" };
    let label = format!(
        "{} {}{times}{replay} · stream #{} gen {} -> {}",
        run.ids_text(),
        run.label,
        run.stream,
        run.generation,
        run.fate.label()
    );
    let mut row = Row::new(
        run.first_at,
        Shape::Arrow {
            from,
            to,
            kind: ArrowKind::Event,
            count: run.count,
            dashed: false,
        },
        label,
    );
    row.until_ms = run.last_at;
    let mut detail = vec![
        format!(
            "{} SSE event(s) on conn {}, {}{}",
            run.count,
            run.conn,
            vtime(run.first_at),
            if run.last_at > run.first_at {
                format!(" … {}", vtime(run.last_at))
            } else {
                String::new()
            }
        ),
        format!("{} · {}{replay}", run.ids_text(), run.label),
        format!(
            "stream #{}, session #{}, generation {}",
            run.stream, run.session, run.generation
        ),
    ];
    if let Some((lo, hi, total)) = run.steps {
        detail.push(format!("progress steps {lo}..={hi} of {total}"));
    }
    detail.push(format!("client: {}", run.fate.label()));
    if let Some((h, why)) = harm.events(run) {
        row.harm = Some(h);
        if matches!(
            h,
            Harm::CursorReuse | Harm::AppliedAfterDeath | Harm::Duplicate
        ) {
            row.label = format!("{} · {why}", row.label);
        }
        detail.push(format!("HARM ({}): {why}", h.name()));
    }
    row.detail = detail.join("\n");
    row.data = vec![
        ("conn", run.conn.to_string()),
        ("ids", run.id_ranges().to_string()),
        ("count", run.count.to_string()),
        ("stream", run.stream.to_string()),
        ("generation", run.generation.to_string()),
        ("fate", format!("{:?}", run.fate)),
        ("replay", run.replay.to_string()),
    ];
    row
}

fn row_of(at: u64, what: &TraceWhat, harm: &mut HarmTracker, servers: &mut ServerLanes) -> Row {
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
            servers.routed(*conn, route.as_ref());
            let mut label = match rpc {
                Some(rpc) => format!("{http} {rpc}"),
                None if http == "GET" => "GET (SSE stream)".into(),
                None => http.clone(),
            };
            if let Some(s) = session {
                label.push_str(&format!(" · session {}", short_id(s)));
            }
            if let Some(c) = last_event_id {
                label.push_str(&format!(" · Last-Event-ID: {c}"));
            }
            if *deferred {
                label.push_str(" · (held back while away)");
            }
            if let Some(route) = route {
                label.push_str(&format!(" · {} by {}", route.replica, route.why.label()));
            }
            let mut row = Row::new(
                at,
                Shape::Arrow {
                    from: Lane::Task(*task),
                    to: servers.of_conn(*conn),
                    kind: ArrowKind::Request,
                    count: 1,
                    dashed: false,
                },
                label.clone(),
            );
            let mut detail = vec![
                format!("{} conn {conn} [{}]", vtime(at), task.label()),
                label,
            ];
            if let Some(s) = session {
                detail.push(format!("Mcp-Session-Id: {s}"));
            }
            let info = ConnInfo {
                task: *task,
                http: http.clone(),
                rpc: rpc.clone(),
                session: session.clone(),
                last_event_id: last_event_id.clone(),
            };
            if let Some((h, why)) = harm.request(*conn, info) {
                row.harm = Some(h);
                detail.push(format!("HARM ({}): {why}", h.name()));
            }
            row.detail = detail.join("\n");
            row.data = vec![("conn", conn.to_string()), ("task", task.label())];
            if let Some(c) = last_event_id {
                row.data.push(("last-event-id", c.clone()));
            }
            if let Some(route) = route {
                row.data.push(("replica", route.replica.to_string()));
                row.data.push(("route", route.why.label().to_string()));
            }
            row
        }
        TraceWhat::Response {
            conn,
            status,
            session,
            stream,
        } => {
            let task = harm.task_of(*conn);
            let mut label = format!("{status}");
            if let Some(s) = session {
                label.push_str(&format!(" · Mcp-Session-Id {}", short_id(s)));
            }
            if let Some(s) = stream {
                label.push_str(&format!(" · SSE stream #{s}"));
            }
            let mut row = Row::new(
                at,
                Shape::Arrow {
                    from: servers.of_conn(*conn),
                    to: Lane::Task(task),
                    kind: ArrowKind::Response,
                    count: 1,
                    dashed: true,
                },
                label.clone(),
            );
            let mut detail = vec![format!("{} response on conn {conn}: {label}", vtime(at))];
            if let Some((h, why)) = harm.response(at, *conn, *status, session.as_deref()) {
                row.harm = Some(h);
                row.label = format!("{label} · {why}");
                detail.push(format!("HARM ({}): {why}", h.name()));
            }
            row.detail = detail.join("\n");
            row.data = vec![("conn", conn.to_string()), ("status", status.to_string())];
            row
        }
        TraceWhat::End { conn, how } => {
            let how = match how {
                EndMode::Reset => "reset",
                EndMode::Close => "closed",
            };
            let mut row = Row::new(
                at,
                Shape::Note {
                    lane: Lane::Network,
                    tone: Tone::Neutral,
                },
                format!("conn {conn} {how}"),
            );
            row.detail = format!("{} connection {conn} ended ({how})", vtime(at));
            row.data = vec![("conn", conn.to_string())];
            row
        }
        TraceWhat::KeepAlive { conn } => {
            let mut row = Row::new(
                at,
                Shape::Note {
                    lane: servers.of_conn(*conn),
                    tone: Tone::Neutral,
                },
                format!("`: keep-alive` on conn {conn}"),
            );
            row.detail = format!(
                "{} keep-alive comment on conn {conn} (bytes a proxy counts, no event)",
                vtime(at)
            );
            row.data = vec![("conn", conn.to_string())];
            row
        }
        TraceWhat::Fault { fault } => {
            let lane = servers.of_fault(fault);
            let mut row = Row::new(
                at,
                Shape::Note {
                    lane,
                    tone: Tone::Fault,
                },
                format!("FAULT: {fault}"),
            );
            row.detail = format!("{} fault injected: {fault}", vtime(at));
            row
        }
        TraceWhat::ClientError { error } => {
            let typed = error.starts_with("SessionResumptionError")
                || error.starts_with("ResumptionCursorError");
            let mut row = Row::new(
                at,
                Shape::Note {
                    lane: Lane::Task(Task::Main),
                    tone: if typed { Tone::Guard } else { Tone::Error },
                },
                format!("!! {error}"),
            );
            row.detail = format!(
                "{} the client raised: {error}\n{}",
                vtime(at),
                if typed {
                    "a typed resumption error: a guard fired"
                } else {
                    "an untyped error: the application knows something failed, not what was lost"
                }
            );
            row
        }
        TraceWhat::SessionDied { session, cause } => {
            harm.session_died(at, session);
            let mut row = Row::new(
                at,
                Shape::Note {
                    lane: Lane::Store,
                    tone: Tone::Death,
                },
                format!("session {} removed ({cause:?})", short_id(session)),
            );
            row.detail = format!("{} session {session} died: {cause:?}", vtime(at));
            row
        }
        TraceWhat::State { store, log } => {
            let mut row = Row::new(
                at,
                Shape::State {
                    store: store.clone(),
                    log: log.clone(),
                },
                String::new(),
            );
            row.detail = format!("{}\nsession store: {store}\nevent log: {log}", vtime(at));
            row
        }
        TraceWhat::Event { .. } => unreachable!("events are folded by the caller"),
    }
}
