//! Resumption: a GET with `Last-Event-ID`, resolved against the event log.
//!
//! The cursor is looked up in the log, never in the session store; the log and the store
//! expire on their own clocks. A cursor the log cannot honour gets the answer the
//! `unknown_cursor` knob names, and the ledger records what was actually done.

use crate::event_log::CursorMatch;
use crate::http::{EndMode, HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::knobs::UnknownCursor;
use crate::ledger::{CursorResolution, ResumeEntry, SendEntry, StreamKind};

use super::Server;
use super::admission::Rejection;

impl Server {
    pub(super) fn resume(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        live: Option<SessionKey>,
        cursor_text: String,
        out: &mut Vec<Output>,
    ) {
        let wire = request.session_id.clone().unwrap_or_default();
        let key = live.or_else(|| self.ever_minted.get(&wire).copied());
        let generation = match (live, key) {
            (Some(k), _) => self.sessions.get(k).map_or(1, |s| s.generation),
            (None, Some(k)) => self.ledger.session(k).generations.len() as u32,
            (None, None) => 0,
        };
        let found = match (key, cursor_text.trim().parse::<u64>()) {
            (Some(k), Ok(cursor)) => self.log.resolve(k, generation, cursor),
            _ => CursorMatch::Unknown,
        };
        let mut entry = ResumeEntry {
            conn,
            at_ms: self.now_ms,
            session_sent: request.session_id.clone(),
            cursor: cursor_text,
            resolution: CursorResolution::Unknown {
                answer: self.knobs.unknown_cursor,
            },
            attached_to: None,
        };
        match found {
            CursorMatch::Exact { stream, index } => {
                let log = self.log.get(stream).expect("resolved stream");
                let replayed = (log.retained.len() - index) as u32;
                entry.resolution = CursorResolution::Honoured {
                    stream,
                    generation,
                    replayed,
                };
                entry.attached_to = Some(stream);
                self.ledger.resumptions.push(entry);
                self.replay_onto(conn, request, stream, index, out);
            }
            CursorMatch::Stale { stream } => {
                let answer = self.knobs.unknown_cursor;
                if answer == UnknownCursor::ReplayRemaining {
                    let replayed = self.log.get(stream).map_or(0, |l| l.retained.len() as u32);
                    entry.resolution = CursorResolution::Stale {
                        stream,
                        answer,
                        replayed,
                    };
                    entry.attached_to = Some(stream);
                    self.ledger.resumptions.push(entry);
                    self.replay_onto(conn, request, stream, 0, out);
                } else {
                    entry.resolution = CursorResolution::Stale {
                        stream,
                        answer,
                        replayed: 0,
                    };
                    self.unresumable(conn, request, live, entry, out);
                }
            }
            CursorMatch::Unknown => self.unresumable(conn, request, live, entry, out),
        }
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
        self.respond(
            conn,
            request,
            None,
            HttpResponse {
                status: 200,
                session_id: None,
                allow: None,
                body: ResponseBody::Sse(stream),
            },
            out,
        );
        self.attach(conn, stream, out);
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
        if complete {
            self.complete_stream(stream, out);
        }
    }

    /// The answer to a cursor the log cannot honour, as the `unknown_cursor` knob says.
    fn unresumable(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        live: Option<SessionKey>,
        mut entry: ResumeEntry,
        out: &mut Vec<Output>,
    ) {
        let answer = self.knobs.unknown_cursor;
        match answer {
            UnknownCursor::FreshStream
            | UnknownCursor::ReplayRemaining
            | UnknownCursor::Empty200 => {
                let Some(key) = live else {
                    // Nothing to open a stream for: the session is gone.
                    let status = self.knobs.dead_session_answer.status();
                    entry.resolution = CursorResolution::SessionRejected { status };
                    self.ledger.resumptions.push(entry);
                    self.reject(conn, request, None, Rejection::SessionExpired, out);
                    return;
                };
                if answer == UnknownCursor::Empty200 {
                    let stream = self.open_stream(key, StreamKind::Standalone);
                    self.ledger.resumptions.push(entry);
                    self.respond(
                        conn,
                        request,
                        None,
                        HttpResponse {
                            status: 200,
                            session_id: None,
                            allow: None,
                            body: ResponseBody::Sse(stream),
                        },
                        out,
                    );
                    out.push(Output::End {
                        conn,
                        how: EndMode::Close,
                    });
                    // The throwaway stream never carries anything; forget it.
                    self.log.streams.remove(&stream);
                    return;
                }
                if let Some(old) = self.sessions.get(key).and_then(|s| s.standalone) {
                    // A detached standalone stream is superseded by the fresh one.
                    if self.log.get(old).is_some_and(|l| l.attached.is_none())
                        && let Some(s) = self.sessions.get_mut(key)
                    {
                        s.standalone = None;
                    }
                }
                let stream = self.open_stream(key, StreamKind::Standalone);
                entry.attached_to = Some(stream);
                self.ledger.resumptions.push(entry);
                if let Some(s) = self.sessions.get_mut(key) {
                    s.standalone = Some(stream);
                    s.listening = true;
                }
                self.respond(
                    conn,
                    request,
                    None,
                    HttpResponse {
                        status: 200,
                        session_id: None,
                        allow: None,
                        body: ResponseBody::Sse(stream),
                    },
                    out,
                );
                self.attach(conn, stream, out);
                self.prime(stream, key, out);
            }
            UnknownCursor::BadRequest => {
                self.ledger.resumptions.push(entry);
                self.reject(conn, request, None, Rejection::CursorBadRequest, out);
            }
            UnknownCursor::NotFound => {
                self.ledger.resumptions.push(entry);
                self.reject(conn, request, None, Rejection::CursorNotFound, out);
            }
        }
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
            self.ledger.resumptions.push(ResumeEntry {
                conn,
                at_ms: self.now_ms,
                session_sent: request.session_id.clone(),
                cursor: cursor.clone(),
                resolution: CursorResolution::SessionRejected { status },
                attached_to: None,
            });
        }
    }
}
