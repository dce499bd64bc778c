//! # faultline-verdicts
//!
//! faultline's product is its verdict: what was lost, and why. This crate is where a
//! verdict's meaning is fixed once, for every way faultline meets a client: the simulator
//! (`run`, `explore`, the testkit) and real clients (`grade`).
//!
//! - [`VerdictKind`]: the one list of verdict names, with the one notion of a silent loss
//!   ([`VerdictKind::is_loss`]) and of harm without loss ([`VerdictKind::is_harm`]);
//! - [`judge`]: the one judge. It reads one [`Observation`]: the server's ledger (ground
//!   truth, simulated or live) and the client's side, a modelled client's whole
//!   [`client_record::ClientRecord`] or a real client's [`ClientReport`] (the values its
//!   application was handed, or why there is none: [`MissingReport`]);
//! - one file per verdict, with its rule, its evidence type, the sentence that tells it
//!   and the guard that prevents it. Where a rule rests on more than a real client can
//!   tell (which event was applied, when an answer was read, an error's type), the file
//!   holds both readings side by side and says what it concludes without it (`gap`,
//!   `duplicate`, [`cursor_reuse`], [`zombie_session`], `retry_amplification`,
//!   `reinit_collision`, [`quarantine_violation`], [`foreign_event`],
//!   [`misrouted_session`], [`lost_task`], `hung`); the others read the ledger alone
//!   ([`reconnect_loop`], [`duplicate_effect`], [`era_mismatch`], [`missed_change`]), and
//!   some only one kind of client can earn (`detected`: typed errors; [`missing_report`],
//!   [`out_of_order`], [`not_applicable`], [`other_era`]: a real client's process and
//!   declarations);
//! - shared definitions the rules rest on ([`dead_session`]: which answers tell a client
//!   its session is dead; [`untested`]: when nothing the scenario tests happened).
//!
//! `crates/grade/tests/one_judge.rs` projects every bundled simulated run onto what a real
//! client could report and holds the two readings to the same verdicts.

mod client_context;
pub mod client_error;
pub mod client_record;
mod client_report;
pub mod cursor_reuse;
pub mod dead_session;
mod detected;
mod duplicate;
pub mod duplicate_effect;
pub mod era_mismatch;
pub mod foreign_event;
mod gap;
mod hung;
mod id_ranges;
mod judge;
mod kind;
pub mod lost_task;
pub mod misrouted_session;
pub mod missed_change;
pub mod missing_report;
pub mod not_applicable;
mod observation;
pub mod other_era;
pub mod out_of_order;
mod owed;
pub mod quarantine_violation;
pub mod reconnect_loop;
pub mod refused_without_recovery;
mod reinit_collision;
mod report_verdict;
mod request_index;
mod retry_amplification;
pub mod session_abandoned;
pub mod session_requests;
pub mod spell;
#[cfg(test)]
mod test_answer;
#[cfg(test)]
mod test_records;
pub mod untested;
pub mod untrue_report;
pub mod verdict;
mod words;
pub mod zombie_session;

pub use client_context::{CallSpec, ClientContext};
pub use client_report::{ClientReport, Supports};
pub use id_ranges::{IdRanges, ranges};
pub use judge::judge;
pub use kind::VerdictKind;
pub use missing_report::MissingReport;
pub use observation::{ClientSide, Observation};
pub use owed::{ValuesLost, client_sessions};
pub use report_verdict::ReportVerdict;
pub use words::Words;
