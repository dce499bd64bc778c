//! Ledger-only cores of the MCP 2026-07-28 verdicts: each reads the server's ground truth
//! (a [`Ledger`](faultline_model::Ledger)) and nothing a client says, so the simulator's
//! oracle and the judge of real clients can share it.
//!
//! Only [`duplicate_effect`] exists so far: `oracle::judge` turns it into the
//! `duplicate_effect` verdict, and `faultline-grade` judges real clients' ledgers with it.

pub mod duplicate_effect;
pub mod lost_task;
