//! # faultline-scenario
//!
//! The scenario format and the one engine that plays it. A scenario says what the server
//! is (knobs), what the application and its client do (workload), what goes wrong and when
//! (faults), and what the oracle must conclude (`expect`).
//!
//! Two drivers play scenarios: the simulator (`faultline-sim`, a modelled client on
//! virtual time) and the live server (`faultline-server`, real clients over HTTP). Both go
//! through this crate so that they cannot disagree:
//!
//! - [`arm`] picks every range of a scenario from one seed, in one fixed order, giving an
//!   [`Armed`] scenario: the member of the family the file describes;
//! - [`Engine`] wraps the sans-IO [`faultline_model::Server`] and plays the armed
//!   scenario's server-side half against it: `Notify` timing, fault triggers (`At`,
//!   `AfterEvent`), stream selection (`Call(k)`, `Standalone`), drops, restarts, GC sweeps.
//!   Its output, in order, is what goes on the wire and which faults fired;
//! - each fault kind is one small file in `faults/` implementing [`FaultAction`]: adding a
//!   fault is one file and one enum arm.
//!
//! ```text
//! scenario ─▶ arm(seed) ─▶ Armed ─┬─▶ Engine (server half) ─▶ Emitted: wire outputs + fired faults
//!                                 └─▶ client plan (start, calls, away) ─▶ modelled or real client
//! ```

mod arming;
mod balancer;
mod calls;
mod client_habits;
mod engine;
mod fault_shape;
mod faults;
mod faults_exercised;
mod pick;
mod proxy;
mod reconnect;
mod ron_error;
mod scenario;
mod scratch;
mod server_block;
mod source_map;

pub use arming::{Armed, ArmedCall, ArmedChoice, ArmedFault, ArmedNotify, ArmedTrigger, arm};
pub use balancer::{Balancer, COOKIE_NAME, Pick};
pub use client_habits::{
    Backoff, Calls, ClientHabits, Cookies, CursorAfterDrop, Dedup, GetFailure, IdlessError,
    ListChanged, NoIdCall, OnClose, Progress, ReadTimeoutEnds, Reinit, ResultCheck, SdkClient,
    StandaloneErrors, Timeout, WhenDone,
};
pub use engine::{Emitted, Engine, FiredFault};
pub use fault_shape::{FaultWhen, FaultWhenMut, Moment};
pub use faultline_verdicts::VerdictKind;
pub use faults::{ClientEffect, FaultAction};
pub use faults_exercised::{FaultsExercised, fault_bit, unmet_mask};
pub use pick::{PickCount, PickDuration};
pub use reconnect::Reconnect;
pub use scenario::{
    ClientConfig, ClientEra, ClientModel, CutAt, Expectation, Fault, Scenario, ScenarioError,
    StreamSel, Tool, Trigger, Work,
};
pub use scratch::put_back;
pub use server_block::{SERVER_FIELDS, set_knob};
