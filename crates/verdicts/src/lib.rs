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
//!   that prevents it ([`reconnect_loop`]);
//! - shared definitions the rules rest on ([`dead_session`]: which answers tell a client
//!   its session is dead).

pub mod dead_session;
mod kind;
pub mod reconnect_loop;

pub use kind::VerdictKind;
