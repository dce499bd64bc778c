//! Quiet listen streams: when bytes last went out on each open 2026-07-28 listen stream,
//! and the keep-alive comments that stop it looking idle.
//!
//! A listen stream carries nothing between list changes, which may be hours apart. A proxy
//! or load balancer with an idle timeout cuts a connection that carried no bytes for that
//! long, and the client hears of no change until it listens again (the Go SDK sent no
//! keep-alive, and listen streams behind proxies died:
//! <https://github.com/modelcontextprotocol/go-sdk/pull/1232>; the TypeScript SDK sends one
//! every 15 s). The transport page recommends keep-alive SSE comments on long-lived streams
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>).
//!
//! With `listen_keepalive: Some(d)` every open listen stream gets `: keep-alive` whenever
//! it has carried no bytes for `d` of virtual time: at `last bytes + d`, where the last
//! bytes are its opening answer and acknowledgement, a `list_changed`, or the previous
//! comment. A busy stream gets none. The comment is due work like a job step
//! ([`Server::next_due`]), and goes out after job steps due at the same instant. It is an
//! [`Output::Comment`], counted in the listen's ledger entry (`keepalives`); it is not an
//! event (no ordinal, nothing to resume).
//!
//! When bytes last went out is kept whatever the knob says: an idle proxy in front of the
//! server (the `IdleProxy` fault) reads it through [`Server::quietest_listen`] and
//! [`Server::idle_listens`]. With the knob unset and no listen open, none of this costs a
//! 2025 run anything but an empty queue's minimum.

use crate::http::Output;
use crate::ids::{ConnId, StreamId};
use crate::ledger::ListenFilter;
use serde_json::Value;

use super::super::Server;

/// An open listen stream: its index in the ledger's `listens`, when bytes last went out on
/// it, and what its messages need (kept here, not only in the ledger, whose record of
/// listens a long-lived server trims while a listen may stay open for days).
#[derive(Debug, Clone)]
pub(in crate::server) struct OpenListen {
    pub(in crate::server) index: u32,
    pub(in crate::server) last_bytes_ms: u64,
    /// The listen request's id: the `subscriptionId` every message carries.
    pub(in crate::server) request_id: Value,
    pub(in crate::server) filter: ListenFilter,
}

impl Server {
    /// The earliest keep-alive due, if the knob is set and a listen is open.
    #[inline]
    pub(in crate::server) fn keepalive_due(&self) -> Option<u64> {
        self.modern.keepalive_due.first().map(|(t, _)| t)
    }

    /// Bytes went out on open listen stream `stream` now: its next keep-alive moves to
    /// `now + d`.
    pub(in crate::server) fn note_listen_bytes(&mut self, stream: StreamId) {
        let now = self.now_ms;
        let Some(open) = self.modern.listens.get_mut(&stream) else {
            return;
        };
        let before = std::mem::replace(&mut open.last_bytes_ms, now);
        if let Some(d) = self.knobs.listen_keepalive {
            self.modern
                .keepalive_due
                .remove(&(before.saturating_add(d.ms()), stream));
            self.modern
                .keepalive_due
                .insert((now.saturating_add(d.ms()), stream));
        }
    }

    /// A listen stream opened now (its answer and acknowledgement are its first bytes).
    pub(in crate::server) fn track_listen(
        &mut self,
        stream: StreamId,
        index: u32,
        request_id: Value,
        filter: ListenFilter,
    ) {
        let now = self.now_ms;
        self.modern.listens.insert(
            stream,
            OpenListen {
                index,
                last_bytes_ms: now,
                request_id,
                filter,
            },
        );
        if let Some(d) = self.knobs.listen_keepalive {
            self.modern
                .keepalive_due
                .insert((now.saturating_add(d.ms()), stream));
        }
    }

    /// A listen stream closed: it is forgotten, with its keep-alive. Its index, if it was
    /// open.
    pub(in crate::server) fn untrack_listen(&mut self, stream: StreamId) -> Option<u32> {
        let open = self.modern.listens.remove(&stream)?;
        if let Some(d) = self.knobs.listen_keepalive {
            self.modern
                .keepalive_due
                .remove(&(open.last_bytes_ms.saturating_add(d.ms()), stream));
        }
        Some(open.index)
    }

    /// Sends the keep-alives due at or before `due` (each moves that stream's next one on).
    pub(in crate::server) fn run_keepalives(&mut self, due: u64, out: &mut Vec<Output>) {
        while let Some((t, stream)) = self.modern.keepalive_due.first() {
            if t > due {
                break;
            }
            self.modern.keepalive_due.pop_first();
            let attached = self.log.get(stream).and_then(|l| l.attached);
            let Some(index) = self.modern.listens.get(&stream).map(|l| l.index) else {
                continue;
            };
            if let Some(conn) = attached {
                out.push(Output::Comment { conn });
                if let Some(entry) = self.ledger.kept_listen_mut(index) {
                    entry.keepalives += 1;
                }
            }
            if let Some(d) = self.knobs.listen_keepalive {
                let open = self
                    .modern
                    .listens
                    .get_mut(&stream)
                    .expect("an open listen");
                open.last_bytes_ms = t;
                self.modern
                    .keepalive_due
                    .insert((t.saturating_add(d.ms()), stream));
            }
        }
    }

    /// When bytes last went out on the open listen stream that has been quiet longest
    /// (`None`: no listen is open).
    pub fn quietest_listen(&self) -> Option<u64> {
        self.modern.listens.values().map(|l| l.last_bytes_ms).min()
    }

    /// The connections of the open listen streams on which no bytes went out after
    /// `since_ms`, with when their last bytes did, in stream order.
    pub fn idle_listens(&self, since_ms: u64) -> Vec<(ConnId, u64)> {
        self.modern
            .listens
            .iter()
            .filter(|(_, l)| l.last_bytes_ms <= since_ms)
            .filter_map(|(&stream, l)| {
                let conn = self.log.get(stream)?.attached?;
                Some((conn, l.last_bytes_ms))
            })
            .collect()
    }
}
