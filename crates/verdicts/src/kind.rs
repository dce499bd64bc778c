//! The names of the judge's conclusions: one enum for `run`, `explore`, the testkit and
//! `grade`, so that a name means the same thing whether the client was simulated or real.
//!
//! Scenario `expect` blocks name them (the scenario crate re-exports this type), reports
//! print them, and three questions about them are answered here once: which verdicts are
//! a silent loss ([`VerdictKind::is_loss`]), which are harm without loss
//! ([`VerdictKind::is_harm`]), and which make `grade` exit 1
//! ([`VerdictKind::fails_grade`]).

use std::fmt;

use serde::{Deserialize, Serialize};

/// In RON both spellings are accepted (`SilentGap` or `silent_gap`); reports use snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all(serialize = "snake_case"))]
pub enum VerdictKind {
    /// Nothing lost, nothing misapplied, no error.
    #[serde(alias = "clean")]
    Clean,
    /// Events the server produced for the client were never applied, and no error said so.
    #[serde(alias = "silent_gap")]
    SilentGap,
    /// A cursor minted in one generation was honoured against another's numbering.
    #[serde(alias = "cursor_reuse")]
    CursorReuse,
    /// A resumption answered 200 (replay), then the next session-scoped request got 404/410.
    #[serde(alias = "zombie_session")]
    ZombieSession,
    /// Requests sent to a session the client had already been told was dead.
    #[serde(alias = "retry_amplification")]
    RetryAmplification,
    /// A request carrying the old session id after the client re-initialized.
    #[serde(alias = "reinit_collision")]
    ReinitCollision,
    /// Events applied after their session was already dead on the server.
    #[serde(alias = "quarantine_violation")]
    QuarantineViolation,
    /// An event from another session applied on a stream of this one.
    #[serde(alias = "foreign_event")]
    ForeignEvent,
    /// The same event applied twice.
    #[serde(alias = "duplicate")]
    Duplicate,
    /// Events were lost but the client surfaced an (untyped) error: loud, not recovered.
    #[serde(alias = "surfaced_loss")]
    SurfacedLoss,
    /// The client raised a typed resumption error and recovered without loss.
    #[serde(alias = "detected")]
    Detected,
    /// A request for a live session reached a replica of the fleet that does not hold it
    /// and was answered as for an unknown session. Not a loss by itself: what the client
    /// does with the 404 decides that.
    #[serde(alias = "misrouted_session")]
    MisroutedSession,
    /// A non-idempotent tool's effect (a `place_order` order) was committed more than
    /// once: a 2026-07-28 call cut before its response and re-issued with a new request id.
    #[serde(alias = "duplicate_effect")]
    DuplicateEffect,
    /// A 2026-07-28 client called a tool from a tools list that had changed while its
    /// listen stream was down: the change was never sent to it, and it never listed again.
    #[serde(alias = "missed_change")]
    MissedChange,
    /// A 2026-07-28 task id vanished (purged, expired or lost in a restart), and the work
    /// with it, and the client did not flag the loss.
    #[serde(alias = "lost_task")]
    LostTask,
    /// The client and the server never met in one protocol era: the client's work went out
    /// in an era the server did not speak then (a misread era probe, or an era cached past
    /// a deploy that changed it), or the server spoke 2025 without sessions to a client
    /// that required one. Loud (the requests failed), so not a silent loss.
    #[serde(alias = "era_mismatch")]
    EraMismatch,
    /// The client neither finished its call nor failed it: a simulated client still at
    /// work when the scenario's horizon came, a real one that gave no report before the
    /// grader's timeout. Nothing need be lost for the application to wait for ever.
    #[serde(alias = "hung")]
    Hung,
    /// The client repeated the same resumption (the same `Last-Event-ID` on the same
    /// session) or the same failing request again and again with nothing new delivered in
    /// between: a reconnect loop without end, read from the server's ledger alone (see
    /// `faultline_verdicts::reconnect_loop`).
    #[serde(alias = "reconnect_loop")]
    ReconnectLoop,
    /// The server refused the client's dead session again and again, and the client never
    /// took a new one: every call fails until the application is restarted (see
    /// `faultline_verdicts::refused_without_recovery`).
    #[serde(alias = "refused_without_recovery")]
    RefusedWithoutRecovery,
    /// The client dropped a session the server still held alive, on an answer that did
    /// not say it was gone, and started another (see
    /// `faultline_verdicts::session_abandoned`).
    #[serde(alias = "session_abandoned")]
    SessionAbandoned,
    /// Not all the scenario tests happened (the client never made its call, or one of
    /// the scenario's faults never met it), so `clean` would claim what was not exercised; it
    /// stands where `clean` would have (see `faultline_verdicts::untested`).
    #[serde(alias = "untested")]
    Untested,
    /// A real client's process ended without a report it could be judged by: it exited
    /// with a failure status or was killed, and its last stdout line was no report (see
    /// `faultline_verdicts::missing_report`). The application died; the run is not a pass.
    #[serde(alias = "crashed")]
    Crashed,
    /// A real client exited 0 but its report could not be read (nothing printed, a last
    /// line that is not a JSON object, a field of the wrong shape): the adapter is broken,
    /// so nothing it did can be judged against what it was handed.
    #[serde(alias = "bad_report")]
    BadReport,
    /// The client declared it cannot do what the scenario's faults act on (no progress
    /// handler where the faults are timed by the call's progress, no notification handler
    /// where the scenario's notifications are the point): the scenario does not apply to
    /// it. Not a failure, and not a pass on the scenario either (see
    /// `faultline_verdicts::not_applicable`).
    #[serde(alias = "not_applicable")]
    NotApplicable,
    /// The application was handed the call's progress out of order (a value after a larger
    /// one it had not been handed before): every value arrived, but not as the server sent
    /// them (see `faultline_verdicts::out_of_order`).
    #[serde(alias = "out_of_order")]
    OutOfOrder,
    /// The client spoke the other protocol era than the one the scenario's faults break (a
    /// 2026-07-28 client graded on a 2025 scenario, or the reverse): the scenario did not
    /// apply, and no verdict of it vouches for the client (see
    /// `faultline_verdicts::other_era`).
    #[serde(alias = "other_era")]
    OtherEra,
}

impl VerdictKind {
    /// Verdicts that mean data was lost or misapplied without the client knowing.
    pub fn is_loss(self) -> bool {
        matches!(
            self,
            VerdictKind::SilentGap
                | VerdictKind::CursorReuse
                | VerdictKind::QuarantineViolation
                | VerdictKind::ForeignEvent
                | VerdictKind::Duplicate
                | VerdictKind::DuplicateEffect
                | VerdictKind::MissedChange
                | VerdictKind::LostTask
                | VerdictKind::OutOfOrder
        )
    }

    /// Harm without loss: the application waits for ever, or the client hammers the
    /// server without end. A grade fails on these as on a loss.
    pub fn is_harm(self) -> bool {
        matches!(
            self,
            VerdictKind::Hung
                | VerdictKind::ReconnectLoop
                | VerdictKind::RefusedWithoutRecovery
                | VerdictKind::SessionAbandoned
        )
    }

    /// A silent loss or harm: what makes `grade` exit 1 and the explorer report a finding.
    pub fn is_failure(self) -> bool {
        self.is_loss() || self.is_harm()
    }

    /// The verdicts that make `grade` exit 1: a failure, and every run that vouches for
    /// nothing (it tested nothing, the client crashed or gave no readable report, or it
    /// spoke the other era). `not_applicable` is none of these: the client said what it
    /// cannot do, and the scenario did not ask it.
    pub fn fails_grade(self) -> bool {
        self.is_failure()
            || matches!(
                self,
                VerdictKind::Untested
                    | VerdictKind::Crashed
                    | VerdictKind::BadReport
                    | VerdictKind::OtherEra
            )
    }

    pub fn name(self) -> &'static str {
        match self {
            VerdictKind::Clean => "clean",
            VerdictKind::SilentGap => "silent_gap",
            VerdictKind::CursorReuse => "cursor_reuse",
            VerdictKind::ZombieSession => "zombie_session",
            VerdictKind::RetryAmplification => "retry_amplification",
            VerdictKind::ReinitCollision => "reinit_collision",
            VerdictKind::QuarantineViolation => "quarantine_violation",
            VerdictKind::ForeignEvent => "foreign_event",
            VerdictKind::Duplicate => "duplicate",
            VerdictKind::SurfacedLoss => "surfaced_loss",
            VerdictKind::Detected => "detected",
            VerdictKind::MisroutedSession => "misrouted_session",
            VerdictKind::DuplicateEffect => "duplicate_effect",
            VerdictKind::MissedChange => "missed_change",
            VerdictKind::LostTask => "lost_task",
            VerdictKind::EraMismatch => "era_mismatch",
            VerdictKind::Hung => "hung",
            VerdictKind::ReconnectLoop => "reconnect_loop",
            VerdictKind::RefusedWithoutRecovery => "refused_without_recovery",
            VerdictKind::SessionAbandoned => "session_abandoned",
            VerdictKind::Untested => "untested",
            VerdictKind::Crashed => "crashed",
            VerdictKind::BadReport => "bad_report",
            VerdictKind::NotApplicable => "not_applicable",
            VerdictKind::OutOfOrder => "out_of_order",
            VerdictKind::OtherEra => "other_era",
        }
    }

    pub const ALL: [VerdictKind; 26] = [
        VerdictKind::Clean,
        VerdictKind::SilentGap,
        VerdictKind::CursorReuse,
        VerdictKind::ZombieSession,
        VerdictKind::RetryAmplification,
        VerdictKind::ReinitCollision,
        VerdictKind::QuarantineViolation,
        VerdictKind::ForeignEvent,
        VerdictKind::Duplicate,
        VerdictKind::SurfacedLoss,
        VerdictKind::Detected,
        VerdictKind::MisroutedSession,
        VerdictKind::DuplicateEffect,
        VerdictKind::MissedChange,
        VerdictKind::LostTask,
        VerdictKind::EraMismatch,
        VerdictKind::Hung,
        VerdictKind::ReconnectLoop,
        VerdictKind::RefusedWithoutRecovery,
        VerdictKind::SessionAbandoned,
        VerdictKind::Untested,
        VerdictKind::Crashed,
        VerdictKind::BadReport,
        VerdictKind::NotApplicable,
        VerdictKind::OutOfOrder,
        VerdictKind::OtherEra,
    ];
}

impl fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
