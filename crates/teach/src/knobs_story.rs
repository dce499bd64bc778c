//! The server's knobs, told as the trap they set.
//!
//! Each knob alone is a reasonable choice; incidents come from combinations (a log that
//! forgets before the session does, ids that restart, a GET that never asks the session
//! store). This module turns a scenario's knobs into sentences about those combinations,
//! naming each knob as it is spelled in the scenario file so a reader can go and change it.

use faultline_model::{
    DeadSessionAnswer, IdScheme, RestartPersistence, ServerKnobs, StaleStandaloneAnswer,
    UnknownCursor,
};

fn dur(ms: Option<u64>) -> String {
    ms.map_or("forever".into(), |m| {
        faultline_model::DurationMs(m).to_string()
    })
}

/// The shortest life a session can have, and which knob sets it.
fn session_life(k: &ServerKnobs) -> Option<(u64, &'static str)> {
    let idle = k.session_idle_ttl.map(|d| (d.ms(), "session_idle_ttl"));
    let absolute = k
        .session_absolute_ttl
        .map(|d| (d.ms(), "session_absolute_ttl"));
    match (idle, absolute) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// Sentences describing the trap the knobs set, most important first.
pub fn trap(k: &ServerKnobs, restarts: bool) -> Vec<String> {
    let mut out = Vec::new();
    let log = k.event_log_ttl.map(|d| d.ms());
    let life = session_life(k);
    match (life, log) {
        (None, Some(l)) => out.push(format!(
            "The event log forgets an event {} after it is produced (`event_log_ttl`), but sessions never expire: a client away longer than that comes back to a live session holding a cursor the log no longer knows.",
            dur(Some(l))
        )),
        (Some((s, knob)), Some(l)) if l < s => out.push(format!(
            "The event log forgets an event {} after it is produced (`event_log_ttl`), but the session lives {} (`{knob}`): a client away longer than {} comes back to a live session holding a cursor the log no longer knows.",
            dur(Some(l)),
            dur(Some(s)),
            dur(Some(l))
        )),
        (Some((s, knob)), l) if l.is_none_or(|l| l > s) => out.push(format!(
            "The session dies {} after {} (`{knob}`), but the event log keeps events {} (`event_log_ttl`): a replay can still succeed after the session is gone.",
            dur(Some(s)),
            if knob == "session_idle_ttl" { "its last validated request" } else { "initialize" },
            if l.is_some() { dur(l) } else { "as long as the stream lives".into() }
        )),
        (Some((s, knob)), _) => out.push(format!(
            "Sessions die after {} (`{knob}`), the same time the event log keeps events.",
            dur(Some(s))
        )),
        (None, None) => {}
    }
    match k.id_scheme {
        IdScheme::PerStream => out.push(
            "Every stream numbers its events from 1 (`id_scheme: PerStream`): a fresh stream re-uses ids the client has already seen.".into(),
        ),
        IdScheme::PerGeneration => out.push(
            "Event ids count from 1 again in every generation of a session (`id_scheme: PerGeneration`): after a restart, an old cursor names a different event.".into(),
        ),
        IdScheme::Constant => out.push(
            "Every event carries the same id, 1 (`id_scheme: Constant`): a cursor names no event in particular, so a resumption replays from the wrong place.".into(),
        ),
        IdScheme::SessionMonotonic => out.push(
            "Event ids never restart within a session (`id_scheme: SessionMonotonic`).".into(),
        ),
    }
    out.push(match k.unknown_cursor {
        UnknownCursor::FreshStream => "A `Last-Event-ID` the log cannot honour gets a 200 and a brand-new stream (`unknown_cursor: FreshStream`), not an error.".into(),
        UnknownCursor::BadRequest => "A `Last-Event-ID` the log cannot honour gets a 400 (`unknown_cursor: BadRequest`): loud, so the client learns at once that its cursor is useless.".into(),
        UnknownCursor::NotFound => "A `Last-Event-ID` the log cannot honour gets a 404 (`unknown_cursor: NotFound`), which a client cannot tell from a dead session.".into(),
        UnknownCursor::Empty200 => "A `Last-Event-ID` the log cannot honour gets a 200 stream that ends at once with no events (`unknown_cursor: Empty200`).".into(),
        UnknownCursor::ReplayRemaining => "A `Last-Event-ID` whose successors were evicted gets whatever is still retained, gap or not (`unknown_cursor: ReplayRemaining`).".into(),
        UnknownCursor::Hang => "A `Last-Event-ID` the log cannot honour gets no answer at all (`unknown_cursor: Hang`): the GET stays open without a status line until the client gives up.".into(),
        UnknownCursor::ServerError => "A `Last-Event-ID` the log cannot honour gets a 500 (`unknown_cursor: ServerError`), which a client takes for a server failure and retries.".into(),
    });
    if !k.get_validates_session {
        out.push("The SSE GET looks up the cursor and never consults the session store (`get_validates_session: false`): its 200 says nothing about whether the session is alive.".into());
    }
    match k.restart_persistence {
        RestartPersistence::SessionIdsOnly => out.push("A restart restores sessions by id alone (`restart_persistence: SessionIdsOnly`): a new generation with an empty event log.".into()),
        RestartPersistence::Nothing => out.push("A restart forgets every session (`restart_persistence: Nothing`): old ids get the dead-session answer.".into()),
        RestartPersistence::Everything if restarts => out.push("A restart keeps sessions and logs (`restart_persistence: Everything`) but still starts a new generation.".into()),
        RestartPersistence::Everything => {}
    }
    if k.advertise_monotonic_ids && !k.advertisement_is_honest() {
        out.push("Yet `initialize` advertises session-monotonic event ids (`advertise_monotonic_ids: true`): the capability promises what the numbering does not keep.".into());
    } else if !k.advertise_monotonic_ids {
        out.push("`initialize` does not advertise session-monotonic event ids (`advertise_monotonic_ids: false`), honestly: a guarded client sends it no cursor at all.".into());
    } else {
        out.push("`initialize` advertises session-monotonic event ids (`advertise_monotonic_ids: true`), and the numbering keeps that promise.".into());
    }
    match k.dead_session_answer {
        DeadSessionAnswer::NotFound => {}
        DeadSessionAnswer::Gone => out.push("A dead session gets 410 Gone (`dead_session_answer: Gone`).".into()),
        DeadSessionAnswer::BadRequest => out.push("A dead session gets 400, not 404 (`dead_session_answer: BadRequest`): clients that re-initialize only on 404 never do.".into()),
        DeadSessionAnswer::Unauthorized401 => out.push("A dead session gets 401, not 404 (`dead_session_answer: Unauthorized401`): clients read it as lost credentials and never re-initialize.".into()),
        DeadSessionAnswer::Conflict409 => out.push("A dead session gets 409 Conflict, not 404 (`dead_session_answer: Conflict409`): clients read it as a clash of their own and send the dead session again.".into()),
        DeadSessionAnswer::TooManyRequests429 => out.push("A dead session gets 429 Too Many Requests, not 404 (`dead_session_answer: TooManyRequests429`): clients back off and send the dead session again.".into()),
        DeadSessionAnswer::Unavailable503 => out.push("A dead session gets 503 Service Unavailable, not 404 (`dead_session_answer: Unavailable503`): clients read it as an outage and retry the dead session.".into()),
        DeadSessionAnswer::OkWithError200 => out.push("A dead session gets 200 with a JSON-RPC error as its body (`dead_session_answer: OkWithError200`): nothing at the HTTP level says the session is gone, and the error reaches the application as the call's own.".into()),
    }
    if let Some(stale) = k.stale_standalone {
        let status = match stale.answer {
            StaleStandaloneAnswer::Conflict409 => "409",
            StaleStandaloneAnswer::BadRequest400 => "400",
        };
        out.push(format!(
            "The server notices a dropped standalone GET only {} later (`stale_standalone`): until then a new standalone GET of the session gets {status}, as a second stream would.",
            stale.lasting
        ));
    }
    if let Some(gc) = k.gc_interval {
        out.push(format!(
            "Expired sessions and events are removed only when the sweeper runs, every {gc} (`gc_interval`)."
        ));
    }
    if let Some(cap) = k.event_log_capacity
        && cap != 10_000
    {
        out.push(format!(
            "The log keeps at most {cap} events per stream (`event_log_capacity`)."
        ));
    }
    out
}
