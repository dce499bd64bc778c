//! GET: the session's standalone SSE stream.
//!
//! A GET without `Last-Event-ID` opens the standalone stream (one per session, 409 for a
//! second); with a cursor it is a resumption and goes to [`super::resumption`]. Whether GET
//! asks the session store at all is a knob, because real servers differ on it, and so is
//! what a GET that passed every check gets instead of the stream (`standalone_get`: a
//! 400, a 404, or no answer at all), and whether a new standalone GET soon after the
//! last one dropped is refused as a second stream (`stale_standalone`).

use crate::http::{HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::knobs::{SecondStandalone, StaleStandaloneAnswer, StandaloneGet};
use crate::ledger::{HangCause, StreamKind};

use super::Server;
use super::admission::{Rejection, check_get_media, check_protocol_version, session_header};

impl Server {
    /// GET: checks, then the standalone stream or a resumption. A refused GET that carried
    /// a cursor is still recorded as a resumption attempt (rejected before its cursor was
    /// looked at).
    pub(super) fn handle_get(&mut self, conn: ConnId, request: HttpRequest, out: &mut Vec<Output>) {
        let checked = check_get_media(&request).and_then(|()| check_protocol_version(&request));
        if self.admit(conn, &request, None, checked, out).is_none() {
            return;
        }
        let live = if self.knobs.get_validates_session {
            match self.live_session(&request) {
                Ok(key) => {
                    self.touch(key);
                    self.sessions.mark_used(key);
                    Some(key)
                }
                Err(why) => {
                    let status = self.reject(conn, &request, None, why, out);
                    self.record_rejected_resume(conn, &request, status);
                    return;
                }
            }
        } else {
            // The store is not asked: a dead session's streams can still be resumed.
            let Some(wire) = self.admit(conn, &request, None, session_header(&request), out) else {
                return;
            };
            let found = self.sessions.lookup(wire);
            // In a fleet, a live session held by another replica is unknown here as well.
            if let Some(Err(why)) = found.map(|key| self.visible(key)) {
                let status = self.reject(conn, &request, None, why, out);
                self.record_rejected_resume(conn, &request, status);
                return;
            }
            found
        };
        match request.last_event_id.clone() {
            Some(cursor) => self.resume(conn, &request, live, cursor, out),
            None => {
                let Some(key) = live else {
                    self.reject(conn, &request, None, Rejection::SessionExpired, out);
                    return;
                };
                match self.knobs.standalone_get {
                    StandaloneGet::ServeStream => {}
                    StandaloneGet::BadRequest400 => {
                        self.reject(conn, &request, None, Rejection::StandaloneBadRequest, out);
                        return;
                    }
                    StandaloneGet::NotFound404 => {
                        self.reject(conn, &request, None, Rejection::StandaloneNoRoute, out);
                        return;
                    }
                    StandaloneGet::Hang => {
                        self.hang(conn, &request, HangCause::StandaloneGet);
                        return;
                    }
                }
                let current = self.sessions.get(key).and_then(|s| s.standalone);
                if let Some(why) = current.and_then(|s| self.stale_refusal(s)) {
                    self.reject(conn, &request, None, why, out);
                    return;
                }
                if current.is_some_and(|s| self.log.get(s).is_some_and(|l| l.attached.is_some())) {
                    match self.knobs.second_standalone {
                        SecondStandalone::Conflict409 => {
                            self.reject(conn, &request, None, Rejection::StandaloneConflict, out);
                        }
                        SecondStandalone::Shadow => self.open_shadow(conn, &request, key, out),
                    }
                    return;
                }
                self.open_standalone(conn, &request, key, out);
            }
        }
    }

    /// The refusal a new standalone GET gets because the session's standalone stream
    /// `current` dropped less than `stale_standalone`'s `for` ago (the server has not
    /// noticed yet), if it does.
    fn stale_refusal(&self, current: StreamId) -> Option<Rejection> {
        let stale = self.knobs.stale_standalone?;
        let log = self.log.get(current)?;
        let dropped = log.detached_ms.filter(|_| log.attached.is_none())?;
        (self.now_ms < dropped.saturating_add(stale.lasting.ms())).then_some(match stale.answer {
            StaleStandaloneAnswer::Conflict409 => Rejection::StandaloneConflict,
            StaleStandaloneAnswer::BadRequest400 => Rejection::StandaloneStale400,
        })
    }

    /// Opens a new standalone stream on `conn`: the one server notifications go to.
    /// A second standalone GET under `second_standalone: Shadow`: a stream of its own,
    /// primed, that nothing is ever sent on (the first stream keeps the notifications),
    /// open until the client leaves.
    fn open_shadow(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        key: SessionKey,
        out: &mut Vec<Output>,
    ) {
        let stream = self.open_stream(key, StreamKind::Standalone);
        self.respond(conn, request, None, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        self.prime(stream, key, out);
    }

    pub(super) fn open_standalone(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        key: SessionKey,
        out: &mut Vec<Output>,
    ) -> StreamId {
        let stream = self.open_stream(key, StreamKind::Standalone);
        if let Some(s) = self.sessions.get_mut(key) {
            s.standalone = Some(stream);
            s.listening = true;
        }
        self.respond(conn, request, None, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        self.prime(stream, key, out);
        stream
    }
}
