//! Ledger-only cores of the MCP 2026-07-28 verdicts: each reads the server's ground truth
//! (a [`Ledger`](faultline_model::Ledger)) and nothing a client says, so the simulator's
//! oracle and the judge of real clients can share it.
//!
//! [`duplicate_effect`] and [`missed_change`]: `oracle::judge` turns each into its
//! verdict, and `faultline-grade` judges real clients' ledgers with the same functions.

pub mod duplicate_effect;
pub mod era_mismatch;
pub mod lost_task;
pub mod missed_change;
