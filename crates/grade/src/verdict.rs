//! One grading verdict: its kind, a one-line why, and the evidence it rests on.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GradeKind {
    /// Everything the server produced for the application reached it.
    Clean,
    /// Produced, never handed to the application, and no error said so.
    SilentGap,
    /// Handed to the application more often than it was produced.
    Duplicate,
    /// Lost, but the client returned an error.
    SurfacedLoss,
    /// No report before the timeout: the application got neither everything nor an error.
    Hung,
    /// Requests kept going to a session after it answered 404/410.
    RetryAmplification,
    /// After re-initializing, requests still carried the old session id.
    ReinitCollision,
    /// A resumption was answered 200 on a session that then turned out dead.
    ZombieSession,
    /// A `Last-Event-ID` minted in one numbering was honoured against another.
    CursorReuse,
    /// A request for a live session reached a replica of the fleet that does not hold it.
    MisroutedSession,
    /// A non-idempotent tool's effect (a `place_order` order) was committed more than once.
    DuplicateEffect,
    /// A tool was called from a tools list that changed while the listen stream was down.
    MissedChange,
    /// A 2026-07-28 task id vanished (purged, expired, lost in a restart) while the client
    /// still asked about it.
    LostTask,
    /// Notifications of another session were sent on the client's streams and handed to
    /// its application.
    ForeignEvent,
    /// The client and the server never met in one protocol era (a misread era probe, an
    /// era cached past a change, a sessionless 2025 server and a client requiring a session).
    EraMismatch,
}

impl GradeKind {
    pub fn name(self) -> &'static str {
        match self {
            GradeKind::Clean => "clean",
            GradeKind::SilentGap => "silent_gap",
            GradeKind::Duplicate => "duplicate",
            GradeKind::SurfacedLoss => "surfaced_loss",
            GradeKind::Hung => "hung",
            GradeKind::RetryAmplification => "retry_amplification",
            GradeKind::ReinitCollision => "reinit_collision",
            GradeKind::ZombieSession => "zombie_session",
            GradeKind::CursorReuse => "cursor_reuse",
            GradeKind::MisroutedSession => "misrouted_session",
            GradeKind::DuplicateEffect => "duplicate_effect",
            GradeKind::MissedChange => "missed_change",
            GradeKind::LostTask => "lost_task",
            GradeKind::ForeignEvent => "foreign_event",
            GradeKind::EraMismatch => "era_mismatch",
        }
    }

    /// The application lost something, or something was done twice, without being told.
    pub fn is_silent_loss(self) -> bool {
        matches!(
            self,
            GradeKind::SilentGap
                | GradeKind::Hung
                | GradeKind::DuplicateEffect
                | GradeKind::MissedChange
                | GradeKind::ForeignEvent
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradeVerdict {
    pub kind: GradeKind,
    /// One line, for the table.
    pub why: String,
    /// The ledger's facts the verdict rests on.
    pub evidence: Value,
}
