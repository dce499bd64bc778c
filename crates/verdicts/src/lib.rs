//! # faultline-verdicts
//!
//! faultline's product is its verdict: what was lost, and why. This crate is where a
//! verdict's meaning is fixed once, for every way faultline meets a client: the simulator
//! (`run`, `explore`, the testkit) and real clients (`grade`).
//!
//! - [`VerdictKind`]: the one list of verdict names, with the one notion of a silent loss
//!   ([`VerdictKind::is_loss`]) and of harm without loss ([`VerdictKind::is_harm`]);
//! - rules that read the server's ledger alone, so that a real client, which reports only
//!   what its application was handed, is judged exactly as a modelled one: one file per
//!   verdict, with its rule, its evidence type, the sentence that tells it and the guard
//!   that prevents it ([`reconnect_loop`], [`cursor_reuse`], [`zombie_session`], and the
//!   2026-07-28 rules [`duplicate_effect`], [`era_mismatch`], [`lost_task`],
//!   [`missed_change`]);
//! - shared definitions the rules rest on ([`dead_session`]: which answers tell a client
//!   its session is dead);
//! - the judge of a real client ([`judge_report`]): the same verdicts from what a real
//!   client can give, the server's ledger and its [`ClientReport`] (the values its
//!   application was handed), for `faultline grade`, with the verdicts only a real client
//!   gets: no report that reads ([`missing_report`]: `hung`, `crashed`, `bad_report`),
//!   progress handed over out of order ([`out_of_order`]), a scenario that needs what the
//!   client declared it cannot do ([`not_applicable`]) or breaks the other protocol era
//!   than the one it spoke ([`other_era`]). Where a report cannot carry what a
//!   rule rests on (typed errors, which event was applied), the rule says what it
//!   concludes without it; `crates/grade/tests/one_judge.rs` holds both judges to the
//!   same verdicts on every bundled scenario.

mod client_context;
pub mod client_error;
pub mod client_record;
mod client_report;
pub mod cursor_reuse;
pub mod dead_session;
pub mod duplicate_effect;
pub mod era_mismatch;
mod id_ranges;
mod judge;
mod kind;
pub mod lost_task;
pub mod misrouted_session;
pub mod missed_change;
pub mod missing_report;
pub mod not_applicable;
pub mod other_era;
pub mod out_of_order;
pub mod reconnect_loop;
mod report_foreign_event;
mod report_judge;
mod report_quarantine;
mod report_verdict;
mod request_index;
pub mod session_requests;
pub mod spell;
pub mod untested;
pub mod verdict;
mod words;
pub mod zombie_session;

pub use client_context::{CallSpec, ClientContext};
pub use client_report::{ClientReport, Supports};
pub use id_ranges::IdRanges;
pub use judge::{judge, judge_with};
pub use kind::VerdictKind;
pub use missing_report::MissingReport;
pub use report_judge::{client_sessions, judge_report, ranges};
pub use report_verdict::ReportVerdict;
pub use words::Words;
