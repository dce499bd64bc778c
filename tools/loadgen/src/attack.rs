//! Phase `attack` (only when named; `just soak` runs it after the soak): issue 29's
//! attacks, all at once and in a loop, against a server that also serves ordinary
//! clients. It measures what the issue asks to hold: the ordinary sessions' `echo`
//! latency (median under 50 ms) and the server's RSS over the phase (flat: bounded
//! growth, not a slope).
//!
//! The attackers, each looping until the phase ends:
//!
//! - `slow`: sessions running `long_job(100000, 0)` with a 1 KiB progress token (the
//!   longest accepted) on connections with a 4 KiB receive buffer, read at 1 KB a second:
//!   their queues grow until the per-stream or the server-wide queue bound cuts them;
//! - `token`: a `tools/call` whose progress token is 200 KB (refused, 400);
//! - `flood`: 1,000 `initialize`s on one connection, never used;
//! - `batch`: a 2025-03-26 batch of 5,000 jobs (refused by the request budget) and one of
//!   10 jobs of 100,000 steps, whose client leaves at once (bounded by the session and
//!   server budgets);
//! - `modern`: 2026-07-28 `long_job(100000, 0)` tasks (bounded by the step budgets).
//!
//! The whole-ledger readers of the issue need `--control`, whose ledger keeps the whole
//! ground truth and so grows by design; they are left to `tests/ledger_reader_memory.rs`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

use crate::conn::Conn;
use crate::echo::{self, EchoResult};
use crate::server::ServerChild;
use crate::{Result, os};

/// Slow readers at once.
const SLOW_READERS: usize = 16;
/// Ordinary sessions calling `echo` throughout.
const VICTIMS: usize = 8;
/// RSS samples per second.
const SAMPLES_PER_S: f64 = 4.0;

pub struct AttackResult {
    /// The ordinary sessions' `echo` figures over the phase.
    pub echo: EchoResult,
    /// (seconds since the start, RSS in MiB).
    pub rss: Vec<(f64, f64)>,
    /// Requests each attacker sent (`slow`: the jobs its readers started).
    pub sent: Vec<(&'static str, u64)>,
    pub seconds: f64,
}

impl AttackResult {
    pub fn rss_start_mib(&self) -> f64 {
        self.rss.first().map_or(0.0, |s| s.1)
    }

    pub fn rss_peak_mib(&self) -> f64 {
        self.rss.iter().map(|s| s.1).fold(0.0, f64::max)
    }

    pub fn rss_end_mib(&self) -> f64 {
        self.rss.last().map_or(0.0, |s| s.1)
    }

    /// Peak RSS over the second half against the first half's: a server whose memory
    /// keeps growing under the same load shows it here.
    pub fn second_half_growth_mib(&self) -> f64 {
        let half = self.rss.len() / 2;
        let first = self.rss[..half].iter().map(|s| s.1).fold(0.0, f64::max);
        let second = self.rss[half..].iter().map(|s| s.1).fold(0.0, f64::max);
        second - first
    }

    pub fn to_json(&self) -> Value {
        json!({
            "seconds": self.seconds,
            "victims": VICTIMS,
            "echo": self.echo.to_json(),
            "rss_start_mib": self.rss_start_mib(),
            "rss_peak_mib": self.rss_peak_mib(),
            "rss_end_mib": self.rss_end_mib(),
            "rss_second_half_growth_mib": self.second_half_growth_mib(),
            "sent": self.sent.iter().map(|(k, n)| json!({"attack": k, "count": n})).collect::<Vec<_>>(),
            "rss_samples": self.rss,
        })
    }
}

/// Counters the attackers bump.
#[derive(Default)]
struct Sent {
    slow: AtomicU64,
    token: AtomicU64,
    flood: AtomicU64,
    batch: AtomicU64,
    modern: AtomicU64,
}

/// The attackers' names, for `--attacks`.
pub const ATTACKERS: [&str; 5] = ["slow", "token", "flood", "batch", "modern"];

/// Runs the attackers named in `which` for `duration` while ordinary sessions call `echo`.
pub async fn run(
    server: &ServerChild,
    duration: Duration,
    which: &[String],
) -> Result<AttackResult> {
    if let Some(unknown) = which.iter().find(|w| !ATTACKERS.contains(&w.as_str())) {
        return Err(
            format!("unknown attack {unknown:?} (slow, token, flood, batch, modern)").into(),
        );
    }
    let on = |name: &str| which.iter().any(|w| w == name);
    let addr = server.addr;
    let pid = server.pid();
    let start = Instant::now();
    let deadline = start + duration;
    let sent = Arc::new(Sent::default());
    let mut attackers = tokio::task::JoinSet::new();
    if on("slow") {
        for _ in 0..SLOW_READERS {
            let sent = sent.clone();
            attackers.spawn(async move { slow_reader(addr, deadline, &sent).await });
        }
    }
    let s = sent.clone();
    if on("token") {
        attackers.spawn(async move { big_token(addr, deadline, &s).await });
    }
    let s = sent.clone();
    if on("flood") {
        attackers.spawn(async move { flood(addr, deadline, &s).await });
    }
    let s = sent.clone();
    if on("batch") {
        attackers.spawn(async move { batches(addr, deadline, &s).await });
    }
    let s = sent.clone();
    if on("modern") {
        attackers.spawn(async move { modern_tasks(addr, deadline, &s).await });
    }
    let sampler = tokio::spawn(async move {
        let mut samples = Vec::new();
        let every = Duration::from_secs_f64(1.0 / SAMPLES_PER_S);
        while Instant::now() < deadline {
            if let Some((mib, _)) = os::rss_mib(pid) {
                samples.push((start.elapsed().as_secs_f64(), mib));
            }
            tokio::time::sleep(every).await;
        }
        samples
    });
    let echo = echo::run(server, VICTIMS, 1, duration).await?;
    while let Some(joined) = attackers.join_next().await {
        joined??;
    }
    let rss = sampler.await?;
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    Ok(AttackResult {
        echo,
        rss,
        sent: vec![
            ("slow", load(&sent.slow)),
            ("token", load(&sent.token)),
            ("flood", load(&sent.flood)),
            ("batch", load(&sent.batch)),
            ("modern", load(&sent.modern)),
        ],
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// A POST's bytes, as a spec-following client writes them.
fn post_bytes(addr: SocketAddr, session: Option<&str>, version: &str, body: &str) -> String {
    let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: {version}\r\n{session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn long_job(id: u64, steps: u32, token: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "long_job",
        "arguments": {"steps": steps, "interval_ms": 0},
        "_meta": {"progressToken": token},
    }})
}

/// A POST on `conn`; its status, the body read whole.
async fn status_of(conn: &mut Conn, session: Option<&str>, body: String) -> Result<u16> {
    let response = conn.post(session, Bytes::from(body)).await?;
    let status = response.status().as_u16();
    response.into_body().collect().await?;
    Ok(status)
}

async fn slow_reader(addr: SocketAddr, deadline: Instant, sent: &Sent) -> Result<()> {
    let token = "t".repeat(1024);
    while Instant::now() < deadline {
        let session = Conn::open(addr).await?.initialize().await?;
        let socket = TcpSocket::new_v4()?;
        socket.set_recv_buffer_size(4096)?;
        let mut tcp = socket.connect(addr).await?;
        let body = long_job(2, 100_000, &token).to_string();
        tcp.write_all(post_bytes(addr, Some(&session), "2025-11-25", &body).as_bytes())
            .await?;
        sent.slow.fetch_add(1, Ordering::Relaxed);
        let mut buf = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            match tokio::time::timeout(left, tcp.read(&mut buf)).await {
                Err(_) => return Ok(()),
                // Cut (the server's queue bounds), once the little it sent is read.
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(_)) => tokio::time::sleep(Duration::from_secs(1)).await,
            }
        }
    }
    Ok(())
}

async fn big_token(addr: SocketAddr, deadline: Instant, sent: &Sent) -> Result<()> {
    let mut conn = Conn::open(addr).await?;
    let session = conn.initialize().await?;
    let body = long_job(2, 100_000, &"t".repeat(200_000)).to_string();
    while Instant::now() < deadline {
        status_of(&mut conn, Some(&session), body.clone()).await?;
        sent.token.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

async fn flood(addr: SocketAddr, deadline: Instant, sent: &Sent) -> Result<()> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "faultline-loadgen-flood", "version": "0"},
    }})
    .to_string();
    while Instant::now() < deadline {
        let mut conn = Conn::open(addr).await?;
        for _ in 0..1_000 {
            if Instant::now() >= deadline {
                break;
            }
            status_of(&mut conn, None, body.clone()).await?;
            sent.flood.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

async fn batches(addr: SocketAddr, deadline: Instant, sent: &Sent) -> Result<()> {
    let batch = |n: u64| {
        Value::Array(
            (0..n)
                .map(|i| long_job(10 + i, 100_000, &format!("b{i}")))
                .collect(),
        )
        .to_string()
    };
    let (huge, small) = (batch(5_000), batch(10));
    while Instant::now() < deadline {
        let mut conn = Conn::open(addr).await?;
        let session = initialize_old(&mut conn).await?;
        status_of(&mut conn, Some(&session), huge.clone()).await?;
        // The small batch's jobs start; the client leaves without reading their stream.
        let mut tcp = tokio::net::TcpStream::connect(addr).await?;
        tcp.write_all(post_bytes(addr, Some(&session), "2025-03-26", &small).as_bytes())
            .await?;
        let mut head = [0u8; 12];
        let _ = tcp.read_exact(&mut head).await;
        drop(tcp);
        sent.batch.fetch_add(2, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

/// `initialize` at protocol 2025-03-26 (batches are allowed there); the session id.
async fn initialize_old(conn: &mut Conn) -> Result<String> {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "faultline-loadgen-batch", "version": "0"},
    }});
    let response = conn.post(None, Bytes::from(body.to_string())).await?;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or("initialize answered without a session")?;
    response.into_body().collect().await?;
    Ok(session)
}

async fn modern_tasks(addr: SocketAddr, deadline: Instant, sent: &Sent) -> Result<()> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "long_job",
        "arguments": {"steps": 100_000, "interval_ms": 0},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "faultline-loadgen-modern", "version": "0"},
        },
    }})
    .to_string();
    while Instant::now() < deadline {
        let mut tcp = tokio::net::TcpStream::connect(addr).await?;
        let request = post_bytes(addr, None, "2026-07-28", &body).replace(
            "Content-Length",
            "Mcp-Method: tools/call\r\nMcp-Name: long_job\r\nConnection: close\r\nContent-Length",
        );
        tcp.write_all(request.as_bytes()).await?;
        let mut answer = Vec::new();
        let _ = tcp.read_to_end(&mut answer).await;
        sent.modern.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}
