//! Ledger-only cores of the MCP 2026-07-28 verdicts: each reads the server's ground truth
//! (a [`Ledger`](faultline_model::Ledger)) and nothing a client says, so the simulator's
//! oracle and the judge of real clients can share it.
//!
//! Only [`duplicate_effect`] exists so far, as a library function: it is not yet a
//! `VerdictKind`, because no bundled scenario or sim client can produce a 2026-07-28 run.

pub mod duplicate_effect;
