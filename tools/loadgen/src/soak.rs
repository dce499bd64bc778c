//! Phase `soak`: sessions created and deleted in a loop, each with a standalone stream
//! opened and cut, while the server's RSS is sampled; reports the RSS slope in bytes per
//! session.
//!
//! A leak per session (a dead session's id, its ledger entries, a stream's queue) shows as
//! a slope that does not go to zero however many sessions have come and gone; a bounded
//! server's RSS levels off once its windows are full. The slope is a least-squares fit
//! over the samples of the second half of the loop, after warm-up (allocator pools,
//! windows filling), so it measures the steady state.

use std::time::Instant;

use futures_util::StreamExt;
use http_body_util::BodyExt;
use hyper::StatusCode;
use sse_stream::SseStream;

use crate::conn::Conn;
use crate::server::ServerChild;
use crate::{Result, os};

#[derive(Debug)]
pub struct SoakResult {
    pub sessions: usize,
    /// (sessions done, RSS in bytes) at every sample.
    pub samples: Vec<(usize, u64)>,
    /// Least-squares slope over the second half of the samples.
    pub bytes_per_session: f64,
    pub rss_start_mib: f64,
    pub rss_end_mib: f64,
    pub seconds: f64,
}

/// Samples taken over the loop.
const SAMPLES: usize = 40;

pub async fn run(server: &ServerChild, sessions: usize) -> Result<SoakResult> {
    let addr = server.addr;
    let pid = server.pid();
    let rss = || os::rss_mib(pid).map_or(0, |(mib, _)| (mib * 1024.0 * 1024.0) as u64);
    let every = (sessions / SAMPLES).max(1);
    let mut control = Conn::open(addr).await?;
    let mut samples = vec![(0, rss())];
    let started = Instant::now();
    for done in 1..=sessions {
        let session = control.initialize().await?;
        // The standalone stream, on a connection of its own, cut by the client once the
        // server has attached it (its priming event arrived).
        let mut listener = Conn::open(addr).await?;
        let response = listener.get_stream(&session).await?;
        if response.status() != StatusCode::OK {
            return Err(format!("GET stream answered {}", response.status()).into());
        }
        let mut events = SseStream::new(response.into_body());
        events
            .next()
            .await
            .ok_or("the stream ended before its priming event")??;
        drop(events);
        drop(listener);
        let response = control.delete(&session).await?;
        let status = response.status();
        response.into_body().collect().await?;
        if !status.is_success() {
            return Err(format!("DELETE answered {status}").into());
        }
        if done % every == 0 {
            samples.push((done, rss()));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let steady = &samples[samples.len() / 2..];
    Ok(SoakResult {
        sessions,
        bytes_per_session: slope(steady),
        rss_start_mib: samples[0].1 as f64 / 1048576.0,
        rss_end_mib: samples.last().map_or(0.0, |s| s.1 as f64 / 1048576.0),
        samples,
        seconds,
    })
}

/// Least-squares slope of y over x.
fn slope(points: &[(usize, u64)]) -> f64 {
    let n = points.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let mean_x = points.iter().map(|p| p.0 as f64).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1 as f64).sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for &(x, y) in points {
        num += (x as f64 - mean_x) * (y as f64 - mean_y);
        den += (x as f64 - mean_x).powi(2);
    }
    if den == 0.0 { 0.0 } else { num / den }
}
