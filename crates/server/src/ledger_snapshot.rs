//! What `GET /_chaos/ledger` serves: the model's typed [`Ledger`], serialized by serde
//! exactly as the simulator's oracle and `ledger_sha256` see it, next to what only the live
//! driver knows (its clock, the scenario it plays, which sessions the store still holds,
//! the open connections, the faults that fired).
//!
//! Why typed, not a view built by hand: a hand-built view drifts from the record it shows
//! (the one this replaced renumbered events per stream), and a script comparing what its
//! client applied with the ground truth must see the ids the oracle sees. A Rust caller can
//! deserialize `ledger` straight back into [`Ledger`].
//!
//! The body is written from a [`LedgerCopy`] taken under the server's lock, not from the
//! state itself: writing 300,000 events as JSON took some 600 ms, every other client
//! waiting for the lock meanwhile; copying them takes a small part of that.

use std::collections::VecDeque;

use faultline_model::{ConnId, Ledger, ServerKnobs, SessionKey};
use faultline_scenario::FiredFault;
use serde::Serialize;

use crate::core::State;
use crate::time_scale::TimeScale;

/// The body of `GET /_chaos/ledger`.
#[derive(Debug, Serialize)]
pub(crate) struct LedgerSnapshot<'a> {
    /// Virtual time when the ledger was read.
    pub now_ms: u64,
    pub time_scale: TimeScale,
    /// An auto clock's pace: at most this many virtual ms per wall ms (`grade
    /// --time-scale`, `serve --grading --time-scale`). Not written without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pace: Option<f64>,
    /// The scenario played live (its `name`), if any.
    pub scenario: Option<&'a str>,
    pub knobs: &'a ServerKnobs,
    /// Sessions the store holds now, as keys into `ledger.sessions`.
    pub live_sessions: Vec<SessionKey>,
    /// SSE connections open now.
    pub open_connections: Vec<ConnId>,
    /// Scripted faults and control-API actions, in the order they fired (the most recent
    /// 10,000).
    pub faults_fired: &'a VecDeque<FiredFault>,
    /// The ground truth itself.
    pub ledger: &'a Ledger,
}

/// What [`LedgerSnapshot`] shows, owned: copied under the server's lock (a copy of
/// plain records, far cheaper than writing them as JSON), so that the JSON is written
/// after the lock is released (see `ledger_stream`).
#[derive(Debug)]
pub(crate) struct LedgerCopy {
    now_ms: u64,
    time_scale: TimeScale,
    pace: Option<f64>,
    scenario: Option<String>,
    knobs: ServerKnobs,
    live_sessions: Vec<SessionKey>,
    open_connections: Vec<ConnId>,
    faults_fired: VecDeque<FiredFault>,
    ledger: Ledger,
}

impl LedgerCopy {
    /// Copies the driver as it is; the caller steps it to "now" first.
    pub fn of(state: &State) -> LedgerCopy {
        let server = state.server();
        let mut live_sessions: Vec<SessionKey> = server
            .live_sessions()
            .iter()
            .filter_map(|(wire_id, _)| server.session_key(wire_id))
            .collect();
        live_sessions.sort_unstable();
        LedgerCopy {
            now_ms: server.now_ms(),
            time_scale: state.time_scale(),
            pace: state.config().auto_grace.and(state.config().pace),
            scenario: state.config().scenario.as_ref().map(|s| s.name.clone()),
            knobs: server.knobs().clone(),
            live_sessions,
            open_connections: server.open_connections(None),
            faults_fired: state.fired.clone(),
            ledger: server.ledger().clone(),
        }
    }

    /// The body, as [`LedgerSnapshot`] writes it.
    pub fn view(&self) -> LedgerSnapshot<'_> {
        LedgerSnapshot {
            now_ms: self.now_ms,
            time_scale: self.time_scale,
            pace: self.pace,
            scenario: self.scenario.as_deref(),
            knobs: &self.knobs,
            live_sessions: self.live_sessions.clone(),
            open_connections: self.open_connections.clone(),
            faults_fired: &self.faults_fired,
            ledger: &self.ledger,
        }
    }
}

impl Serialize for LedgerCopy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(serializer)
    }
}
