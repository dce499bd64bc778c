//! Resumption: a GET with `Last-Event-ID`, resolved against the event log.
//!
//! The cursor is looked up in the log, never in the session store; the log and the store
//! expire on their own clocks. A cursor the log cannot honour gets the answer the
//! `unknown_cursor` knob names, one match arm per answer, and the ledger records what the
//! server actually did, which is what the oracle and the explanations read.

use crate::event_log::CursorMatch;
use crate::http::{EndMode, HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::knobs::{ResumedStreamEnd, UnknownCursor};
use crate::ledger::{CursorResolution, HangCause, ResumeEntry, SendEntry, StreamKind};
use crate::limits::kept_text;

use super::Server;
use super::admission::Rejection;

/// One GET with `Last-Event-ID`, until it is answered and recorded.
struct Attempt<'r> {
    conn: ConnId,
    request: &'r HttpRequest,
    cursor: String,
    /// The live session the GET named. `None` when it is dead, which a GET that does not
    /// ask the session store can still reach this far with.
    live: Option<SessionKey>,
}

impl Server {
    /// GET with `Last-Event-ID`: finds the stream the cursor belongs to among the
    /// session's (in the numbering of its current generation) and replays after it, or
    /// gives the `unknown_cursor` answer.
    pub(super) fn resume(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        live: Option<SessionKey>,
        cursor: String,
        out: &mut Vec<Output>,
    ) {
        let wire = request.session_id.clone().unwrap_or_default();
        let key = live.or_else(|| self.ever_minted.get(&wire).copied());
        let generation = match (live, key) {
            (Some(k), _) => self.sessions.get(k).map_or(1, |s| s.generation),
            (None, Some(k)) => self.ledger.session(k).generations.len() as u32,
            (None, None) => 0,
        };
        let found = match (key, crate::wire_id::decode(self.knobs.id_format, &cursor)) {
            (Some(k), Some(cursor)) => {
                let (multi, scope, serving) =
                    (self.multi, self.fleet.event_store, self.serving.replica);
                let visible = |l: &_| super::event_store::sees_stream(multi, scope, serving, l);
                match self.log.resolve(k, generation, cursor, visible) {
                    CursorMatch::Unknown if self.knobs.cursors_across_sessions => {
                        self.log.resolve_elsewhere(k, cursor, visible)
                    }
                    found => found,
                }
            }
            _ => CursorMatch::Unknown,
        };
        let found = self.forget_answered(found);
        let attempt = Attempt {
            conn,
            request,
            cursor,
            live,
        };
        match found {
            CursorMatch::Exact { stream, index } => {
                // The cursor's own event again, when the server replays from it.
                let index = if self.knobs.replay_from_cursor {
                    index.saturating_sub(1)
                } else {
                    index
                };
                let keyed = self.stream_keyed_replay(stream, index);
                let log = self.log.get(stream).expect("resolved stream");
                let replayed = keyed.as_ref().map_or(log.retained.len() - index, Vec::len) as u32;
                let resolution = CursorResolution::Honoured {
                    stream,
                    generation,
                    replayed,
                };
                self.record_resume(&attempt, resolution, Some(stream));
                match keyed {
                    Some(events) => self.replay_keyed(conn, request, stream, events, out),
                    None => self.replay_onto(conn, request, stream, index, out),
                }
            }
            CursorMatch::Stale { stream } => self.unresumable(&attempt, Some(stream), out),
            CursorMatch::Unknown => self.unresumable(&attempt, None, out),
        }
    }

    /// Under `keep_answered_streams: false`, a cursor into a request stream whose
    /// response was sent matches nothing: the server forgot that stream when it answered.
    fn forget_answered(&self, found: CursorMatch) -> CursorMatch {
        let stream = match found {
            CursorMatch::Exact { stream, .. } | CursorMatch::Stale { stream } => stream,
            CursorMatch::Unknown => return found,
        };
        let answered = self
            .log
            .get(stream)
            .is_some_and(|l| l.kind == StreamKind::Request && l.complete);
        if answered && !self.knobs.keep_answered_streams {
            CursorMatch::Unknown
        } else {
            found
        }
    }

    /// The answer to a cursor the log cannot honour, as the `unknown_cursor` knob says
    /// (`evicted_cursor`, when set, for a cursor whose stream is still there).
    /// `evicted` is the stream whose numbering covers the cursor when the log still holds
    /// that stream (its events after the cursor are gone); `None` when nothing matched.
    fn unresumable(&mut self, attempt: &Attempt, evicted: Option<StreamId>, out: &mut Vec<Output>) {
        // The record of an answer that replays nothing.
        let missed = |answer| match evicted {
            Some(stream) => CursorResolution::Stale {
                stream,
                answer,
                replayed: 0,
            },
            None => CursorResolution::Unknown { answer },
        };
        let answer = match evicted {
            Some(_) => self
                .knobs
                .evicted_cursor
                .unwrap_or(self.knobs.unknown_cursor),
            None => self.knobs.unknown_cursor,
        };
        match answer {
            UnknownCursor::ReplayRemaining => match evicted {
                Some(stream) => {
                    // Whatever the stream still retains, gap or not. The session store is
                    // not asked: the stream is there to replay.
                    let replayed = self.log.get(stream).map_or(0, |l| l.retained.len() as u32);
                    let resolution = CursorResolution::Stale {
                        stream,
                        answer: UnknownCursor::ReplayRemaining,
                        replayed,
                    };
                    self.record_resume(attempt, resolution, Some(stream));
                    self.replay_onto(attempt.conn, attempt.request, stream, 0, out);
                }
                // No stream covers the cursor, so nothing remains to replay: the server opens
                // a fresh stream, and the ledger says so rather than naming the knob.
                None => {
                    let resolution = CursorResolution::Unknown {
                        answer: UnknownCursor::FreshStream,
                    };
                    self.fresh_stream(attempt, resolution, out)
                }
            },
            UnknownCursor::FreshStream => {
                self.fresh_stream(attempt, missed(UnknownCursor::FreshStream), out)
            }
            UnknownCursor::Empty200 => {
                self.empty_stream(attempt, missed(UnknownCursor::Empty200), out)
            }
            UnknownCursor::BadRequest => {
                self.record_resume(attempt, missed(UnknownCursor::BadRequest), None);
                let (conn, request) = (attempt.conn, attempt.request);
                self.reject(conn, request, None, Rejection::CursorBadRequest, out);
            }
            UnknownCursor::NotFound => {
                self.record_resume(attempt, missed(UnknownCursor::NotFound), None);
                let (conn, request) = (attempt.conn, attempt.request);
                self.reject(conn, request, None, Rejection::CursorNotFound, out);
            }
            UnknownCursor::ServerError => {
                self.record_resume(attempt, missed(UnknownCursor::ServerError), None);
                let (conn, request) = (attempt.conn, attempt.request);
                self.reject(conn, request, None, Rejection::CursorServerError, out);
            }
            // Nothing goes out: the GET stays open, unanswered, until the client leaves.
            UnknownCursor::Hang => {
                self.record_resume(attempt, missed(UnknownCursor::Hang), None);
                self.hang(attempt.conn, attempt.request, HangCause::UnknownCursor);
            }
        }
    }

    /// 200 and a new standalone stream, numbered by the id scheme as if the cursor had
    /// never been sent (Behavior A's trap: nothing tells the client events were lost).
    fn fresh_stream(
        &mut self,
        attempt: &Attempt,
        resolution: CursorResolution,
        out: &mut Vec<Output>,
    ) {
        let Some(key) = attempt.live else {
            return self.no_session_to_open(attempt, out);
        };
        let stream = self.open_standalone(attempt.conn, attempt.request, key, out);
        self.record_resume(attempt, resolution, Some(stream));
    }

    /// 200 with a stream that ends at once, carrying nothing.
    fn empty_stream(
        &mut self,
        attempt: &Attempt,
        resolution: CursorResolution,
        out: &mut Vec<Output>,
    ) {
        let Some(key) = attempt.live else {
            return self.no_session_to_open(attempt, out);
        };
        let conn = attempt.conn;
        let stream = self.open_stream(key, StreamKind::Standalone);
        self.record_resume(attempt, resolution, None);
        self.respond(conn, attempt.request, None, HttpResponse::sse(stream), out);
        out.push(Output::End {
            conn,
            how: EndMode::Close,
        });
        // The throwaway stream never carries anything; forget it.
        self.log.remove(stream);
    }

    /// An answer that opens a stream, for a session that is gone: the dead-session answer.
    fn no_session_to_open(&mut self, attempt: &Attempt, out: &mut Vec<Output>) {
        let (conn, request) = (attempt.conn, attempt.request);
        let status = self.reject(conn, request, None, Rejection::SessionExpired, out);
        self.record_resume(attempt, CursorResolution::SessionRejected { status }, None);
    }

    /// Attaches `conn` to `stream` and replays `retained[from..]`.
    fn replay_onto(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        stream: StreamId,
        from: usize,
        out: &mut Vec<Output>,
    ) {
        self.respond(conn, request, None, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        if let Some(log) = self.log.get_mut(stream) {
            log.attached_by_resume = true;
        }
        let log = self.log.get(stream).expect("replayed stream");
        let (session, kind, complete) = (log.session, log.kind, log.complete);
        let now = self.now_ms;
        for logged in log.retained.iter().skip(from) {
            out.push(Output::Event {
                conn,
                event: logged.event,
                id: Some(logged.id),
                retry_ms: None,
            });
            self.ledger.sends.push(SendEntry {
                event: logged.event,
                conn,
                at_ms: now,
                replay: true,
            });
        }
        if kind == StreamKind::Standalone
            && let Some(s) = self.sessions.get_mut(session)
        {
            s.standalone = Some(stream);
        }
        if self.knobs.prime_resumed
            && let Some(primed) = self.prime(stream, session, out)
            && let Some(log) = self.log.get_mut(stream)
        {
            // A resumed stream's priming event is not replayed by a later resumption
            // (the Python SDK's, observed by tests/profiles/run.sh): it goes out, and is
            // kept nowhere a cursor reaches.
            log.retained.retain(|e| e.event != primed);
        }
        if complete && self.knobs.resumed_stream_end == ResumedStreamEnd::AtResponse {
            self.complete_stream(stream, out);
        }
    }

    fn record_resume(
        &mut self,
        attempt: &Attempt,
        resolution: CursorResolution,
        attached_to: Option<StreamId>,
    ) {
        let (session_sent, session_sent_len) =
            match attempt.request.session_id.as_deref().map(kept_text) {
                Some((kept, len)) => (Some(kept), len),
                None => (None, None),
            };
        let (cursor, cursor_len) = kept_text(&attempt.cursor);
        self.ledger.resumptions.push(ResumeEntry {
            conn: attempt.conn,
            at_ms: self.now_ms,
            session_sent,
            cursor,
            resolution,
            attached_to,
            session_sent_len,
            cursor_len,
            session_unchecked: !self.knobs.get_validates_session,
        });
    }

    /// Records a resumption whose GET was refused (with `status`) before the cursor was
    /// looked at.
    pub(super) fn record_rejected_resume(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        status: u16,
    ) {
        if let Some(cursor) = &request.last_event_id {
            let attempt = Attempt {
                conn,
                request,
                cursor: cursor.clone(),
                live: None,
            };
            self.record_resume(&attempt, CursorResolution::SessionRejected { status }, None);
        }
    }
}
