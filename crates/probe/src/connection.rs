//! One raw HTTP/1.1 request on its own TCP connection, read with deadlines: a whole body,
//! or an SSE stream frame by frame. One connection per request lets the probe cut one
//! stream (as a client that loses its network does) without touching the others, and a
//! server that never answers costs a deadline, not the probe.
//!
//! The probe runs against a real server in real time, so its deadlines are wall-clock
//! ones; nothing it measures goes into a ledger.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout_at};

use crate::sse_frame::{SseBuffer, SseFrame};

/// The longest any one response is read.
pub const STREAM_DEADLINE: Duration = Duration::from_secs(4);
/// The longest the probe waits for a response's head (a server busy starting up, or on a
/// loaded machine, may take seconds to answer its first request; one that never answers
/// costs this once per step).
pub const HEAD_DEADLINE: Duration = Duration::from_secs(15);
/// How long the first contact retries a refused connection: a server that has just said
/// where it listens may not accept yet.
const FIRST_CONTACT: Duration = Duration::from_secs(5);

/// Where the server listens.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub path: String,
}

impl Endpoint {
    /// Reads `http://HOST:PORT/PATH` (no TLS: the probe is for servers on a test bench).
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url:?}: the probe speaks plain HTTP; give an http:// URL"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/mcp"),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse()
                    .map_err(|_| format!("{url:?}: {p:?} is not a port"))?,
            ),
            None => (authority, 80),
        };
        if host.is_empty() {
            return Err(format!("{url:?}: no host"));
        }
        Ok(Endpoint {
            host: host.trim_matches(['[', ']']).to_string(),
            port,
            path: path.to_string(),
        })
    }
}

/// What a request carries besides its method and body.
#[derive(Default, Clone)]
pub struct RequestHeaders {
    pub accept: Option<&'static str>,
    pub session: Option<String>,
    pub protocol_version: Option<&'static str>,
    pub last_event_id: Option<String>,
}

/// What a response's head says that the probe reads.
#[derive(Debug, Clone)]
pub struct Head {
    pub status: u16,
    /// The media type, lower case, without parameters.
    pub content_type: String,
    /// The `Mcp-Session-Id` header, if the response carried one.
    pub session: Option<String>,
}

impl Head {
    /// A `200` event stream.
    pub fn is_sse(&self) -> bool {
        self.status == 200 && self.content_type == "text/event-stream"
    }
}

/// A response whose head has arrived.
pub struct Response {
    pub head: Head,
    body: Incoming,
    connection: JoinHandle<()>,
}

/// An SSE response read frame by frame.
pub struct EventStream {
    body: Incoming,
    connection: JoinHandle<()>,
    buffer: SseBuffer,
    pub frames: Vec<SseFrame>,
    /// The server ended the stream (or the connection broke).
    pub ended: bool,
}

/// A connection to `endpoint`; on `first_contact`, a refused one is tried again for up to
/// [`FIRST_CONTACT`].
async fn connect(
    endpoint: &Endpoint,
    first_contact: bool,
    what: &str,
) -> Result<TcpStream, String> {
    let give_up = Instant::now() + FIRST_CONTACT;
    loop {
        let attempt = timeout_at(
            Instant::now() + HEAD_DEADLINE,
            TcpStream::connect((endpoint.host.as_str(), endpoint.port)),
        )
        .await
        .map_err(|_| format!("{what}: no connection within {HEAD_DEADLINE:?}"))?;
        match attempt {
            Ok(tcp) => return Ok(tcp),
            Err(_) if first_contact && Instant::now() < give_up => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(format!("{what}: {e}")),
        }
    }
}

/// Sends one request; `Err` when the server cannot be reached or its response's head
/// does not come within [`HEAD_DEADLINE`].
pub async fn send(
    endpoint: &Endpoint,
    method: &str,
    headers: &RequestHeaders,
    body: Option<String>,
    first_contact: bool,
) -> Result<Response, String> {
    let what = format!(
        "{method} {}:{}{}",
        endpoint.host, endpoint.port, endpoint.path
    );
    let tcp = connect(endpoint, first_contact, &what).await?;
    let deadline = Instant::now() + HEAD_DEADLINE;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .map_err(|e| format!("{what}: {e}"))?;
    let connection = tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(&endpoint.path)
        .header("Host", format!("{}:{}", endpoint.host, endpoint.port));
    if let Some(accept) = headers.accept {
        request = request.header("Accept", accept);
    }
    if let Some(session) = &headers.session {
        request = request.header("Mcp-Session-Id", session);
    }
    if let Some(version) = headers.protocol_version {
        request = request.header("MCP-Protocol-Version", version);
    }
    if let Some(cursor) = &headers.last_event_id {
        request = request.header("Last-Event-ID", cursor);
    }
    if body.is_some() {
        request = request.header("Content-Type", "application/json");
    }
    let request = request
        .body(Full::new(Bytes::from(body.unwrap_or_default())))
        .map_err(|e| format!("{what}: {e}"))?;
    let response = match timeout_at(deadline, sender.send_request(request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => {
            connection.abort();
            return Err(format!("{what}: {e}"));
        }
        Err(_) => {
            connection.abort();
            return Err(format!("{what}: no answer within {HEAD_DEADLINE:?}"));
        }
    };
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let head = Head {
        status: response.status().as_u16(),
        content_type: header("content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
        session: header("mcp-session-id"),
    };
    Ok(Response {
        head,
        body: response.into_body(),
        connection,
    })
}

impl Response {
    /// The whole body (what arrived within the deadline), and the connection closed.
    pub async fn read_whole(mut self) -> Vec<u8> {
        let deadline = Instant::now() + STREAM_DEADLINE;
        let mut bytes = Vec::new();
        while let Ok(Some(Ok(frame))) = timeout_at(deadline, self.body.frame()).await {
            if let Some(data) = frame.data_ref() {
                bytes.extend_from_slice(data);
            }
        }
        self.connection.abort();
        bytes
    }

    /// The body as an event stream.
    pub fn into_stream(self) -> EventStream {
        EventStream {
            body: self.body,
            connection: self.connection,
            buffer: SseBuffer::default(),
            frames: Vec::new(),
            ended: false,
        }
    }
}

impl EventStream {
    /// The next frame before `deadline`; `None` when the stream ended or stayed quiet.
    pub async fn next_frame(&mut self, deadline: Instant) -> Option<SseFrame> {
        loop {
            while let Some(raw) = self.buffer.next_raw() {
                if let Some(frame) = SseFrame::parse(&raw) {
                    self.frames.push(frame.clone());
                    return Some(frame);
                }
            }
            if self.ended {
                return None;
            }
            match timeout_at(deadline, self.body.frame()).await {
                Err(_) => return None,
                Ok(Some(Ok(frame))) => {
                    if let Some(data) = frame.data_ref() {
                        self.buffer.push(data);
                    }
                }
                Ok(None | Some(Err(_))) => self.ended = true,
            }
        }
    }

    /// Reads until `until(frame)` holds and then lingers for the stream's end; with no
    /// `until`, until the stream has been quiet for `linger`; `stop_after(frame)` stops at
    /// once (the probe cuts). Never longer than [`STREAM_DEADLINE`].
    pub async fn read(
        &mut self,
        mut until: Option<&dyn Fn(&SseFrame) -> bool>,
        linger: Duration,
        stop_after: Option<&dyn Fn(&SseFrame) -> bool>,
    ) {
        let hard = Instant::now() + STREAM_DEADLINE;
        let mut quiet = if until.is_none() {
            Instant::now() + linger
        } else {
            hard
        };
        while let Some(frame) = self.next_frame(hard.min(quiet)).await {
            if stop_after.is_some_and(|stop| stop(&frame)) {
                return;
            }
            match until {
                Some(done) if done(&frame) => {
                    quiet = Instant::now() + linger;
                    until = None;
                }
                Some(_) => {}
                None => quiet = Instant::now() + linger,
            }
        }
    }

    /// Cuts the connection, as a client that goes away does.
    pub fn close(self) {
        self.connection.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_read_with_their_defaults_and_bad_ones_refused() {
        let e = Endpoint::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.path.as_str()),
            ("127.0.0.1", 8080, "/mcp")
        );
        let e = Endpoint::parse("http://localhost").unwrap();
        assert_eq!((e.port, e.path.as_str()), (80, "/mcp"));
        assert!(
            Endpoint::parse("https://x/mcp")
                .unwrap_err()
                .contains("plain HTTP")
        );
        assert!(
            Endpoint::parse("http://x:port/mcp")
                .unwrap_err()
                .contains("not a port")
        );
    }
}
