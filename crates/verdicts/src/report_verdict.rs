//! One verdict judged from a client's report: its kind (the one [`VerdictKind`] the
//! simulator's judge uses too), a one-line why, and the evidence it rests on.

use serde::Serialize;
use serde_json::Value;

use crate::VerdictKind;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportVerdict {
    pub kind: VerdictKind,
    /// One line, for the table.
    pub why: String,
    /// The ledger's facts the verdict rests on.
    pub evidence: Value,
}
