//! The server state machine: `handle(request, now) -> outputs`, plus the clock-driven
//! work (job steps, TTL expiry) and the operator actions faults need (drop, restart, GC).
//!
//! Nothing here reads a clock, a socket or the OS: time arrives as an argument, randomness
//! from a seeded ChaCha stream, and every effect leaves as an [`Output`] and a ledger entry.
//! The simulator and the live server drive this same type, so a scenario seen in simulation
//! is the one a real client meets over the wire.
//!
//! The state lives here; the behaviour is split by where a request is in its life:
//!
//! - [`era`] and [`modern`]: which protocol era a request speaks, and the 2026-07-28
//!   (stateless) path beside the 2025 one;
//! - [`admission`]: origin, protocol version and session checks, and the one table of
//!   rejections every handler answers from;
//! - [`post`]: POST dispatch, `initialize`, `tools/call`;
//! - [`jobs`]: long tool calls stepping on the virtual clock;
//! - [`streams`]: opening streams, attaching connections, producing events;
//! - [`standalone`]: GET without a cursor, the session's standalone stream;
//! - [`resumption`]: GET with `Last-Event-ID`;
//! - [`sessions`]: touching and killing sessions, DELETE;
//! - [`expiry`]: TTLs, the sweeper, `next_due`/`advance`;
//! - [`operator`]: disconnects, drops, notifications, restarts, forced GC;
//! - [`placement`]: which replica of a fleet holds a session, and the misroutes;
//! - [`replicas`]: one replica of a fleet going down, and which are up;
//! - [`event_store`]: which replica resolves a cursor against which log, and the replay of
//!   a store keyed by stream;
//! - [`tenant`]: another client of the fleet, played without HTTP;
//! - [`fanout`]: whether an event published on one replica reaches a listener on another;
//! - [`hang`]: requests answered by no answer at all (the `Hang` knob values);
//! - [`inspect`], [`ledger_window`] and [`ledger_bytes`]: read-only views, and trimming a
//!   long-lived ledger by entries and by bytes.

mod admission;
mod dead_logs;
pub mod era;
mod event_store;
mod expiry;
mod fanout;
mod hang;
mod inspect;
mod jobs;
mod ledger_bytes;
mod ledger_window;
pub mod modern;
mod operator;
mod placement;
mod post;
mod replicas;
mod request_budget;
mod resumption;
mod session_room;
mod sessions;
mod standalone;
mod streams;
mod tenant;

pub use admission::origin_is_local;

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::event_log::EventLog;
use crate::fleet::FleetKnobs;
use crate::http::{HttpMethod, HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::{ConnId, JobId, SessionKey, StreamId};
use crate::knobs::{DeadSessionAnswer, ServerKnobs, SessionIdHeader};
use crate::ledger::{AnswerEntry, Ledger};
use crate::limits::{Limits, kept_owned_text, kept_text};
use crate::min_set::MinSet;
use crate::route::Route;
use crate::session_store::SessionStore;

use admission::{Rejection, check_origin};
use jobs::Job;

/// Protocol revisions with sessions and `Last-Event-ID` resumption, oldest first.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

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
    job_due: MinSet<(u64, JobId)>,
    ledger: Ledger,
    /// Keep about this many of each ledger record (None: keep everything, as a simulation
    /// must). See [`Server::trim_ledger`].
    ledger_window: Option<u32>,
    /// Keep the ledger to about this many bytes as well (None: no byte bound).
    ledger_window_bytes: Option<u64>,
    /// What the ledger's records weigh, kept up to date by [`Server::trim_ledger`].
    ledger_bytes: ledger_bytes::LedgerBytes,
    /// Per ledger record, a cut that what is still needed held back (see
    /// `ledger_window`): not tried again before the record grew past these.
    ledger_cut_held: [ledger_window::HeldCut; 8],
    /// The length of the ledger's list changes below which their cut is not tried again
    /// (it was held back by what retained events still name).
    list_changes_cut_held: usize,
    limits: Limits,
    /// Job steps this turn may still run (None: no bound; see [`Limits`]).
    turn_steps_left: Option<u32>,
    /// The replicas behind the one address, and what they share (see [`placement`]).
    fleet: FleetKnobs,
    /// More than one replica: placement is checked and recorded. False, every fleet check
    /// short-circuits and the ledger is a single server's.
    multi: bool,
    /// The replica answering the request being handled.
    serving: Route,
    /// Per replica of a fleet: down until this time (0: up). Empty for a single server.
    down_until: Vec<u64>,
    /// The era each replica speaks when a rolling deploy moved it off the `era` knob
    /// (see `modern/replica_era.rs`); empty otherwise.
    replica_eras: Vec<Option<crate::knobs::Era>>,
    /// In a fleet: the replica each attached SSE connection was opened on (what a
    /// replica's crash resets). Empty for a single server.
    conn_replica: BTreeMap<ConnId, crate::route::ReplicaId>,
    /// The 2026-07-28 request streams and their jobs (see [`modern::request_stream`]).
    modern: modern::ModernState,
    /// Requests the server will never answer (see [`hang`]).
    hangs: hang::Hangs,
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
            job_due: MinSet::default(),
            ledger: Ledger::default(),
            ledger_window: None,
            ledger_window_bytes: None,
            ledger_bytes: ledger_bytes::LedgerBytes::default(),
            ledger_cut_held: Default::default(),
            list_changes_cut_held: 0,
            limits: Limits::default(),
            turn_steps_left: None,
            fleet: FleetKnobs::default(),
            multi: false,
            serving: Route::FIRST,
            down_until: Vec::new(),
            replica_eras: Vec::new(),
            conn_replica: BTreeMap::new(),
            modern: modern::ModernState::new(seed),
            hangs: hang::Hangs::default(),
        }
    }

    /// Puts these bounds on what clients can make the server do (see [`Limits`]).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.turn_steps_left = limits.job_steps_per_turn;
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A driver's turn begins (it took its lock): the job-step budget of
    /// [`Limits::job_steps_per_turn`] is full again.
    pub fn begin_turn(&mut self) {
        self.turn_steps_left = self.limits.job_steps_per_turn;
    }

    /// Makes room for `events` events in the ledger, the log's expiry queue and the first
    /// standalone stream up front (a capacity hint from a driver that knows its scenario: a
    /// long run then fills its records without regrowing and copying them). Changes
    /// nothing else.
    pub fn reserve_events(&mut self, events: usize) {
        self.ledger.events.reserve(events);
        self.ledger.sends.reserve(events);
        self.log.reserve(
            events,
            self.knobs.event_log_ttl.is_some(),
            self.knobs.event_log_capacity,
        );
    }

    /// Room in the ledger for `answers` answers up front (a capacity hint, not a limit).
    pub fn reserve_answers(&mut self, answers: usize) {
        self.ledger.answers.reserve(answers);
    }

    /// Handles one HTTP request at virtual time `now_ms`, as replica 0 (the only one of a
    /// single server).
    pub fn handle(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.handle_routed(conn, request, Route::FIRST, now_ms, out);
    }

    /// Handles one HTTP request at virtual time `now_ms`, as the replica `route` names
    /// (the balancer's pick; see [`Server::set_fleet`]).
    pub fn handle_routed(
        &mut self,
        conn: ConnId,
        mut request: HttpRequest,
        route: Route,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.advance(now_ms, out);
        self.serving = route;
        if route.why == crate::route::RouteWhy::NoneHealthy {
            self.refuse_unavailable(conn, &request, out);
            return;
        }
        if self
            .admit(conn, &request, None, check_origin(&request), out)
            .is_none()
        {
            return;
        }
        if request.method != HttpMethod::Post && self.route_non_post(conn, &mut request, out) {
            return;
        }
        match request.method {
            HttpMethod::Post => self.handle_post(conn, request, out),
            HttpMethod::Get => self.handle_get(conn, request, out),
            HttpMethod::Delete => self.handle_delete(conn, request, out),
            HttpMethod::Other => {
                self.reject(conn, &request, None, Rejection::MethodNotAllowed, out);
            }
        }
    }

    /// Puts an answer on the wire and in the ledger: every response passes here.
    fn respond(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        response: HttpResponse,
        out: &mut Vec<Output>,
    ) {
        self.complete_era_answer(conn, rpc.as_deref(), response.status);
        // Client-chosen text is kept only as a prefix: a 200 KB header must not become
        // 200 KB of ledger per request.
        let (rpc_method, rpc_method_len) = match rpc.map(kept_owned_text) {
            Some((kept, len)) => (Some(kept), len),
            None => (None, None),
        };
        let (session_sent, session_sent_len) = match request.session_id.as_deref().map(kept_text) {
            Some((kept, len)) => (Some(kept), len),
            None => (None, None),
        };
        self.ledger.answers.push(AnswerEntry {
            conn,
            at_ms: self.now_ms,
            method: request.method,
            rpc_method,
            session_sent,
            status: response.status,
            rpc_method_len,
            session_sent_len,
            route: self.multi.then_some(self.serving),
            list_version: None,
            list_ttl_ms: None,
            dead_session: false,
        });
        let mut response = response;
        // Whether the server minted the id is asked last: it is a lookup by string, and
        // most servers echo no id on most answers.
        if response.session_id.is_none()
            && self.echoes_session_id(&response)
            && request
                .session_id
                .as_ref()
                .is_some_and(|id| self.ever_minted.contains_key(id))
        {
            response.session_id = request.session_id.clone();
        }
        out.push(Output::Respond {
            conn,
            response: Box::new(response),
        });
    }

    /// Whether `response` repeats the request's `Mcp-Session-Id`, as the
    /// `session_id_header` knob says, when the server minted it (the header is wire
    /// spelling: the ledger never sees it).
    fn echoes_session_id(&self, response: &HttpResponse) -> bool {
        match self.knobs.session_id_header {
            SessionIdHeader::Initialize => false,
            SessionIdHeader::Answers => {
                response.status == 200 && !matches!(response.body, ResponseBody::Empty)
            }
            SessionIdHeader::Every => {
                // Not the dead-session answer; a 200 is one only when it carries the
                // refusal (`OkWithError200`), not when it carries a result.
                let dead = self.knobs.dead_session_answer;
                let dead_answer = response.status == dead.status()
                    && (dead != DeadSessionAnswer::OkWithError200
                        || matches!(response.body, ResponseBody::Refusal { .. }));
                !dead_answer && response.status < 500
            }
        }
    }
}
