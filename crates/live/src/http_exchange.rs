//! One HTTP exchange over its own TCP connection: the model's request written as a real
//! HTTP/1.1 request, and the response read back as status, headers and either a whole
//! body or an SSE event stream (parsed by the `sse-stream` crate, as rmcp does).
//!
//! One connection per exchange is what `ConnId` means in the model, and it lets a fault
//! reset one stream without touching the others.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use faultline_model::{HttpMethod, HttpRequest, RequestBody};
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, COOKIE, HOST, ORIGIN, SET_COOKIE};
use hyper_util::rt::TokioIo;
use sse_stream::{Sse, SseStream};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// Longest a live run waits for bytes the server has already produced. Reaching it means
/// the server or the network broke, never that the run is slow: the server emitted the
/// output before the driver started waiting for it.
pub(crate) const STALL_LIMIT: Duration = Duration::from_secs(30);

pub(crate) enum Body {
    /// A JSON or empty response, read whole.
    Whole(Bytes),
    /// An SSE response, read event by event.
    Sse(Pin<Box<SseStream<Incoming>>>),
}

/// A response as it arrived.
pub(crate) struct Exchange {
    pub status: u16,
    pub session_id: Option<String>,
    /// `Set-Cookie` (a fleet's `StickyCookie` balancer pinning the client).
    pub set_cookie: Option<String>,
    pub content_type: Option<String>,
    pub body: Body,
    /// Drives the client side of the connection; aborting it closes the socket.
    pub connection: JoinHandle<()>,
}

/// How an SSE stream went on.
pub(crate) enum Next {
    Event(Sse),
    /// The body ended cleanly.
    Closed,
    /// The body broke off (the server aborted the connection).
    Aborted(String),
}

/// Sends `request` to `http://addr/mcp` on a new connection and reads the response head
/// (and a non-SSE body whole).
pub(crate) async fn send(addr: SocketAddr, request: HttpRequest) -> Result<Exchange, String> {
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = tcp.set_nodelay(true);
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .map_err(|e| format!("HTTP handshake with {addr} failed: {e}"))?;
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let response = sender
        .send_request(to_http(addr, request)?)
        .await
        .map_err(|e| format!("the request failed: {e}"))?;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    let status = response.status().as_u16();
    let session_id = header("mcp-session-id");
    let set_cookie = header(SET_COOKIE.as_str());
    let content_type = header("content-type");
    let sse = content_type
        .as_deref()
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let body = if sse {
        Body::Sse(Box::pin(SseStream::new(response.into_body())))
    } else {
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("reading the response body failed: {e}"))?
            .to_bytes();
        Body::Whole(bytes)
    };
    Ok(Exchange {
        status,
        session_id,
        set_cookie,
        content_type,
        body,
        connection,
    })
}

impl Exchange {
    /// The next event of an SSE body.
    pub async fn next(&mut self) -> Next {
        let Body::Sse(stream) = &mut self.body else {
            return Next::Aborted("not an SSE response".into());
        };
        match stream.next().await {
            Some(Ok(event)) => Next::Event(event),
            None => Next::Closed,
            Some(Err(e)) => Next::Aborted(e.to_string()),
        }
    }
}

fn to_http(addr: SocketAddr, request: HttpRequest) -> Result<hyper::Request<Full<Bytes>>, String> {
    let method = match request.method {
        HttpMethod::Post => hyper::Method::POST,
        HttpMethod::Get => hyper::Method::GET,
        HttpMethod::Delete => hyper::Method::DELETE,
        HttpMethod::Other => hyper::Method::PUT,
    };
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri("/mcp")
        .header(HOST, addr.to_string());
    let headers = [
        ("mcp-session-id", request.session_id),
        (
            "mcp-protocol-version",
            request.protocol_version.map(Cow::into_owned),
        ),
        ("last-event-id", request.last_event_id),
        (ACCEPT.as_str(), request.accept.map(Cow::into_owned)),
        (
            CONTENT_TYPE.as_str(),
            request.content_type.map(Cow::into_owned),
        ),
        (ORIGIN.as_str(), request.origin),
        ("mcp-method", request.mcp_method),
        ("mcp-name", request.mcp_name),
        (COOKIE.as_str(), request.cookie),
    ];
    for (name, value) in headers {
        if let Some(value) = value {
            builder = builder.header(name, value);
        }
    }
    for (name, value) in request.mcp_params {
        builder = builder.header(format!("mcp-param-{name}"), value);
    }
    let body = match request.body {
        RequestBody::Empty => Bytes::new(),
        RequestBody::Bytes(b) => Bytes::from(b),
        RequestBody::Json(v) => Bytes::from(v.to_string()),
        // The live edge: a modelled client's typed message becomes its JSON text here.
        RequestBody::Rpc(m) => Bytes::from(m.to_value().to_string()),
    };
    builder
        .body(Full::new(body))
        .map_err(|e| format!("the request cannot be written as HTTP: {e}"))
}
