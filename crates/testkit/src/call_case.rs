//! Cases drawn for one call: faults that fall inside it, a server that outlives it, and
//! each case aimed at one of the resumption edges where client bugs live.
//!
//! The swarm strategies ([`crate::arb_server_knobs`], [`crate::arb_fault_script`]) draw
//! from the explorer's generator, whose faults are timed minutes into a run and whose
//! TTLs are often shorter than a call: most cases fire no fault, and many end with a
//! session that expired mid-call, where every client, good or buggy, fails loudly alike.
//! Here every fault fires after one of the call's own events (`AfterEvent` on
//! `Call(0)`, before its last step), sessions and logs outlive the call unless the edge
//! is their expiry, and the edge is drawn first:
//!
//! - [`Edge::Drop`]: the stream is cut, the cursor is still good;
//! - [`Edge::UnknownCursor`]: the client comes back after its cursor left the event log
//!   (TTL), and the server answers as drawn: a fresh stream whose ids restart
//!   (Behavior A), `400`, `404`, an empty `200`, or a replay of what it still holds;
//! - [`Edge::ReplayWithGap`]: the log holds only the last few events, and the client comes
//!   back after more than that went by: the replay skips what was evicted;
//! - [`Edge::TwoCuts`]: the stream is cut, resumed, and cut again: a client whose cursor
//!   is stale after the first resumption replays what it already has;
//! - [`Edge::NotFoundOnResume`]: the session expires while the client is away, and the
//!   resumption is answered `404`/`410`, or, by a server whose `GET` does not check the
//!   session, with a replay from the log that outlived it (the 404-after-replay cascade);
//! - [`Edge::RestartKeepsSession`]: the server restarts keeping session ids but not its
//!   log, and numbers again (Behavior B's ground);
//! - [`Edge::CutResumedStream`]: the stream is cut, the client resumes before the next
//!   step, and the resumed stream is cut again before it carried any event id (no priming
//!   event gives it one): the cursor the client resumed with is still the one to use
//!   (<https://github.com/modelcontextprotocol/typescript-sdk/issues/2499>: the next
//!   reconnect went out without `Last-Event-ID`).
//!
//! A failing case shrinks toward what fired: the edge toward the plain cut, the fault
//! toward the call's first event and a client that comes straight back, and each knob
//! toward the well-behaved server's value (`Harness::well_behaved`) one at a time (every
//! list a knob is drawn from starts with that value, and proptest shrinks a tuple element
//! by element), never by a redraw.

use std::fmt;

use faultline_model::{
    DeadSessionAnswer, DurationMs, EndMode, IdScheme, PositiveDurationMs, RestartPersistence,
    ServerKnobs, UnknownCursor,
};
use faultline_server::Config;
use faultline_sim::{Fault, PickCount, PickDuration, StreamSel, Trigger};
use proptest::prelude::*;

use crate::Harness;

/// The resumption edge a case aims at (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Drop,
    UnknownCursor,
    ReplayWithGap,
    TwoCuts,
    NotFoundOnResume,
    RestartKeepsSession,
    CutResumedStream,
}

impl Edge {
    pub const ALL: [Edge; 7] = [
        Edge::Drop,
        Edge::UnknownCursor,
        Edge::ReplayWithGap,
        Edge::TwoCuts,
        Edge::NotFoundOnResume,
        Edge::RestartKeepsSession,
        Edge::CutResumedStream,
    ];
}

/// One drawn case: the edge it aims at, the server's knobs and its faults, for a call of
/// `steps` steps every `interval_ms`. Run it with [`CallCase::harness`]. It prints (as
/// proptest shows a failing input) as the scenario file the harness serves, which a user
/// can keep as a regression test (`Harness::from_scenario`).
#[derive(Clone)]
pub struct CallCase {
    pub edge: Edge,
    pub knobs: ServerKnobs,
    pub faults: Vec<Fault>,
    pub steps: u32,
    pub interval_ms: u64,
}

impl CallCase {
    /// The harness for this case: its knobs and faults, and the call it was drawn for.
    pub fn harness(&self) -> Harness {
        Harness::new(self.knobs.clone(), self.faults.clone()).call(self.steps, self.interval_ms)
    }
}

impl fmt::Debug for CallCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "CallCase {:?}, as a scenario file:", self.edge)?;
        f.write_str(&self.harness().scenario().to_ron())
    }
}

/// What one edge's draw produced, before it becomes a [`CallCase`].
#[derive(Debug, Clone)]
struct Draw {
    /// After which of the call's events the (first) fault fires: `1..steps`.
    after: u64,
    /// How long the client is away, in multiples of the call's interval (0 to 3).
    away_intervals: u64,
    id_scheme: IdScheme,
    unknown_cursor: UnknownCursor,
    mode: EndMode,
    dead_session_answer: DeadSessionAnswer,
    get_validates_session: bool,
}

/// Cases for a call of `steps` progress steps, one every `interval_ms` (as the client
/// under test makes it: `Harness::call(steps, interval_ms)`). `steps` must be at least 2,
/// so that a fault can fall before the last step.
pub fn arb_call_case(steps: u32, interval_ms: u64) -> impl Strategy<Value = CallCase> {
    let steps = steps.max(2);
    let interval_ms = interval_ms.max(1);
    let draw = (
        1..u64::from(steps),
        0..=3u64,
        prop::sample::select(vec![
            IdScheme::SessionMonotonic,
            IdScheme::PerStream,
            IdScheme::PerGeneration,
        ]),
        prop::sample::select(vec![
            UnknownCursor::BadRequest,
            UnknownCursor::FreshStream,
            UnknownCursor::NotFound,
            UnknownCursor::Empty200,
            UnknownCursor::ReplayRemaining,
        ]),
        prop::sample::select(vec![EndMode::Reset, EndMode::Close]),
        prop::sample::select(vec![DeadSessionAnswer::NotFound, DeadSessionAnswer::Gone]),
        prop::sample::select(vec![true, false]),
    )
        .prop_map(
            |(
                after,
                away_intervals,
                id_scheme,
                unknown_cursor,
                mode,
                dead_session_answer,
                get_validates_session,
            )| Draw {
                after,
                away_intervals,
                id_scheme,
                unknown_cursor,
                mode,
                dead_session_answer,
                get_validates_session,
            },
        );
    (prop::sample::select(Edge::ALL.to_vec()), draw)
        .prop_map(move |(edge, draw)| case(edge, &draw, steps, interval_ms))
}

/// Builds the case for `edge` from the draw.
fn case(edge: Edge, d: &Draw, steps: u32, interval_ms: u64) -> CallCase {
    // A server that outlives the call: sessions and logs last a day, the log holds
    // every event; each edge then changes only what it is about.
    let mut knobs = ServerKnobs {
        event_log_capacity: None,
        event_log_ttl: None,
        id_scheme: d.id_scheme,
        unknown_cursor: d.unknown_cursor,
        dead_session_answer: d.dead_session_answer,
        ..Config::well_behaved(1).knobs
    };
    let after = |n: u64| Trigger::AfterEvent {
        n: PickCount::fixed(n),
        on: StreamSel::Call(0),
    };
    let away = |ms: u64| Some(PickDuration::fixed(DurationMs(ms)));
    let drop = |n: u64, away_ms: u64| Fault::Drop {
        when: after(n),
        mode: d.mode,
        stream: StreamSel::Call(0),
        away: away(away_ms),
    };
    let mut away_ms = d.away_intervals * interval_ms;
    let faults = match edge {
        Edge::Drop => vec![drop(d.after, away_ms)],
        Edge::UnknownCursor => {
            // The log forgets an event after one interval; the client is away for two
            // or more.
            knobs.event_log_ttl = PositiveDurationMs::new(interval_ms);
            away_ms = (d.away_intervals + 2) * interval_ms;
            vec![drop(d.after, away_ms)]
        }
        Edge::ReplayWithGap => {
            // The log keeps two events; the client is away for four or more, and the
            // server replays what it still holds.
            knobs.event_log_capacity = Some(2);
            knobs.unknown_cursor = UnknownCursor::ReplayRemaining;
            away_ms = (d.away_intervals + 4) * interval_ms;
            vec![drop(d.after, away_ms)]
        }
        Edge::TwoCuts => {
            let second = (d.after + 1 + d.away_intervals)
                .min(u64::from(steps) - 1)
                .max(d.after);
            vec![drop(d.after, 0), drop(second + 1, away_ms)]
        }
        Edge::NotFoundOnResume => {
            // The session's idle clock runs from the call's request (an open stream is no
            // request): it dies about two intervals after the cut, while the client is
            // away for three or more, and its resumption asks for a session the server
            // has forgotten.
            knobs.session_idle_ttl =
                PositiveDurationMs::new(d.after * interval_ms + 3 * interval_ms / 2);
            knobs.get_validates_session = d.get_validates_session;
            away_ms = (d.away_intervals + 3) * interval_ms;
            vec![drop(d.after, away_ms)]
        }
        Edge::CutResumedStream => {
            // Step k goes out at k intervals (the call starts at 0 on the harness's clock).
            // Cut after step `after`, back a quarter interval later, and the resumed stream
            // cut at half an interval: before step `after + 1`, with nothing replayed.
            knobs.priming_events = false;
            let resumed_cut_ms = d.after * interval_ms + interval_ms / 2;
            vec![
                drop(d.after, interval_ms / 4),
                Fault::Drop {
                    when: Trigger::At(PickDuration::fixed(DurationMs(resumed_cut_ms))),
                    mode: d.mode,
                    stream: StreamSel::Call(0),
                    away: away(0),
                },
            ]
        }
        Edge::RestartKeepsSession => {
            knobs.restart_persistence = RestartPersistence::SessionIdsOnly;
            vec![Fault::Restart {
                when: after(d.after),
                away: away(away_ms),
            }]
        }
    };
    CallCase {
        edge,
        knobs,
        faults,
        steps,
        interval_ms,
    }
}
