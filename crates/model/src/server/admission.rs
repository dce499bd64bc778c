//! Admission: whether a request may be served at all, and what the client is told when not.
//!
//! Origin, `MCP-Protocol-Version`, `Accept`/`Content-Type` and `Mcp-Session-Id` are checked
//! the same way wherever they apply, so the checks live here once. Every refusal the server
//! can give, from any handler, is a [`Rejection`], and [`Rejection::answer`] is the one
//! table of what each refusal looks like on the wire: HTTP status, JSON-RPC error code,
//! message. A handler says *why* it refuses; it never spells out the answer itself.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::authority::Host;
use crate::http::{HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::{ConnId, SessionKey};
use crate::jsonrpc::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, SESSION_NOT_FOUND,
};
use crate::knobs::{DeadSessionAnswer, RefusalBody};
use crate::media_type;

use super::request_budget::StepBudget;
use super::{SUPPORTED_PROTOCOL_VERSIONS, Server};

/// The `Allow` header of a 405.
const ALLOWED_METHODS: &str = "GET, POST, DELETE";

/// Every reason the server refuses a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rejection {
    /// DNS-rebinding protection: the `Origin` is not on this machine.
    OriginNotAllowed,
    /// Not GET, POST or DELETE.
    MethodNotAllowed,
    UnsupportedProtocolVersion,
    /// No `Mcp-Session-Id` on a request that needs one.
    SessionRequired,
    /// The `Mcp-Session-Id` named a session that is gone (or, for a GET that does not ask
    /// the store, one it found no live session for).
    SessionExpired,
    /// The `Mcp-Session-Id` was never minted here.
    SessionUnknown,
    /// The `Mcp-Session-Id` names a live session that another replica of the fleet holds
    /// (per-replica session stores): answered exactly as [`Rejection::SessionUnknown`],
    /// since that is all the serving replica can know, and recorded as a misroute.
    SessionElsewhere(SessionKey),
    /// A POST whose `Accept` does not list both JSON and SSE.
    PostNotAcceptable,
    /// A POST whose body is not declared JSON.
    UnsupportedMediaType,
    /// A POST whose body does not parse as JSON.
    ParseError,
    /// A JSON value that is not a JSON-RPC message, and why.
    InvalidMessage(&'static str),
    EmptyBatch,
    InitializeInBatch,
    /// `initialize` sent as a notification.
    InitializeNotRequest,
    /// `max_sessions` live sessions already.
    SessionLimit,
    /// Batches were removed after protocol 2025-03-26.
    BatchNeedsOldProtocol,
    /// A GET whose `Accept` does not list SSE.
    GetNotAcceptable,
    /// A second standalone stream while the first is attached.
    StandaloneConflict,
    /// The standalone GET, under `standalone_get: BadRequest400`.
    StandaloneBadRequest,
    /// The standalone GET, under `standalone_get: NotFound404` (no route for GET).
    StandaloneNoRoute,
    /// A standalone GET soon after the session's last one dropped, under
    /// `stale_standalone: (answer: BadRequest400, ..)`.
    StandaloneStale400,
    /// A cursor the log cannot honour, under `unknown_cursor: BadRequest`.
    CursorBadRequest,
    /// A cursor the log cannot honour, under `unknown_cursor: NotFound`.
    CursorNotFound,
    /// A cursor the log cannot honour, under `unknown_cursor: ServerError`.
    CursorServerError,
    /// The session's event log holds `max_streams_per_session` streams already.
    StreamLimit,
    /// A request id longer than `max_echo_bytes` (the limit).
    IdTooLong(u32),
    /// A `_meta.progressToken` longer than `max_echo_bytes` (the limit).
    ProgressTokenTooLong(u32),
    /// The POST's jobs would pass a step budget (see `request_budget`).
    StepBudget(StepBudget),
    /// The client address holds `max_sessions_per_peer` used sessions already.
    PeerSessionLimit(u32),
}

impl Rejection {
    /// Whether this is the refusal of a dead, unknown or elsewhere-held session: the
    /// one whose status is the `dead_session_answer` knob's.
    fn names_dead_session(self) -> bool {
        matches!(
            self,
            Rejection::SessionExpired | Rejection::SessionUnknown | Rejection::SessionElsewhere(_)
        )
    }

    /// What the client is told: HTTP status, JSON-RPC error code, message. The status for a
    /// dead or unknown session is the `dead_session_answer` knob's.
    pub(super) fn answer(self, dead: DeadSessionAnswer) -> (u16, i64, Cow<'static, str>) {
        use Rejection::*;
        let (status, code, message) = match self {
            OriginNotAllowed => (403, INVALID_REQUEST, "Forbidden: Origin is not allowed"),
            MethodNotAllowed => (405, INVALID_REQUEST, "Method Not Allowed"),
            UnsupportedProtocolVersion => (
                400,
                INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
            ),
            SessionRequired => (
                400,
                INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            ),
            SessionExpired => (dead.status(), SESSION_NOT_FOUND, "session expired"),
            SessionUnknown | SessionElsewhere(_) => {
                (dead.status(), SESSION_NOT_FOUND, "Session not found")
            }
            PostNotAcceptable => (
                406,
                INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ),
            UnsupportedMediaType => (
                415,
                INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            ),
            ParseError => (400, PARSE_ERROR, "Parse error: the body is not JSON"),
            InvalidMessage(why) => {
                return (
                    400,
                    INVALID_REQUEST,
                    format!("Invalid Request: {why}").into(),
                );
            }
            EmptyBatch => (400, INVALID_REQUEST, "Invalid Request: empty batch"),
            InitializeInBatch => (
                400,
                INVALID_REQUEST,
                "Invalid Request: initialize must not be part of a batch",
            ),
            InitializeNotRequest => (
                400,
                INVALID_REQUEST,
                "Invalid Request: initialize must be a request",
            ),
            SessionLimit => (
                503,
                INVALID_REQUEST,
                "Service Unavailable: session limit reached",
            ),
            BatchNeedsOldProtocol => (
                400,
                INVALID_REQUEST,
                "Invalid Request: batches are only allowed in protocol 2025-03-26",
            ),
            GetNotAcceptable => (
                406,
                INVALID_REQUEST,
                "Not Acceptable: Accept must list text/event-stream",
            ),
            StandaloneConflict => (
                409,
                INVALID_REQUEST,
                "Conflict: only one standalone SSE stream is allowed per session",
            ),
            // The TypeScript SDK examples' words, which servers built on them answer a GET
            // with (<https://github.com/hangwin/mcp-chrome/issues/9>).
            StandaloneBadRequest => (
                400,
                INVALID_REQUEST,
                "Bad Request: No valid session ID provided",
            ),
            StandaloneNoRoute => (404, INVALID_REQUEST, "Not Found"),
            // render-mcp-server's words
            // (<https://github.com/render-oss/render-mcp-server/issues/26>).
            StandaloneStale400 => (
                400,
                INVALID_REQUEST,
                "Session registration failed: session already exists",
            ),
            CursorBadRequest => (
                400,
                INVALID_REQUEST,
                "Bad Request: Last-Event-ID cannot be resumed",
            ),
            CursorNotFound => (404, INVALID_REQUEST, "Not Found: no such event"),
            CursorServerError => (500, INTERNAL_ERROR, "Internal Server Error"),
            IdTooLong(limit) => {
                return (
                    400,
                    INVALID_REQUEST,
                    format!("Invalid Request: a request id is longer than {limit} bytes, the most this server repeats back").into(),
                );
            }
            ProgressTokenTooLong(limit) => {
                return (
                    400,
                    INVALID_PARAMS,
                    format!("Invalid params: _meta.progressToken is longer than {limit} bytes, the most this server repeats in each progress notification").into(),
                );
            }
            StepBudget(over) => {
                let (status, code, message) = over.parts();
                return (status, code, message.into());
            }
            PeerSessionLimit(limit) => {
                return (
                    429,
                    INVALID_REQUEST,
                    format!("Too Many Requests: this client address holds {limit} sessions in use, the most allowed; DELETE one first").into(),
                );
            }
            // RFC 6585 §4: the client sent too much; it may retry once its streams end or
            // expire.
            StreamLimit => (
                429,
                INVALID_REQUEST,
                "Too Many Requests: this session holds as many SSE streams as the server allows; wait for its streams to end or expire",
            ),
        };
        (status, code, Cow::Borrowed(message))
    }
}

impl Server {
    /// Answers the request with `why`'s row of the table; returns the status given.
    pub(super) fn reject(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        why: Rejection,
        out: &mut Vec<Output>,
    ) -> u16 {
        if let Rejection::SessionElsewhere(key) = why {
            self.push_misroute(conn, key);
        }
        let (status, code, message) = why.answer(self.knobs.dead_session_answer);
        let code = self.knobs_error_code(why, status, code);
        // A 200 that refuses a dead session is a JSON-RPC error whatever `refusal_body`
        // says: that is what `OkWithError200` describes.
        let ok_with_error = why.names_dead_session()
            && self.knobs.dead_session_answer == DeadSessionAnswer::OkWithError200;
        let text = (self.knobs.refusal_body == RefusalBody::Text && !ok_with_error)
            || why == Rejection::CursorServerError;
        let body = match text {
            false => ResponseBody::Refusal { code, message },
            true => ResponseBody::Text(message.into_owned()),
        };
        let mut response = HttpResponse {
            body,
            ..HttpResponse::empty(status)
        };
        if why == Rejection::MethodNotAllowed {
            response.allow = Some(ALLOWED_METHODS);
        }
        self.respond(conn, request, rpc, response, out);
        if why.names_dead_session()
            && !self.knobs.dead_session_answer.status_says_refused()
            && let Some(answer) = self.ledger.answers.last_mut()
        {
            answer.dead_session = true;
        }
        status
    }

    /// The JSON-RPC code a refusal carries, as the `error_codes` knob spells it: the
    /// dead-session code for a dead or unknown session, the invalid-request code for the
    /// transport's other 400, 405, 406 and 409 refusals that use JSON-RPC's -32600.
    fn knobs_error_code(&self, why: Rejection, status: u16, code: i64) -> i64 {
        let codes = self.knobs.error_codes;
        match why {
            _ if why.names_dead_session() => codes.session_not_found,
            _ if code == INVALID_REQUEST && matches!(status, 400 | 405 | 406 | 409) => {
                codes.invalid_request
            }
            _ => code,
        }
    }

    /// Passes a check's value through, or answers the request with its rejection.
    pub(super) fn admit<T>(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        checked: Result<T, Rejection>,
        out: &mut Vec<Output>,
    ) -> Option<T> {
        match checked {
            Ok(value) => Some(value),
            Err(why) => {
                self.reject(conn, request, rpc, why, out);
                None
            }
        }
    }

    /// The `Mcp-Session-Id` resolved to a live session in the store.
    pub(super) fn live_session(&self, request: &HttpRequest) -> Result<SessionKey, Rejection> {
        let wire = session_header(request)?;
        match self.sessions.lookup(wire) {
            Some(key) => self.visible(key),
            None if self.ever_minted.contains_key(wire) => Err(Rejection::SessionExpired),
            None => Err(Rejection::SessionUnknown),
        }
    }
}

/// Checks `Origin` (only pages served from this machine may talk to us).
pub(super) fn check_origin(request: &HttpRequest) -> Result<(), Rejection> {
    match &request.origin {
        Some(origin) if !origin_is_local(origin) => Err(Rejection::OriginNotAllowed),
        _ => Ok(()),
    }
}

/// Checks `MCP-Protocol-Version` (absent means the default, which is supported).
pub(super) fn check_protocol_version(request: &HttpRequest) -> Result<(), Rejection> {
    let supported = request
        .protocol_version
        .as_deref()
        .is_none_or(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.trim()));
    if supported {
        Ok(())
    } else {
        Err(Rejection::UnsupportedProtocolVersion)
    }
}

/// Checks a POST's `Accept` (JSON and SSE) and `Content-Type` (JSON), as media types: a
/// `Content-Type: application/jsonx` is not JSON.
/// `wildcard`: whether `*/*` counts as listing them (the `accept_wildcard` knob).
pub(super) fn check_post_media(request: &HttpRequest, wildcard: bool) -> Result<(), Rejection> {
    let accept = request.accept.as_deref().unwrap_or("");
    let lists: fn(&str, &str) -> bool = if wildcard {
        media_type::accepts
    } else {
        media_type::names
    };
    let accepts_both = lists(accept, "application/json") && lists(accept, "text/event-stream");
    if !accepts_both {
        return Err(Rejection::PostNotAcceptable);
    }
    let json_content = request
        .content_type
        .as_deref()
        .is_some_and(|c| media_type::is(c, "application/json"));
    if !json_content {
        return Err(Rejection::UnsupportedMediaType);
    }
    Ok(())
}

/// Checks a GET's `Accept` (SSE).
pub(super) fn check_get_media(request: &HttpRequest) -> Result<(), Rejection> {
    let accept = request.accept.as_deref().unwrap_or("");
    if media_type::accepts(accept, "text/event-stream") {
        Ok(())
    } else {
        Err(Rejection::GetNotAcceptable)
    }
}

/// The `Mcp-Session-Id` the request carries, which every method but `initialize` needs.
pub(super) fn session_header(request: &HttpRequest) -> Result<&str, Rejection> {
    request
        .session_id
        .as_deref()
        .ok_or(Rejection::SessionRequired)
}

/// DNS-rebinding protection: only pages served from this machine (`localhost`, `127.0.0.1`,
/// `[::1]`, any port) may talk to us; the live server applies it to `/_chaos` too.
///
/// An origin is `scheme "://" host [":" port]` (RFC 6454 section 6.1,
/// <https://www.rfc-editor.org/rfc/rfc6454#section-6.1>), the authority read strictly
/// ([`crate::authority`]): `http://localhost:80@evil.example` names `evil.example`, not
/// this machine, and is refused, as is anything with a path, userinfo or a port outside
/// 1-65535.
pub fn origin_is_local(origin: &str) -> bool {
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    match crate::authority::parse_authority(authority) {
        Some((Host::Name(name), _)) => name == "localhost",
        Some((Host::Ip(ip), _)) => {
            ip == IpAddr::V4(Ipv4Addr::LOCALHOST) || ip == IpAddr::V6(Ipv6Addr::LOCALHOST)
        }
        None => false,
    }
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
        for foreign in [
            "http://localhost:80@evil.example",
            "http://localhost@evil.example",
            "http://[::1]evil.example",
            "http://127.0.0.1:99999",
            "http://localhost/evil",
            "ftp://localhost",
        ] {
            assert!(!origin_is_local(foreign), "{foreign}");
        }
    }
}
