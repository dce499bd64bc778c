//! A tiny HTTP/1.1 client over loopback for the live-server tests (hyper's client
//! connection API: one TCP connection per request, raw control over every header byte),
//! with SSE bodies decoded by `sse-stream`, a maintained decoder, so that the tests check
//! the server rather than a parser of their own; an aborted stream is visible as an error.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use faultline_model::{ConnId, Ledger, ServerKnobs, SessionKey};
use faultline_server::{Config, Running};
use futures_util::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::{Value, json};
use sse_stream::{Sse, SseStream};
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

/// The body of `GET /_chaos/ledger`, read with the model's own types; an unknown field
/// fails the read, so the tests pin the endpoint's shape.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerBody {
    pub now_ms: u64,
    pub time_scale: Value,
    pub scenario: Option<String>,
    pub knobs: ServerKnobs,
    pub live_sessions: Vec<SessionKey>,
    pub open_connections: Vec<ConnId>,
    pub faults_fired: Vec<FiredFaultBody>,
    pub ledger: Ledger,
}

/// One entry of `faults_fired`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FiredFaultBody {
    pub at_ms: u64,
    pub fault: Option<usize>,
    pub note: String,
    pub conns: Vec<u64>,
    pub away_ms: Option<u64>,
}

/// `GET /_chaos/ledger`, typed.
pub async fn ledger(addr: SocketAddr) -> LedgerBody {
    let body = control(addr, "GET", "/_chaos/ledger", Value::Null).await;
    serde_json::from_value(body.clone())
        .unwrap_or_else(|e| panic!("the ledger body does not read as LedgerBody ({e}): {body}"))
}

pub async fn advance(addr: SocketAddr, ms: u64) -> u64 {
    control(addr, "POST", "/_chaos/clock/advance", json!({"ms": ms})).await["now_ms"]
        .as_u64()
        .unwrap()
}

/// One SSE event as the client decoded it (`sse-stream`).
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    pub id: Option<u64>,
    pub retry: Option<u64>,
    pub data: String,
}

impl SseEvent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {:?}", self.data))
    }

    pub fn is_priming(&self) -> bool {
        self.data.is_empty()
    }

    fn decoded(sse: Sse) -> Self {
        assert!(
            sse.event.is_none(),
            "faultline sends no `event:` field: {sse:?}"
        );
        SseEvent {
            id: sse.id.map(|id| id.parse().expect("numeric id")),
            retry: sse.retry,
            data: sse.data.unwrap_or_default(),
        }
    }

    /// The bytes faultline's server writes for this event: `id:`, then `retry:`, then one
    /// `data:` line per line of data, then the blank line.
    pub fn wire(&self) -> String {
        let mut wire = String::new();
        if let Some(id) = self.id {
            wire.push_str(&format!("id: {id}\n"));
        }
        if let Some(retry) = self.retry {
            wire.push_str(&format!("retry: {retry}\n"));
        }
        for line in self.data.split('\n') {
            wire.push_str(&format!("data: {line}\n"));
        }
        wire.push('\n');
        wire
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

/// An SSE response body decoded by `sse-stream`, with a copy of the raw bytes: every
/// decoded event must be exactly the next bytes of the stream in faultline's framing
/// ([`SseEvent::wire`]), and a clean end must leave nothing undecoded, so that a framing
/// slip (a stray field, a partial event) fails the test instead of being skipped.
pub struct SseReader {
    events: SseStream<BoxBody<Bytes, hyper::Error>>,
    transcript: Arc<Mutex<Vec<u8>>>,
    /// How many transcript bytes the decoded events account for.
    checked: usize,
}

impl SseReader {
    pub fn new(response: Response<Incoming>) -> Self {
        assert_eq!(response.status(), 200, "an SSE stream answers 200");
        assert_eq!(
            header(&response, "content-type").as_deref(),
            Some("text/event-stream")
        );
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let tee = transcript.clone();
        let body = response
            .into_body()
            .map_frame(move |frame| {
                if let Some(data) = frame.data_ref() {
                    tee.lock().unwrap().extend_from_slice(data);
                }
                frame
            })
            .boxed();
        SseReader {
            events: SseStream::new(body),
            transcript,
            checked: 0,
        }
    }

    /// Every byte of the stream received so far, as text.
    pub fn transcript(&self) -> String {
        String::from_utf8(self.transcript.lock().unwrap().clone()).expect("UTF-8 SSE")
    }

    /// The next event, or how the stream ended.
    pub async fn next(&mut self) -> Result<SseEvent, SseEnd> {
        tokio::time::timeout(PATIENCE, self.next_inner())
            .await
            .expect("the next SSE event (or the end) in time")
    }

    async fn next_inner(&mut self) -> Result<SseEvent, SseEnd> {
        match self.events.next().await {
            Some(Ok(sse)) => {
                let event = SseEvent::decoded(sse);
                let transcript = self.transcript.lock().unwrap();
                let wire = event.wire();
                let next = &transcript[self.checked..];
                assert!(
                    next.starts_with(wire.as_bytes()),
                    "decoded {event:?} but the stream's next bytes are {:?}",
                    String::from_utf8_lossy(&next[..next.len().min(wire.len() + 40)])
                );
                self.checked += wire.len();
                Ok(event)
            }
            Some(Err(sse_stream::Error::Body(e))) => Err(SseEnd::Aborted(e.to_string())),
            Some(Err(e)) => panic!("undecodable SSE: {e}"),
            None => {
                let transcript = self.transcript.lock().unwrap();
                assert_eq!(
                    self.checked,
                    transcript.len(),
                    "bytes left undecoded at the end: {:?}",
                    String::from_utf8_lossy(&transcript[self.checked..])
                );
                Err(SseEnd::Closed)
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
