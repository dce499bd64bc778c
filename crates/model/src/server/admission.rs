//! Admission: whether a request may be served at all, before any session state moves.
//!
//! Origin, `MCP-Protocol-Version` and `Mcp-Session-Id` are checked the same way by every
//! method, so they live here once rather than in each handler.

use crate::http::{HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, SessionKey};
use crate::jsonrpc;

use super::{SUPPORTED_PROTOCOL_VERSIONS, Server};

impl Server {
    /// Answers with an error status and a JSON-RPC error body. Each argument is one part of
    /// that answer, so they stay separate rather than bundled for the linter's sake.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reject(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        status: u16,
        code: i64,
        message: &str,
        out: &mut Vec<Output>,
    ) {
        let body = jsonrpc::error_without_id(code, message);
        self.respond(conn, request, rpc, HttpResponse::json(status, body), out);
    }

    /// Checks `MCP-Protocol-Version` (400 for one this server does not speak).
    pub(super) fn protocol_ok(request: &HttpRequest) -> bool {
        request
            .protocol_version
            .as_deref()
            .is_none_or(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.trim()))
    }

    /// Resolves `Mcp-Session-Id` to a live session, or answers the request itself.
    pub(super) fn require_session(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        out: &mut Vec<Output>,
    ) -> Option<SessionKey> {
        let Some(wire) = request.session_id.as_deref() else {
            self.reject(
                conn,
                request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
                out,
            );
            return None;
        };
        match self.sessions.lookup(wire) {
            Some(key) => Some(key),
            None => {
                let message = if self.ever_minted.contains_key(wire) {
                    "session expired"
                } else {
                    "Session not found"
                };
                let status = self.knobs.dead_session_answer.status();
                self.reject(
                    conn,
                    request,
                    rpc,
                    status,
                    jsonrpc::SESSION_NOT_FOUND,
                    message,
                    out,
                );
                None
            }
        }
    }
}

/// DNS-rebinding protection: only pages served from this machine may talk to us.
pub(super) fn origin_is_local(origin: &str) -> bool {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        rest.split([':', '/']).next().unwrap_or("").to_string()
    };
    matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_on_this_machine_are_allowed() {
        assert!(origin_is_local("http://localhost:3000"));
        assert!(origin_is_local("http://127.0.0.1"));
        assert!(origin_is_local("https://[::1]:8080"));
        assert!(!origin_is_local("http://evil.example"));
        assert!(!origin_is_local("http://localhost.evil.example"));
        assert!(!origin_is_local("null"));
    }
}
