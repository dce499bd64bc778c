//! The typed resumption errors, as Rust types: a guarded client raises these instead of
//! losing data silently, and the oracle counts a loss as *detected* only when one of them
//! covers it.

use std::fmt;

use serde::Serialize;

/// Seed 000: SSE replay succeeded (or the transport rejected the session) but the session
/// cannot be confirmed alive. Buffered events must be quarantined and the session rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionResumptionError {
    pub session: String,
    pub message: String,
}

/// Seed 002: a replay could not be proven contiguous with the client's cursor (or the
/// server never promised ids a cursor could rely on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResumptionCursorError {
    pub session: String,
    pub message: String,
}

/// A 2026-07-28 call whose request stream was cut before its response, for a tool that is
/// not idempotent: the stream cannot be resumed, and calling again might do the work twice,
/// so the client hands the question to its application (did the order go through?) rather
/// than re-issue it blindly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallCutError {
    /// The workload call's key (`call-k`).
    pub call: String,
    pub tool: String,
    pub message: String,
}

impl fmt::Display for CallCutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CallCutError: {}", self.message)
    }
}

impl std::error::Error for CallCutError {}

/// A 2026-07-28 task the client was polling is unknown to the server (`tasks/get`
/// answered -32602): its record was purged, expired or lost in a restart, and whether its
/// work was done cannot be learnt. The guarded client says so instead of calling the call
/// done (SEP-2663: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md>).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskLostError {
    /// The workload call's key (`call-k`).
    pub call: String,
    pub task_id: String,
    pub message: String,
}

impl fmt::Display for TaskLostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskLostError: {}", self.message)
    }
}

impl std::error::Error for TaskLostError {}

impl fmt::Display for SessionResumptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionResumptionError: {}", self.message)
    }
}

impl fmt::Display for ResumptionCursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResumptionCursorError: {}", self.message)
    }
}

impl std::error::Error for SessionResumptionError {}
impl std::error::Error for ResumptionCursorError {}

/// Everything a modelled client can report to its application.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientError {
    SessionResumption(SessionResumptionError),
    ResumptionCursor(ResumptionCursorError),
    CallCut(CallCutError),
    TaskLost(TaskLostError),
    /// An untyped failure handed to the application (a tool call failed, a stream gave up).
    Surfaced {
        message: String,
    },
}

impl ClientError {
    pub fn is_typed(&self) -> bool {
        !matches!(self, ClientError::Surfaced { .. })
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::SessionResumption(e) => e.fmt(f),
            ClientError::ResumptionCursor(e) => e.fmt(f),
            ClientError::CallCut(e) => e.fmt(f),
            ClientError::TaskLost(e) => e.fmt(f),
            ClientError::Surfaced { message } => {
                write!(f, "error surfaced to the application: {message}")
            }
        }
    }
}
