//! SSE streams: opening them, attaching and detaching connections, and producing events.
//!
//! [`Server::emit`] is the only way an event comes into existence, so numbering (the id
//! scheme), logging and the ledger entry cannot disagree. A stream outlives the connections
//! that read it; that gap is what `Last-Event-ID` bridges.

use crate::event_log::{LoggedEvent, StreamLog};
use crate::http::{EndMode, Output};
use crate::ids::{ConnId, EventRef, SessionKey, StreamId};
use crate::knobs::{IdScheme, ResumedStreamEnd};
use crate::ledger::{Payload, ProducedEvent, SendEntry, StreamEntry, StreamKind};

use super::{LATEST_PROTOCOL_VERSION, Server};

impl Server {
    /// Opens a stream in the log for the session's current generation, nobody attached.
    pub(super) fn open_stream(&mut self, session: SessionKey, kind: StreamKind) -> StreamId {
        let generation = self.sessions.get(session).map_or(1, |s| s.generation);
        let id = StreamId(self.ledger.streams_end());
        self.ledger.streams.push(StreamEntry {
            session,
            generation,
            kind,
            opened_ms: self.now_ms,
            modern: false,
            closed_ms: None,
        });
        let mut log = StreamLog::new(session, generation, kind);
        log.home = self.serving.replica;
        self.log.insert(id, log);
        id
    }

    /// The session's standalone stream if the log still holds it, else a new one, opened
    /// detached, that becomes it.
    pub(super) fn standalone_stream(&mut self, session: SessionKey) -> StreamId {
        let current = self.sessions.get(session).and_then(|s| s.standalone);
        self.standalone_stream_from(session, current)
    }

    /// [`standalone_stream`](Self::standalone_stream) for a caller that has read the
    /// session's `standalone` already (`current`), sparing a second lookup of it.
    pub(super) fn standalone_stream_from(
        &mut self,
        session: SessionKey,
        current: Option<StreamId>,
    ) -> StreamId {
        if let Some(stream) = current.filter(|s| self.log.get(*s).is_some()) {
            return stream;
        }
        let stream = self.open_stream(session, StreamKind::Standalone);
        if let Some(s) = self.sessions.get_mut(session) {
            s.standalone = Some(stream);
        }
        stream
    }

    /// Makes `conn` the reader of `stream`: what the stream produces from now on is sent.
    pub(super) fn attach(&mut self, conn: ConnId, stream: StreamId, out: &mut Vec<Output>) {
        if let Some(log) = self.log.get_mut(stream) {
            if let Some(previous) = log.attached.replace(conn) {
                // A second GET for the same stream takes it over; the old one is cut.
                self.conns.remove(&previous);
                self.conn_replica.remove(&previous);
                out.push(Output::End {
                    conn: previous,
                    how: EndMode::Reset,
                });
            }
            log.detached_ms = None;
            log.attached_by_resume = false;
        }
        self.conns.insert(conn, stream);
        if self.multi {
            self.conn_replica.insert(conn, self.serving.replica);
        }
    }

    /// `conn` stops reading its stream; the stream stays in the log, producing unsent.
    pub(super) fn detach(&mut self, conn: ConnId) {
        if self.multi {
            self.conn_replica.remove(&conn);
        }
        if let Some(stream) = self.conns.remove(&conn)
            && let Some(log) = self.log.get_mut(stream)
            && log.attached == Some(conn)
        {
            log.attached = None;
            log.detached_ms = Some(self.now_ms);
            self.forget_if_dead(stream);
        }
    }

    /// Produces one event on `stream`: numbers it, records it, logs it, sends it if a
    /// connection is attached. The only way an event comes into existence.
    pub(super) fn emit(
        &mut self,
        stream: StreamId,
        payload: Payload,
        out: &mut Vec<Output>,
    ) -> EventRef {
        let now = self.now_ms;
        let scheme = self.knobs.id_scheme;
        // A 2026-07-28 request or listen stream's events go out without an `id:` (it
        // cannot be resumed).
        let listen = self.modern.is_listen(stream);
        let wire_id = !listen && !self.modern.is_request_stream(stream);
        let event = self.ledger.next_event();
        let sessions = &mut self.sessions;
        // One lookup of the stream's log serves the numbering and the logging.
        let produced = self.log.produce(
            stream,
            self.knobs.event_log_capacity,
            self.knobs.event_log_ttl.map(|t| t.ms()),
            |log| {
                let session = log.session;
                // One lookup of the session serves the generation and the counter.
                let mut live = sessions.get_mut(session);
                // Events belong to the session's current incarnation, whichever stream
                // carries them.
                let generation = live.as_ref().map_or(log.generation, |s| s.generation);
                let id = match (scheme, live.as_mut()) {
                    (IdScheme::Constant, _) => 1,
                    (IdScheme::SessionMonotonic | IdScheme::PerGeneration, Some(s)) => {
                        s.counter += 1;
                        s.counter
                    }
                    _ => {
                        log.local_counter += 1;
                        log.local_counter
                    }
                };
                log.produced += 1;
                log.first_id.get_or_insert(id);
                log.last_id = Some(id);
                let logged = LoggedEvent {
                    id,
                    at_ms: now,
                    event,
                };
                let seen = (id, session, generation, log.produced, log.attached);
                (logged, (seen, log.home, log.kind))
            },
        );
        let ((id, session, generation, ordinal, mut attached), home, kind) =
            produced.expect("emit on a stream the log holds");
        self.ledger.events.push(ProducedEvent {
            id,
            stream,
            ordinal,
            session,
            generation,
            at_ms: now,
            payload,
        });
        // In a fleet the listener may sit on a replica the publication never reaches (a
        // priming event is written by the replica answering the GET itself).
        if self.multi
            && payload != Payload::Priming
            && let Some(conn) = attached
            && !self.reaches_listener(home, kind, session, conn)
        {
            attached = None;
        }
        if let Some(conn) = attached {
            let retry_ms = match payload {
                Payload::Priming => self.knobs.retry.map(|r| r.ms()),
                _ => None,
            };
            out.push(Output::Event {
                conn,
                event,
                id: wire_id.then_some(id),
                retry_ms,
            });
            self.ledger.sends.push(SendEntry {
                event,
                conn,
                at_ms: now,
                replay: false,
            });
            if listen {
                self.note_listen_bytes(stream);
            }
        }
        event
    }

    /// SEP-1699: an id-bearing empty event first, so even a stream that dies before its
    /// first real event leaves the client a cursor (2025-11-25 sessions, when configured).
    pub(super) fn prime(
        &mut self,
        stream: StreamId,
        session: SessionKey,
        out: &mut Vec<Output>,
    ) -> Option<EventRef> {
        let modern = self
            .sessions
            .get(session)
            .is_some_and(|s| s.protocol_version >= LATEST_PROTOCOL_VERSION);
        let standalone = self
            .log
            .get(stream)
            .is_some_and(|l| l.kind == StreamKind::Standalone);
        (self.knobs.priming_events && modern && (self.knobs.prime_standalone || !standalone))
            .then(|| self.emit(stream, Payload::Priming, out))
    }

    /// Marks a request stream complete; ends it if someone is listening.
    pub(super) fn complete_stream(&mut self, stream: StreamId, out: &mut Vec<Output>) {
        let Some(log) = self.log.get_mut(stream) else {
            return;
        };
        log.complete = true;
        if log.attached_by_resume && self.knobs.resumed_stream_end == ResumedStreamEnd::Open {
            // The stream stays open, carrying nothing more, until the client leaves.
            return;
        }
        if let Some(conn) = log.attached.take() {
            log.detached_ms = Some(self.now_ms);
            self.conns.remove(&conn);
            self.conn_replica.remove(&conn);
            out.push(Output::End {
                conn,
                how: EndMode::Close,
            });
        }
    }

    /// The connections reading any stream of the session.
    pub(super) fn conns_of_session(&self, key: SessionKey) -> Vec<ConnId> {
        self.conns
            .iter()
            .filter(|(_, s)| self.log.get(**s).is_some_and(|l| l.session == key))
            .map(|(&c, _)| c)
            .collect()
    }
}
