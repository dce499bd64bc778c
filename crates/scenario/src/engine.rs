//! The engine: the server model plus the scenario's server-side half, stepped on virtual
//! time. The simulator and the live server both drive the server through this one type,
//! so a fault fires at the same point of the same output sequence in both; they differ
//! only in how outputs reach the client (a function call, or a socket).
//!
//! At one virtual instant the order is fixed: the model's own due work (job steps, TTL
//! expiry) first, then scripted actions (notifications, `At` faults) in the order they
//! were scheduled. An `AfterEvent` fault fires right after its event is emitted, before
//! anything emitted after it, so "drop after event 41" means what it means on a real wire.
//!
//! | scenario item | what the engine does |
//! |---|---|
//! | `Notify { from, every, count }` | at `from`, then every `every`: a notification on the standalone stream of the most recently initialized session that is not a tenant's (in a one-client run, the client's current session) |
//! | `Tenant { at, every, count }` | at `at`, another client's session is admitted on the model (no HTTP) and listens; then `count` notifications on its standalone stream, `every` apart |
//! | `Drop`, `Restart`, `Gc` | the fault's [`FaultAction`](crate::FaultAction), at `At(t)` or right after the `n`-th event of a matching stream |
//! | `StaleTask`, `away` | fired at their time and reported (`Emitted::Fired`) for a driver with a modelled client to play |
//! | `fleet` | one [`Balancer`] pick per request, then the model answers as that replica (and the balancer's `Set-Cookie`, if it pinned the client, goes on the answer) |
//! | `ReplicaDown`, `StickyLost` | a fleet's replica crashes for a while; the balancer forgets its pins |
//! | `Scale` | the fleet is scaled: removed replicas are down for good (their in-memory state lost), added ones start empty; the balancer picks among the new set |
//! | `RollingDeploy` | replica 0 crashes for `down` when it fires, each next replica `every` later: a fault's follow-up steps (`Strike::then`) are queued like notifications and played as the same scenario fault |
//! | `IdleProxy` | a standing fault: in force all along, struck whenever its action says it is due (a listen stream quiet for `cut_after`), after the model's work and the scripted actions of that instant |
//! | `Proxy502` | from `when`, for `lasting`, the engine answers every request 502 itself (the proxy's answer, plain text) without handing it to the model |
//! | `IdleProxySse` | a standing fault: every SSE response on which no bytes passed for `cut_after` (as the proxy saw them go out through the engine) is reset |
//! | `CallTool` | not the server's: the client makes calls (the engine only recognises them, for `Call(k)`) |

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::sync::Arc;

use faultline_model::{
    ConnId, EndMode, HttpMethod, HttpRequest, JobId, Output, RequestBody, ResponseBody, Server,
    ServerKnobs, SessionKey, StreamId, StreamKind,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use serde::Serialize;
use serde_json::Value;

use crate::arming::{Armed, ArmedNotify, ArmedTrigger};
use crate::balancer::Balancer;
use crate::calls::CallTracker;
use crate::faults::{ClientEffect, FaultAction, Target};
use crate::proxy::Proxy;
use crate::scenario::StreamSel;

/// What the engine emits, in order: what goes on the wire, and which faults fired.
#[derive(Debug, Clone)]
pub enum Emitted {
    Wire(Output),
    /// Boxed: rare, and many times the size of a wire output.
    Fired(Box<FiredFault>),
}

/// A fault (or an operator action) that fired.
#[derive(Debug, Clone, Serialize)]
pub struct FiredFault {
    pub at_ms: u64,
    /// Its index in the scenario's `faults`; `None` for an operator action (`/_chaos`).
    pub fault: Option<usize>,
    /// What happened, in words.
    pub note: String,
    /// The connections it cut.
    pub conns: Vec<u64>,
    /// How long the modelled client stays off the network after it.
    pub away_ms: Option<u64>,
    #[serde(skip)]
    pub client_effect: Option<ClientEffect>,
    /// Whether one of the connections it cut carried a standalone GET or a listen
    /// stream. When it cut request streams only, a fresh standalone GET is not the
    /// client's return from it: a live server's auto clock must not take a GET sent
    /// before the cut, and delivered after it, for the client coming back.
    #[serde(skip)]
    pub cut_a_listen: bool,
    /// It fired at its moment and met nothing: a fault that acts only by cutting
    /// connections found none of the streams it names open (a drop of the standalone
    /// stream of a client that never opened one). It exercised nothing, so it does not
    /// count as fired for `untested`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scripted {
    Notify {
        item: usize,
        remaining: u64,
    },
    Fault(usize),
    /// A tenant's notification (the first one also admits the tenant).
    Tenant {
        item: usize,
        remaining: u64,
    },
    /// A fault's follow-up step (see [`Strike::then`](crate::faults::Strike)), an index
    /// into `Engine::thens`.
    Then(usize),
}

#[derive(Debug)]
struct EngineFault {
    trigger: ArmedTrigger,
    away_ms: Option<u64>,
    action: Arc<dyn FaultAction>,
    fired: bool,
}

/// The server model with a scenario's server-side half armed on it.
#[derive(Debug)]
pub struct Engine {
    /// Boxed: the model is a few kilobytes, and an engine is moved into its link and its
    /// world at the start of every run (a copy each, per explored seed).
    server: Box<Server>,
    calls: CallTracker,
    notifies: Vec<ArmedNotify>,
    /// Other clients of the fleet played on the model, and their sessions once admitted.
    tenants: Vec<ArmedNotify>,
    tenant_keys: Vec<Option<SessionKey>>,
    faults: Vec<EngineFault>,
    /// Follow-up steps queued by faults that fired: the scenario fault each belongs to,
    /// and what it does (`Scripted::Then` indexes this).
    thens: Vec<(usize, Arc<dyn FaultAction>)>,
    /// Indices of faults with an `AfterEvent` trigger not yet fired (checked per event).
    watching: Vec<usize>,
    /// Indices of standing faults (an idle proxy): in force all along, each striking when
    /// its action says it is due. Empty for nearly every scenario, and then never asked.
    standing: Vec<usize>,
    /// `(at_ms, seq, action)`, earliest first; `seq` keeps simultaneous actions in
    /// scheduling order and makes every key unique, so the action never decides the order.
    /// (A heap: one push and one pop per scripted action, the cascade's inner loop.)
    queue: BinaryHeap<Reverse<(u64, u64, Scripted)>>,
    seq: u64,
    /// Scratch space for the model's outputs on their way through [`Engine::route`], kept
    /// between steps so that a step allocates nothing (taken and put back around each use).
    buf: Vec<Output>,
    /// The load balancer in front of a fleet; `None` for a single server (every request
    /// is replica 0's).
    balancer: Option<Balancer>,
    /// The proxy in front of the server: asked first for every request (`Proxy502`).
    proxy: Proxy,
    /// Whether a fired fault's note is written (see [`Engine::without_notes`]).
    notes: bool,
}

impl Engine {
    /// A server with `knobs` playing `armed`'s server-side half.
    pub fn new(knobs: ServerKnobs, armed: &Armed) -> Engine {
        let mut server = Server::new(knobs, armed.server_seed).with_fleet(armed.fleet);
        server.reserve_events(armed.events_hint());
        server.reserve_answers(armed.requests_hint());
        let mut engine = Engine::bare(server, CallTracker::new(&armed.calls));
        if armed.fleet.is_multi() {
            engine.balancer = Some(Balancer::new(&armed.fleet, armed.balancer_seed));
        }
        engine.notifies = armed.notifies.clone();
        engine.tenants = armed.tenants.clone();
        engine.tenant_keys = vec![None; armed.tenants.len()];
        engine.faults = armed
            .faults
            .iter()
            .map(|f| EngineFault {
                trigger: f.trigger,
                away_ms: f.away_ms,
                action: f.action.clone(),
                fired: false,
            })
            .collect();
        for (item, plan) in armed.notifies.iter().enumerate() {
            if plan.count > 0 {
                engine.schedule(
                    plan.from_ms,
                    Scripted::Notify {
                        item,
                        remaining: plan.count,
                    },
                );
            }
        }
        for (item, plan) in armed.tenants.iter().enumerate() {
            if plan.count > 0 {
                engine.schedule(
                    plan.from_ms,
                    Scripted::Tenant {
                        item,
                        remaining: plan.count,
                    },
                );
            }
        }
        for i in 0..engine.faults.len() {
            match engine.faults[i].trigger {
                ArmedTrigger::At(t) => engine.schedule(t, Scripted::Fault(i)),
                ArmedTrigger::AfterEvent { .. } => engine.watching.push(i),
                ArmedTrigger::Standing => engine.standing.push(i),
            }
        }
        if !engine.standing.is_empty() {
            // A standing fault may read when bytes last passed (`IdleProxySse` does).
            engine.proxy.count_bytes();
        }
        engine
    }

    /// This engine without fault notes: a fired fault's `note` is left empty. The notes
    /// are words for a trace, a log line and a report; a run that records none of them (a
    /// benchmark, an explored seed) need not write them (a formatted string or two per
    /// fault that fires). Nothing the engine decides depends on a note.
    pub fn without_notes(mut self) -> Engine {
        self.notes = false;
        self
    }

    /// A server with `knobs` and no scenario; `seed` derives its session-id seed the way
    /// [`arm`](crate::arm) does, so a scenario-less server started with a scenario's seed
    /// mints the same ids.
    pub fn without_scenario(knobs: ServerKnobs, seed: u64) -> Engine {
        let server_seed = ChaCha8Rng::seed_from_u64(seed).next_u64();
        Engine::bare(Server::new(knobs, server_seed), CallTracker::default())
    }

    /// The one initialisation both constructors share: nothing scheduled, nothing watched.
    fn bare(server: Server, calls: CallTracker) -> Engine {
        Engine {
            server: Box::new(server),
            calls,
            notifies: Vec::new(),
            tenants: Vec::new(),
            tenant_keys: Vec::new(),
            faults: Vec::new(),
            thens: Vec::new(),
            watching: Vec::new(),
            standing: Vec::new(),
            queue: BinaryHeap::new(),
            seq: 0,
            buf: Vec::new(),
            balancer: None,
            proxy: Proxy::default(),
            notes: true,
        }
    }

    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The workload call a POST body makes (a retry of call `k` is call `k`; a batch
    /// makes its first `tools/call`'s), by the one definition the engine's stream
    /// selectors use, without counting it as seen: what the live server's gates ask
    /// before the request reaches the engine.
    pub fn call_of(&self, body: &serde_json::Value) -> Option<usize> {
        self.calls.call_in(body)
    }

    pub fn server_mut(&mut self) -> &mut Server {
        &mut self.server
    }

    /// Takes the ledger out of a finished run, leaving the engine with an empty one (see
    /// [`Server::take_ledger`]): for a driver that is done with the engine.
    pub fn take_ledger(&mut self) -> faultline_model::Ledger {
        self.server.take_ledger()
    }

    fn schedule(&mut self, at_ms: u64, action: Scripted) {
        self.seq += 1;
        self.queue.push(Reverse((at_ms, self.seq, action)));
    }

    /// True while scripted notifications are still to come.
    pub fn notifications_pending(&self) -> bool {
        self.queue
            .iter()
            .any(|Reverse((_, _, a))| matches!(a, Scripted::Notify { .. }))
    }

    /// True while scripted actions (notifications, timed faults, a fault's follow-up
    /// steps) are still to come: work that may change what a listening client hears.
    pub fn scripted_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The next virtual time at which the engine has work of its own.
    pub fn next_due(&self) -> Option<u64> {
        let script = self.queue.peek().map(|&Reverse((t, _, _))| t);
        let due = match (self.server.next_due(), script) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        earliest(due, self.standing_due())
    }

    /// When the earliest standing fault is next due (`None` without standing faults).
    #[inline]
    fn standing_due(&self) -> Option<u64> {
        if self.standing.is_empty() {
            return None;
        }
        self.standing
            .iter()
            .filter_map(|&i| self.faults[i].action.due(&self.server, &self.proxy))
            .min()
    }

    /// [`next_due`](Engine::next_due) without the event log's TTL expiry, which has no
    /// effect a driver can see and runs, in its order, whenever the engine next moves (see
    /// [`Server::next_visible_due`]). The simulator steps on this.
    #[inline]
    pub fn next_visible_due(&self) -> Option<u64> {
        let script = self.queue.peek().map(|&Reverse((t, _, _))| t);
        let due = match (self.server.next_visible_due(), script) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        earliest(due, self.standing_due())
    }

    /// Runs everything due up to `target`, one instant at a time, and moves the model's
    /// clock to `target`.
    ///
    /// Steps on the model's visible work and the script only: event-log expiry runs inside
    /// the model's `advance` before whatever comes after it, so it needs no step of its own.
    pub fn advance_to(&mut self, target: u64, out: &mut Vec<Emitted>) {
        let mut buf = std::mem::take(&mut self.buf);
        loop {
            // What a driver can see is due (log expiry runs inside the model's next move),
            // within this turn: a model whose job-step budget is spent waits for the
            // driver's next turn (see `faultline_model::Limits::job_steps_per_turn`).
            let model_due = self.server.next_visible_due();
            let script_due = self.queue.peek().map(|&Reverse((t, _, _))| t);
            let standing_due = self.standing_due();
            let Some(next) = earliest(earliest(model_due, script_due), standing_due) else {
                break;
            };
            if next > target {
                break;
            }
            // At one instant: the model's work, then scripted actions, then standing faults.
            if model_due == Some(next) {
                self.server.advance(next, &mut buf);
                self.route(&mut buf, out);
            } else if script_due == Some(next) {
                if let Some((at, action)) = self.take_scripted() {
                    self.perform(at, action, &mut buf, out);
                }
            } else {
                self.server.advance(next, &mut buf);
                self.route(&mut buf, out);
                self.strike_standing(next, out);
            }
        }
        if target > self.server.now_ms() {
            self.server.advance(target, &mut buf);
            self.route(&mut buf, out);
        }
        crate::put_back(&mut self.buf, buf);
    }

    /// Takes the earliest scripted action off the queue. A notification with more to come
    /// is rescheduled in the same motion, its heap slot reused (one sift instead of a pop
    /// and a push: this is the cascade's inner loop). Nothing else schedules while an
    /// action plays, so its sequence number is the one it always got.
    fn take_scripted(&mut self) -> Option<(u64, Scripted)> {
        let mut top = self.queue.peek_mut()?;
        let Reverse((at, _, action)) = *top;
        match action {
            Scripted::Notify { item, remaining } if remaining > 1 => {
                self.seq += 1;
                let every = self.notifies[item].every_ms;
                *top = Reverse((
                    at.saturating_add(every),
                    self.seq,
                    Scripted::Notify {
                        item,
                        remaining: remaining - 1,
                    },
                ));
            }
            Scripted::Tenant { item, remaining } if remaining > 1 => {
                self.seq += 1;
                let every = self.tenants[item].every_ms;
                *top = Reverse((
                    at.saturating_add(every),
                    self.seq,
                    Scripted::Tenant {
                        item,
                        remaining: remaining - 1,
                    },
                ));
            }
            _ => {
                PeekMut::pop(top);
            }
        }
        Some((at, action))
    }

    /// Plays one scripted action at `at`; `buf` is the (empty) scratch space for the
    /// model's outputs, left empty.
    fn perform(
        &mut self,
        at: u64,
        action: Scripted,
        buf: &mut Vec<Output>,
        out: &mut Vec<Emitted>,
    ) {
        match action {
            Scripted::Notify { .. } => {
                // Already rescheduled by `take_scripted`. It goes to the most recently
                // initialized session: the ledger's last (keys are indices), a tenant's
                // excepted.
                let newest = self.newest_client_session();
                match newest {
                    Some(k) => {
                        self.server.notify_key(SessionKey(k), at, buf);
                    }
                    None => self.server.advance(at, buf),
                }
                self.route(buf, out);
            }
            Scripted::Tenant { item, .. } => {
                let key = match self.tenant_keys[item] {
                    Some(key) => key,
                    None => {
                        let key = self.server.admit_tenant(at, buf);
                        self.tenant_keys[item] = Some(key);
                        key
                    }
                };
                self.server.notify_key(key, at, buf);
                self.route(buf, out);
            }
            Scripted::Fault(i) => {
                self.server.advance(at, buf);
                self.route(buf, out);
                if !self.faults[i].fired {
                    self.fire(i, out);
                }
            }
            Scripted::Then(step) => {
                self.server.advance(at, buf);
                self.route(buf, out);
                let (fault, action) = self.thens[step].clone();
                self.strike(fault, action, None, out);
            }
        }
    }

    /// The key of the most recently initialized session that is not a tenant's.
    fn newest_client_session(&self) -> Option<u32> {
        let end = self.server.ledger().sessions_end();
        if self.tenant_keys.is_empty() {
            return end.checked_sub(1);
        }
        (0..end)
            .rev()
            .find(|&k| !self.tenant_keys.contains(&Some(SessionKey(k))))
    }

    /// Strikes every standing fault due at or before `at` (the model's clock is there).
    /// Each strike must move its fault's due time past `at` (an idle proxy's cuts close
    /// the listens it found idle), or the engine would strike it again at once.
    fn strike_standing(&mut self, at: u64, out: &mut Vec<Emitted>) {
        for k in 0..self.standing.len() {
            let i = self.standing[k];
            let action = self.faults[i].action.clone();
            if action
                .due(&self.server, &self.proxy)
                .is_some_and(|d| d <= at)
            {
                self.strike(i, action.clone(), None, out);
                debug_assert!(
                    action.due(&self.server, &self.proxy).is_none_or(|d| d > at),
                    "a standing fault's strike did not move its due time"
                );
            }
        }
    }

    fn fire(&mut self, i: usize, out: &mut Vec<Emitted>) {
        let fault = &mut self.faults[i];
        fault.fired = true;
        let action = fault.action.clone();
        let away_ms = fault.away_ms;
        self.watching.retain(|&w| w != i);
        self.strike(i, action, away_ms, out);
    }

    /// Plays scenario fault `i`'s `action` now (its first strike or a follow-up step) and
    /// queues the follow-ups it names.
    fn strike(
        &mut self,
        i: usize,
        action: Arc<dyn FaultAction>,
        away_ms: Option<u64>,
        out: &mut Vec<Emitted>,
    ) {
        let now = self.server.now_ms();
        let listening = self.listening_conns();
        let mut buf = Vec::new();
        let strike = action.strike(
            &mut Target {
                server: &mut self.server,
                calls: &self.calls,
                balancer: self.balancer.as_mut(),
                proxy: &mut self.proxy,
                notes: self.notes,
            },
            now,
            &mut buf,
        );
        out.push(Emitted::Fired(Box::new(FiredFault {
            at_ms: now,
            fault: Some(i),
            note: strike.note,
            conns: strike.conns.iter().map(|c| c.0).collect(),
            away_ms,
            client_effect: action.client_effect(),
            cut_a_listen: strike.conns.iter().any(|c| listening.contains(c)),
            missed: action.only_cuts() && strike.conns.is_empty(),
        })));
        for (delay_ms, next) in strike.then {
            self.thens.push((i, next));
            self.schedule(
                now.saturating_add(delay_ms),
                Scripted::Then(self.thens.len() - 1),
            );
        }
        self.route(&mut buf, out);
    }

    /// Moves the model's outputs to `out` in order, firing `AfterEvent` faults right after
    /// their event. Leaves `buf` empty.
    fn route(&mut self, buf: &mut Vec<Output>, out: &mut Vec<Emitted>) {
        let now = self.server.now_ms();
        for output in buf.drain(..) {
            self.proxy.saw(&output, now);
            let event = match &output {
                Output::Event { event, .. } => Some(*event),
                _ => None,
            };
            out.push(Emitted::Wire(output));
            let Some(event) = event else {
                continue;
            };
            let produced = self.server.ledger().event(event);
            let (stream, ordinal, payload) = (produced.stream, produced.ordinal, produced.payload);
            self.calls.on_event(payload, stream);
            if self.watching.is_empty() {
                continue;
            }
            let is_due = |engine: &Engine, i: usize| match engine.faults[i].trigger {
                ArmedTrigger::AfterEvent { n, on } => {
                    n == ordinal && engine.calls.matches(&engine.server, on, stream)
                }
                ArmedTrigger::At(_) | ArmedTrigger::Standing => false,
            };
            // Nearly every event fires nothing: asked first, without collecting.
            if !self.watching.iter().any(|&i| is_due(self, i)) {
                continue;
            }
            let due: Vec<usize> = self
                .watching
                .iter()
                .copied()
                .filter(|&i| is_due(self, i))
                .collect();
            for i in due {
                if !self.faults[i].fired {
                    self.fire(i, out);
                }
            }
        }
    }

    // ----------------------------------------------------------------------------------
    // The network: requests in, clients going away
    // ----------------------------------------------------------------------------------

    /// Hands one HTTP exchange to the model at `now` (after everything due before it).
    ///
    /// A POST body that arrives as bytes (the live server's) is parsed here, once: the
    /// engine's own questions (which workload call, which tool) and the model's dispatch
    /// all read the one parsed value. A body that does not parse goes on as bytes, for the
    /// model to answer with its parse error.
    pub fn handle(
        &mut self,
        conn: ConnId,
        mut request: HttpRequest,
        now: u64,
        out: &mut Vec<Emitted>,
    ) {
        self.advance_to(now, out);
        if let Some(response) = self.proxy.answer(now) {
            // The proxy answers; the server never sees the request.
            out.push(Emitted::Wire(Output::Respond {
                conn,
                response: Box::new(response),
            }));
            return;
        }
        if request.method == HttpMethod::Post
            && let RequestBody::Bytes(bytes) = &request.body
            && let Ok(value) = serde_json::from_slice::<Value>(bytes)
        {
            request.body = RequestBody::Json(value);
        }
        let call = self.calls.attribute(&request);
        let closes_mid_call = closes_stream_mid_call(&request);
        let jobs_before = self.server.ledger().jobs_end();
        let mut buf = std::mem::take(&mut self.buf);
        // One pick per request, in the engine's order (live requests come through one lock
        // in arrival order: the same order the simulator hands them over).
        let up = self.server.replicas_up();
        match self.balancer.as_mut().map(|b| b.pick(&request, up)) {
            Some(pick) => {
                self.server
                    .handle_routed(conn, request, pick.route, now, &mut buf);
                if let Some(cookie) = pick.set_cookie {
                    set_cookie_on(&mut buf, conn, cookie);
                }
            }
            None => self.server.handle(conn, request, now, &mut buf),
        }
        if let Some(k) = call {
            let answer = buf.iter().find_map(|o| match o {
                Output::Respond { conn: c, response } if *c == conn => Some(response),
                _ => None,
            });
            if let Some(response) = answer.filter(|r| r.status == 200) {
                let stream = match response.body {
                    ResponseBody::Sse(s) => Some(s),
                    _ => None,
                };
                let jobs_after = self.server.ledger().jobs_end();
                self.calls
                    .accepted(k, stream, (jobs_before..jobs_after).map(JobId));
            }
        }
        self.route(&mut buf, out);
        if closes_mid_call && self.server.stream_of(conn).is_some() {
            // SEP-1699 polling (the conformance suite's `test_reconnection`): the priming
            // event is out; the server ends the POST stream cleanly mid-call so that the
            // client polls. The job goes on; its result waits in the log for the resume.
            self.server
                .drop_connection(conn, EndMode::Close, now, &mut buf);
            self.route(&mut buf, out);
        }
        crate::put_back(&mut self.buf, buf);
    }

    /// The client (or the network) closed `conn`.
    pub fn disconnect(&mut self, conn: ConnId, now: u64, out: &mut Vec<Emitted>) {
        self.advance_to(now, out);
        self.proxy.gone(conn);
        let mut buf = std::mem::take(&mut self.buf);
        self.server.disconnect(conn, now, &mut buf);
        self.route(&mut buf, out);
        crate::put_back(&mut self.buf, buf);
    }

    /// The driver cut `conn` on its own account (a client that stopped reading); the
    /// ledger records it as the server's doing.
    pub fn cut_connection(
        &mut self,
        conn: ConnId,
        reason: faultline_model::CutReason,
        now: u64,
        out: &mut Vec<Emitted>,
    ) {
        self.advance_to(now, out);
        let mut buf = std::mem::take(&mut self.buf);
        self.server.cut_connection(conn, reason, now, &mut buf);
        self.route(&mut buf, out);
        crate::put_back(&mut self.buf, buf);
    }

    // ----------------------------------------------------------------------------------
    // Operator actions (the control API): recorded like faults, with no scenario index
    // ----------------------------------------------------------------------------------

    /// Cuts every open SSE connection, or one session's.
    pub fn drop_streams(
        &mut self,
        session: Option<&str>,
        mode: EndMode,
        now: u64,
        out: &mut Vec<Emitted>,
    ) -> Vec<ConnId> {
        self.advance_to(now, out);
        let conns = self.server.open_connections(session);
        let listening = self.listening_conns();
        let mut buf = Vec::new();
        for &conn in &conns {
            self.server.drop_connection(conn, mode, now, &mut buf);
        }
        let mode_name = match mode {
            EndMode::Close => "close",
            EndMode::Reset => "reset",
        };
        self.operator(
            format!("operator drop ({mode_name})"),
            &conns,
            &listening,
            out,
        );
        self.route(&mut buf, out);
        conns
    }

    /// Restarts the server process (`restart_persistence` decides what survives).
    pub fn restart(&mut self, now: u64, out: &mut Vec<Emitted>) {
        self.advance_to(now, out);
        let conns = self.server.open_connections(None);
        let listening = self.listening_conns();
        let keeps = self.server.knobs().restart_keeps();
        let mut buf = Vec::new();
        self.server.restart(now, &mut buf);
        self.operator(
            format!("operator restart ({keeps})"),
            &conns,
            &listening,
            out,
        );
        self.route(&mut buf, out);
    }

    fn operator(
        &mut self,
        note: String,
        conns: &[ConnId],
        listening: &[ConnId],
        out: &mut Vec<Emitted>,
    ) {
        out.push(Emitted::Fired(Box::new(FiredFault {
            at_ms: self.server.now_ms(),
            fault: None,
            note,
            conns: conns.iter().map(|c| c.0).collect(),
            away_ms: None,
            client_effect: None,
            cut_a_listen: conns.iter().any(|c| listening.contains(c)),
            missed: false,
        })));
    }

    /// The open connections that carry a standalone GET or a listen stream (taken before
    /// a fault cuts any, for [`FiredFault::cut_a_listen`]).
    fn listening_conns(&self) -> Vec<ConnId> {
        self.server
            .open_connections(None)
            .into_iter()
            .filter(|&conn| {
                self.server.stream_of(conn).is_some_and(|stream| {
                    self.server.ledger().stream(stream).kind != StreamKind::Request
                })
            })
            .collect()
    }

    /// Whether `sel` names `stream` (for drivers and tests).
    pub fn stream_matches(&self, sel: StreamSel, stream: StreamId) -> bool {
        self.calls.matches(&self.server, sel, stream)
    }
}

/// The earlier of two optional instants.
#[inline]
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The balancer's `Set-Cookie` goes on its answer to `conn` (the model answers every
/// request at once, so the answer is in `buf`).
fn set_cookie_on(buf: &mut [Output], conn: ConnId, cookie: String) {
    if let Some(response) = buf.iter_mut().find_map(|o| match o {
        Output::Respond { conn: c, response } if *c == conn => Some(response),
        _ => None,
    }) {
        response.set_cookie = Some(cookie);
    }
}

/// True for a POST whose single JSON-RPC message is a `tools/call` of a tool that wants its
/// stream closed mid-call (see `faultline_model::tools::closes_stream_mid_call`). Reads
/// the body [`Engine::handle`] parsed; a body still in bytes did not parse.
fn closes_stream_mid_call(request: &HttpRequest) -> bool {
    if request.method != HttpMethod::Post {
        return false;
    }
    match &request.body {
        RequestBody::Json(value) => {
            value.get("method").and_then(Value::as_str) == Some("tools/call")
                && value
                    .get("params")
                    .is_some_and(faultline_model::tools::closes_stream_mid_call)
        }
        RequestBody::Rpc(message) => {
            message.method == "tools/call"
                && message
                    .params
                    .as_ref()
                    .is_some_and(faultline_model::tools::closes_stream_mid_call)
        }
        RequestBody::Bytes(_) | RequestBody::Empty => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;
    use serde_json::json;

    fn bytes_post(session: Option<String>, body: &[u8]) -> HttpRequest {
        let mut request = HttpRequest::post(session, Value::Null);
        request.body = RequestBody::Bytes(body.to_vec());
        request
    }

    fn statuses(out: &[Emitted]) -> Vec<u16> {
        out.iter()
            .filter_map(|e| match e {
                Emitted::Wire(Output::Respond { response, .. }) => Some(response.status),
                _ => None,
            })
            .collect()
    }

    /// An engine without notes fires the same faults at the same times, with the same
    /// effect on the model, and leaves only their words out.
    #[test]
    fn without_notes_the_same_faults_fire_with_empty_notes() {
        let scenario = Scenario::parse(
            r#"Scenario(
                name: "t", summary: "t", seed: 1,
                server: (),
                client: (model: Naive),
                workload: [],
                faults: [
                    Restart(when: At("1s")),
                    Drop(when: At("2s"), mode: Reset),
                    Gc(when: At("3s")),
                ],
            )"#,
            "t.ron",
        )
        .expect("a valid scenario");
        let armed = crate::arm(&scenario, 1);
        let fired = |engine: Engine| {
            let mut engine = engine;
            let mut out = Vec::new();
            engine.advance_to(10_000, &mut out);
            let fired: Vec<(u64, Option<usize>, String)> = out
                .iter()
                .filter_map(|e| match e {
                    Emitted::Fired(f) => Some((f.at_ms, f.fault, f.note.clone())),
                    Emitted::Wire(_) => None,
                })
                .collect();
            (
                fired,
                serde_json::to_string(engine.server().ledger()).unwrap(),
            )
        };
        let (noted, ledger) = fired(Engine::new(scenario.server.clone(), &armed));
        let (quiet, quiet_ledger) =
            fired(Engine::new(scenario.server.clone(), &armed).without_notes());
        assert_eq!(noted.len(), 3, "{noted:?}");
        assert!(
            noted.iter().all(|(_, _, note)| !note.is_empty()),
            "{noted:?}"
        );
        assert!(noted[0].2.starts_with("server restart"), "{noted:?}");
        assert_eq!(noted[1].2, "drop (reset) of conn - [Any]", "{noted:?}");
        let times = |v: &[(u64, Option<usize>, String)]| -> Vec<(u64, Option<usize>)> {
            v.iter().map(|(t, f, _)| (*t, *f)).collect()
        };
        assert_eq!(times(&quiet), times(&noted));
        assert!(
            quiet.iter().all(|(_, _, note)| note.is_empty()),
            "{quiet:?}"
        );
        assert_eq!(quiet_ledger, ledger);
    }

    /// A body that arrives as bytes (the live server's) is parsed once by the engine and
    /// still serves both the engine's questions and the model: the `tools/call` is known
    /// as workload call 0 (its `AfterEvent` drop fires), and a body that is not JSON gets
    /// the model's parse error.
    #[test]
    fn a_bytes_body_is_parsed_once_for_the_engine_and_the_model() {
        let scenario = Scenario::parse(
            r#"Scenario(
                name: "t", summary: "t", seed: 1,
                server: (),
                client: (model: Naive),
                workload: [CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1s"))],
                faults: [Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Reset, stream: Call(0))],
            )"#,
            "t.ron",
        )
        .expect("a valid scenario");
        let armed = crate::arm(&scenario, 1);
        let mut engine = Engine::new(scenario.server.clone(), &armed);
        let mut out = Vec::new();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}});
        engine.handle(
            ConnId(1),
            bytes_post(None, init.to_string().as_bytes()),
            0,
            &mut out,
        );
        let session = out
            .iter()
            .find_map(|e| match e {
                Emitted::Wire(Output::Respond { response, .. }) => response.session_id.clone(),
                _ => None,
            })
            .expect("initialize answers with a session");
        let (name, arguments) = armed.calls[0].tool.wire_call(0);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": "p"}}});
        let mut request = bytes_post(Some(session.clone()), call.to_string().as_bytes());
        request.protocol_version = Some("2025-06-18".into());
        out.clear();
        engine.handle(ConnId(2), request, 0, &mut out);
        assert_eq!(statuses(&out), vec![200]);
        out.clear();
        engine.advance_to(10_000, &mut out);
        let fired: Vec<Option<usize>> = out
            .iter()
            .filter_map(|e| match e {
                Emitted::Fired(f) => Some(f.fault),
                _ => None,
            })
            .collect();
        assert_eq!(fired, vec![Some(0)], "the drop on Call(0) fired");
        out.clear();
        let mut garbage = bytes_post(Some(session), b"{\"jsonrpc\": \"2.0\", tools/call");
        garbage.protocol_version = Some("2025-06-18".into());
        engine.handle(ConnId(3), garbage, 10_000, &mut out);
        assert_eq!(statuses(&out), vec![400]);
    }
}
