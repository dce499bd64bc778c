//! A fleet's event store: which replica can resolve a `Last-Event-ID` against which
//! stream's log, and what a store keyed by stream replays.
//!
//! There is still one [`EventLog`](crate::event_log::EventLog); visibility is checked when
//! a cursor is resolved. A per-replica store sees only the streams its replica opened; a
//! shared one sees all. A shared store keyed by stream puts every standalone stream under
//! one key, as a store keyed by the SDKs' stream ids does (they name every standalone
//! stream `_GET_stream`; <https://github.com/PrefectHQ/fastmcp/pull/4402> fixed such a
//! store): an honoured standalone cursor then replays the retained events of every
//! standalone stream above it, in production order, whichever session produced them. That is how one session
//! receives another's notifications (`foreign_event`). With one replica nothing here runs
//! past its first test of `multi`.

use crate::event_log::StreamLog;
use crate::fleet::{EventStoreScope, SharedKey};
use crate::http::{HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, EventRef, StreamId};
use crate::ledger::{SendEntry, StreamKind};
use crate::route::ReplicaId;

use super::Server;

/// Whether the replica `serving` can resolve a cursor against `log`.
pub(super) fn sees_stream(
    multi: bool,
    scope: EventStoreScope,
    serving: ReplicaId,
    log: &StreamLog,
) -> bool {
    !multi
        || match scope {
            EventStoreScope::PerReplica => log.home == serving,
            EventStoreScope::Shared { .. } => true,
        }
}

impl Server {
    /// The events an honoured cursor on `stream` (its own events from `retained[from]`)
    /// replays when the store keys standalone streams together: its own, and every
    /// retained event of the other standalone streams produced after the cursor's event,
    /// in production order. `None` when the store does not key by stream, the stream is
    /// not standalone, or the cursor's event is no longer retained.
    pub(super) fn stream_keyed_replay(
        &self,
        stream: StreamId,
        from: usize,
    ) -> Option<Vec<(EventRef, u64)>> {
        let keyed = self.multi
            && self.fleet.event_store
                == EventStoreScope::Shared {
                    by: SharedKey::Stream,
                };
        if !keyed {
            return None;
        }
        let log = self.log.get(stream)?;
        if log.kind != StreamKind::Standalone || from == 0 {
            return None;
        }
        let above = log.retained.get(from - 1)?.event;
        let mut events: Vec<(EventRef, u64)> = self
            .log
            .standalone_streams()
            .flat_map(|(_, l)| l.retained.iter())
            .filter(|e| e.event > above)
            .map(|e| (e.event, e.id))
            .collect();
        events.sort_unstable_by_key(|&(event, _)| event);
        Some(events)
    }

    /// Attaches `conn` to the standalone `stream` and sends `events` as a replay (see
    /// [`Server::stream_keyed_replay`]).
    pub(super) fn replay_keyed(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        stream: StreamId,
        events: Vec<(EventRef, u64)>,
        out: &mut Vec<Output>,
    ) {
        self.respond(conn, request, None, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        let now = self.now_ms;
        for (event, id) in events {
            out.push(Output::Event {
                conn,
                event,
                id: Some(id),
                retry_ms: None,
            });
            self.ledger.sends.push(SendEntry {
                event,
                conn,
                at_ms: now,
                replay: true,
            });
        }
        let session = self.log.get(stream).map(|l| l.session);
        if let Some(s) = session.and_then(|k| self.sessions.get_mut(k)) {
            s.standalone = Some(stream);
        }
    }
}
