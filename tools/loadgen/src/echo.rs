//! Phases `echo1` and `echo`: request throughput and latency of `tools/call echo`.
//!
//! Closed loop (each connection sends its next request when the previous answer is in),
//! so requests/s is what the server sustains at that concurrency and the latency is not
//! inflated by a queue the generator built itself. Sessions and connections are all set
//! up before the clock starts: only calls are timed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::StatusCode;
use serde_json::{Value, json};

use crate::Result;
use crate::conn::Conn;
use crate::server::ServerChild;
use crate::stats::{Latencies, median};

#[derive(Clone, Default)]
pub struct EchoResult {
    pub requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub server_cpu_s: f64,
    pub server_rss_mib: f64,
}

impl EchoResult {
    /// Each figure's median over the runs, taken separately.
    pub fn median(rs: &[EchoResult]) -> EchoResult {
        let m = |f: fn(&EchoResult) -> f64| median(rs.iter().map(f));
        EchoResult {
            requests: m(|r| r.requests as f64) as u64,
            errors: m(|r| r.errors as f64) as u64,
            rps: m(|r| r.rps),
            p50_ms: m(|r| r.p50_ms),
            p99_ms: m(|r| r.p99_ms),
            max_ms: m(|r| r.max_ms),
            server_cpu_s: m(|r| r.server_cpu_s),
            server_rss_mib: m(|r| r.server_rss_mib),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "requests": self.requests,
            "errors": self.errors,
            "req_per_s": self.rps,
            "p50_ms": self.p50_ms,
            "p99_ms": self.p99_ms,
            "max_ms": self.max_ms,
            "server_cpu_s": self.server_cpu_s,
            "server_rss_after_mib": self.server_rss_mib,
        })
    }
}

/// `sessions` sessions, each with `inflight` connections calling `echo` until `duration`
/// has passed. The server figures are left at 0 for the caller to fill in.
pub async fn run(
    server: &ServerChild,
    sessions: usize,
    inflight: usize,
    duration: Duration,
) -> Result<EchoResult> {
    let addr = server.addr;
    // Set up everything first: sessions, then one connection per in-flight slot.
    let mut workers = Vec::with_capacity(sessions * inflight);
    for _ in 0..sessions {
        let mut conn = Conn::open(addr).await?;
        let session: Arc<str> = conn.initialize().await?.into();
        workers.push((conn, session.clone()));
        for _ in 1..inflight {
            workers.push((Conn::open(addr).await?, session.clone()));
        }
    }
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for (w, (mut conn, session)) in workers.into_iter().enumerate() {
        tasks.spawn(async move {
            let mut latencies = Latencies::new();
            let mut errors = 0u64;
            let mut id = 1u64;
            while Instant::now() < deadline {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello from worker {w}"}}}}}}"#
                );
                id += 1;
                let t = Instant::now();
                let ok = match conn.post(Some(&session), Bytes::from(body)).await {
                    Ok(resp) => {
                        let status = resp.status();
                        match resp.into_body().collect().await {
                            Ok(b) => {
                                let b = b.to_bytes();
                                status == StatusCode::OK && contains(&b, b"\"result\"")
                            }
                            Err(_) => false,
                        }
                    }
                    Err(_) => {
                        // The connection is unusable: count it and reconnect.
                        match Conn::open(addr).await {
                            Ok(c) => conn = c,
                            Err(_) => return (latencies, errors + 1),
                        }
                        false
                    }
                };
                if ok {
                    latencies.record(t.elapsed());
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        });
    }
    let mut all = Latencies::new();
    let mut errors = 0;
    while let Some(joined) = tasks.join_next().await {
        let (latencies, err) = joined?;
        all.merge(&latencies);
        errors += err;
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok(EchoResult {
        requests: all.count(),
        errors,
        rps: all.count() as f64 / elapsed,
        p50_ms: all.quantile_ms(0.50),
        p99_ms: all.quantile_ms(0.99),
        max_ms: all.max_ms(),
        server_cpu_s: 0.0,
        server_rss_mib: 0.0,
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
