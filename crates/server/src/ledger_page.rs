//! `GET /_chaos/ledger` as a chunked body, and `?since=N` pages of its two big records.
//!
//! At 300,000 events the whole ledger is some 56 MB of JSON: built as one `Vec` it is
//! reallocated and copied on its way up and held twice at the peak. It is written into
//! 64 KiB chunks instead, which hyper sends one by one. A client that follows a long run
//! reads it in pages: `?since=N` answers the events with ids `N..N+limit` (`limit` 10,000
//! by default, at most 100,000) and the sends of those events, with `next`, the cursor for
//! the following page (equal to `events_end` when the client has everything so far).
//!
//! A whole-ledger body is a full copy of the ground truth held until its reader takes
//! it: ten readers that never read held ten copies. So at most
//! [`crate::Limits::ledger_readers`] whole bodies exist at once (one more gets 503 with a
//! sentence pointing at `?since=N` pages, which are bounded to [`PAGE_MAX`] events), and a
//! whole body not taken within the idle timeout has its connection closed, which frees it.
//!
//! Neither is written as JSON under the server's lock: what a body shows is copied under
//! it ([`LedgerBody::take`]), and written after ([`ledger_response`]).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use faultline_model::{ProducedEvent, SendEntry};
use serde::Serialize;

use crate::core::State;
use crate::ledger_snapshot::LedgerCopy;

/// Chunks the body is written in.
pub(crate) const CHUNK_BYTES: usize = 64 << 10;

/// Events per page unless `limit` says otherwise, and the most a page holds.
const PAGE_DEFAULT: u32 = 10_000;
const PAGE_MAX: u32 = 100_000;

/// The query of `GET /_chaos/ledger`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LedgerQuery {
    /// The whole snapshot (`LedgerSnapshot`).
    Whole,
    /// A page: events from id `since`, at most `limit`.
    Page { since: u32, limit: u32 },
}

impl LedgerQuery {
    /// Parses `since=N` and `limit=L` (any order); anything else is refused with a sentence.
    pub fn parse(query: Option<&str>) -> Result<LedgerQuery, String> {
        let Some(query) = query.filter(|q| !q.is_empty()) else {
            return Ok(LedgerQuery::Whole);
        };
        let (mut since, mut limit) = (None, None);
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let number = || {
                value
                    .parse::<u32>()
                    .map_err(|_| format!("{key}={value:?}: use a non-negative integer below 2^32"))
            };
            match key {
                "since" => since = Some(number()?),
                "limit" => limit = Some(number()?),
                _ => {
                    return Err(format!(
                        "unknown query parameter {key:?}: /_chaos/ledger takes since=N (an event id) and limit=L"
                    ));
                }
            }
        }
        match (since, limit) {
            (Some(since), limit) => Ok(LedgerQuery::Page {
                since,
                limit: limit.unwrap_or(PAGE_DEFAULT).clamp(1, PAGE_MAX),
            }),
            (None, _) => Err("limit needs since=N (the first event id of the page)".to_string()),
        }
    }
}

/// One page of `?since=N`, copied out of the ledger under the lock.
#[derive(Debug, Serialize)]
pub(crate) struct LedgerPage {
    now_ms: u64,
    /// The cursor asked for.
    since: u32,
    /// The cursor of the next page: one past the last event in this one.
    next: u32,
    /// One past the newest event id now.
    events_end: u32,
    /// Events below this id were trimmed (a server without `--control`), if `since` was
    /// below it the page starts here.
    events_base: u32,
    events: Vec<ProducedEvent>,
    /// The sends of this page's events, in the order they happened.
    sends: Vec<SendEntry>,
}

/// What `GET /_chaos/ledger` answers, copied under the lock and written as JSON after.
#[derive(Debug)]
pub(crate) enum LedgerBody {
    Whole(Box<LedgerCopy>),
    Page(LedgerPage),
}

impl LedgerBody {
    /// Copies what `query` asks for; the caller holds the lock and stepped `state` to now.
    pub fn take(state: &State, query: LedgerQuery) -> LedgerBody {
        match query {
            LedgerQuery::Whole => LedgerBody::Whole(Box::new(LedgerCopy::of(state))),
            LedgerQuery::Page { since, limit } => {
                let server = state.server();
                let ledger = server.ledger();
                let base = ledger.events_base;
                let end = ledger.next_event().0;
                let from = since.clamp(base, end);
                let to = from.saturating_add(limit).min(end);
                let events = ledger.events[(from - base) as usize..(to - base) as usize].to_vec();
                let sends = ledger
                    .sends
                    .iter()
                    .filter(|s| (from..to).contains(&s.event.0))
                    .cloned()
                    .collect();
                LedgerBody::Page(LedgerPage {
                    now_ms: server.now_ms(),
                    since,
                    next: to,
                    events_end: end,
                    events_base: base,
                    events,
                    sends,
                })
            }
        }
    }
}

/// Writes `value` as JSON into chunks, never into one contiguous buffer.
fn chunked_json(value: &impl Serialize) -> Result<VecDeque<Bytes>, serde_json::Error> {
    struct Chunks {
        done: VecDeque<Bytes>,
        open: Vec<u8>,
    }
    impl io::Write for Chunks {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.open.extend_from_slice(buf);
            if self.open.len() >= CHUNK_BYTES {
                let full = std::mem::replace(&mut self.open, Vec::with_capacity(CHUNK_BYTES + 256));
                self.done.push_back(Bytes::from(full));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut chunks = Chunks {
        done: VecDeque::new(),
        open: Vec::with_capacity(CHUNK_BYTES + 256),
    };
    serde_json::to_writer(&mut chunks, value)?;
    if !chunks.open.is_empty() {
        chunks.done.push_back(Bytes::from(chunks.open));
    }
    Ok(chunks.done)
}

/// A body of ready chunks, and whatever must live exactly as long as it (a reader's
/// permit, the guard that tells its deadline it was dropped).
struct ChunkBody(
    VecDeque<Bytes>,
    #[allow(dead_code)] Option<Box<dyn Send + Sync>>,
);

impl http_body::Body for ChunkBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        Poll::Ready(
            self.get_mut()
                .0
                .pop_front()
                .map(|b| Ok(http_body::Frame::data(b))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }
}

fn chunked_response(
    written: Result<VecDeque<Bytes>, serde_json::Error>,
    held: Option<Box<dyn Send + Sync>>,
) -> Response {
    match written {
        Ok(chunks) => {
            let mut response = Response::new(Body::new(ChunkBody(chunks, held)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Err(e) => crate::http::json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &serde_json::json!({"error": format!("the ledger did not serialize: {e}")}),
        ),
    }
}

/// The answer to `GET /_chaos/ledger`, written after the lock was released: a page is
/// written on a blocking thread and sent once whole (it is bounded); the whole ledger is
/// written as its reader takes it (see `ledger_stream`). `held` lives as long as the body
/// (see [`ChunkBody`]).
pub(crate) async fn ledger_response(
    body: LedgerBody,
    held: Option<Box<dyn Send + Sync>>,
) -> Response {
    match body {
        LedgerBody::Whole(copy) => crate::ledger_stream::streamed_json(copy, held),
        LedgerBody::Page(page) => {
            match tokio::task::spawn_blocking(move || chunked_json(&page)).await {
                Ok(written) => chunked_response(written, held),
                Err(e) => crate::http::json_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &serde_json::json!({"error": format!("the ledger page was not written: {e}")}),
                ),
            }
        }
    }
}
