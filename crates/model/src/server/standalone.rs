//! GET: the session's standalone SSE stream.
//!
//! A GET without `Last-Event-ID` opens the standalone stream (one per session, 409 for a
//! second); with a cursor it is a resumption and goes to [`super::resumption`]. Whether GET
//! asks the session store at all is a knob, because real servers differ on it.

use crate::http::{HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::jsonrpc;
use crate::ledger::StreamKind;

use super::Server;

impl Server {
    pub(super) fn handle_get(&mut self, conn: ConnId, request: HttpRequest, out: &mut Vec<Output>) {
        let accept = request.accept.as_deref().unwrap_or("");
        if !(accept.contains("text/event-stream") || accept.contains("*/*")) {
            self.reject(
                conn,
                &request,
                None,
                406,
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: Accept must list text/event-stream",
                out,
            );
            return;
        }
        if !Self::protocol_ok(&request) {
            self.reject(
                conn,
                &request,
                None,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
                out,
            );
            return;
        }
        let live = if self.knobs.get_validates_session {
            match self.require_session(conn, &request, None, out) {
                Some(key) => {
                    self.touch(key);
                    Some(key)
                }
                None => {
                    self.record_rejected_resume(conn, &request);
                    return;
                }
            }
        } else {
            let Some(wire) = request.session_id.as_deref() else {
                self.reject(
                    conn,
                    &request,
                    None,
                    400,
                    jsonrpc::INVALID_REQUEST,
                    "Bad Request: Mcp-Session-Id header is required",
                    out,
                );
                return;
            };
            self.sessions.lookup(wire)
        };
        match request.last_event_id.clone() {
            Some(cursor) => self.resume(conn, &request, live, cursor, out),
            None => {
                let Some(key) = live else {
                    let status = self.knobs.dead_session_answer.status();
                    self.reject(
                        conn,
                        &request,
                        None,
                        status,
                        jsonrpc::SESSION_NOT_FOUND,
                        "session expired",
                        out,
                    );
                    return;
                };
                let current = self.sessions.get(key).and_then(|s| s.standalone);
                if current.is_some_and(|s| self.log.get(s).is_some_and(|l| l.attached.is_some())) {
                    self.reject(
                        conn,
                        &request,
                        None,
                        409,
                        jsonrpc::INVALID_REQUEST,
                        "Conflict: only one standalone SSE stream is allowed per session",
                        out,
                    );
                    return;
                }
                self.open_standalone(conn, &request, key, out);
            }
        }
    }

    fn open_standalone(
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
        stream
    }
}
