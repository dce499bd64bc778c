//! The server state machine: `handle(request, now) -> outputs`, plus the clock-driven
//! work (job steps, TTL expiry) and the operator actions faults need (drop, restart, GC).
//!
//! Nothing here reads a clock, a socket or the OS: time arrives as an argument, randomness
//! from a seeded ChaCha stream, and every effect leaves as an [`Output`] and a ledger entry.
//! The simulator and the live server drive this same type, so a scenario seen in simulation
//! is the one a real client meets over the wire.

use std::collections::{BTreeMap, BTreeSet};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use serde_json::{Value, json};

use crate::event_log::{CursorMatch, EventLog, LoggedEvent, StreamLog};
use crate::http::{
    EndMode, HttpMethod, HttpRequest, HttpResponse, Output, RequestBody, ResponseBody,
};
use crate::ids::{ConnId, EventRef, JobId, SessionKey, StreamId};
use crate::jsonrpc::{self, Incoming};
use crate::knobs::{IdScheme, RestartPersistence, ServerKnobs, UnknownCursor};
use crate::ledger::{
    AnswerEntry, CursorResolution, DeathCause, JobEnd, JobEntry, Ledger, Payload, ProducedEvent,
    ResumeEntry, SendEntry, SessionEntry, StreamEntry, StreamKind,
};
use crate::session_store::{Session, SessionStore};
use crate::tools::{self, ToolCall};

/// Protocol revisions with sessions and `Last-Event-ID` resumption, oldest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// The version assumed when a request carries no `MCP-Protocol-Version` (spec 2025-06-18).
const DEFAULT_PROTOCOL_VERSION: &str = "2025-03-26";

#[derive(Debug)]
struct Job {
    session: SessionKey,
    stream: StreamId,
    step: u32,
    total: u32,
    interval_ms: u64,
    progress: bool,
    request_id: Value,
}

/// The simulated MCP server.
#[derive(Debug)]
pub struct Server {
    knobs: ServerKnobs,
    rng: ChaCha8Rng,
    now_ms: u64,
    sessions: SessionStore,
    /// Every wire id ever minted, so a GET that does not validate can still find the log
    /// of a dead session (the cascade's precondition).
    ever_minted: BTreeMap<String, SessionKey>,
    log: EventLog,
    /// SSE connections currently attached to a stream.
    conns: BTreeMap<ConnId, StreamId>,
    jobs: BTreeMap<JobId, Job>,
    job_due: BTreeSet<(u64, JobId)>,
    ledger: Ledger,
    /// Keep about this many of each ledger record (None: keep everything, as a simulation
    /// must). See [`Server::trim_ledger`].
    ledger_window: Option<u32>,
}

/// What one request turned into before it is put on the wire.
enum Reply {
    Immediate(Value),
    Job,
}

impl Server {
    /// A server with these knobs; `seed` feeds the session-id generator.
    pub fn new(knobs: ServerKnobs, seed: u64) -> Self {
        Server {
            knobs,
            rng: ChaCha8Rng::seed_from_u64(seed),
            now_ms: 0,
            sessions: SessionStore::default(),
            ever_minted: BTreeMap::new(),
            log: EventLog::default(),
            conns: BTreeMap::new(),
            jobs: BTreeMap::new(),
            job_due: BTreeSet::new(),
            ledger: Ledger::default(),
            ledger_window: None,
        }
    }

    /// Bounds the ledger of a long-lived server to roughly `window` entries per record
    /// (events, sends, answers, resumptions, jobs, streams, messages), on top of what the
    /// event logs still retain. Sessions are not trimmed. Takes effect at
    /// [`Server::trim_ledger`].
    pub fn bound_ledger(&mut self, window: u32) {
        self.ledger_window = Some(window.max(1));
    }

    /// Forgets ledger entries outside the window, never an event an event log still
    /// retains (it may be replayed) nor the job or message such an event refers to. The
    /// driver calls this when every output it was handed has been put on the wire: ids in
    /// outputs stay resolvable until then. Amortized: works only once a record has grown to
    /// twice the window.
    pub fn trim_ledger(&mut self) {
        let Some(w) = self.ledger_window else {
            return;
        };
        let w = w as usize;
        if self.ledger.answers.len() > 2 * w {
            let cut = self.ledger.answers.len() - w;
            self.ledger.answers.drain(..cut);
        }
        if self.ledger.sends.len() > 2 * w {
            let cut = self.ledger.sends.len() - w;
            self.ledger.sends.drain(..cut);
        }
        if self.ledger.resumptions.len() > 2 * w {
            let cut = self.ledger.resumptions.len() - w;
            self.ledger.resumptions.drain(..cut);
        }
        let grown = self.ledger.events.len() > 2 * w
            || self.ledger.jobs.len() > 2 * w
            || self.ledger.streams.len() > 2 * w
            || self.ledger.messages.len() > 2 * w;
        if !grown {
            return;
        }
        // What retained events still need.
        let mut min_event = self.ledger.next_event().0;
        let mut min_job = self.ledger.jobs_end();
        let mut min_message = self.ledger.messages_end();
        for log in self.log.streams.values() {
            for logged in &log.retained {
                min_event = min_event.min(logged.event.0);
                match self.ledger.event(logged.event).payload {
                    Payload::Progress { job, .. } | Payload::ToolResult { job } => {
                        min_job = min_job.min(job.0)
                    }
                    Payload::Response { message } => min_message = min_message.min(message),
                    _ => {}
                }
            }
        }
        if let Some(job) = self.jobs.keys().next() {
            min_job = min_job.min(job.0);
        }
        let min_stream = self
            .log
            .streams
            .keys()
            .next()
            .map_or(self.ledger.streams_end(), |s| s.0);
        let keep_from = |end: u32, needed: u32| needed.min(end.saturating_sub(w as u32));
        let ledger = &mut self.ledger;
        let new_base = keep_from(ledger.next_event().0, min_event).max(ledger.events_base);
        ledger
            .events
            .drain(..(new_base - ledger.events_base) as usize);
        ledger.events_base = new_base;
        let new_base = keep_from(ledger.jobs_end(), min_job).max(ledger.jobs_base);
        ledger.jobs.drain(..(new_base - ledger.jobs_base) as usize);
        ledger.jobs_base = new_base;
        let new_base = keep_from(ledger.streams_end(), min_stream).max(ledger.streams_base);
        ledger
            .streams
            .drain(..(new_base - ledger.streams_base) as usize);
        ledger.streams_base = new_base;
        let new_base = keep_from(ledger.messages_end(), min_message).max(ledger.messages_base);
        ledger
            .messages
            .drain(..(new_base - ledger.messages_base) as usize);
        ledger.messages_base = new_base;
    }

    pub fn knobs(&self) -> &ServerKnobs {
        &self.knobs
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// Live sessions: (wire id, generation).
    pub fn live_sessions(&self) -> Vec<(String, u32)> {
        self.sessions
            .keys()
            .filter_map(|k| {
                self.sessions
                    .get(k)
                    .map(|s| (s.wire_id.clone(), s.generation))
            })
            .collect()
    }

    pub fn live_session_count(&self) -> usize {
        self.sessions.len()
    }

    /// How many events the log retains for each stream of `session` (for timelines).
    pub fn retained_events(&self, session: SessionKey) -> u32 {
        self.log
            .streams
            .values()
            .filter(|l| l.session == session)
            .map(|l| l.retained.len() as u32)
            .sum()
    }

    pub fn session_key(&self, wire_id: &str) -> Option<SessionKey> {
        self.ever_minted.get(wire_id).copied()
    }

    pub fn is_live(&self, wire_id: &str) -> bool {
        self.sessions.lookup(wire_id).is_some()
    }

    /// The stream a connection is attached to.
    pub fn stream_of(&self, conn: ConnId) -> Option<StreamId> {
        self.conns.get(&conn).copied()
    }

    /// Open SSE connections, optionally only those of one session.
    pub fn open_connections(&self, session: Option<&str>) -> Vec<ConnId> {
        let key = session.and_then(|s| self.ever_minted.get(s).copied());
        self.conns
            .iter()
            .filter(|(_, stream)| match key {
                None => session.is_none(),
                Some(k) => self.log.get(**stream).is_some_and(|l| l.session == k),
            })
            .map(|(&c, _)| c)
            .collect()
    }

    /// One line each for the session store and the event log, for timelines:
    /// `("3f2a1c9e gen 1 alive", "stream #1 [4472..=4473] detached")`.
    pub fn state_summary(&self) -> (String, String) {
        let store: Vec<String> = self
            .ledger
            .sessions
            .iter()
            .map(|entry| {
                let short = &entry.wire_id[..8.min(entry.wire_id.len())];
                match (self.sessions.lookup(&entry.wire_id), entry.died) {
                    (Some(k), _) => {
                        let s = self.sessions.get(k).expect("live");
                        let until = self
                            .deadline_of(s)
                            .map(|d| format!(", dies at {}", crate::DurationMs(d)))
                            .unwrap_or_default();
                        format!("{short} gen {} alive{until}", s.generation)
                    }
                    (None, Some((at, cause))) => {
                        format!("{short} dead since {} ({cause:?})", crate::DurationMs(at))
                    }
                    (None, None) => format!("{short} gone"),
                }
            })
            .collect();
        let log: Vec<String> = self
            .log
            .streams
            .iter()
            .map(|(id, l)| {
                let held = match (l.retained.front(), l.retained.back()) {
                    (Some(a), Some(b)) if a.id == b.id => format!("[{}]", a.id),
                    (Some(a), Some(b)) => format!("[{}..={}]", a.id, b.id),
                    _ => "[]".to_string(),
                };
                let state = if l.attached.is_some() {
                    "attached"
                } else {
                    "detached"
                };
                format!("stream #{} gen {} {held} {state}", id.0, l.generation)
            })
            .collect();
        let or_none = |v: Vec<String>| {
            if v.is_empty() {
                "(empty)".to_string()
            } else {
                v.join("; ")
            }
        };
        (or_none(store), or_none(log))
    }

    /// The JSON-RPC message an event carries (`None` for a priming event's empty data).
    pub fn event_message(&self, event: EventRef) -> Option<Value> {
        let produced = self.ledger.event(event);
        match produced.payload {
            Payload::Priming => None,
            Payload::Progress { job, step, total } => {
                let entry = self.ledger.job(job);
                Some(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {
                        "progressToken": entry.progress_token,
                        "progress": step,
                        "total": total,
                        "message": format!("step {step} of {total}"),
                    }
                }))
            }
            Payload::ToolResult { job } => {
                let entry = self.ledger.job(job);
                Some(jsonrpc::result(
                    &entry.request_id,
                    tools::job_result(entry.steps),
                ))
            }
            Payload::Notification { seq } => Some(json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "logger": "faultline", "data": {"seq": seq}},
            })),
            Payload::Response { message } => Some(self.ledger.message(message).clone()),
        }
    }

    // ----------------------------------------------------------------------------------
    // Time
    // ----------------------------------------------------------------------------------

    /// When something expiring at `t` is really removed, given the sweeper's period.
    fn swept_at(&self, t: u64) -> u64 {
        match self.knobs.gc_interval {
            None => t,
            Some(p) => t.div_ceil(p.ms()).saturating_mul(p.ms()),
        }
    }

    /// The next virtual time at which the server has work of its own to do.
    pub fn next_due(&self) -> Option<u64> {
        let job = self.job_due.first().map(|&(t, _)| t);
        let log = self.log.next_expiry().map(|t| self.swept_at(t));
        let session = self.sessions.next_deadline().map(|t| self.swept_at(t));
        [job, log, session].into_iter().flatten().min()
    }

    /// Runs everything due at or before `now_ms`, in time order.
    pub fn advance(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let now_ms = now_ms.max(self.now_ms);
        while let Some(due) = self.next_due() {
            if due > now_ms {
                break;
            }
            self.now_ms = self.now_ms.max(due);
            self.run_due(due, out);
        }
        self.now_ms = now_ms;
    }

    fn run_due(&mut self, due: u64, out: &mut Vec<Output>) {
        // Expiry before job steps at the same instant: a TTL is a deadline, not a grace period.
        if let Some(ttl) = self.knobs.event_log_ttl
            && self.log.next_expiry().map(|t| self.swept_at(t)) == Some(due)
        {
            self.log.expire(due, ttl.ms());
        }
        // Deadlines are ordered by raw time; a sweep at `due` removes those it has reached.
        while let Some(deadline) = self.sessions.next_deadline() {
            if self.swept_at(deadline) > due {
                break;
            }
            let Some((_, key)) = self.sessions.pop_deadline(deadline) else {
                break;
            };
            self.expire_session_if_due(key, due, out);
        }
        while let Some(&(t, job)) = self.job_due.first() {
            if t > due {
                break;
            }
            self.job_due.pop_first();
            self.step_job(job, t, out);
        }
    }

    /// The instant a live session's TTLs run out.
    fn deadline_of(&self, session: &Session) -> Option<u64> {
        let idle = self
            .knobs
            .session_idle_ttl
            .map(|t| session.last_touch_ms + t.ms());
        let absolute = self
            .knobs
            .session_absolute_ttl
            .map(|t| session.created_ms + t.ms());
        match (idle, absolute) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn expire_session_if_due(&mut self, key: SessionKey, now: u64, out: &mut Vec<Output>) {
        let Some(session) = self.sessions.get(key) else {
            return;
        };
        let Some(deadline) = self.deadline_of(session) else {
            return;
        };
        if self.swept_at(deadline) > now {
            // Touched since this deadline was queued; queue the real one.
            self.sessions.push_deadline(key, deadline);
            return;
        }
        let idle = self
            .knobs
            .session_idle_ttl
            .map(|t| session.last_touch_ms + t.ms());
        let cause = if idle == Some(deadline) {
            DeathCause::IdleTtl
        } else {
            DeathCause::AbsoluteTtl
        };
        self.kill_session(key, now, cause, out);
    }

    /// Removes a session from the store. Its event log is left alone: the log has its own
    /// TTL, and that independence is the cascade's precondition.
    fn kill_session(
        &mut self,
        key: SessionKey,
        now: u64,
        cause: DeathCause,
        out: &mut Vec<Output>,
    ) {
        if self.sessions.remove(key).is_none() {
            return;
        }
        self.ledger.sessions[key.0 as usize].died = Some((now, cause));
        let doomed: Vec<JobId> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.session == key)
            .map(|(&id, _)| id)
            .collect();
        for job in doomed {
            self.end_job(job, now, JobEnd::Killed, out);
        }
    }

    fn touch(&mut self, key: SessionKey) {
        let now = self.now_ms;
        let Some(session) = self.sessions.get_mut(key) else {
            return;
        };
        // Only the timestamp moves: the deadline queued earlier is now early, and
        // `expire_session_if_due` re-queues the real one when it pops. Queueing on every
        // request would grow the queue by one entry per request for a whole TTL.
        session.last_touch_ms = now;
    }

    // ----------------------------------------------------------------------------------
    // Events
    // ----------------------------------------------------------------------------------

    fn open_stream(&mut self, session: SessionKey, kind: StreamKind) -> StreamId {
        let generation = self.sessions.get(session).map_or(1, |s| s.generation);
        let id = StreamId(self.ledger.streams_end());
        self.ledger.streams.push(StreamEntry {
            session,
            generation,
            kind,
            opened_ms: self.now_ms,
        });
        self.log
            .insert(id, StreamLog::new(session, generation, kind));
        id
    }

    fn attach(&mut self, conn: ConnId, stream: StreamId, out: &mut Vec<Output>) {
        if let Some(log) = self.log.get_mut(stream) {
            if let Some(previous) = log.attached.replace(conn) {
                // A second GET for the same stream takes it over; the old one is cut.
                self.conns.remove(&previous);
                out.push(Output::End {
                    conn: previous,
                    how: EndMode::Reset,
                });
            }
            log.detached_ms = None;
        }
        self.conns.insert(conn, stream);
    }

    fn detach(&mut self, conn: ConnId) {
        if let Some(stream) = self.conns.remove(&conn)
            && let Some(log) = self.log.get_mut(stream)
            && log.attached == Some(conn)
        {
            log.attached = None;
            log.detached_ms = Some(self.now_ms);
        }
    }

    /// Produces one event on `stream`: numbers it, records it, logs it, sends it if a
    /// connection is attached. The only way an event comes into existence.
    fn emit(&mut self, stream: StreamId, payload: Payload, out: &mut Vec<Output>) -> EventRef {
        let now = self.now_ms;
        let scheme = self.knobs.id_scheme;
        let log = self
            .log
            .get_mut(stream)
            .expect("emit on a stream the log holds");
        let session = log.session;
        // Events belong to the session's current incarnation, whichever stream carries them.
        let generation = self
            .sessions
            .get(session)
            .map_or(log.generation, |s| s.generation);
        let id = match scheme {
            IdScheme::PerStream => {
                log.local_counter += 1;
                log.local_counter
            }
            IdScheme::SessionMonotonic | IdScheme::PerGeneration => {
                match self.sessions.get_mut(session) {
                    Some(s) => {
                        s.counter += 1;
                        s.counter
                    }
                    None => {
                        log.local_counter += 1;
                        log.local_counter
                    }
                }
            }
        };
        let log = self.log.get_mut(stream).expect("still there");
        log.produced += 1;
        log.first_id.get_or_insert(id);
        log.last_id = Some(id);
        let ordinal = log.produced;
        let attached = log.attached;
        let event = self.ledger.next_event();
        self.ledger.events.push(ProducedEvent {
            id,
            stream,
            ordinal,
            session,
            generation,
            at_ms: now,
            payload,
        });
        self.log.append(
            stream,
            LoggedEvent {
                id,
                at_ms: now,
                event,
            },
            self.knobs.event_log_capacity,
            self.knobs.event_log_ttl.map(|t| t.ms()),
        );
        if let Some(conn) = attached {
            let retry_ms = match payload {
                Payload::Priming => self.knobs.retry.map(|r| r.ms()),
                _ => None,
            };
            out.push(Output::Event {
                conn,
                event,
                id: Some(id),
                retry_ms,
            });
            self.ledger.sends.push(SendEntry {
                event,
                conn,
                at_ms: now,
                replay: false,
            });
        }
        event
    }

    fn prime(&mut self, stream: StreamId, session: SessionKey, out: &mut Vec<Output>) {
        let modern = self
            .sessions
            .get(session)
            .is_some_and(|s| s.protocol_version >= LATEST_PROTOCOL_VERSION);
        if self.knobs.priming_events && modern {
            self.emit(stream, Payload::Priming, out);
        }
    }

    /// Marks a request stream complete; ends it if someone is listening.
    fn complete_stream(&mut self, stream: StreamId, out: &mut Vec<Output>) {
        let Some(log) = self.log.get_mut(stream) else {
            return;
        };
        log.complete = true;
        if let Some(conn) = log.attached.take() {
            log.detached_ms = Some(self.now_ms);
            self.conns.remove(&conn);
            out.push(Output::End {
                conn,
                how: EndMode::Close,
            });
        }
    }

    /// Where a job's output goes: its own stream, or, once the log has forgotten that
    /// stream, the session's standalone stream (created detached if need be). This is the
    /// path by which a fresh stream "adopts" an orphaned call in Behavior A.
    fn job_stream(&mut self, job: JobId) -> StreamId {
        let (stream, session) = {
            let j = &self.jobs[&job];
            (j.stream, j.session)
        };
        if self.log.get(stream).is_some() {
            return stream;
        }
        let standalone = self
            .sessions
            .get(session)
            .and_then(|s| s.standalone)
            .filter(|s| self.log.get(*s).is_some());
        let target = match standalone {
            Some(s) => s,
            None => {
                let s = self.open_stream(session, StreamKind::Standalone);
                if let Some(sess) = self.sessions.get_mut(session) {
                    sess.standalone = Some(s);
                }
                s
            }
        };
        self.jobs.get_mut(&job).expect("job").stream = target;
        if let Some(log) = self.log.get_mut(target) {
            log.open_jobs.push(job);
        }
        target
    }

    fn step_job(&mut self, job: JobId, at: u64, out: &mut Vec<Output>) {
        self.now_ms = self.now_ms.max(at);
        let Some(j) = self.jobs.get(&job) else {
            return;
        };
        let (step, total, progress, interval) = (j.step, j.total, j.progress, j.interval_ms);
        let stream = self.job_stream(job);
        if step < total {
            let next = step + 1;
            if progress {
                self.emit(
                    stream,
                    Payload::Progress {
                        job,
                        step: next,
                        total,
                    },
                    out,
                );
            }
            self.jobs.get_mut(&job).expect("job").step = next;
            if next < total {
                self.job_due.insert((at + interval, job));
                return;
            }
        }
        self.emit(stream, Payload::ToolResult { job }, out);
        self.end_job(job, at, JobEnd::Finished, out);
    }

    fn end_job(&mut self, job: JobId, at: u64, how: JobEnd, out: &mut Vec<Output>) {
        let Some(j) = self.jobs.remove(&job) else {
            return;
        };
        self.job_due.retain(|&(_, id)| id != job);
        self.ledger.job_mut(job).ended = Some((at, how));
        if let Some(log) = self.log.get_mut(j.stream) {
            log.open_jobs.retain(|&id| id != job);
            if log.open_jobs.is_empty() && log.kind == StreamKind::Request {
                self.complete_stream(j.stream, out);
            }
        }
    }

    // ----------------------------------------------------------------------------------
    // HTTP
    // ----------------------------------------------------------------------------------

    fn respond(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        response: HttpResponse,
        out: &mut Vec<Output>,
    ) {
        self.ledger.answers.push(AnswerEntry {
            conn,
            at_ms: self.now_ms,
            method: request.method,
            rpc_method: rpc,
            session_sent: request.session_id.clone(),
            status: response.status,
        });
        out.push(Output::Respond { conn, response });
    }

    /// Handles one HTTP request at virtual time `now_ms`.
    pub fn handle(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        if let Some(origin) = &request.origin
            && !origin_is_local(origin)
        {
            let body = jsonrpc::error_without_id(
                jsonrpc::INVALID_REQUEST,
                "Forbidden: Origin is not allowed",
            );
            self.respond(conn, &request, None, HttpResponse::json(403, body), out);
            return;
        }
        match request.method {
            HttpMethod::Post => self.handle_post(conn, request, out),
            HttpMethod::Get => self.handle_get(conn, request, out),
            HttpMethod::Delete => self.handle_delete(conn, request, out),
            HttpMethod::Other => {
                let mut response = HttpResponse::json(
                    405,
                    jsonrpc::error_without_id(jsonrpc::INVALID_REQUEST, "Method Not Allowed"),
                );
                response.allow = Some("GET, POST, DELETE");
                self.respond(conn, &request, None, response, out);
            }
        }
    }

    /// Answers with an error status and a JSON-RPC error body. Each argument is one part of
    /// that answer, so they stay separate rather than bundled for the linter's sake.
    #[allow(clippy::too_many_arguments)]
    fn reject(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        status: u16,
        code: i64,
        message: &str,
        out: &mut Vec<Output>,
    ) {
        let body = jsonrpc::error_without_id(code, message);
        self.respond(conn, request, rpc, HttpResponse::json(status, body), out);
    }

    /// Checks `MCP-Protocol-Version` (400 for one this server does not speak).
    fn protocol_ok(request: &HttpRequest) -> bool {
        request
            .protocol_version
            .as_deref()
            .is_none_or(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v.trim()))
    }

    /// Resolves `Mcp-Session-Id` to a live session, or answers the request itself.
    fn require_session(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        out: &mut Vec<Output>,
    ) -> Option<SessionKey> {
        let Some(wire) = request.session_id.as_deref() else {
            self.reject(
                conn,
                request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
                out,
            );
            return None;
        };
        match self.sessions.lookup(wire) {
            Some(key) => Some(key),
            None => {
                let message = if self.ever_minted.contains_key(wire) {
                    "session expired"
                } else {
                    "Session not found"
                };
                let status = self.knobs.dead_session_answer.status();
                self.reject(
                    conn,
                    request,
                    rpc,
                    status,
                    jsonrpc::SESSION_NOT_FOUND,
                    message,
                    out,
                );
                None
            }
        }
    }

    fn handle_post(&mut self, conn: ConnId, request: HttpRequest, out: &mut Vec<Output>) {
        let accept = request.accept.as_deref().unwrap_or("");
        let accepts_both = accept.contains("*/*")
            || (accept.contains("application/json") && accept.contains("text/event-stream"));
        if !accepts_both {
            self.reject(
                conn,
                &request,
                None,
                406,
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
                out,
            );
            return;
        }
        let json_content = request.content_type.as_deref().is_some_and(|c| {
            c.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
        if !json_content {
            self.reject(
                conn,
                &request,
                None,
                415,
                jsonrpc::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
                out,
            );
            return;
        }
        let body = match &request.body {
            RequestBody::Json(v) => Ok(v.clone()),
            RequestBody::Bytes(b) => serde_json::from_slice::<Value>(b),
            RequestBody::Empty => serde_json::from_slice::<Value>(b""),
        };
        let body = match body {
            Ok(v) => v,
            Err(_) => {
                self.reject(
                    conn,
                    &request,
                    None,
                    400,
                    jsonrpc::PARSE_ERROR,
                    "Parse error: the body is not JSON",
                    out,
                );
                return;
            }
        };
        let (batch, values) = match body {
            Value::Array(items) => (true, items),
            single => (false, vec![single]),
        };
        let mut messages = Vec::with_capacity(values.len());
        for value in &values {
            match jsonrpc::classify(value) {
                Ok(m) => messages.push(m),
                Err(why) => {
                    self.reject(
                        conn,
                        &request,
                        None,
                        400,
                        jsonrpc::INVALID_REQUEST,
                        &format!("Invalid Request: {why}"),
                        out,
                    );
                    return;
                }
            }
        }
        if messages.is_empty() {
            self.reject(
                conn,
                &request,
                None,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: empty batch",
                out,
            );
            return;
        }
        let rpc = if batch {
            Some("batch".to_string())
        } else {
            messages[0].method().map(str::to_string)
        };
        let is_init = messages.iter().any(|m| m.method() == Some("initialize"));
        if is_init {
            if batch {
                self.reject(
                    conn,
                    &request,
                    rpc,
                    400,
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: initialize must not be part of a batch",
                    out,
                );
                return;
            }
            self.initialize(conn, &request, &messages[0], out);
            return;
        }
        if !Self::protocol_ok(&request) {
            self.reject(
                conn,
                &request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
                out,
            );
            return;
        }
        let Some(key) = self.require_session(conn, &request, rpc.clone(), out) else {
            return;
        };
        let version = self
            .sessions
            .get(key)
            .map_or(DEFAULT_PROTOCOL_VERSION, |s| s.protocol_version);
        if batch && version != "2025-03-26" {
            self.reject(
                conn,
                &request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: batches are only allowed in protocol 2025-03-26",
                out,
            );
            return;
        }
        self.touch(key);

        let mut replies: Vec<Reply> = Vec::new();
        let mut pending_stream: Option<StreamId> = None;
        for message in messages {
            match message {
                Incoming::Response => {}
                Incoming::Notification { method, params } => {
                    if method == "notifications/cancelled" {
                        self.cancel(key, params.get("requestId"), out);
                    }
                }
                Incoming::Request { id, method, params } => {
                    match self.dispatch(key, &id, &method, &params) {
                        Dispatch::Now(v) => replies.push(Reply::Immediate(v)),
                        Dispatch::Job {
                            steps,
                            interval_ms,
                            tool,
                        } => {
                            let stream = *pending_stream
                                .get_or_insert_with(|| self.open_stream(key, StreamKind::Request));
                            let job =
                                self.start_job(key, stream, &id, &params, tool, steps, interval_ms);
                            let _ = job;
                            replies.push(Reply::Job);
                        }
                    }
                }
            }
        }
        if replies.is_empty() {
            self.respond(conn, &request, rpc, HttpResponse::empty(202), out);
            return;
        }
        let all_immediate = replies.iter().all(|r| matches!(r, Reply::Immediate(_)));
        if all_immediate && self.knobs.json_responses {
            let mut values: Vec<Value> = replies
                .into_iter()
                .map(|r| match r {
                    Reply::Immediate(v) => v,
                    Reply::Job => unreachable!("all immediate"),
                })
                .collect();
            let body = if batch {
                Value::Array(values)
            } else {
                values.pop().expect("one reply")
            };
            self.respond(conn, &request, rpc, HttpResponse::json(200, body), out);
            return;
        }
        let stream =
            *pending_stream.get_or_insert_with(|| self.open_stream(key, StreamKind::Request));
        self.respond(
            conn,
            &request,
            rpc,
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
        for reply in replies {
            if let Reply::Immediate(v) = reply {
                let message = self.ledger.messages_end();
                self.ledger.messages.push(v);
                self.emit(stream, Payload::Response { message }, out);
            }
        }
        let jobs_open = self
            .log
            .get(stream)
            .is_some_and(|l| !l.open_jobs.is_empty());
        if !jobs_open {
            self.complete_stream(stream, out);
        } else {
            // Steps due "now" (interval 0) run at once, in order.
            let now = self.now_ms;
            self.advance(now, out);
        }
    }

    fn initialize(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        message: &Incoming,
        out: &mut Vec<Output>,
    ) {
        let rpc = Some("initialize".to_string());
        let Incoming::Request { id, params, .. } = message else {
            self.reject(
                conn,
                request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: initialize must be a request",
                out,
            );
            return;
        };
        if self.sessions.len() >= self.knobs.max_sessions as usize {
            self.reject(
                conn,
                request,
                rpc,
                503,
                jsonrpc::INVALID_REQUEST,
                "Service Unavailable: session limit reached",
                out,
            );
            return;
        }
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let version = SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .copied()
            .find(|v| *v == asked)
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let wire_id = format!("{:016x}{:016x}", self.rng.next_u64(), self.rng.next_u64());
        let key = SessionKey(self.ledger.sessions.len() as u32);
        let now = self.now_ms;
        self.ledger.sessions.push(SessionEntry {
            wire_id: wire_id.clone(),
            created_ms: now,
            generations: vec![now],
            died: None,
        });
        self.ever_minted.insert(wire_id.clone(), key);
        let session = Session {
            wire_id: wire_id.clone(),
            generation: 1,
            created_ms: now,
            last_touch_ms: now,
            protocol_version: version,
            counter: 0,
            standalone: None,
            listening: false,
        };
        let deadline = self.deadline_of(&session);
        self.sessions.insert(key, session, deadline);
        let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
        if self.knobs.advertise_monotonic_ids {
            capabilities["experimental"] =
                json!({"resumption": {"sessionMonotonicEventIds": true}});
        }
        let result = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": "faultline", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "faultline: a fault-injecting MCP server. Tools: echo, long_job.",
        });
        let mut response = HttpResponse::json(200, jsonrpc::result(id, result));
        response.session_id = Some(wire_id);
        self.respond(conn, request, rpc, response, out);
    }

    fn dispatch(&mut self, _key: SessionKey, id: &Value, method: &str, params: &Value) -> Dispatch {
        match method {
            "ping" => Dispatch::Now(jsonrpc::result(id, json!({}))),
            "tools/list" => Dispatch::Now(jsonrpc::result(id, tools::list())),
            "logging/setLevel" => match params.get("level").and_then(Value::as_str) {
                Some(_) => Dispatch::Now(jsonrpc::result(id, json!({}))),
                None => Dispatch::Now(jsonrpc::error(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "logging/setLevel needs params.level",
                )),
            },
            "tools/call" => match tools::call(params) {
                ToolCall::Immediate(result) => Dispatch::Now(jsonrpc::result(id, result)),
                ToolCall::Error { code, message } => {
                    Dispatch::Now(jsonrpc::error(id, code, &message))
                }
                ToolCall::Job { steps, interval_ms } => Dispatch::Job {
                    steps,
                    interval_ms,
                    tool: params
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("long_job")
                        .to_string(),
                },
            },
            "initialize" => Dispatch::Now(jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                "already initialized",
            )),
            other => Dispatch::Now(jsonrpc::error(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start_job(
        &mut self,
        key: SessionKey,
        stream: StreamId,
        id: &Value,
        params: &Value,
        tool: String,
        steps: u32,
        interval_ms: u64,
    ) -> JobId {
        let job = JobId(self.ledger.jobs_end());
        let meta = params.get("_meta");
        let progress_token = meta.and_then(|m| m.get("progressToken")).cloned();
        let idempotency_key = meta
            .and_then(|m| m.get("idempotencyKey"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let generation = self.sessions.get(key).map_or(1, |s| s.generation);
        self.ledger.jobs.push(JobEntry {
            session: key,
            generation,
            tool,
            request_id: id.clone(),
            progress_token: progress_token.clone(),
            idempotency_key,
            steps,
            started_ms: self.now_ms,
            ended: None,
        });
        self.jobs.insert(
            job,
            Job {
                session: key,
                stream,
                step: 0,
                total: steps,
                interval_ms,
                progress: progress_token.is_some(),
                request_id: id.clone(),
            },
        );
        if let Some(log) = self.log.get_mut(stream) {
            log.open_jobs.push(job);
        }
        self.job_due.insert((self.now_ms + interval_ms, job));
        job
    }

    fn cancel(&mut self, key: SessionKey, request_id: Option<&Value>, out: &mut Vec<Output>) {
        let Some(request_id) = request_id else {
            return;
        };
        let found = self
            .jobs
            .iter()
            .find(|(_, j)| j.session == key && &j.request_id == request_id)
            .map(|(&id, _)| id);
        if let Some(job) = found {
            let now = self.now_ms;
            self.end_job(job, now, JobEnd::Cancelled, out);
        }
    }

    fn handle_get(&mut self, conn: ConnId, request: HttpRequest, out: &mut Vec<Output>) {
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

    fn record_rejected_resume(&mut self, conn: ConnId, request: &HttpRequest) {
        if let Some(cursor) = &request.last_event_id {
            let status = self.ledger.answers.last().map_or(400, |a| a.status);
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

    fn resume(
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
                    self.reject(
                        conn,
                        request,
                        None,
                        status,
                        jsonrpc::SESSION_NOT_FOUND,
                        "session expired",
                        out,
                    );
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
                self.reject(
                    conn,
                    request,
                    None,
                    400,
                    jsonrpc::INVALID_REQUEST,
                    "Bad Request: Last-Event-ID cannot be resumed",
                    out,
                );
            }
            UnknownCursor::NotFound => {
                self.ledger.resumptions.push(entry);
                self.reject(
                    conn,
                    request,
                    None,
                    404,
                    jsonrpc::INVALID_REQUEST,
                    "Not Found: no such event",
                    out,
                );
            }
        }
    }

    fn handle_delete(&mut self, conn: ConnId, request: HttpRequest, out: &mut Vec<Output>) {
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
        let Some(key) = self.require_session(conn, &request, None, out) else {
            return;
        };
        let now = self.now_ms;
        let conns = self.conns_of_session(key);
        self.kill_session(key, now, DeathCause::Deleted, out);
        for c in conns {
            self.detach(c);
            out.push(Output::End {
                conn: c,
                how: EndMode::Close,
            });
        }
        self.respond(conn, &request, None, HttpResponse::empty(200), out);
    }

    fn conns_of_session(&self, key: SessionKey) -> Vec<ConnId> {
        self.conns
            .iter()
            .filter(|(_, s)| self.log.get(**s).is_some_and(|l| l.session == key))
            .map(|(&c, _)| c)
            .collect()
    }

    // ----------------------------------------------------------------------------------
    // Driver and operator actions
    // ----------------------------------------------------------------------------------

    /// The client (or the network) closed `conn`. Its stream stays in the log, detached.
    pub fn disconnect(&mut self, conn: ConnId, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        self.detach(conn);
    }

    /// The server (or a middlebox) cuts `conn`, gracefully or not.
    pub fn drop_connection(
        &mut self,
        conn: ConnId,
        how: EndMode,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        if self.conns.contains_key(&conn) {
            self.detach(conn);
            out.push(Output::End { conn, how });
        }
    }

    /// The application emits a server notification on the session's standalone stream.
    /// Returns false when the session is not alive (nothing is produced).
    pub fn notify(&mut self, session_wire_id: &str, now_ms: u64, out: &mut Vec<Output>) -> bool {
        self.advance(now_ms, out);
        let Some(key) = self.sessions.lookup(session_wire_id) else {
            return false;
        };
        if !self.sessions.get(key).is_some_and(|s| s.listening) {
            return false;
        }
        let existing = self
            .sessions
            .get(key)
            .and_then(|s| s.standalone)
            .filter(|s| self.log.get(*s).is_some());
        let stream = match existing {
            Some(s) => s,
            None => {
                // Nobody has opened (or resumed) the standalone stream in this generation:
                // buffer for whoever resumes it.
                let s = self.open_stream(key, StreamKind::Standalone);
                if let Some(sess) = self.sessions.get_mut(key) {
                    sess.standalone = Some(s);
                }
                s
            }
        };
        let seq = self.ledger.next_event().0 as u64;
        self.emit(stream, Payload::Notification { seq }, out);
        true
    }

    /// Restarts the server process: every connection is reset, every job dies, and
    /// `restart_persistence` decides what survives. Surviving sessions enter a new generation.
    pub fn restart(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        let now = self.now_ms;
        self.ledger.restarts.push(now);
        let conns: Vec<ConnId> = self.conns.keys().copied().collect();
        for conn in conns {
            self.detach(conn);
            out.push(Output::End {
                conn,
                how: EndMode::Reset,
            });
        }
        let jobs: Vec<JobId> = self.jobs.keys().copied().collect();
        for job in jobs {
            if let Some(j) = self.jobs.remove(&job) {
                self.ledger.job_mut(job).ended = Some((now, JobEnd::Killed));
                drop(j);
            }
        }
        self.job_due.clear();
        match self.knobs.restart_persistence {
            RestartPersistence::Nothing => {
                for (key, _) in self.sessions.clear() {
                    self.ledger.sessions[key.0 as usize].died = Some((now, DeathCause::Restart));
                }
                self.log.clear_where(|_| true);
            }
            RestartPersistence::SessionIdsOnly | RestartPersistence::Everything => {
                if self.knobs.restart_persistence == RestartPersistence::SessionIdsOnly {
                    self.log.clear_where(|_| true);
                }
                let logs_kept = self.knobs.restart_persistence == RestartPersistence::Everything;
                let keys: Vec<SessionKey> = self.sessions.keys().collect();
                for key in keys {
                    let scheme = self.knobs.id_scheme;
                    if let Some(s) = self.sessions.get_mut(key) {
                        s.generation += 1;
                        if !logs_kept {
                            s.standalone = None;
                        }
                        if scheme != IdScheme::SessionMonotonic {
                            s.counter = 0;
                        }
                    }
                    self.ledger.sessions[key.0 as usize].generations.push(now);
                }
            }
        }
    }

    /// Runs the sweeper now: everything whose TTL has passed is removed, whatever
    /// `gc_interval` says.
    pub fn gc_now(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.advance(now_ms, out);
        let now = self.now_ms;
        if let Some(ttl) = self.knobs.event_log_ttl {
            self.log.expire(now, ttl.ms());
        }
        let keys: Vec<SessionKey> = self.sessions.keys().collect();
        for key in keys {
            let due = self.sessions.get(key).and_then(|s| self.deadline_of(s));
            if due.is_some_and(|d| d <= now) {
                let idle = self.knobs.session_idle_ttl.is_some_and(|t| {
                    self.sessions
                        .get(key)
                        .is_some_and(|s| s.last_touch_ms + t.ms() <= now)
                });
                let cause = if idle {
                    DeathCause::IdleTtl
                } else {
                    DeathCause::AbsoluteTtl
                };
                self.kill_session(key, now, cause, out);
            }
        }
    }
}

enum Dispatch {
    Now(Value),
    Job {
        steps: u32,
        interval_ms: u64,
        tool: String,
    },
}

/// DNS-rebinding protection: only pages served from this machine may talk to us.
fn origin_is_local(origin: &str) -> bool {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        rest.split([':', '/']).next().unwrap_or("").to_string()
    };
    matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_on_this_machine_are_allowed() {
        assert!(origin_is_local("http://localhost:3000"));
        assert!(origin_is_local("http://127.0.0.1"));
        assert!(origin_is_local("https://[::1]:8080"));
        assert!(!origin_is_local("http://evil.example"));
        assert!(!origin_is_local("http://localhost.evil.example"));
        assert!(!origin_is_local("null"));
    }
}
