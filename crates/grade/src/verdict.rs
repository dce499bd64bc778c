//! One grading verdict: its kind (the one [`VerdictKind`] the simulator's judge uses too), a
//! one-line why, and the evidence it rests on.

pub use faultline_verdicts::VerdictKind;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradeVerdict {
    pub kind: VerdictKind,
    /// One line, for the table.
    pub why: String,
    /// The ledger's facts the verdict rests on.
    pub evidence: Value,
}
