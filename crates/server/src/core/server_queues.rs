//! The bound on SSE bytes queued across all of the server's streams together.
//!
//! Why: each stream's queue has its own hard bound ([`crate::Limits::max_queue_bytes`]),
//! but a thousand slow readers each under it would still pin tens of gigabytes. So the
//! queues together are bounded too ([`crate::Limits::max_server_queue_bytes`]): a frame
//! that would take them past it first cuts the largest queue (its reader is the furthest
//! behind, and cutting it frees the most), again until the frame fits, and the ledger's
//! `cuts` says `server_queues_full` for each. When the largest is the frame's own stream,
//! that stream is cut and the frame goes nowhere.
//!
//! Cost: readers take bytes off their queues without the server's lock, so the total is
//! never kept exactly. The driver keeps an upper bound instead ([`State`]'s
//! `queued_bound_bytes`: every byte queued since the last count), and counts the queues
//! only when that bound says a frame might not fit; below it, a frame costs one addition.

use std::sync::atomic::Ordering;

use faultline_model::{ConnId, CutReason};

use super::{Emitted, State};

impl State {
    /// Makes room for `len` more bytes on `conn` within the server-wide bound, cutting the
    /// largest queues as needed (`out` gets what the cuts emit). False when `conn` itself
    /// was cut: the frame is not to be queued.
    pub(super) fn make_server_room(
        &mut self,
        conn: ConnId,
        len: usize,
        out: &mut Vec<Emitted>,
    ) -> bool {
        let limit = self.config.limits.max_server_queue_bytes;
        if self.queued_bound_bytes.saturating_add(len) <= limit {
            return true;
        }
        let mut total = self.queued_now_bytes();
        let now = self.server().now_ms();
        loop {
            if total.saturating_add(len) <= limit {
                self.queued_bound_bytes = total;
                return true;
            }
            let Some((victim, queued)) = self.largest_queue() else {
                self.queued_bound_bytes = total;
                return true;
            };
            let Some(sink) = self
                .conns
                .remove(&victim)
                .or_else(|| self.draining.remove(&victim))
            else {
                return true;
            };
            tracing::warn!(
                conn = victim.0,
                queued,
                total,
                limit,
                "SSE queues full server-wide: cutting the largest"
            );
            let reason = CutReason::ServerQueuesFull {
                queued_bytes: queued as u64,
                total_bytes: total as u64,
                limit_bytes: limit as u64,
            };
            self.cut_sink(victim, &sink, reason, now, out);
            total -= queued;
            if victim == conn {
                self.queued_bound_bytes = total;
                return false;
            }
        }
    }

    /// Bytes queued on every stream now (streams still served and those draining).
    fn queued_now_bytes(&self) -> usize {
        self.conns
            .values()
            .chain(self.draining.values())
            .map(|sink| sink.queued.load(Ordering::Acquire))
            .sum()
    }

    /// The stream with the most bytes queued (the first such by connection number).
    fn largest_queue(&self) -> Option<(ConnId, usize)> {
        let mut largest: Option<(ConnId, usize)> = None;
        for (&conn, sink) in self.conns.iter().chain(self.draining.iter()) {
            let queued = sink.queued.load(Ordering::Acquire);
            if largest.is_none_or(|(_, most)| queued > most) {
                largest = Some((conn, queued));
            }
        }
        largest
    }
}
