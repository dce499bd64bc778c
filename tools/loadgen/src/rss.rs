//! Phase `rss`: the server's memory with many sessions, each holding its GET stream open.
//!
//! Long-lived standalone streams are what a server carries for every connected client, so
//! their cost per stream is the figure that sizes a deployment. RSS is read idle, after
//! the sessions exist, and with every stream open; a stream counts as open once its
//! priming event has been decoded (proof that the server attached it, not just accepted
//! the connection).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hyper::StatusCode;
use sse_stream::SseStream;
use tokio::sync::{Semaphore, watch};

use crate::conn::Conn;
use crate::server::ServerChild;
use crate::{BoxError, Result, os};

pub struct RssResult {
    pub streams: usize,
    pub open: usize,
    pub idle_mib: f64,
    pub sessions_mib: f64,
    pub streams_mib: f64,
    pub hwm_mib: f64,
    pub generator_mib: f64,
    pub open_s: f64,
}

/// Keep-alive connections the sessions are initialized over.
const POOL: usize = 32;
/// Streams being opened at once (the rest wait their turn).
const OPENING: usize = 128;

pub async fn run(server: &ServerChild, streams: usize) -> Result<RssResult> {
    let addr = server.addr;
    let pid = server.pid();
    let rss = || os::rss_mib(pid).ok_or("cannot read the server's /proc status");
    let (idle_mib, _) = rss()?;
    let phase_deadline = Instant::now() + Duration::from_secs(120);

    // Initialize the sessions over a small pool of keep-alive connections.
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..POOL.min(streams.max(1)) {
        let next = next.clone();
        tasks.spawn(async move {
            let mut conn = Conn::open(addr).await?;
            let mut ids = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < streams {
                ids.push(conn.initialize().await?);
            }
            Ok::<_, BoxError>(ids)
        });
    }
    let mut sessions = Vec::with_capacity(streams);
    while let Some(joined) = tasks.join_next().await {
        sessions.extend(joined??);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (sessions_mib, _) = rss()?;

    // One connection per standalone GET stream, held open until `stop`.
    let started = Instant::now();
    let (stop_tx, stop_rx) = watch::channel(false);
    let opening = Arc::new(Semaphore::new(OPENING));
    let opened = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let mut holders = tokio::task::JoinSet::new();
    for session in sessions {
        let (opening, opened, failed) = (opening.clone(), opened.clone(), failed.clone());
        let mut stop = stop_rx.clone();
        holders.spawn(async move {
            let permit = opening.acquire_owned().await.expect("never closed");
            let open = async {
                let mut conn = Conn::open(addr).await?;
                let resp = conn.get_stream(&session).await?;
                if resp.status() != StatusCode::OK {
                    return Err(format!("GET answered {}", resp.status()).into());
                }
                let mut events = SseStream::new(resp.into_body());
                // The priming event proves the stream is attached.
                match events.next().await {
                    Some(Ok(_)) => Ok::<_, BoxError>((conn, events)),
                    _ => Err("the GET stream ended before its first event".into()),
                }
            };
            let held = tokio::time::timeout(Duration::from_secs(30), open).await;
            drop(permit);
            match held {
                Ok(Ok(held)) => {
                    opened.fetch_add(1, Ordering::Relaxed);
                    let _ = stop.wait_for(|s| *s).await;
                    drop(held);
                }
                _ => {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while opened.load(Ordering::Relaxed) + failed.load(Ordering::Relaxed) < streams
        && Instant::now() < phase_deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let open_s = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (streams_mib, hwm_mib) = rss()?;
    let generator_mib = os::rss_mib(std::process::id()).map_or(0.0, |(r, _)| r);
    let open = opened.load(Ordering::Relaxed);
    let _ = stop_tx.send(true);
    holders.abort_all();
    while holders.join_next().await.is_some() {}
    if open < streams {
        eprintln!(
            "warning: only {open} of {streams} GET streams opened ({} failed)",
            failed.load(Ordering::Relaxed)
        );
    }
    Ok(RssResult {
        streams,
        open,
        idle_mib,
        sessions_mib,
        streams_mib,
        hwm_mib,
        generator_mib,
        open_s,
    })
}
