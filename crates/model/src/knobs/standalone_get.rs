//! What the 2025 session path answers a GET that opens the standalone SSE stream (a GET
//! with a live session and no `Last-Event-ID`).
//!
//! The spec lets a server decline the stream: "The server MUST either return
//! `Content-Type: text/event-stream` in response to this HTTP GET, or else return HTTP 405
//! Method Not Allowed"
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server>).
//! Servers in the field answer otherwise: a 400 for the GET while every POST of the same
//! session works (<https://github.com/hangwin/mcp-chrome/issues/9>: "SSE error: Non-200
//! status code (400)"; <https://github.com/aklivity/zilla/issues/2525> answers a GET 400),
//! a 404 from a router that has no GET route at all, or no answer: a GET that a proxy or a
//! framework holds open without ever sending a status line. Each tells a client something
//! different (a 404 reads as a dead session), so each is its own answer here.

use serde::{Deserialize, Serialize};

use crate::duration::PositiveDurationMs;

/// The answer to a GET that would open the session's standalone SSE stream.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub enum StandaloneGet {
    /// 200 and the standalone stream (409 for a second one, as `second_standalone` says).
    #[default]
    ServeStream,
    /// 400 `Bad Request: No valid session ID provided`, in the refusal body the
    /// `refusal_body` knob names, although the session is live and its POSTs work.
    BadRequest400,
    /// 404 `Not Found`: no route for GET. A client cannot tell it from a dead session.
    NotFound404,
    /// No answer at all: no status line, no headers, no bytes. The exchange stays open
    /// until the client closes it (its own timeout) or the run ends; the ledger records
    /// it in `hangs`.
    Hang,
}

impl StandaloneGet {
    pub fn is_default(&self) -> bool {
        *self == StandaloneGet::default()
    }
}

/// `stale_standalone`: a server that has not noticed that the connection of a session's
/// standalone GET is gone, and refuses a new standalone GET of the same session for a
/// while after the drop, as if the old stream were still open.
///
/// The spec's rule "at most one standalone stream" is kept by a map from session to
/// stream that the server clears when it sees the connection end; servers that learn of
/// the end late (a proxy in between that keeps its upstream half open, a cancel callback
/// that never runs) answer the client's reconnect as a second stream:
/// 400 `Session registration failed: session already exists` for about 120 s
/// (<https://github.com/render-oss/render-mcp-server/issues/26>), 409 from the TypeScript
/// and Go transports' one-stream check
/// (<https://github.com/modelcontextprotocol/kotlin-sdk/pull/716>,
/// <https://github.com/danny-avila/LibreChat/pull/14816>), or a 400 that never ends
/// (<https://github.com/modelcontextprotocol/csharp-sdk/pull/1713>: write a `for` longer
/// than the run). The model notices every drop at once, so this knob says how long it
/// pretends not to. A GET carrying `Last-Event-ID` is a resumption and is not refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaleStandalone {
    /// The refusal the reconnect gets.
    pub answer: StaleStandaloneAnswer,
    /// How long after the drop the refusal lasts; the first GET after it is served.
    #[serde(rename = "for")]
    pub lasting: PositiveDurationMs,
}

/// The status a standalone GET gets while the server still holds the dropped one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum StaleStandaloneAnswer {
    /// 409 `Conflict: only one standalone SSE stream is allowed per session` (the
    /// TypeScript, Go and Kotlin transports).
    Conflict409,
    /// 400 `Session registration failed: session already exists` (render-mcp-server; the
    /// C# SDK's 400).
    BadRequest400,
}
