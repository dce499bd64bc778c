//! The live [`Link`]: the simulator's loop talks to a real server over real sockets.
//!
//! Order is what makes it exact. Outputs on different connections arrive over different
//! sockets in no particular order, so the link does not hand the client whatever arrives
//! first: it takes the server engine's output sequence from the in-process journal and,
//! for each output, waits until its bytes have arrived on its socket and checks that they
//! say what the engine emitted (status, session header, JSON body; SSE id, retry, data;
//! a clean end or an abort). Time moves only when the loop says so. A mismatch or a
//! stall breaks the link with a sentence saying which output, and the run stops. A request
//! the server hangs on purpose (a `Hang` knob) is no stall: the link sees the server
//! record the hang and keeps the exchange waiting, headless, until the client closes it.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;

use faultline_model::{ConnId, EndMode, HttpRequest, HttpResponse, Output, ResponseBody};
use faultline_scenario::{Emitted, Engine};
use faultline_server::{App, Config, Running};
use faultline_sim::Link;
use serde_json::Value;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::LiveError;
use crate::http_exchange::{self, Body, Exchange, Next, STALL_LIMIT};

/// How long a request waits for its head before it asks whether the server hung it (and
/// again after each such wait).
const HANG_POLL: std::time::Duration = std::time::Duration::from_millis(2);

/// How a request went out: answered (or failed), or hung by the server.
enum Sent {
    Answered(Result<Exchange, String>),
    Hung(JoinHandle<Result<Exchange, String>>),
}

pub struct LiveLink {
    runtime: Runtime,
    running: Option<Running>,
    app: App,
    addr: SocketAddr,
    exchanges: BTreeMap<ConnId, Exchange>,
    /// Requests whose answer the engine has not yet handed on (see `receive`).
    unanswered: BTreeSet<ConnId>,
    /// Exchanges the client closed before the engine's answer to them came through: the
    /// simulator still hands that answer to the client (which ignores it), so it is still
    /// checked against what the server sent before the close.
    closed_unanswered: BTreeMap<ConnId, Exchange>,
    /// Requests the server will never answer (a `Hang` knob): the exchange, still waiting
    /// for its response head, until the client closes it.
    hung: BTreeMap<ConnId, JoinHandle<Result<Exchange, String>>>,
    error: Option<String>,
}

impl LiveLink {
    /// Starts the server described by `config` on `127.0.0.1:0` (`config` should freeze the
    /// clock and keep the journal, as [`crate::run_live`] does).
    pub fn start(config: Config) -> Result<LiveLink, LiveError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| LiveError(format!("cannot start a tokio runtime: {e}")))?;
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let running = runtime
            .block_on(faultline_server::start(config, loopback))
            .map_err(|e| LiveError(format!("cannot start the server on {loopback}: {e}")))?;
        Ok(LiveLink {
            app: running.app.clone(),
            addr: running.addr,
            running: Some(running),
            runtime,
            exchanges: BTreeMap::new(),
            unanswered: BTreeSet::new(),
            closed_unanswered: BTreeMap::new(),
            hung: BTreeMap::new(),
            error: None,
        })
    }

    /// The server's address (for tests that poke it from outside).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Shuts the server down; the first error the link met, if any.
    pub fn finish(mut self) -> Result<(), LiveError> {
        for (_, exchange) in std::mem::take(&mut self.exchanges) {
            exchange.connection.abort();
        }
        for (_, waiting) in std::mem::take(&mut self.hung) {
            waiting.abort();
        }
        if let Some(running) = self.running.take() {
            let _ = self.runtime.block_on(running.shutdown());
        }
        match self.error.take() {
            Some(e) => Err(LiveError(e)),
            None => Ok(()),
        }
    }

    /// Whether the server would give the client's next connection the client's number
    /// (it numbers connections as they arrive); a difference breaks the link.
    fn numbered_alike(&mut self, conn: ConnId) -> bool {
        let expected = self.app.next_conn();
        expected == conn.0
            || self.fail(format!(
                "the client's connection {} would be the server's connection {expected}: the runs diverged",
                conn.0
            ))
    }

    fn fail(&mut self, message: String) -> bool {
        if self.error.is_none() {
            self.error = Some(message);
        }
        false
    }

    fn journal(&self, out: &mut Vec<Emitted>) {
        out.extend(self.app.take_journal());
    }

    fn check_response(&mut self, conn: ConnId, expected: &HttpResponse) -> bool {
        self.unanswered.remove(&conn);
        let closed = self.closed_unanswered.remove(&conn);
        let Some(got) = self.exchanges.get(&conn).or(closed.as_ref()) else {
            return self.fail(format!(
                "conn {}: a response for a request never sent",
                conn.0
            ));
        };
        let mut problems = Vec::new();
        if got.status != expected.status {
            problems.push(format!(
                "status {} (expected {})",
                got.status, expected.status
            ));
        }
        if got.session_id != expected.session_id {
            problems.push(format!(
                "Mcp-Session-Id {:?} (expected {:?})",
                got.session_id, expected.session_id
            ));
        }
        if got.set_cookie != expected.set_cookie {
            problems.push(format!(
                "Set-Cookie {:?} (expected {:?})",
                got.set_cookie, expected.set_cookie
            ));
        }
        match (&expected.body, &got.body) {
            (
                want @ (ResponseBody::Json(_)
                | ResponseBody::Answer(_)
                | ResponseBody::Refusal { .. }),
                Body::Whole(bytes),
            ) => {
                let want = want.json().expect("JSON");
                match serde_json::from_slice::<Value>(bytes) {
                    Ok(v) if v == *want => {}
                    _ => problems.push(format!(
                        "body {} (expected {want})",
                        String::from_utf8_lossy(bytes)
                    )),
                }
            }
            (ResponseBody::Empty, Body::Whole(bytes)) if bytes.is_empty() => {}
            (ResponseBody::Text(want), Body::Whole(bytes)) if want.as_bytes() == &bytes[..] => {}
            (ResponseBody::Sse(_), Body::Sse(_)) => {}
            (ResponseBody::Sse(_), Body::Whole(bytes)) if expected.status == 200 => {
                problems.push(format!(
                    "a {:?} body {} (expected an SSE stream)",
                    got.content_type,
                    String::from_utf8_lossy(bytes)
                ))
            }
            (want, _) => {
                problems.push(format!("a {:?} body (expected {want:?})", got.content_type))
            }
        }
        if !matches!(got.body, Body::Sse(_))
            && let Some(done) = self.exchanges.remove(&conn)
        {
            // A whole response: the exchange is over.
            done.connection.abort();
        }
        if problems.is_empty() {
            true
        } else {
            self.fail(format!(
                "conn {}: the response over HTTP differs from the engine's: {}",
                conn.0,
                problems.join("; ")
            ))
        }
    }

    fn next_on(&mut self, conn: ConnId) -> Option<Next> {
        let exchange = self.exchanges.get_mut(&conn)?;
        let next = self
            .runtime
            .block_on(async { tokio::time::timeout(STALL_LIMIT, exchange.next()).await });
        Some(next.unwrap_or_else(|_| {
            Next::Aborted(format!("nothing arrived within {}s", STALL_LIMIT.as_secs()))
        }))
    }

    fn check_event(
        &mut self,
        conn: ConnId,
        event: faultline_model::EventRef,
        id: Option<u64>,
        retry_ms: Option<u64>,
    ) -> bool {
        if !self.is_streaming(conn) {
            // The client closed it, or the server had ended it: nothing goes on the wire,
            // and the client ignores it (as in the simulator).
            return true;
        }
        let (expected, wire_id) = self.app.with_engine(|e| {
            let server = e.server();
            let wire_id = id.and_then(|i| server.wire_event_id(event, i));
            (server.event_message(event), wire_id)
        });
        match self.next_on(conn) {
            Some(Next::Event(sse)) => {
                // The id as the server spells it on the wire (the `id_format` knob).
                let id_ok = sse.id == wire_id;
                let retry_ok = sse.retry == retry_ms;
                let data_ok = match (&expected, sse.data.as_deref()) {
                    (None, Some("") | None) => true,
                    (Some(want), Some(text)) => {
                        serde_json::from_str::<Value>(text).is_ok_and(|v| &v == want)
                    }
                    _ => false,
                };
                if id_ok && retry_ok && data_ok {
                    true
                } else {
                    self.fail(format!(
                        "conn {}: SSE event id {:?} retry {:?} data {:?} differs from the engine's id {id:?} retry {retry_ms:?} data {expected:?}",
                        conn.0, sse.id, sse.retry, sse.data
                    ))
                }
            }
            Some(Next::Closed) => self.fail(format!(
                "conn {}: the stream ended where event {id:?} was due",
                conn.0
            )),
            Some(Next::Aborted(why)) => self.fail(format!(
                "conn {}: the stream broke ({why}) where event {id:?} was due",
                conn.0
            )),
            None => true,
        }
    }

    fn check_end(&mut self, conn: ConnId, how: EndMode) -> bool {
        if !self.is_streaming(conn) {
            return true;
        }
        let next = self.next_on(conn);
        let ok = matches!(
            (how, &next),
            (EndMode::Close, Some(Next::Closed)) | (EndMode::Reset, Some(Next::Aborted(_)))
        );
        if let Some(exchange) = self.exchanges.remove(&conn) {
            exchange.connection.abort();
        }
        if ok {
            return true;
        }
        let got = match next {
            Some(Next::Event(e)) => format!("event id {:?}", e.id),
            Some(Next::Closed) => "a clean end".into(),
            Some(Next::Aborted(why)) => format!("an abort ({why})"),
            None => "nothing".into(),
        };
        self.fail(format!(
            "conn {}: expected the stream to end ({how:?}), got {got}",
            conn.0
        ))
    }

    fn is_streaming(&self, conn: ConnId) -> bool {
        self.exchanges
            .get(&conn)
            .is_some_and(|e| matches!(e.body, Body::Sse(_)))
    }
}

impl Link for LiveLink {
    fn with_engine<R>(&self, f: impl FnOnce(&Engine) -> R) -> R {
        self.app.with_engine(f)
    }

    fn next_due(&self) -> Option<u64> {
        self.app.next_due()
    }

    fn advance_to(&mut self, now: u64, out: &mut Vec<Emitted>) {
        self.app.advance_to(now);
        self.journal(out);
    }

    fn handle(&mut self, conn: ConnId, request: HttpRequest, now: u64, out: &mut Vec<Emitted>) {
        self.advance_to(now, out);
        if self.error.is_some() || !self.numbered_alike(conn) {
            return;
        }
        let addr = self.addr;
        let app = self.app.clone();
        // The head, or the server's word that none will come (a hang): whichever is first.
        let sent = self.runtime.block_on(async {
            let mut send = tokio::spawn(http_exchange::send(addr, request));
            tokio::time::timeout(STALL_LIMIT, async {
                loop {
                    match tokio::time::timeout(HANG_POLL, &mut send).await {
                        Ok(Ok(answered)) => return Sent::Answered(answered),
                        Ok(Err(e)) => {
                            return Sent::Answered(Err(format!("the request task failed: {e}")));
                        }
                        Err(_) if app.with_engine(|e| e.server().is_hung(conn)) => {
                            return Sent::Hung(send);
                        }
                        Err(_) => {}
                    }
                }
            })
            .await
        });
        match sent {
            Ok(Sent::Hung(waiting)) => {
                self.hung.insert(conn, waiting);
            }
            Ok(Sent::Answered(Ok(exchange))) => {
                self.exchanges.insert(conn, exchange);
                self.unanswered.insert(conn);
            }
            Ok(Sent::Answered(Err(e))) => {
                self.fail(format!("conn {}: {e}", conn.0));
            }
            Err(_) => {
                self.fail(format!(
                    "conn {}: no response head within {}s",
                    conn.0,
                    STALL_LIMIT.as_secs()
                ));
            }
        }
        self.journal(out);
    }

    fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>) {
        self.advance_to(now, out);
        if let Some(waiting) = self.hung.remove(&conn) {
            // The client gives up on a request that was never answered: its socket closes.
            waiting.abort();
            let app = self.app.clone();
            let closed = self
                .runtime
                .block_on(async { tokio::time::timeout(STALL_LIMIT, app.wait_closed(conn)).await });
            if closed.is_err() {
                self.fail(format!(
                    "conn {}: the server did not notice the client give up its unanswered request within {}s",
                    conn.0,
                    STALL_LIMIT.as_secs()
                ));
            }
        }
        if let Some(exchange) = self.exchanges.remove(&conn) {
            // Closing the socket is all a client can do; the server notices on its own.
            exchange.connection.abort();
            if self.unanswered.remove(&conn) {
                self.closed_unanswered.insert(conn, exchange);
            } else {
                drop(exchange);
            }
            let app = self.app.clone();
            let closed = self
                .runtime
                .block_on(async { tokio::time::timeout(STALL_LIMIT, app.wait_closed(conn)).await });
            if closed.is_err() {
                self.fail(format!(
                    "conn {}: the server did not notice the client close it within {}s",
                    conn.0,
                    STALL_LIMIT.as_secs()
                ));
            }
        }
        self.journal(out);
    }

    fn forgo(&mut self, conn: ConnId) {
        if self.error.is_none() && self.numbered_alike(conn) {
            self.app.skip_conn();
        }
    }

    fn receive(&mut self, output: &Output) -> bool {
        if self.error.is_some() {
            return false;
        }
        match output {
            Output::Respond { conn, response } => self.check_response(*conn, response),
            Output::Event {
                conn,
                event,
                id,
                retry_ms,
            } => self.check_event(*conn, *event, *id, *retry_ms),
            Output::End { conn, how } => self.check_end(*conn, *how),
            // The SSE parser skips comment lines, so a keep-alive cannot be read here: it
            // is skipped on the way to whatever follows it on the connection.
            // (`crates/server/tests/keepalive_live.rs` reads its bytes off the socket.)
            Output::Comment { .. } => true,
        }
    }

    fn broken(&self) -> bool {
        self.error.is_some()
    }
}
