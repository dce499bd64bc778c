//! Knobs that change how the server spells things on the wire, not what it does: event
//! ids and the JSON-RPC codes of its refusals. The SDK servers differ here (and a client
//! that parses ids, or matches on an error code, meets the difference), so the profiles
//! that imitate them need these; everything the model decides is unchanged by them.

use serde::{Deserialize, Serialize};

use crate::jsonrpc::{INVALID_REQUEST, SESSION_NOT_FOUND};

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

pub(super) fn is_true(b: &bool) -> bool {
    *b
}

/// How an event id is written in `id:` (and read back from `Last-Event-ID`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum IdFormat {
    /// The number itself (`41`).
    #[default]
    Number,
    /// No `id:` line at all: a server without an event store. No cursor is ever honoured.
    Hidden,
    /// rmcp's spelling: `<n>` on the standalone stream, `<n>/<request>` on the stream of the
    /// request-th POST stream of the session.
    IndexSlashRequest,
    /// A UUID (the Python SDK's example event store).
    Uuid,
    /// `<stream uuid>_<ms>_<random>` (the TypeScript SDK's example `InMemoryEventStore`).
    StreamMsRandom,
}

impl IdFormat {
    pub fn is_default(&self) -> bool {
        *self == IdFormat::default()
    }
}

/// The JSON-RPC error codes in the bodies of the transport's refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorCodes {
    /// A malformed or unacceptable request (400, 406, 409): -32600 (JSON-RPC's Invalid
    /// Request); the TypeScript SDK uses -32000.
    pub invalid_request: i64,
    /// A dead or unknown session: -32001; the Python SDK uses -32600.
    pub session_not_found: i64,
}

impl Default for ErrorCodes {
    fn default() -> Self {
        ErrorCodes {
            invalid_request: INVALID_REQUEST,
            session_not_found: SESSION_NOT_FOUND,
        }
    }
}

impl ErrorCodes {
    pub fn is_default(&self) -> bool {
        *self == ErrorCodes::default()
    }
}

/// Which responses carry `Mcp-Session-Id` besides `initialize`'s.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum SessionIdHeader {
    /// Only the `initialize` answer (rmcp).
    #[default]
    Initialize,
    /// Also every 200 with a body (JSON or SSE) to a request that named the session (the
    /// TypeScript SDK's transport).
    Answers,
    /// Also every response to a request that named the session, except the dead-session
    /// answer (the Python SDK's transport).
    Every,
}

impl SessionIdHeader {
    pub fn is_default(&self) -> bool {
        *self == SessionIdHeader::default()
    }
}

/// The body of the transport's refusals (bad headers, dead sessions, bad JSON).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum RefusalBody {
    /// A JSON-RPC error object with no id.
    #[default]
    JsonRpc,
    /// The message as `text/plain` (rmcp's tower service).
    Text,
}

impl RefusalBody {
    pub fn is_default(&self) -> bool {
        *self == RefusalBody::default()
    }
}

/// The status of a successful DELETE.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum DeleteAnswer {
    /// 200 with no body (the TypeScript and Python SDKs).
    #[default]
    Ok200,
    /// 202 Accepted (rmcp).
    Accepted202,
}

impl DeleteAnswer {
    pub fn is_default(&self) -> bool {
        *self == DeleteAnswer::default()
    }

    pub fn status(self) -> u16 {
        match self {
            DeleteAnswer::Ok200 => 200,
            DeleteAnswer::Accepted202 => 202,
        }
    }
}

/// What a second standalone GET gets while the first is open.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum SecondStandalone {
    /// 409 Conflict (the TypeScript and Python SDKs).
    #[default]
    Conflict409,
    /// 200 and a silent "shadow" stream that never carries a notification (rmcp: the
    /// first stream keeps them; rust-sdk PR #682).
    Shadow,
}

impl SecondStandalone {
    pub fn is_default(&self) -> bool {
        *self == SecondStandalone::default()
    }
}

/// When a resumed stream (a GET with `Last-Event-ID` that was honoured) ends.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum ResumedStreamEnd {
    /// With its call's response, replayed or live, as a POST stream does.
    #[default]
    AtResponse,
    /// Never, when the call had finished before the resumption (its replay ends with the
    /// response and the stream stays open, keep-alives only: the TypeScript SDK); a call
    /// still running ends it with its response.
    OpenIfFinished,
    /// Never: the client closes it (the Python SDK).
    Open,
}

impl ResumedStreamEnd {
    pub fn is_default(&self) -> bool {
        *self == ResumedStreamEnd::default()
    }
}
