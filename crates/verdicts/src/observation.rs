//! What the one judge reads of a run: the server's ledger, which is ground truth whether
//! the client was simulated or real, and the client's side, as much of it as that client
//! can tell.
//!
//! A modelled client tells everything: which event it applied from which connection,
//! when it read each answer, each typed error and what it was about. A real client tells
//! what its application was handed (progress values, notification numbers, the result,
//! the first error), or nothing at all when it hung or crashed. Every rule reads the
//! ledger; where a rule rests on more than a real client can tell (which event was
//! applied, when an answer was read, an error's type), it says what it concludes without
//! it, and `crates/grade/tests/one_judge.rs` holds the two projections of one simulated
//! run to the same verdicts.

use faultline_model::Ledger;

use crate::client_context::ClientContext;
use crate::client_record::ClientRecord;
use crate::client_report::ClientReport;
use crate::missing_report::MissingReport;
use crate::untested::Exercise;

/// One run, as the judge sees it.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// The server's record of the run: every event produced, sent and answered.
    pub ledger: &'a Ledger,
    /// What the scenario sets out to test, to tell `clean` from `untested`.
    pub exercise: Exercise,
    pub client: ClientSide<'a>,
}

/// The client's side of a run.
#[derive(Debug, Clone, Copy)]
pub enum ClientSide<'a> {
    /// A modelled client's whole record.
    Modelled(&'a ClientRecord),
    /// A real client: the call it was asked to make, and what it reported its
    /// application was handed, or why there is no report that reads.
    Real {
        context: &'a ClientContext,
        report: Result<&'a ClientReport, &'a MissingReport>,
    },
}

impl<'a> Observation<'a> {
    /// A run of a modelled client.
    pub fn modelled(ledger: &'a Ledger, record: &'a ClientRecord) -> Self {
        Observation {
            ledger,
            exercise: record.exercise,
            client: ClientSide::Modelled(record),
        }
    }

    /// A run of a real client.
    pub fn real(
        ledger: &'a Ledger,
        exercise: Exercise,
        context: &'a ClientContext,
        report: Result<&'a ClientReport, &'a MissingReport>,
    ) -> Self {
        Observation {
            ledger,
            exercise,
            client: ClientSide::Real { context, report },
        }
    }

    /// The modelled client's record, if the client was modelled.
    pub fn record(&self) -> Option<&'a ClientRecord> {
        match self.client {
            ClientSide::Modelled(record) => Some(record),
            ClientSide::Real { .. } => None,
        }
    }

    /// The real client's report, if it gave one that reads.
    pub fn report(&self) -> Option<&'a ClientReport> {
        match self.client {
            ClientSide::Real { report, .. } => report.ok(),
            ClientSide::Modelled(_) => None,
        }
    }
}
