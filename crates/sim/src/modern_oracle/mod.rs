//! The simulator's side of the MCP 2026-07-28 verdicts. Each rule's ledger-only core (it
//! reads the server's ground truth and nothing a client says) lives in
//! `faultline-verdicts`, where `faultline-grade` reads the same functions for real
//! clients; here each becomes the simulator's verdict, with its sentence.

pub mod duplicate_effect;
pub mod era_mismatch;
pub mod lost_task;
pub mod missed_change;
