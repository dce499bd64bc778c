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
///
/// A phase change only writes two atomics: nobody is woken. The connection's task reads
/// the phase when its own timer fires (see [`ConnWatch::next_check`]), so a keep-alive
/// request costs the watchdog nothing; only the server's cut wakes it at once.
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
    /// When the connection was accepted: the origin of `changed_at_ns`.
    born: Instant,
    /// When the phase last changed, in nanoseconds after `born`. Written *before* the
    /// phase changes and read *after* it is read, so a reader may pair an old phase with a
    /// newer time (a deadline too late, checked again then) but never a new phase with an
    /// older time (a deadline too early: a connection closed that had time left).
    changed_at_ns: AtomicU64,
    cut_signal: Notify,
}

impl ConnWatch {
    pub fn new() -> ConnWatch {
        ConnWatch {
            in_flight: AtomicUsize::new(0),
            head_started: AtomicBool::new(false),
            fresh: AtomicBool::new(true),
            cut: AtomicBool::new(false),
            born: Instant::now(),
            changed_at_ns: AtomicU64::new(0),
            cut_signal: Notify::new(),
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
        if self.in_flight.load(Ordering::Acquire) == 0 && !self.head_started.load(Ordering::Acquire)
        {
            self.note_change();
            self.head_started.store(true, Ordering::Release);
        }
    }

    /// Stamps a phase change; call it before the change itself (see `changed_at_ns`).
    fn note_change(&self) {
        let ns = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.changed_at_ns.fetch_max(ns, Ordering::AcqRel);
    }

    /// The phase and when it began (never earlier than it really began).
    pub fn state(&self) -> (Phase, Instant) {
        let phase = self.phase();
        let since = self.born + Duration::from_nanos(self.changed_at_ns.load(Ordering::Acquire));
        (phase, since)
    }

    /// A request's headers are complete: the connection is busy until the returned guard
    /// (moved into the response body) is dropped.
    pub fn request_started(self: &std::sync::Arc<Self>) -> InFlight {
        self.note_change();
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(false, Ordering::Release);
        self.fresh.store(false, Ordering::Release);
        InFlight(self.clone())
    }

    /// Closes the connection now, whatever it is doing.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::Release);
        self.cut_signal.notify_one();
    }

    pub fn is_cut(&self) -> bool {
        self.cut.load(Ordering::Acquire)
    }

    /// Resolves when the connection may have been cut.
    pub async fn cut_signalled(&self) {
        self.cut_signal.notified().await
    }

    /// What the connection's task does next: close it now, or look again at the returned
    /// instant. A `Busy` connection has no deadline but is looked at again every
    /// `min(header_timeout, idle_timeout)`: a phase that began after one look then still
    /// gets its whole time at the next (it began less than its timeout before it).
    pub fn next_check(
        &self,
        now: Instant,
        header_timeout: Duration,
        idle_timeout: Duration,
    ) -> Check {
        let (phase, since) = self.state();
        match deadline(phase, since, header_timeout, idle_timeout) {
            Some(at) if at <= now => Check::Close(phase),
            Some(at) => Check::At(at),
            None => Check::At(now + header_timeout.min(idle_timeout)),
        }
    }
}

/// The watchdog's decision (see [`ConnWatch::next_check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The phase ran out of time.
    Close(Phase),
    /// Look again then.
    At(Instant),
}

/// A response being served; dropping it (the body ended, or the client left) ends it.
#[derive(Debug)]
pub(crate) struct InFlight(std::sync::Arc<ConnWatch>);

impl Drop for InFlight {
    fn drop(&mut self) {
        // Stamped first (see `changed_at_ns`); a stamp for a request that was not the last
        // in flight only makes a later deadline, and `Busy` has none.
        self.0.note_change();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    const HEADER: Duration = Duration::from_secs(10);
    const IDLE: Duration = Duration::from_secs(60);

    fn check(watch: &ConnWatch) -> Check {
        watch.next_check(Instant::now(), HEADER, IDLE)
    }

    #[tokio::test(start_paused = true)]
    async fn each_phase_gets_its_whole_time_from_when_it_began_however_late_it_is_looked_at() {
        let born = Instant::now();
        let watch = Arc::new(ConnWatch::new());
        // A fresh connection is `Head` from accept.
        assert_eq!(check(&watch), Check::At(born + HEADER));
        tokio::time::advance(Duration::from_secs(4)).await;
        let in_flight = watch.request_started();
        // `Busy` has no deadline: looked at again, never closed, however long it lasts.
        tokio::time::advance(Duration::from_secs(100)).await;
        assert_eq!(check(&watch), Check::At(Instant::now() + HEADER));
        drop(in_flight);
        let idle_from = Instant::now();
        // Looked at late (the `Busy` re-check), `Idle` still gets its whole time.
        tokio::time::advance(Duration::from_secs(9)).await;
        assert_eq!(check(&watch), Check::At(idle_from + IDLE));
        tokio::time::advance(Duration::from_secs(40)).await;
        watch.bytes_read();
        let head_from = Instant::now();
        assert_eq!(check(&watch), Check::At(head_from + HEADER));
        tokio::time::advance(HEADER).await;
        assert_eq!(check(&watch), Check::Close(Phase::Head));
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_connection_closes_at_its_idle_timeout_and_not_before() {
        let watch = Arc::new(ConnWatch::new());
        drop(watch.request_started());
        let idle_from = Instant::now();
        tokio::time::advance(IDLE - Duration::from_millis(1)).await;
        assert_eq!(check(&watch), Check::At(idle_from + IDLE));
        tokio::time::advance(Duration::from_millis(1)).await;
        assert_eq!(check(&watch), Check::Close(Phase::Idle));
    }

    #[tokio::test(start_paused = true)]
    async fn bytes_during_a_response_do_not_start_a_head() {
        let watch = Arc::new(ConnWatch::new());
        let in_flight = watch.request_started();
        tokio::time::advance(HEADER * 3).await;
        watch.bytes_read();
        assert_eq!(watch.phase(), Phase::Busy);
        drop(in_flight);
        assert_eq!(check(&watch), Check::At(Instant::now() + IDLE));
    }
}
