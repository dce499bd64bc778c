//! Requests the server never answered on purpose (a `Hang` answer): the exchange stays open
//! with no status line. Kept apart from `answers`, which holds only what went on the wire,
//! so that "the server said nothing" is a fact of the ledger, not an absence a reader has
//! to infer.

use serde::{Deserialize, Serialize};

use crate::ids::ConnId;

/// One request left without an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HangEntry {
    pub conn: ConnId,
    pub at_ms: u64,
    /// The `Mcp-Session-Id` the request carried (at most
    /// [`KEPT_TEXT_BYTES`](crate::KEPT_TEXT_BYTES) of it).
    pub session_sent: Option<String>,
    pub why: HangCause,
}

/// Which knob left the request unanswered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HangCause {
    /// `standalone_get: Hang`: the GET for the standalone stream.
    StandaloneGet,
    /// `unknown_cursor: Hang` (or `evicted_cursor: Some(Hang)`): a resumption whose cursor
    /// the log cannot honour.
    UnknownCursor,
}
