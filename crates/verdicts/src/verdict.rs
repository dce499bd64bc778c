//! What the oracle concludes, with the evidence a reader needs to check it.
//!
//! The names are a contract (reports, tests, scenario `expect` blocks): stable snake_case.

use serde::Serialize;

pub use crate::VerdictKind;

use crate::duplicate_effect::Commit;
use crate::era_mismatch::EraMismatch;
use crate::lost_task::LostTask;
use crate::missed_change::MissedChange;

pub use crate::IdRanges;
pub use crate::misrouted_session::MisroutedNote;
pub use crate::session_requests::RequestNote;

/// One conclusion and its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    /// Virtual time of the harm (the first lost event, the 404, the stale request).
    pub at_ms: u64,
    /// One sentence a human can check against the timeline.
    pub summary: String,
    pub evidence: Evidence,
}

/// Evidence per verdict kind. Session ids are the wire ids.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Evidence {
    None,
    Gap {
        session: String,
        generation: u32,
        stream: u32,
        ids: IdRanges,
        count: u64,
        /// Of these, delivered to the client but discarded as already seen.
        skipped_as_seen: IdRanges,
        /// Of these, never put on any connection the client held.
        never_delivered: IdRanges,
        /// Workload calls whose final result is among the lost events.
        lost_results: Vec<String>,
    },
    CursorReuse {
        session: String,
        cursor: String,
        minted_in_generation: u32,
        honoured_in_generation: u32,
        resumed_at_ms: u64,
        replayed: u32,
    },
    /// The resumption's 200, then the death notice (see
    /// [`crate::zombie_session`]).
    Zombie(crate::zombie_session::Zombie),
    /// Requests to a session the client should have stopped using (see
    /// [`crate::session_requests`]).
    Requests(crate::session_requests::SessionRequests),
    Applied {
        session: String,
        events: Vec<AppliedNote>,
    },
    Detected {
        errors: Vec<String>,
        recovered_calls: Vec<String>,
    },
    /// One order committed more than once (`place_order` on 2026-07-28).
    DuplicateEffect {
        /// The order key the calls named (`call-k`: workload call `k`).
        order: String,
        /// Each commit: its job, request id, when it committed, when its job started and
        /// when its request stream was cut, if it was.
        commits: Vec<Commit>,
        /// When the first committing call's request stream was cut, if it was.
        cut_at_ms: Option<u64>,
        /// When each later commit's call was sent (the re-issues).
        reissued_at_ms: Vec<u64>,
    },
    /// A tools-list change made while the client's listen stream was down, and the call
    /// that used the list it made stale (2026-07-28).
    MissedChange(MissedChange),
    /// A 2026-07-28 task id that vanished (purged, expired or lost in a restart) while
    /// the client still asked about it; see [`LostTask`].
    LostTask(LostTask),
    /// The client's era against the server's, the probe and its answer, the requests that
    /// failed, whether the client probed again; see [`EraMismatch`].
    EraMismatch(EraMismatch),
    /// The same resumption or failing request, repeated without end; see
    /// [`crate::reconnect_loop`].
    ReconnectLoop(crate::reconnect_loop::ReconnectLoop),
    /// A dead session the client kept naming and never replaced; see
    /// [`crate::refused_without_recovery`].
    RefusedWithoutRecovery(crate::refused_without_recovery::Refusals),
    /// A live session the client dropped; see [`crate::session_abandoned`].
    SessionAbandoned(crate::session_abandoned::Abandonment),
    /// Nothing the scenario tests happened; see [`crate::untested`].
    Untested(crate::untested::Untested),
    /// The scenario's horizon came while the client was still at work on calls it had
    /// neither completed nor failed.
    Hung {
        horizon_ms: u64,
        /// The workload calls left waiting (`call-k`).
        pending_calls: Vec<String>,
    },
    /// Requests for a live session answered by a replica that does not hold it.
    /// Requests of a live session sent to a replica that does not hold it (see
    /// [`crate::misrouted_session`]).
    Misrouted(crate::misrouted_session::MisroutedSession),
    /// What a real client's application was owed and what its report lacks (see
    /// [`crate::ValuesLost`]): the values, since a report names values, not events.
    Values(crate::owed::ValuesLost),
    /// Values a real client handed over more often than the server produced them.
    RepeatedValues {
        progress: Vec<u32>,
        notifications: Vec<u64>,
    },
    /// Events of a dead session that reached a real client, as many as its report proves
    /// were handed over (see [`crate::quarantine_violation`]).
    HandedAfterDeath(crate::quarantine_violation::HandedAfterDeath),
    /// Another session's notifications sent on a real client's streams, as many as its
    /// report proves were handed over (see [`crate::foreign_event`]).
    HandedForeign(crate::foreign_event::HandedForeign),
    /// Why a real client gave no report that reads, and how far it got.
    NoReport {
        #[serde(flatten)]
        missing: crate::MissingReport,
        /// How many requests the server answered before it ended.
        answers: usize,
    },
    /// What the scenario needs that the client declared it cannot do.
    NotApplicable(crate::not_applicable::NotApplicable),
    /// Progress handed over in another order than produced.
    OutOfOrder(crate::out_of_order::OutOfOrder),
    /// The client spoke the other protocol era than the scenario tests.
    OtherEra {
        #[serde(flatten)]
        other: crate::other_era::OtherEra,
        /// The verdicts the run would have had, kept as evidence.
        judged: Vec<Verdict>,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct AppliedNote {
    pub id: u64,
    pub stream: u32,
    pub at_ms: u64,
    pub detail: String,
}
