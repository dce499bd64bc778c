//! Phase `progress`: how many `notifications/progress` SSE events per second reach clients.
//!
//! Events are counted as a client sees them: each call's SSE body is decoded event by
//! event with `sse-stream` (the SSE decoder crate rmcp uses; no hand-written line
//! splitter), so the figure includes decoding, not just bytes on the wire. A job that
//! completes with fewer progress events than steps is counted as short (it should never
//! happen: a short job means events were lost).

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use hyper::StatusCode;
use serde_json::{Value, json};
use sse_stream::{Sse, SseStream};

use crate::Result;
use crate::conn::Conn;
use crate::server::ServerChild;

pub struct ProgressResult {
    pub events: u64,
    pub events_per_s: f64,
    pub jobs_completed: u64,
    /// Completed jobs that delivered fewer progress events than steps (should be 0).
    pub short_jobs: u64,
    pub server_cpu_s: f64,
    pub server_rss_mib: f64,
}

impl ProgressResult {
    pub fn to_json(&self) -> Value {
        json!({
            "events": self.events,
            "events_per_s": self.events_per_s,
            "jobs_completed": self.jobs_completed,
            "short_jobs": self.short_jobs,
            "server_cpu_s": self.server_cpu_s,
            "server_rss_after_mib": self.server_rss_mib,
        })
    }
}

/// What one job's SSE stream delivered.
#[derive(Default)]
struct JobEvents {
    progress: u64,
    result: bool,
}

impl JobEvents {
    /// The server writes compact JSON with `method` right after `jsonrpc`, so a prefix
    /// test usually decides; the substring test covers any other field order.
    fn see(&mut self, event: &Sse) {
        let Some(data) = event.data.as_deref() else {
            return;
        };
        if data.starts_with(r#"{"jsonrpc":"2.0","method":"notifications/progress""#)
            || data.contains(r#""notifications/progress""#)
        {
            self.progress += 1;
        } else if data.contains(r#""result""#) {
            self.result = true;
        }
    }
}

/// `sessions` sessions each calling `long_job` (`steps` steps at once) in a loop until
/// `duration` has passed. The server figures are left at 0 for the caller to fill in.
pub async fn run(
    server: &ServerChild,
    sessions: usize,
    steps: u32,
    duration: Duration,
) -> Result<ProgressResult> {
    let addr = server.addr;
    let mut workers = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        let mut conn = Conn::open(addr).await?;
        let session = conn.initialize().await?;
        workers.push((conn, session));
    }
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = tokio::task::JoinSet::new();
    for (w, (mut conn, session)) in workers.into_iter().enumerate() {
        tasks.spawn(async move {
            let (mut events, mut completed, mut short) = (0u64, 0u64, 0u64);
            let mut id = 1u64;
            'jobs: while Instant::now() < deadline {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"long_job","arguments":{{"steps":{steps},"interval_ms":0}},"_meta":{{"progressToken":"w{w}-{id}"}}}}}}"#
                );
                id += 1;
                let resp = match conn.post(Some(&session), Bytes::from(body)).await {
                    Ok(r) if r.status() == StatusCode::OK => r,
                    _ => break,
                };
                let mut stream = SseStream::new(resp.into_body());
                let mut job = JobEvents::default();
                loop {
                    match tokio::time::timeout_at(deadline.into(), stream.next()).await {
                        // The phase is over; whatever was counted so far stands.
                        Err(_) => {
                            events += job.progress;
                            break 'jobs;
                        }
                        Ok(Some(Ok(event))) => job.see(&event),
                        Ok(Some(Err(_)) | None) => break,
                    }
                }
                events += job.progress;
                if job.result {
                    completed += 1;
                    if job.progress < u64::from(steps) {
                        short += 1;
                    }
                } else {
                    break;
                }
            }
            (events, completed, short)
        });
    }
    let (mut events, mut completed, mut short) = (0, 0, 0);
    while let Some(joined) = tasks.join_next().await {
        let (e, c, s) = joined?;
        events += e;
        completed += c;
        short += s;
    }
    let elapsed = start.elapsed().as_secs_f64();
    Ok(ProgressResult {
        events,
        events_per_s: events as f64 / elapsed,
        jobs_completed: completed,
        short_jobs: short,
        server_cpu_s: 0.0,
        server_rss_mib: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    /// Events split across chunks anywhere (inside a line, between the two newlines)
    /// are still counted once each.
    #[test]
    fn counts_events_split_across_chunks() {
        let chunks = [
            "id: 1\nretry: 1000\ndata: \n\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/pro",
            "gress\",\"params\":{}}\n",
            "\nid: 3\ndata: {\"params\":{},\"method\":\"notifications/progress\",\"jsonrpc\":\"2.0\"}\n\n",
            "id: 4\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        ];
        let body = futures_util::stream::iter(
            chunks.map(|c| Ok::<_, Infallible>(Bytes::from_static(c.as_bytes()))),
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let job = runtime.block_on(async {
            let mut stream = SseStream::from_bytes_stream(body);
            let mut job = JobEvents::default();
            while let Some(event) = stream.next().await {
                job.see(&event.unwrap());
            }
            job
        });
        assert_eq!(job.progress, 2);
        assert!(job.result);
    }
}
