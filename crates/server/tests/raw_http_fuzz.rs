//! Arbitrary and mutated-valid HTTP request bytes, written straight to a loopback socket:
//! the server never panics, always answers (`HTTP/1.x ...`) or closes the connection, and
//! a well-formed request afterwards still works. Complements `fuzz.rs`, whose requests
//! are well-formed HTTP with random parts: here the HTTP itself is broken.
//!
//! Issue 29's attacks are among the requests mutated ([`attacks`]): a batch of jobs over
//! the request's step budget, a progress token over the repeated-string bound, a
//! 2026-07-28 task of 100,000 steps, and `initialize`s pipelined on one connection.
//!
//! Bounded (a fixed number of cases, each ending when the server closes) so that it runs
//! in seconds in `cargo test --workspace --release`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::*;
use faultline_server::{Config, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Panics anywhere in this process (the server's tasks included).
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Well-formed requests the mutations start from.
const VALID: [&str; 7] = [
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 132\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\"}}}",
    "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: 00\r\nLast-Event-ID: 7\r\n\r\n",
    "DELETE /mcp HTTP/1.1\r\nHost: [::1]\r\nMcp-Session-Id: abc\r\n\r\n",
    "POST /_chaos/clock/advance HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ms\": 10}\n",
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n[1,2]\r\n0\r\n\r\n",
    // Issue 29: a content coding (415) and a Host that only starts like localhost (403).
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Encoding: deflate\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    "GET /_chaos/ledger HTTP/1.1\r\nHost: localhost:80@evil.example\r\nOrigin: http://[::1]evil.example\r\n\r\n",
];

/// A POST with these extra header lines, `Content-Length` and `Connection: close`.
fn post(headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Issue 29's attacks as requests to mutate, `session` a live 2025-03-26 session: none of
/// them may start work that outlives its answer by more than the step budgets allow, and
/// none leaves a stream open (a mutated one either parses, and is answered, or does not).
fn attacks(session: &str) -> Vec<String> {
    let old = format!("MCP-Protocol-Version: 2025-03-26\r\nMcp-Session-Id: {session}\r\n");
    let job = |id: u64, token: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "long_job",
            "arguments": {"steps": 100_000, "interval_ms": 0},
            "_meta": {"progressToken": token},
        }})
    };
    // 1,100,000 steps: over the request budget even with a digit of one job deleted.
    let batch = Value::Array((0..11).map(|i| job(10 + i, "b")).collect()).to_string();
    let token = job(2, &"t".repeat(2_000)).to_string();
    let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "long_job",
        "arguments": {"steps": 100_000, "interval_ms": 0},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "f", "version": "0"},
        },
    }})
    .to_string();
    vec![
        post(&old, &batch),
        post(&old, &token),
        post(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: long_job\r\n",
            &modern,
        ),
        // Five `initialize`s pipelined on one connection.
        VALID[0].repeat(5),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, byte: u8 },
    Insert { at: usize, bytes: Vec<u8> },
    Delete { at: usize, len: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Flip { at, byte }),
        (
            any::<usize>(),
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 1..16),
                Just(b"\r\n".to_vec()),
                Just(b"\r\n\r\n".to_vec()),
                Just(b"Content-Length: 99999999999999999999\r\n".to_vec()),
                Just(b"Transfer-Encoding: chunked\r\n".to_vec()),
                Just(b"Host: evil.example\r\n".to_vec()),
                Just(b"Host: localhost:80@evil.example\r\n".to_vec()),
                Just(b"Host: 127.0.0.1:99999\r\n".to_vec()),
                Just(b"Content-Encoding: gzip\r\n".to_vec()),
                Just(b"\0".to_vec()),
            ]
        )
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..32).prop_map(|(at, len)| Mutation::Delete { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(mut bytes: Vec<u8>, mutation: &Mutation) -> Vec<u8> {
    let at = |i: usize| i % (bytes.len() + 1);
    match mutation {
        Mutation::Flip { at: i, byte } => {
            if !bytes.is_empty() {
                let i = i % bytes.len();
                bytes[i] = *byte;
            }
        }
        Mutation::Insert { at: i, bytes: more } => {
            let i = at(*i);
            bytes.splice(i..i, more.iter().copied());
        }
        Mutation::Delete { at: i, len } => {
            let i = at(*i);
            let end = (i + len).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Truncate { at: i } => {
            let i = at(*i);
            bytes.truncate(i);
        }
    }
    bytes
}

#[derive(Debug, Clone)]
struct Case {
    bytes: Vec<u8>,
    /// Half-close after writing (the server sees EOF), or leave the connection open and
    /// let the header or idle timeout close it.
    half_close: bool,
}

fn case(templates: Vec<Vec<u8>>) -> impl Strategy<Value = Case> {
    let raw = proptest::collection::vec(any::<u8>(), 0..512);
    let mutated = (
        0..templates.len(),
        proptest::collection::vec(mutation(), 1..6),
    )
        .prop_map(move |(i, mutations)| mutations.iter().fold(templates[i].clone(), apply));
    (
        prop_oneof![1 => raw, 3 => mutated],
        proptest::bool::weighted(0.85),
    )
        .prop_map(|(bytes, half_close)| Case { bytes, half_close })
}

/// Writes the case and reads until the server closes; what it answered.
async fn send(addr: std::net::SocketAddr, case: &Case) -> Result<Vec<u8>, String> {
    let mut tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    // The server may close before everything is written: that is an answer too.
    let _ = tcp.write_all(&case.bytes).await;
    if case.half_close {
        let _ = tcp.shutdown().await;
    }
    let mut answer = Vec::new();
    let closed = tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    match closed {
        Ok(()) => Ok(answer),
        Err(_) => Err(format!(
            "the server neither finished answering nor closed; it sent {:?}",
            String::from_utf8_lossy(&answer)
        )),
    }
}

#[test]
fn raw_request_bytes_never_break_the_server() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(start(
        Config::well_behaved(11)
            .with_control(true)
            .with_time_scale(0.0)
            .with_limits(Limits {
                // Cases that keep their connection open end by these.
                header_timeout: Duration::from_millis(100),
                idle_timeout: Duration::from_millis(100),
                ..Limits::default()
            }),
    ));
    let addr = server.addr;
    let session = runtime.block_on(initialize(addr, "2025-03-26"));
    let templates: Vec<Vec<u8>> = VALID
        .iter()
        .map(|v| v.to_string())
        .chain(attacks(&session))
        .map(String::into_bytes)
        .collect();
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&case(templates), |case| {
            let answer = runtime.block_on(send(addr, &case));
            let answer = match answer {
                Ok(answer) => answer,
                Err(why) => return Err(TestCaseError::fail(why)),
            };
            prop_assert!(
                answer.is_empty() || answer.starts_with(b"HTTP/1."),
                "not an HTTP answer: {:?}",
                String::from_utf8_lossy(&answer)
            );
            prop_assert_eq!(PANICS.load(Ordering::SeqCst), 0);
            Ok(())
        })
        .unwrap();
    // A well-formed request still works.
    runtime.block_on(async {
        initialize(addr, "2025-11-25").await;
        server.shutdown().await.unwrap();
    });
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "something panicked");
}
