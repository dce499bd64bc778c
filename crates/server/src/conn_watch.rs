//! One TCP connection's watchdog: the header timeout, the idle timeout, and the server's
//! own cut of a connection whose reader stopped reading.
//!
//! hyper's own `header_read_timeout` starts when it begins waiting for a request head, so
//! on a keep-alive connection it is an idle timeout too, and the two could not have
//! separate values. Here the phases are told apart: a connection is `Head` from its first
//! byte (or from accept, for a fresh connection) until a request's headers are complete,
//! `Busy` while a response is being served (an SSE stream may rightly be quiet for hours),
//! and `Idle` after a response ended until the next byte comes. `Head` is bounded by the
//! header timeout, `Idle` by the idle timeout, `Busy` by nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Where a connection is between requests (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Head,
    Busy,
    Idle,
}

/// Shared by the connection's task, its IO (bytes read) and its requests (in flight).
#[derive(Debug)]
pub(crate) struct ConnWatch {
    /// Requests whose response is not over.
    in_flight: AtomicUsize,
    /// A byte arrived while no request was in flight: a request head is under way.
    head_started: AtomicBool,
    /// No request has been read yet: the connection counts as `Head` from accept.
    fresh: AtomicBool,
    /// The server cut the connection (a reader that stopped reading).
    cut: AtomicBool,
    /// Counts phase changes, so that the task sees a change that went and came back
    /// between two of its wake-ups (`Idle`, `Head`, `Busy`, `Idle` again).
    epoch: AtomicU64,
    changed: Notify,
}

impl ConnWatch {
    pub fn new() -> ConnWatch {
        ConnWatch {
            in_flight: AtomicUsize::new(0),
            head_started: AtomicBool::new(false),
            fresh: AtomicBool::new(true),
            cut: AtomicBool::new(false),
            epoch: AtomicU64::new(0),
            changed: Notify::new(),
        }
    }

    pub fn phase(&self) -> Phase {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            Phase::Busy
        } else if self.fresh.load(Ordering::Acquire) || self.head_started.load(Ordering::Acquire) {
            Phase::Head
        } else {
            Phase::Idle
        }
    }

    /// Bytes arrived on the socket.
    pub fn bytes_read(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0
            && !self.head_started.swap(true, Ordering::AcqRel)
        {
            self.note_change();
        }
    }

    fn note_change(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_one();
    }

    /// The phase and how many changes led to it.
    pub fn state(&self) -> (Phase, u64) {
        (self.phase(), self.epoch.load(Ordering::Acquire))
    }

    /// A request's headers are complete: the connection is busy until the returned guard
    /// (moved into the response body) is dropped.
    pub fn request_started(self: &std::sync::Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(false, Ordering::Release);
        self.fresh.store(false, Ordering::Release);
        self.note_change();
        InFlight(self.clone())
    }

    /// Closes the connection now, whatever it is doing.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::Release);
        self.changed.notify_one();
    }

    pub fn is_cut(&self) -> bool {
        self.cut.load(Ordering::Acquire)
    }

    /// Resolves when the phase may have changed or the connection was cut.
    pub async fn changed(&self) {
        self.changed.notified().await
    }
}

/// A response being served; dropping it (the body ended, or the client left) ends it.
#[derive(Debug)]
pub(crate) struct InFlight(std::sync::Arc<ConnWatch>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.note_change();
        }
    }
}

/// When a connection that entered `phase` at `since` must be closed.
pub(crate) fn deadline(
    phase: Phase,
    since: Instant,
    header_timeout: Duration,
    idle_timeout: Duration,
) -> Option<Instant> {
    match phase {
        Phase::Head => Some(since + header_timeout),
        Phase::Idle => Some(since + idle_timeout),
        Phase::Busy => None,
    }
}

/// The watch of the connection a request came on, as a request extension: the driver
/// keeps it with the response's queue, to close the connection if its reader stops.
#[derive(Debug, Clone)]
pub(crate) struct TcpConn(pub std::sync::Arc<ConnWatch>);
