//! A verdict as `faultline grade` prints it: its kind, a one-line why, and the evidence it
//! rests on as JSON (the one judge's [`Verdict`], whose evidence `grade` flattens into
//! its rows and its report card reads by field name).

use serde::Serialize;
use serde_json::Value;

use crate::VerdictKind;
use crate::verdict::Verdict;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportVerdict {
    pub kind: VerdictKind,
    /// One line, for the table.
    pub why: String,
    /// The ledger's facts the verdict rests on.
    pub evidence: Value,
}

impl From<&Verdict> for ReportVerdict {
    fn from(v: &Verdict) -> ReportVerdict {
        let mut evidence = serde_json::to_value(&v.evidence).unwrap_or(Value::Null);
        // The evidence's variant is the verdict's kind, already named.
        if let Value::Object(fields) = &mut evidence {
            fields.remove("type");
        }
        ReportVerdict {
            kind: v.kind,
            why: v.summary.clone(),
            evidence,
        }
    }
}
