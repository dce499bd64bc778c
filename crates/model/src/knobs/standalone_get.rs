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
