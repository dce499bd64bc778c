//! The HTTP edge: axum requests in, `faultline_model::HttpRequest` to the model, its
//! `Output`s back out as status, headers, JSON or an SSE body.
//!
//! No protocol decisions live here: every status code comes from the model. The only
//! answers this file makes itself are transport limits the model never sees (a body over
//! the size limit: 413 from axum's `DefaultBodyLimit`, wrapped in a JSON-RPC error body;
//! a content coding other than identity: 415, see `content_coding`).

use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Body;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Extension, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use faultline_model::{
    ConnId, EndMode, HttpMethod, HttpRequest, HttpResponse, RequestBody, ResponseBody, jsonrpc,
};

use crate::App;
use crate::conn_watch::TcpConn;
use crate::core::{Frame, Source};
use crate::counted_listener::PeerAddr;

pub(crate) const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// `ANY /mcp`.
pub(crate) async fn mcp(
    State(app): State<App>,
    tcp: Option<Extension<TcpConn>>,
    peer: Option<Extension<ConnectInfo<PeerAddr>>>,
    method: Method,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    if let Some(why) = crate::content_coding::unsupported_coding(&headers) {
        return crate::content_coding::with_accepted_coding(json_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &jsonrpc::error_without_id(jsonrpc::INVALID_REQUEST, &why),
        ));
    }
    let body = match body {
        Ok(b) => b,
        Err(rejection) => return body_rejected(&rejection),
    };
    let mut request = to_model_request(&method, &headers, body);
    // Canonical, so that an IPv4 client of a dual-stack socket is its IPv4 address.
    request.peer = peer.map(|Extension(ConnectInfo(PeerAddr(addr)))| addr.ip().to_canonical());
    let (conn, mut source) = app.handle(request, tcp.map(|Extension(tcp)| tcp)).await;
    let response = match source.rx.try_recv() {
        Ok(Frame::Respond(response)) => response,
        Err(tokio::sync::mpsc::error::TryRecvError::Empty)
            if app.with_engine(|e| e.server().is_hung(conn)) =>
        {
            return hang(app, conn, source).await;
        }
        other => {
            // The model answers every request synchronously; anything else is a bug.
            tracing::error!(conn = conn.0, frame = ?other, "the model did not answer");
            app.client_gone(conn);
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    to_http_response(app, conn, response, source)
}

/// A request the model answers with no answer (a `Hang` knob): no status line and no
/// bytes, for as long as the client keeps the connection. When the client leaves, hyper
/// drops this future and the guard tells the model; only the server's own end (shutdown)
/// sends anything, a bare 503 so that graceful shutdown can finish.
async fn hang(app: App, conn: ConnId, mut source: Source) -> Response {
    let _guard = ConnGuard { app, conn };
    loop {
        match source.rx.recv().await {
            Some(Frame::End(_)) | None => return StatusCode::SERVICE_UNAVAILABLE.into_response(),
            Some(_) => {}
        }
    }
}

/// Header values as the model sees them. Several values of one header are joined with
/// ", " (as HTTP allows); bytes that are not UTF-8 are replaced (U+FFFD) rather than
/// dropped, so a mangled `Origin` is still checked (and refused) instead of being treated
/// as absent, and a mangled session id or cursor is simply one the model does not know.
fn header_text(headers: &HeaderMap, name: &HeaderName) -> Option<String> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    let mut text = String::from_utf8_lossy(first.as_bytes()).into_owned();
    for more in values {
        text.push_str(", ");
        text.push_str(&String::from_utf8_lossy(more.as_bytes()));
    }
    Some(text)
}

/// The `Mcp-Param-<name>` headers, as `(<name>, value)`.
fn mcp_param_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let suffix = name.as_str().strip_prefix("mcp-param-")?;
            Some((
                suffix.to_string(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            ))
        })
        .collect()
}

pub(crate) fn to_model_request(method: &Method, headers: &HeaderMap, body: Bytes) -> HttpRequest {
    let method = match *method {
        Method::POST => HttpMethod::Post,
        Method::GET => HttpMethod::Get,
        Method::DELETE => HttpMethod::Delete,
        _ => HttpMethod::Other,
    };
    HttpRequest {
        method,
        session_id: header_text(headers, &MCP_SESSION_ID),
        protocol_version: header_text(headers, &MCP_PROTOCOL_VERSION).map(Into::into),
        accept: header_text(headers, &header::ACCEPT).map(Into::into),
        content_type: header_text(headers, &header::CONTENT_TYPE).map(Into::into),
        last_event_id: header_text(headers, &LAST_EVENT_ID),
        origin: header_text(headers, &header::ORIGIN),
        mcp_method: header_text(headers, &MCP_METHOD),
        mcp_name: header_text(headers, &MCP_NAME),
        mcp_params: mcp_param_headers(headers),
        cookie: header_text(headers, &header::COOKIE),
        peer: None,
        body: if body.is_empty() {
            RequestBody::Empty
        } else {
            RequestBody::Bytes(body.to_vec())
        },
    }
}

fn body_rejected(rejection: &BytesRejection) -> Response {
    let status = rejection.status();
    let text = rejection.body_text();
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        return payload_too_large();
    }
    // A body that did not arrive in time is the client's delay, not a malformed request:
    // 408 (RFC 9110, section 15.5.9), as for headers that never end.
    let (status, message) = if text.contains(crate::accept_loop::BODY_TIMEOUT) {
        (
            StatusCode::REQUEST_TIMEOUT,
            format!("Request Timeout: {text}"),
        )
    } else {
        (status, format!("Bad Request: {text}"))
    };
    json_response(
        status,
        &jsonrpc::error_without_id(jsonrpc::INVALID_REQUEST, &message),
    )
}

/// `413 Payload Too Large`, for a body over [`crate::MAX_BODY_BYTES`]: read and found too
/// long, or declared too long by its `Content-Length` (then refused before it is read).
pub(crate) fn payload_too_large() -> Response {
    json_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        &jsonrpc::error_without_id(
            jsonrpc::INVALID_REQUEST,
            &format!(
                "Payload Too Large: the body exceeds {} bytes",
                crate::MAX_BODY_BYTES
            ),
        ),
    )
}

pub(crate) fn json_response(status: StatusCode, value: &impl serde::Serialize) -> Response {
    let body = match serde_json::to_vec(value) {
        Ok(body) => body,
        Err(e) => {
            tracing::error!(error = %e, "a response body did not serialize");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn to_http_response(app: App, conn: ConnId, answer: HttpResponse, source: Source) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match answer.body {
        ResponseBody::Json(value) => json_response(status, &value),
        // The live edge: a typed answer or refusal becomes its JSON here.
        typed @ (ResponseBody::Answer(_) | ResponseBody::Refusal { .. }) => {
            json_response(status, &typed.into_json().expect("a typed body is JSON"))
        }
        ResponseBody::Empty => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = status;
            r
        }
        ResponseBody::Text(text) => {
            let mut r = Response::new(Body::from(text));
            *r.status_mut() = status;
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            r
        }
        ResponseBody::Sse(_) => {
            let body = SseBody {
                source,
                state: BodyState::Open,
                guard: ConnGuard { app, conn },
            };
            let mut r = Response::new(Body::new(body));
            *r.status_mut() = status;
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            );
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            h.insert("x-accel-buffering", HeaderValue::from_static("no"));
            r
        }
    };
    if let Some(id) = answer.session_id
        && let Ok(v) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(MCP_SESSION_ID, v);
    }
    if let Some(cookie) = answer.set_cookie
        && let Ok(v) = HeaderValue::from_str(&cookie)
    {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    if let Some(allow) = answer.allow {
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(allow));
    }
    response
}

/// Tells the model when an SSE response goes away (client closed, or the body ended).
struct ConnGuard {
    app: App,
    conn: ConnId,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.app.client_gone(self.conn);
    }
}

enum BodyState {
    Open,
    /// `EndMode::Reset`: give hyper a moment to flush what was already written, then fail
    /// the body so that hyper aborts the connection (no terminating chunk: the client
    /// sees an error, not a clean end). Returning `Pending` first makes hyper flush its
    /// buffer to the socket; only frames a backpressured hyper still holds when the grace
    /// runs out (a client that stopped reading) are lost, as in-flight data is on a real
    /// reset.
    Resetting(Pin<Box<tokio::time::Sleep>>),
    Done,
}

/// How long a reset waits so that the frames before it reach the socket first.
const RESET_FLUSH_GRACE: Duration = Duration::from_millis(20);

/// The SSE response body: frames from the driver until `End`.
struct SseBody {
    source: Source,
    state: BodyState,
    /// Dropped with the body: the model learns the connection is gone.
    #[allow(dead_code)]
    guard: ConnGuard,
}

#[derive(Debug)]
struct StreamReset;

impl std::fmt::Display for StreamReset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SSE stream reset by the server (fault injection)")
    }
}

impl std::error::Error for StreamReset {}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = StreamReset;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, StreamReset>>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                BodyState::Done => return Poll::Ready(None),
                BodyState::Resetting(grace) => {
                    ready!(grace.as_mut().poll(cx));
                    this.state = BodyState::Done;
                    return Poll::Ready(Some(Err(StreamReset)));
                }
                BodyState::Open => match ready!(this.source.rx.poll_recv(cx)) {
                    Some(Frame::Event(bytes)) => {
                        let before = this
                            .source
                            .queued
                            .fetch_sub(bytes.len(), std::sync::atomic::Ordering::AcqRel);
                        if before == bytes.len() {
                            // Everything queued is out: an auto clock may move on.
                            this.guard.app.note_activity();
                        }
                        this.source
                            .taken
                            .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::AcqRel);
                        this.guard.app.note_event_out();
                        return Poll::Ready(Some(Ok(http_body::Frame::data(bytes))));
                    }
                    Some(Frame::Marker(bytes)) => {
                        return Poll::Ready(Some(Ok(http_body::Frame::data(bytes))));
                    }
                    Some(Frame::End(EndMode::Close)) => {
                        this.state = BodyState::Done;
                        return Poll::Ready(None);
                    }
                    Some(Frame::End(EndMode::Reset)) | None => {
                        this.state =
                            BodyState::Resetting(Box::pin(tokio::time::sleep(RESET_FLUSH_GRACE)));
                    }
                    Some(Frame::Respond(_)) => {}
                },
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.state, BodyState::Done)
    }
}
