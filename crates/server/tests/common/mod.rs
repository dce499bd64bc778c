//! A tiny HTTP/1.1 client over loopback for the live-server tests (hyper's client
//! connection API: one TCP connection per request, raw control over every header byte,
//! and the body read frame by frame so that an aborted SSE stream is visible as an error).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use faultline_server::{Config, Running};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

/// Generous upper bound for any single wait; a healthy test never gets near it.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

pub async fn start(config: Config) -> Running {
    faultline_server::start(config, "127.0.0.1:0".parse().unwrap())
        .await
        .expect("bind 127.0.0.1:0")
}

/// A well-behaved server with the control API and a frozen clock (time moves only by
/// `/_chaos/clock/advance`).
pub async fn start_frozen() -> Running {
    start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0),
    )
    .await
}

pub fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name)
}

pub struct Req {
    pub method: &'static str,
    pub path: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Req {
    pub fn new(method: &'static str) -> Self {
        Req {
            method,
            path: "/mcp".into(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A POST as a spec-following client sends it.
    pub fn post(session: Option<&str>, body: &Value) -> Self {
        let mut r = Req::new("POST")
            .header("accept", ACCEPT_BOTH)
            .header("content-type", "application/json")
            .body(body.to_string().into_bytes());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r
    }

    /// A GET for the standalone stream, optionally resuming.
    pub fn get(session: &str, last_event_id: Option<&str>) -> Self {
        let mut r = Req::new("GET")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session);
        if let Some(c) = last_event_id {
            r = r.header("last-event-id", c);
        }
        r
    }

    pub fn path(mut self, path: &str) -> Self {
        self.path = path.into();
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.as_bytes().to_vec()));
        self
    }

    pub fn header_bytes(mut self, name: &str, value: &[u8]) -> Self {
        self.headers.push((name.into(), value.to_vec()));
        self
    }

    pub fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn body(mut self, body: Vec<u8>) -> Self {
        self.body = body;
        self
    }

    pub async fn send(self, addr: SocketAddr) -> Response<Incoming> {
        tokio::time::timeout(PATIENCE, self.send_inner(addr))
            .await
            .expect("the server answers in time")
    }

    async fn send_inner(self, addr: SocketAddr) -> Response<Incoming> {
        let tcp = TcpStream::connect(addr).await.expect("connect");
        tcp.set_nodelay(true).unwrap();
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .expect("handshake");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut builder = Request::builder()
            .method(self.method)
            .uri(format!("http://{addr}{}", self.path))
            .header("host", addr.to_string());
        for (name, value) in &self.headers {
            builder = builder.header(
                HeaderName::from_bytes(name.as_bytes()).expect("header name"),
                HeaderValue::from_bytes(value).expect("header value"),
            );
        }
        let request = builder
            .body(Full::new(Bytes::from(self.body)))
            .expect("request");
        sender.send_request(request).await.expect("response")
    }
}

pub fn header(response: &Response<Incoming>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().expect("ascii header").to_string())
}

pub async fn body_bytes(response: Response<Incoming>) -> Vec<u8> {
    tokio::time::timeout(PATIENCE, response.into_body().collect())
        .await
        .expect("body in time")
        .expect("complete body")
        .to_bytes()
        .to_vec()
}

pub async fn json_body(response: Response<Incoming>) -> Value {
    let bytes = body_bytes(response).await;
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("JSON body ({e}): {}", String::from_utf8_lossy(&bytes)))
}

pub fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `initialize` at `version`; returns the session id.
pub async fn initialize(addr: SocketAddr, version: &str) -> String {
    let response = Req::post(
        None,
        &rpc(
            1,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
        ),
    )
    .send(addr)
    .await;
    assert_eq!(response.status(), 200);
    let session = header(&response, "mcp-session-id").expect("Mcp-Session-Id on initialize");
    let body = json_body(response).await;
    assert_eq!(body["result"]["protocolVersion"], version);
    session
}

pub fn long_job(id: u64, steps: u32, interval_ms: u64) -> Value {
    rpc(
        id,
        "tools/call",
        json!({
            "name": "long_job",
            "arguments": {"steps": steps, "interval_ms": interval_ms},
            "_meta": {"progressToken": format!("job-{id}")},
        }),
    )
}

/// A control-API call; returns the JSON answer (asserting 200).
pub async fn control(addr: SocketAddr, method: &'static str, path: &str, body: Value) -> Value {
    let mut req = Req::new(method).path(path);
    if !body.is_null() {
        req = req
            .header("content-type", "application/json")
            .body(body.to_string().into_bytes());
    }
    let response = req.send(addr).await;
    let status = response.status();
    let value = json_body(response).await;
    assert_eq!(status, 200, "{path}: {value}");
    value
}

pub async fn advance(addr: SocketAddr, ms: u64) -> u64 {
    control(addr, "POST", "/_chaos/clock/advance", json!({"ms": ms})).await["now_ms"]
        .as_u64()
        .unwrap()
}

/// One SSE event as the client parsed it.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub id: Option<u64>,
    pub retry: Option<u64>,
    pub data: String,
    /// The raw text of the event, for framing checks.
    pub raw: String,
}

impl SseEvent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {:?}", self.data))
    }

    pub fn is_priming(&self) -> bool {
        self.data.is_empty()
    }
}

/// How an SSE stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SseEnd {
    /// The body finished cleanly.
    Closed,
    /// The connection broke mid-body.
    Aborted(String),
}

pub struct SseReader {
    body: Incoming,
    buffer: Vec<u8>,
}

impl SseReader {
    pub fn new(response: Response<Incoming>) -> Self {
        assert_eq!(response.status(), 200, "an SSE stream answers 200");
        assert_eq!(
            header(&response, "content-type").as_deref(),
            Some("text/event-stream")
        );
        SseReader {
            body: response.into_body(),
            buffer: Vec::new(),
        }
    }

    /// The next event, or how the stream ended.
    pub async fn next(&mut self) -> Result<SseEvent, SseEnd> {
        tokio::time::timeout(PATIENCE, self.next_inner())
            .await
            .expect("the next SSE event (or the end) in time")
    }

    async fn next_inner(&mut self) -> Result<SseEvent, SseEnd> {
        loop {
            if let Some(end) = find(&self.buffer, b"\n\n") {
                let raw: Vec<u8> = self.buffer.drain(..end + 2).collect();
                return Ok(parse_event(&String::from_utf8(raw).expect("UTF-8 SSE")));
            }
            match self.body.frame().await {
                None => {
                    assert!(self.buffer.is_empty(), "trailing partial event");
                    return Err(SseEnd::Closed);
                }
                Some(Err(e)) => return Err(SseEnd::Aborted(e.to_string())),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// Reads `n` events (panics if the stream ends first).
    pub async fn take(&mut self, n: usize) -> Vec<SseEvent> {
        let mut events = Vec::with_capacity(n);
        for i in 0..n {
            match self.next().await {
                Ok(e) => events.push(e),
                Err(end) => panic!("stream ended after {i} of {n} events: {end:?}"),
            }
        }
        events
    }

    /// Reads until the stream ends; returns the events and how it ended.
    pub async fn rest(&mut self) -> (Vec<SseEvent>, SseEnd) {
        let mut events = Vec::new();
        loop {
            match self.next().await {
                Ok(e) => events.push(e),
                Err(end) => return (events, end),
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn parse_event(raw: &str) -> SseEvent {
    let mut event = SseEvent {
        id: None,
        retry: None,
        data: String::new(),
        raw: raw.to_string(),
    };
    for line in raw.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.parse().expect("numeric id")),
            "retry" => event.retry = Some(value.parse().expect("numeric retry")),
            "data" => {
                if !event.data.is_empty() {
                    event.data.push('\n');
                }
                event.data.push_str(value);
            }
            "" => {}
            other => panic!("unexpected SSE field {other:?} in {raw:?}"),
        }
    }
    event
}
