//! The live server under hostile and heavy input, over real loopback sockets: half-sent
//! headers and idle keep-alive connections are closed, connections beyond the cap are
//! refused with a sentence while an open one keeps working, foreign `Host` and `Origin`
//! are refused, the control API wants JSON, a fast reader is never cut however far the
//! producer runs ahead, a reader that stopped is cut and the ledger says so, and the
//! ledger reads in pages. Issue 29's attacks too: loose `Host`/`Origin` values, content
//! codings, a 200 KB progress token, a queue past its byte bound, an `initialize` flood,
//! a batch of 5,000 jobs, and whole-ledger readers that never read.
//!
//! Nothing here waits on wall time: a closed connection is awaited as EOF on its socket,
//! a cut on the server's own notice (`App::wait_closed`); `PATIENCE` only turns a hang
//! into a failure.

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::*;
use faultline_model::{ConnId, CutReason};
use faultline_server::{Config, Limits};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

fn limits() -> Limits {
    Limits {
        header_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(200),
        ..Limits::default()
    }
}

/// Reads until the server closes the connection; what it sent before.
async fn read_to_eof(tcp: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 8192];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the server never closed the connection");
    got
}

/// One HTTP/1.1 request on an open connection; reads exactly one response
/// (`Content-Length` bodies only). Returns the status line and the body.
async fn exchange(tcp: &mut TcpStream, request: &str) -> (String, String) {
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    let response = tokio::time::timeout(PATIENCE, async {
        loop {
            if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&got[..end]).to_string();
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if got.len() >= end + 4 + length {
                    let body = String::from_utf8_lossy(&got[end + 4..end + 4 + length]);
                    let status = head.lines().next().unwrap_or("").to_string();
                    return (status, body.to_string());
                }
            }
            let n = tcp.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before a whole response: {got:?}");
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    response.expect("a response in time")
}

fn post(host: &str, path: &str, headers: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn initialize_request(host: &str) -> String {
    post(
        host,
        "/mcp",
        "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    )
}

/// A server whose clock runs (scale 1), so that a job's steps are produced by the ticker.
async fn running_server(limits: Limits) -> faultline_server::Running {
    start(
        Config::well_behaved(7)
            .with_control(true)
            .with_limits(limits),
    )
    .await
}

async fn control_server(limits: Limits) -> faultline_server::Running {
    start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0)
            .with_limits(limits),
    )
    .await
}

#[tokio::test]
async fn half_sent_headers_are_closed_by_the_server() {
    let server = control_server(limits()).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
        .await
        .unwrap();
    let answered = read_to_eof(&mut tcp).await;
    assert!(
        answered.is_empty() || answered.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&answered)
    );
    // The server still serves.
    let mut fresh = TcpStream::connect(server.addr).await.unwrap();
    let (status, _) = exchange(&mut fresh, &initialize_request("127.0.0.1")).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let server = control_server(limits()).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, _) = exchange(&mut tcp, &initialize_request("localhost")).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert!(read_to_eof(&mut tcp).await.is_empty());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn connections_beyond_the_cap_are_refused_while_an_open_one_works() {
    let server = control_server(Limits {
        max_connections: 2,
        ..Limits::default()
    })
    .await;
    let mut first = TcpStream::connect(server.addr).await.unwrap();
    let (status, _) = exchange(&mut first, &initialize_request("127.0.0.1")).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    let _second = TcpStream::connect(server.addr).await.unwrap();
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let refused = String::from_utf8(read_to_eof(&mut third).await).unwrap();
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(
        refused.contains("too many open connections") && refused.contains("--max-connections"),
        "{refused}"
    );
    // The open connection is still served.
    let (status, _) = exchange(&mut first, &initialize_request("127.0.0.1")).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_route() {
    let server = start(
        Config::well_behaved(7)
            .with_control(true)
            .with_time_scale(0.0)
            .with_allowed_hosts(vec!["dev.example".into()]),
    )
    .await;
    let port = server.addr.port();
    for host in [
        format!("evil.example:{port}"),
        "localhost.evil.example".into(),
    ] {
        for request in [
            initialize_request(&host),
            format!("GET /_chaos/ledger HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        ] {
            let mut tcp = TcpStream::connect(server.addr).await.unwrap();
            let (status, body) = exchange(&mut tcp, &request).await;
            assert!(status.starts_with("HTTP/1.1 403"), "{host}: {status}");
            assert!(body.contains("DNS-rebinding"), "{body}");
        }
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "dev.example".into(),
    ] {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        let (status, _) = exchange(&mut tcp, &initialize_request(&host)).await;
        assert!(status.starts_with("HTTP/1.1 200"), "{host}: {status}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_control_api_refuses_cross_site_calls() {
    let server = control_server(Limits::default()).await;
    let host = server.addr.to_string();
    let advance = r#"{"ms": 1000}"#;
    let cases = [
        (
            "Origin: http://evil.example\r\nContent-Type: application/json\r\n",
            "403",
            "Origin",
        ),
        ("Content-Type: text/plain\r\n", "415", "application/json"),
        (
            "Content-Type: application/jsonx\r\n",
            "415",
            "application/json",
        ),
        ("", "415", "application/json"),
    ];
    for (headers, status_code, says) in cases {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        let (status, body) = exchange(
            &mut tcp,
            &post(&host, "/_chaos/clock/advance", headers, advance),
        )
        .await;
        assert!(status.contains(status_code), "{headers:?}: {status} {body}");
        assert!(body.contains(says), "{body}");
    }
    // Nothing moved.
    assert_eq!(ledger(server.addr).await.now_ms, 0);
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, body) = exchange(
        &mut tcp,
        &post(
            &host,
            "/_chaos/clock/advance",
            "Origin: http://localhost:3000\r\nContent-Type: Application/JSON; charset=utf-8\r\n",
            advance,
        ),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status} {body}");
    // A body-less POST needs no content type (curl -X POST .../restart).
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, body) = exchange(&mut tcp, &post(&host, "/_chaos/restart", "", "")).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status} {body}");
    server.shutdown().await.unwrap();
}

/// Sends a `long_job(steps, 0)` with `Connection: close` (the server closes once the
/// stream ended); the response is left unread.
async fn start_job(tcp: &mut TcpStream, addr: SocketAddr, session: &str, steps: u32) {
    let body = long_job(2, steps, 0).to_string();
    let request = post(
        &addr.to_string(),
        "/mcp",
        &format!(
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n"
        ),
        &body,
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
}

#[tokio::test]
async fn a_fast_reader_is_never_cut_however_far_the_job_runs_ahead() {
    // A queue bound far below one burst of the job, and a stall period longer than the
    // test: only lack of progress may cut, and a reader that reads never lacks it.
    let server = running_server(Limits {
        stream_queue_bytes: 4 << 10,
        stream_stall: Duration::from_secs(60),
        ..Limits::default()
    })
    .await;
    let session = initialize(server.addr, "2025-11-25").await;
    let steps = 20_000;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    start_job(&mut tcp, server.addr, &session, steps).await;
    let mut stream = Vec::new();
    let read = tokio::time::timeout(PATIENCE, tcp.read_to_end(&mut stream)).await;
    let text = String::from_utf8_lossy(&stream);
    assert!(read.is_ok(), "the stream did not end");
    let progress = text.matches("notifications/progress").count();
    assert_eq!(progress, steps as usize, "every step arrived");
    assert!(text.contains("\"result\""), "the result arrived");
    let cuts = server.app.with_engine(|e| e.server().ledger().cuts.clone());
    assert!(cuts.is_empty(), "{cuts:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_reader_that_stopped_is_cut_and_the_ledger_says_so() {
    let server = running_server(Limits {
        stream_queue_bytes: 16 << 10,
        stream_stall: Duration::from_millis(50),
        ..Limits::default()
    })
    .await;
    let session = initialize(server.addr, "2025-11-25").await;
    // A small receive window so that the kernel cannot swallow the whole stream.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(server.addr).await.unwrap();
    let conn = ConnId(server.app.next_conn());
    // Well over what the kernel's socket buffers take (4 MiB of send buffer at most here):
    // the rest has to wait in the server's queue.
    start_job(&mut tcp, server.addr, &session, 60_000).await;
    // The response head: the server has the stream open. Then the client reads no more.
    let mut head = Vec::new();
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        let n = tokio::time::timeout(PATIENCE, tcp.read(&mut byte))
            .await
            .expect("a response head in time")
            .unwrap();
        assert!(n > 0, "closed before the head");
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 200"), "{head:?}");
    tokio::time::timeout(PATIENCE, server.app.wait_closed(conn))
        .await
        .expect("the stalled stream was cut");
    let cuts = server.app.with_engine(|e| e.server().ledger().cuts.clone());
    assert_eq!(cuts.len(), 1, "{cuts:?}");
    assert_eq!(cuts[0].conn, conn);
    assert!(cuts[0].stream.is_some());
    let CutReason::NotReading {
        queued_bytes,
        limit_bytes,
    } = cuts[0].reason
    else {
        panic!("a reader that stopped reading: {:?}", cuts[0].reason);
    };
    assert_eq!(limit_bytes, 16 << 10);
    assert!(queued_bytes > limit_bytes);
    // The ledger as served says it too.
    let body = control(server.addr, "GET", "/_chaos/ledger", Value::Null).await;
    assert_eq!(body["ledger"]["cuts"][0]["reason"], "not_reading");
    // The connection is closed: the client sees the end after what was in flight.
    read_to_eof(&mut tcp).await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_ledger_reads_in_pages() {
    let server = control_server(Limits::default()).await;
    let session = initialize(server.addr, "2025-11-25").await;
    let response = Req::post(Some(&session), &long_job(2, 3, 0))
        .header("mcp-protocol-version", "2025-11-25")
        .send(server.addr)
        .await;
    body_bytes(response).await;
    let whole = control(server.addr, "GET", "/_chaos/ledger", Value::Null).await;
    let events = whole["ledger"]["events"].as_array().unwrap().clone();
    assert!(events.len() >= 4, "{events:?}");
    let first = control(
        server.addr,
        "GET",
        "/_chaos/ledger?since=0&limit=2",
        Value::Null,
    )
    .await;
    assert_eq!(first["events"], json!(events[..2]));
    assert_eq!(first["next"], 2);
    assert_eq!(first["events_end"], events.len());
    let rest = control(server.addr, "GET", "/_chaos/ledger?since=2", Value::Null).await;
    assert_eq!(rest["events"], json!(events[2..]));
    assert_eq!(rest["next"], events.len());
    let sends = rest["sends"].as_array().unwrap();
    assert!(sends.iter().all(|s| s["event"].as_u64().unwrap() >= 2));
    let response = Req::new("GET")
        .path("/_chaos/ledger?since=minus-one")
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 400);
    let body = json_body(response).await;
    assert!(body["error"].as_str().unwrap().contains("since"), "{body}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_withheld_request_body_closes_the_connection() {
    let server = control_server(limits()).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"",
    )
    .await
    .unwrap();
    let answered = read_to_eof(&mut tcp).await;
    // The client's delay, not a malformed request: 408 (RFC 9110, section 15.5.9).
    assert!(
        answered.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&answered)
    );
    server.shutdown().await.unwrap();
}

/// A body declared longer than the limit is refused with 413 at once, before any of it
/// is read: waiting for it held the connection until the body timeout, then answered 400.
#[tokio::test]
async fn a_body_declared_over_the_limit_is_refused_at_once_with_413() {
    let server = control_server(Limits {
        // Long enough that a 413 cannot be the timeout's answer.
        header_timeout: Duration::from_secs(60),
        ..limits()
    })
    .await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, body) = exchange(
        &mut tcp,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000000000\r\n\r\n{\"jsonrpc\"",
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 413"), "{status}: {body}");
    assert!(body.contains("Payload Too Large"), "{body}");
    server.shutdown().await.unwrap();
}

/// Issue 29, item 7: a `Host` or `Origin` that only starts like a name of this machine
/// (`localhost:80@evil.example`, `[::1]evil.example`) or carries an impossible port is
/// refused, on `/mcp` and on the control API.
#[tokio::test]
async fn loose_host_and_origin_values_are_refused() {
    let server = control_server(Limits::default()).await;
    for host in [
        "localhost:80@evil.example",
        "[::1]evil.example",
        "127.0.0.1:99999",
        "localhost:0",
    ] {
        for request in [
            initialize_request(host),
            format!("GET /_chaos/ledger HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        ] {
            let mut tcp = TcpStream::connect(server.addr).await.unwrap();
            let (status, body) = exchange(&mut tcp, &request).await;
            assert!(status.starts_with("HTTP/1.1 403"), "{host}: {status}");
            assert!(body.contains("DNS-rebinding"), "{body}");
        }
    }
    let host = server.addr.to_string();
    for origin in [
        "http://localhost:80@evil.example",
        "http://[::1]evil.example",
        "http://127.0.0.1:99999",
    ] {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        let (status, body) = exchange(
            &mut tcp,
            &post(
                &host,
                "/_chaos/clock/advance",
                &format!("Origin: {origin}\r\nContent-Type: application/json\r\n"),
                r#"{"ms": 1000}"#,
            ),
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 403"), "{origin}: {status}");
        assert!(body.contains("Origin"), "{body}");
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        let (status, _) = exchange(
            &mut tcp,
            &post(
                &host,
                "/mcp",
                &format!(
                    "Origin: {origin}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                ),
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            ),
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 403"), "{origin}: {status}");
    }
    assert_eq!(ledger(server.addr).await.now_ms, 0, "nothing moved");
    server.shutdown().await.unwrap();
}

/// Issue 29, item 6: a body with a content coding other than identity is refused with 415
/// and a JSON-RPC error body, whether or not it happens to read as JSON; nothing acts on it.
#[tokio::test]
async fn a_content_coding_other_than_identity_is_refused_with_415() {
    let server = control_server(Limits::default()).await;
    let host = server.addr.to_string();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    // A gzip member header and a few bytes: what a gzip-encoding client sends.
    let gzip = "\u{1f}\u{8b}\u{8}\0\0\0\0\0\0\u{3}";
    for (coding, body) in [
        ("deflate", initialize),
        ("gzip", gzip),
        ("identity, br", initialize),
    ] {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        let (status, answer) = exchange(
            &mut tcp,
            &post(
                &host,
                "/mcp",
                &format!(
                    "Content-Encoding: {coding}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                ),
                body,
            ),
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 415"), "{coding}: {status}");
        let answer: Value = serde_json::from_str(&answer).expect("a JSON body");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Content-Encoding"),
            "{answer}"
        );
    }
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, _) = exchange(
        &mut tcp,
        &post(
            &host,
            "/_chaos/clock/advance",
            "Content-Encoding: deflate\r\nContent-Type: application/json\r\n",
            r#"{"ms": 1000}"#,
        ),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 415"), "{status}");
    let seen = ledger(server.addr).await;
    assert!(
        seen.ledger.sessions.is_empty(),
        "no initialize was executed"
    );
    assert_eq!(seen.now_ms, 0, "the clock did not move");
    // identity is what a body without the header is.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, _) = exchange(
        &mut tcp,
        &post(
            &host,
            "/mcp",
            "Content-Encoding: identity\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
            initialize,
        ),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    server.shutdown().await.unwrap();
}

/// A POST of `body` with a session, on its own connection; status line and body.
async fn session_post(
    addr: SocketAddr,
    session: &str,
    version: &str,
    body: &str,
) -> (String, String) {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    exchange(
        &mut tcp,
        &post(
            &addr.to_string(),
            "/mcp",
            &format!(
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: {version}\r\n"
            ),
            body,
        ),
    )
    .await
}

/// Issue 29, item 1: a progress token or request id longer than 1 KiB is refused before
/// any job runs (a 200 KB token was copied into each of 100,000 progress events).
#[tokio::test]
async fn a_big_progress_token_or_request_id_is_refused_before_anything_runs() {
    let server = control_server(Limits::default()).await;
    let session = initialize(server.addr, "2025-11-25").await;
    let call = |id: Value, token: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "long_job",
            "arguments": {"steps": 100_000, "interval_ms": 0},
            "_meta": {"progressToken": token},
        }})
        .to_string()
    };
    let big = "t".repeat(200_000);
    for (body, code) in [
        (call(json!(2), json!(big)), -32602),
        (call(json!("i".repeat(2_000)), json!("ok")), -32600),
    ] {
        let (status, answer) = session_post(server.addr, &session, "2025-11-25", &body).await;
        assert!(status.starts_with("HTTP/1.1 400"), "{status}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["error"]["code"], code, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("1024 bytes")
        );
    }
    assert!(
        ledger(server.addr).await.ledger.jobs.is_empty(),
        "no job ran"
    );
    // An ordinary token still works, at the bound too.
    let (status, _) = session_post(
        server.addr,
        &session,
        "2025-11-25",
        &call(json!(3), json!("k".repeat(1024))).replace("100000", "1"),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    server.shutdown().await.unwrap();
}

/// Issue 29, item 2: whatever the reader's pace, a stream's queue holds at most
/// `max_queue_bytes`; the frame that would pass it cuts the stream, and the ledger says
/// so. The stall sweep is set far past the test, so only the hard bound can cut.
#[tokio::test]
async fn a_queue_at_its_byte_bound_is_cut_whatever_the_readers_pace() {
    let server = running_server(Limits {
        stream_stall: Duration::from_secs(3600),
        max_queue_bytes: 256 << 10,
        ..Limits::default()
    })
    .await;
    let session = initialize(server.addr, "2025-11-25").await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut tcp = socket.connect(server.addr).await.unwrap();
    let conn = ConnId(server.app.next_conn());
    start_job(&mut tcp, server.addr, &session, 100_000).await;
    // The response head: the server has the stream open (and `conn` is its). Then the
    // client reads no more.
    let mut head = [0u8; 12];
    tokio::time::timeout(PATIENCE, tcp.read_exact(&mut head))
        .await
        .expect("a response head in time")
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    tokio::time::timeout(PATIENCE, server.app.wait_closed(conn))
        .await
        .expect("the stream was cut at its queue bound");
    let cuts = server.app.with_engine(|e| e.server().ledger().cuts.clone());
    assert_eq!(cuts.len(), 1, "{cuts:?}");
    assert_eq!(cuts[0].conn, conn);
    let CutReason::QueueFull {
        queued_bytes,
        limit_bytes,
    } = cuts[0].reason
    else {
        panic!("a full queue: {:?}", cuts[0].reason);
    };
    assert_eq!(limit_bytes, 256 << 10);
    assert!(queued_bytes <= limit_bytes);
    let body = control(
        server.addr,
        "GET",
        "/_chaos/ledger?since=0&limit=1",
        Value::Null,
    )
    .await;
    assert!(body["events_end"].as_u64().unwrap() > 0);
    let whole = control(server.addr, "GET", "/_chaos/ledger", Value::Null).await;
    assert_eq!(whole["ledger"]["cuts"][0]["reason"], "queue_full");
    read_to_eof(&mut tcp).await;
    server.shutdown().await.unwrap();
}

/// Issue 29, item 3: a flood of `initialize`s on one connection does not lock others
/// out. Sessions never used give way (per address, and when the store is full), die at
/// their short TTL, and only sessions in use count against a client.
#[tokio::test]
async fn an_initialize_flood_locks_nobody_out() {
    let mut config = Config::well_behaved(7)
        .with_control(true)
        .with_time_scale(0.0)
        .with_limits(Limits {
            max_sessions_per_peer: Some(10),
            ..Limits::default()
        });
    config.knobs.max_sessions = 20;
    let server = start(config).await;
    let mut flood = TcpStream::connect(server.addr).await.unwrap();
    for i in 0..200 {
        let (status, _) = exchange(&mut flood, &initialize_request("127.0.0.1")).await;
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "initialize {i}: {status}"
        );
    }
    // Someone else gets in and keeps their session.
    let mut used = Vec::new();
    for _ in 0..10 {
        let session = initialize(server.addr, "2025-11-25").await;
        let (status, _) = session_post(
            server.addr,
            &session,
            "2025-11-25",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        used.push(session);
    }
    // Ten sessions in use from this address: the eleventh is refused with a sentence.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    let (status, body) = exchange(&mut tcp, &initialize_request("127.0.0.1")).await;
    assert!(status.starts_with("HTTP/1.1 429"), "{status}");
    assert!(body.contains("sessions in use"), "{body}");
    // The sessions in use survive the unused TTL; nothing else does.
    advance(server.addr, 61_000).await;
    let seen = ledger(server.addr).await;
    assert_eq!(seen.live_sessions.len(), 10, "{:?}", seen.live_sessions);
    for session in &used {
        let (status, _) = session_post(
            server.addr,
            session,
            "2025-11-25",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        )
        .await;
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    }
    server.shutdown().await.unwrap();
}

/// Issue 29, item 4: job steps are budgeted per request (a 2025-03-26 batch of 50
/// 100,000-step jobs), per session and per server, counting what running jobs still have
/// to run; a refused POST starts nothing.
#[tokio::test]
async fn job_steps_are_budgeted_per_request_session_and_server() {
    let server = control_server(Limits {
        max_steps_per_session: Some(150_000),
        max_steps_per_server: Some(250_000),
        ..Limits::default()
    })
    .await;
    let old = initialize(server.addr, "2025-03-26").await;
    let batch: Vec<Value> = (0..50).map(|i| long_job(10 + i, 100_000, 0)).collect();
    let (status, body) = session_post(
        server.addr,
        &old,
        "2025-03-26",
        &Value::Array(batch).to_string(),
    )
    .await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    assert!(body.contains("1000000 steps"), "{body}");
    assert!(ledger(server.addr).await.ledger.jobs.is_empty());
    // The frozen clock keeps each job running (interval 1 s, never reached).
    let job = |id| long_job(id, 100_000, 1_000).to_string();
    let a = initialize(server.addr, "2025-11-25").await;
    let b = initialize(server.addr, "2025-11-25").await;
    let c = initialize(server.addr, "2025-11-25").await;
    let mut streams = Vec::new();
    for (session, id) in [(&a, 2), (&b, 3)] {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        tcp.write_all(
            post(
                &server.addr.to_string(),
                "/mcp",
                &format!(
                    "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
                ),
                &job(id),
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        let mut head = [0u8; 12];
        tcp.read_exact(&mut head).await.unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        streams.push(tcp);
    }
    let (status, body) = session_post(server.addr, &a, "2025-11-25", &job(4)).await;
    assert!(status.starts_with("HTTP/1.1 429"), "{status} {body}");
    let (status, body) = session_post(server.addr, &c, "2025-11-25", &job(5)).await;
    assert!(status.starts_with("HTTP/1.1 503"), "{status} {body}");
    assert_eq!(ledger(server.addr).await.ledger.jobs.len(), 2);
    server.shutdown().await.unwrap();
}

/// Issue 29, item 5: one whole-ledger body at a time (a reader that never reads held a
/// full copy each), pages still answer, and an unread body's connection is closed after
/// the idle timeout, which frees it.
#[tokio::test]
async fn whole_ledger_bodies_are_bounded_and_an_unread_one_is_dropped() {
    let server = control_server(limits()).await;
    let session = initialize(server.addr, "2025-11-25").await;
    // A ledger well over what socket buffers take: 60,000 events at interval 0.
    let mut job = TcpStream::connect(server.addr).await.unwrap();
    start_job(&mut job, server.addr, &session, 60_000).await;
    let mut stream = Vec::new();
    tokio::time::timeout(PATIENCE, job.read_to_end(&mut stream))
        .await
        .expect("the job's stream ended")
        .unwrap();
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(server.addr).await.unwrap();
    stalled
        .write_all(
            format!(
                "GET /_chaos/ledger HTTP/1.1\r\nHost: {}\r\n\r\n",
                server.addr
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut head = [0u8; 12];
    stalled.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let response = Req::new("GET")
        .path("/_chaos/ledger")
        .send(server.addr)
        .await;
    assert_eq!(response.status(), 503);
    let body = json_body(response).await;
    assert!(
        body["error"].as_str().unwrap().contains("since=N"),
        "{body}"
    );
    let page = control(
        server.addr,
        "GET",
        "/_chaos/ledger?since=0&limit=10",
        Value::Null,
    )
    .await;
    assert_eq!(page["events"].as_array().unwrap().len(), 10);
    // Not read within the idle timeout: the server closes it.
    read_to_eof(&mut stalled).await;
    server.shutdown().await.unwrap();
}
