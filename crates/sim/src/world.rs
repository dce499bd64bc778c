//! The simulated world: one engine (the server model with the scenario's server-side half
//! armed on it), one modelled client, a zero-latency network between them, and the
//! scheduler that drives the client's side on virtual time.
//!
//! The network is a [`Link`]: in simulation the engine is called directly; `run --live`
//! puts a real HTTP server and real sockets in between (`faultline-live`) and this same
//! loop drives them, so both runs make the same decisions in the same order.
//!
//! Messages produced at one instant are processed in FIFO order before time moves on, so a
//! client's reaction to an event happens "at the same time" but strictly after it. At one
//! instant the engine's work (the model's due work, then scripted notifications and
//! faults) goes before the client's (calls, timers, returning from an away window).

use std::collections::{BTreeSet, VecDeque};

use faultline_model::{ConnId, HttpRequest, Ledger, Output, Payload, ResponseBody, SessionKey};
use faultline_scenario::{Armed, ArmedTrigger, ClientEffect, Emitted, FiredFault, Scenario};

use crate::client::{ClientIo, Policy, WireEvent, WireKind};
use crate::client_record::{ClientRecord, Task};
use crate::client_side::ClientSide;
use crate::link::Link;
use crate::scheduler::Scheduler;
use crate::trace::{TraceEntry, TraceWhat};

const DEFAULT_HORIZON_MS: u64 = 24 * 3_600_000;

/// What the client's side of the world does at a virtual time.
#[derive(Debug, Clone, Copy)]
enum Action {
    ClientWake(u64),
    Call(usize),
    /// The client's away window ended: send what it held back.
    ClientReturn,
}

/// Everything a finished run leaves behind.
#[derive(Debug)]
pub struct RunResult {
    pub ledger: Ledger,
    pub record: ClientRecord,
    pub trace: Vec<TraceEntry>,
    pub end_ms: u64,
    /// The call sizes and times the seed chose, for the report.
    pub choices: Vec<faultline_scenario::ArmedChoice>,
}

pub struct World<L: Link> {
    link: L,
    client: ClientSide,
    scheduler: Scheduler<Action>,
    /// What the client asks for in a callback, executed right after it
    /// ([`absorb_client_io`](Self::absorb_client_io)); its buffers are kept, emptied,
    /// between callbacks.
    io: ClientIo,
    /// What the engine emitted and the client has not been handed yet, in order.
    emitted: Vec<Emitted>,
    /// The batch being handed over (the previous contents of `emitted`); what it causes
    /// the engine to emit lands in `emitted` and is handed over after it. Both vectors
    /// are kept between steps, so a step moves each output once and allocates nothing.
    batch: Vec<Emitted>,
    away_until: u64,
    held_back: Vec<(ConnId, HttpRequest, Task)>,
    sends_seen: usize,
    deaths_seen: BTreeSet<u32>,
    errors_seen: usize,
    trace: Vec<TraceEntry>,
    record_trace: bool,
    now: u64,
    horizon: u64,
    choices: Vec<faultline_scenario::ArmedChoice>,
    /// The scenario's faults that fire at a moment, and those of them that fired.
    faults_planned: Vec<usize>,
    faults_fired: BTreeSet<usize>,
    /// Bit `i`: a strike of `faults[i]` fired and cut nothing (one that also met the
    /// client is not unmet, whatever this says).
    faults_cut_nothing: u64,
    /// `calls: OneAtATime`: the calls whose time came while an earlier one was still
    /// waiting, in the order their times came; each goes once every call before it ended.
    waiting_turn: VecDeque<usize>,
    calls_one_at_a_time: bool,
}

impl<L: Link> World<L> {
    /// A world playing `armed` (the scenario with its ranges picked) over `link`.
    pub fn new(scenario: &Scenario, armed: &Armed, policy: Policy, link: L) -> Self {
        let cfg = &scenario.client;
        let calls_one_at_a_time = policy.calls_one_at_a_time;
        let mut client = ClientSide::of(cfg, policy);
        client.record_mut().applied.reserve(armed.events_hint());
        client.record_mut().requests.reserve(armed.requests_hint());
        let mut scheduler = Scheduler::new();
        let mut io = ClientIo::default();
        client.schedule_start(&mut io, armed.client_start_ms);
        for call in &armed.calls {
            let index = client.plan_call(call.tool.clone(), call.progress);
            scheduler.schedule(call.at_ms, Action::Call(index));
        }
        let mut world = World {
            link,
            client,
            scheduler,
            io: ClientIo::default(),
            emitted: Vec::with_capacity(64),
            batch: Vec::with_capacity(64),
            away_until: 0,
            held_back: Vec::new(),
            sends_seen: 0,
            deaths_seen: BTreeSet::new(),
            errors_seen: 0,
            trace: Vec::new(),
            record_trace: true,
            now: 0,
            horizon: scenario.horizon.map_or(DEFAULT_HORIZON_MS, |h| h.ms()),
            choices: armed.choices.clone(),
            faults_planned: armed
                .faults
                .iter()
                .enumerate()
                .filter(|(_, f)| !matches!(f.trigger, ArmedTrigger::Standing))
                .map(|(i, _)| i)
                .collect(),
            faults_fired: BTreeSet::new(),
            faults_cut_nothing: 0,
            waiting_turn: VecDeque::new(),
            calls_one_at_a_time,
        };
        world.io = io;
        world.absorb_client_io();
        world
    }

    /// Whether a call the application made is still waiting: neither answered nor failed.
    fn a_call_is_waiting(&self) -> bool {
        self.client.record().calls.iter().any(|c| {
            c.asked_at_ms.is_some() && c.completed_at_ms.is_none() && c.failed_at_ms.is_none()
        })
    }

    /// `calls: OneAtATime`: makes the calls held back whose turn has come, now (what they
    /// send joins this callback's).
    fn make_calls_in_turn(&mut self) {
        while !self.a_call_is_waiting()
            && let Some(index) = self.waiting_turn.pop_front()
        {
            self.client.on_call(&mut self.io, self.now, index);
            self.note_errors();
        }
    }

    /// Skip building the trace (benchmarks and the explorer only need verdicts).
    pub fn without_trace(mut self) -> Self {
        self.record_trace = false;
        self
    }

    fn note(&mut self, what: TraceWhat) {
        if self.record_trace {
            self.trace.push(TraceEntry {
                at_ms: self.now,
                what,
            });
        }
    }

    fn note_state(&mut self) {
        if self.record_trace {
            let (store, log) = self.link.with_engine(|e| e.server().state_summary());
            self.note(TraceWhat::State { store, log });
        }
    }

    /// Runs to completion (nothing left to do, the horizon, or a broken link).
    pub fn run(mut self) -> (RunResult, L) {
        let mut cut_at_horizon = false;
        loop {
            if self.link.broken() {
                break;
            }
            let action_at = self.scheduler.peek_time();
            let engine_at = self.link.next_due();
            let next = match (action_at, engine_at) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => {
                    // A request the server will never answer (a `Hang`) keeps its client
                    // waiting: nothing else happens until the horizon ends the run.
                    cut_at_horizon = self
                        .link
                        .with_engine(|e| e.server().open_hangs().next().is_some());
                    break;
                }
            };
            if next > self.horizon {
                cut_at_horizon = true;
                break;
            }
            self.now = next;
            if engine_at == Some(next) {
                self.link.advance_to(next, &mut self.emitted);
            } else {
                let (_, action) = self.scheduler.pop().expect("peeked");
                self.perform(action);
            }
            self.pump();
            self.note_deaths();
        }
        // Work the link stepped over (event-log expiry) would have been the last steps.
        let end_ms = match self.link.last_unstepped_due(self.horizon) {
            Some(t) if !self.link.broken() => self.now.max(t),
            _ => self.now,
        };
        let ledger = self.link.final_ledger();
        let mut record = self.client.into_record();
        record.horizon_cut_ms = cut_at_horizon.then_some(self.horizon);
        record.quiet_at_ms = (!cut_at_horizon).then_some(end_ms);
        let faults_unmet =
            faultline_scenario::unmet_mask(self.faults_planned.iter().copied(), |i| {
                self.faults_fired.contains(&i)
            });
        record.exercise = faultline_verdicts::untested::Exercise {
            calls_planned: record.calls.len(),
            faults_planned: self.faults_planned.len(),
            faults_fired: self.faults_fired.len(),
            faults_unmet,
            faults_cut_nothing: faults_unmet & self.faults_cut_nothing,
            // A modelled client can do everything and speaks the scenario's era.
            ..Default::default()
        };
        let result = RunResult {
            ledger,
            record,
            trace: self.trace,
            end_ms,
            choices: self.choices,
        };
        (result, self.link)
    }

    fn perform(&mut self, action: Action) {
        let now = self.now;
        match action {
            // A timer or a call may raise an error (a timeout, a client that closed
            // itself): it is traced when it happens, not with the next thing the server
            // sends.
            Action::ClientWake(token) => {
                self.client.on_wake(&mut self.io, now, token);
                self.note_errors();
            }
            Action::Call(index) => {
                if self.calls_one_at_a_time
                    && (!self.waiting_turn.is_empty() || self.a_call_is_waiting())
                {
                    self.waiting_turn.push_back(index);
                    return;
                }
                self.client.on_call(&mut self.io, now, index);
                self.note_errors();
            }
            Action::ClientReturn => {
                if now >= self.away_until {
                    let held = std::mem::take(&mut self.held_back);
                    for (conn, request, task) in held {
                        // The client may take a request back as it leaves (what it was
                        // based on went stale while it was away).
                        if self.client.may_leave(&mut self.io, now, conn) {
                            self.deliver_to_server(conn, request, task, true);
                        } else {
                            self.link.forgo(conn);
                        }
                    }
                }
            }
        }
        self.absorb_client_io();
    }

    /// Executes what the client asked for in its last callback (`self.io`), after letting
    /// a client whose calls are all done leave (`when_done: Exit`): closes, timers, sends
    /// (held back while away). The buffers go back into `self.io`, emptied:
    /// a callback that asks for nothing (most events) costs three length checks, and one
    /// that sends allocates nothing.
    fn absorb_client_io(&mut self) {
        if !self.waiting_turn.is_empty() {
            self.make_calls_in_turn();
        }
        self.client.leave_if_done(&mut self.io, self.now);
        if !self.io.closes.is_empty() {
            let mut closes = std::mem::take(&mut self.io.closes);
            for conn in closes.drain(..) {
                self.link.disconnect(conn, self.now, &mut self.emitted);
            }
            faultline_scenario::put_back(&mut self.io.closes, closes);
        }
        if !self.io.wakes.is_empty() {
            let mut wakes = std::mem::take(&mut self.io.wakes);
            for (at, token) in wakes.drain(..) {
                self.scheduler.schedule(at, Action::ClientWake(token));
            }
            faultline_scenario::put_back(&mut self.io.wakes, wakes);
        }
        if !self.io.sends.is_empty() {
            let mut sends = std::mem::take(&mut self.io.sends);
            for (conn, request, task) in sends.drain(..) {
                if self.now < self.away_until {
                    self.held_back.push((conn, request, task));
                } else {
                    self.deliver_to_server(conn, request, task, false);
                }
            }
            faultline_scenario::put_back(&mut self.io.sends, sends);
        }
    }

    fn deliver_to_server(
        &mut self,
        conn: ConnId,
        mut request: HttpRequest,
        task: Task,
        deferred: bool,
    ) {
        // Where a live run connects from: a `ClientAddress` balancer hashes the same
        // address in both.
        request.peer = Some(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
        if deferred {
            self.client.mark_sent(conn, self.now);
        }
        if self.record_trace {
            let rpc = request.body.rpc_method().map(str::to_string);
            let http = match request.method {
                faultline_model::HttpMethod::Post => "POST",
                faultline_model::HttpMethod::Get => "GET",
                faultline_model::HttpMethod::Delete => "DELETE",
                faultline_model::HttpMethod::Other => "OTHER",
            };
            self.note(TraceWhat::Request {
                conn: conn.0,
                task,
                http: http.to_string(),
                rpc,
                session: request.session_id.clone(),
                last_event_id: request.last_event_id.clone(),
                deferred,
                route: None,
            });
        }
        let noted = self.trace.len().checked_sub(1);
        // Request and response are instantaneous: whatever the engine has due first runs.
        self.link.handle(conn, request, self.now, &mut self.emitted);
        if let Some(noted) = noted.filter(|_| self.record_trace) {
            self.note_route(noted, conn);
        }
    }

    /// Copies the balancer's choice for the request just handled into its trace entry:
    /// the ledger's answer on that connection, at this instant (a fleet's only; a single
    /// server's answers carry no route).
    fn note_route(&mut self, noted: usize, conn: ConnId) {
        let now = self.now;
        let route = self.link.with_engine(|e| {
            e.server()
                .ledger()
                .answers
                .iter()
                .rev()
                .take_while(|a| a.at_ms == now)
                .find(|a| a.conn == conn)
                .and_then(|a| a.route)
        });
        if let Some(TraceWhat::Request { route: slot, .. }) =
            self.trace.get_mut(noted).map(|e| &mut e.what)
        {
            *slot = route;
        }
    }

    /// Hands what the engine emitted to the client until nothing is left at this instant,
    /// first in, first out: everything of one batch before what it caused.
    fn pump(&mut self) {
        let mut batch = std::mem::take(&mut self.batch);
        while !self.emitted.is_empty() {
            std::mem::swap(&mut batch, &mut self.emitted);
            let mut items = batch.drain(..);
            for item in items.by_ref() {
                match item {
                    Emitted::Fired(fired) => self.on_fired(*fired),
                    Emitted::Wire(output) => {
                        if !self.link.receive(&output) {
                            // The live link broke (its error is in the link): stop here.
                            self.emitted.clear();
                            break;
                        }
                        self.deliver_to_client(output);
                    }
                }
                self.note_deaths();
            }
            drop(items);
        }
        faultline_scenario::put_back(&mut self.batch, batch);
    }

    /// Called after every step and every output: inlined, so that an untraced run pays
    /// one test of a flag for it.
    #[inline(always)]
    fn note_deaths(&mut self) {
        if self.record_trace {
            self.note_deaths_traced();
        }
    }

    fn note_deaths_traced(&mut self) {
        let died: Vec<_> = self.link.with_engine(|e| {
            e.server()
                .ledger()
                .sessions
                .iter()
                .enumerate()
                .filter_map(|(k, entry)| {
                    entry
                        .died
                        .filter(|_| !self.deaths_seen.contains(&(k as u32)))
                        .map(|(at, cause)| (k as u32, at, entry.wire_id.clone(), cause))
                })
                .collect()
        });
        for (k, at, session, cause) in died {
            self.deaths_seen.insert(k);
            self.trace.push(TraceEntry {
                at_ms: at,
                what: TraceWhat::SessionDied { session, cause },
            });
            self.note_state();
        }
    }

    fn on_fired(&mut self, fired: FiredFault) {
        let now = self.now;
        if let Some(i) = fired.fault
            && !fired.missed
        {
            self.faults_fired.insert(i);
        } else if let Some(i) = fired.fault {
            self.faults_cut_nothing |= faultline_scenario::fault_bit(i);
        }
        if let Some(away) = fired.away_ms {
            self.away_until = self.away_until.max(now + away);
            self.scheduler.schedule(now + away, Action::ClientReturn);
        }
        if self.record_trace {
            let away_note = fired
                .away_ms
                .map(|a| format!("; client away for {}", faultline_model::DurationMs(a)))
                .unwrap_or_default();
            self.note(TraceWhat::Fault {
                fault: format!("{}{away_note}", fired.note),
            });
        }
        match fired.client_effect {
            Some(ClientEffect::StaleTask {
                holds_session_from_ms,
            }) => {
                self.client
                    .on_stale_task(&mut self.io, now, holds_session_from_ms);
                self.absorb_client_io();
            }
            None => self.note_state(),
        }
    }

    fn deliver_to_client(&mut self, output: Output) {
        let now = self.now;
        match output {
            Output::Respond { conn, response } => {
                if self.record_trace {
                    let stream = match response.body {
                        ResponseBody::Sse(s) => Some(s.0),
                        _ => None,
                    };
                    self.note(TraceWhat::Response {
                        conn: conn.0,
                        status: response.status,
                        session: response.session_id.clone(),
                        stream,
                    });
                }
                self.client.on_response(&mut self.io, now, conn, &response);
                self.note_errors();
            }
            Output::Event {
                conn,
                event,
                id,
                retry_ms,
            } => {
                let sends_seen = self.sends_seen;
                self.sends_seen += 1;
                // The client needs only the event's kind; the replay flag and the copy of
                // the ledger entry are for the trace (untraced: benchmarks, the explorer).
                let traced = self.record_trace;
                let (seen, kind, spelled) = self.link.with_engine(|e| {
                    let ledger = e.server().ledger();
                    let produced = ledger.event(event);
                    let seen = traced.then(|| {
                        let replay = ledger.sends.get(sends_seen).is_some_and(|s| s.replay);
                        (replay, produced.clone())
                    });
                    let tagged = e.server().fleet().is_multi();
                    (
                        seen,
                        wire_kind(ledger, produced.payload, produced.session, tagged),
                        e.server().spells_event_id(event),
                    )
                });
                // The client knows an event's id only if the wire spells it.
                let wire = WireEvent {
                    event,
                    id: id.filter(|_| spelled),
                    retry_ms,
                    kind,
                };
                let fate = self.client.on_event(&mut self.io, now, conn, &wire);
                if let Some((replay, produced)) = seen {
                    self.note(TraceWhat::Event {
                        conn: conn.0,
                        id,
                        stream: produced.stream.0,
                        session: produced.session.0,
                        generation: produced.generation,
                        payload: produced.payload,
                        replay,
                        fate,
                    });
                }
                self.note_errors();
            }
            Output::End { conn, how } => {
                self.note(TraceWhat::End { conn: conn.0, how });
                self.client.on_end(&mut self.io, now, conn, how);
                self.note_errors();
            }
            // A keep-alive comment: bytes on the wire that an SSE parser skips. Keep-alives
            // are sent on 2026-07-28 listen streams only, where no modelled client has a
            // read timeout: they change nothing on the client's side. (A read timeout
            // would have to hear them, should 2025 streams ever carry them.)
            Output::Comment { conn } => self.note(TraceWhat::KeepAlive { conn: conn.0 }),
        }
        self.absorb_client_io();
    }

    /// Called after every output handed to the client: inlined like
    /// [`note_deaths`](Self::note_deaths).
    #[inline(always)]
    fn note_errors(&mut self) {
        if self.record_trace {
            self.note_errors_traced();
        }
    }

    fn note_errors_traced(&mut self) {
        // An era-probing client takes back the errors of an era it left (`era_probe`): the
        // record can shrink, and what was traced stays traced.
        let errors: Vec<String> = self
            .client
            .record()
            .errors
            .get(self.errors_seen..)
            .unwrap_or_default()
            .iter()
            .map(|e| e.error.to_string())
            .collect();
        self.errors_seen = self.client.record().errors.len();
        for error in errors {
            self.note(TraceWhat::ClientError { error });
        }
    }
}

/// What kind of message an event carries, as the client sees it.
/// `tagged`: the server is a fleet, whose notifications carry their session's tag.
fn wire_kind(ledger: &Ledger, payload: Payload, session: SessionKey, tagged: bool) -> WireKind {
    match payload {
        Payload::Priming => WireKind::Priming,
        Payload::Progress { .. } => WireKind::Progress,
        Payload::ToolResult { job } => WireKind::Response {
            request_id: ledger.jobs[job.0 as usize].request_id.as_u64(),
        },
        // A fleet tags each notification with its session's tag (`_meta`), which a
        // client reads off the message: here, off the ledger.
        Payload::Notification { .. } => WireKind::Notification {
            owner: tagged.then(|| faultline_model::session_tag(&ledger.session(session).wire_id)),
        },
        Payload::ListenAck { .. } => WireKind::ListenAck,
        Payload::ListenEnded { .. } => WireKind::ListenEnded,
        Payload::ListChanged { change, .. } | Payload::SessionListChanged { change } => {
            WireKind::ListChanged {
                list: ledger.list_change(change).list,
            }
        }
        Payload::Response { message } => WireKind::Response {
            request_id: ledger.messages[message as usize]
                .get("id")
                .and_then(|v| v.as_u64()),
        },
    }
}
