//! The simulated world: one server model, one modelled client, a zero-latency network that
//! faults can cut, and the scheduler that drives them all on virtual time.
//!
//! Messages produced at one instant are processed in FIFO order before time moves on, so a
//! client's reaction to an event happens "at the same time" but strictly after it. A fault
//! triggered by an event runs right after that event reaches the client and before anything
//! else queued, which is what "drop after event 41" means on a real wire.

use std::collections::{BTreeSet, VecDeque};

use faultline_model::{
    ConnId, EndMode, HttpRequest, Ledger, Output, Payload, ResponseBody, Server,
};

use crate::client::{Client, ClientIo, Policy, WireEvent, WireKind};
use crate::client_record::{ClientRecord, Task};
use crate::scenario::{Fault, Scenario, StreamSel, Tool, Trigger, Work};
use crate::scheduler::Scheduler;
use crate::trace::{TraceEntry, TraceWhat};

const DEFAULT_HORIZON_MS: u64 = 24 * 3_600_000;

#[derive(Debug, Clone)]
enum Action {
    ClientWake(u64),
    Call(usize),
    Notify {
        item: usize,
        remaining: u64,
    },
    Fault(usize),
    /// The client's away window ended: send what it held back.
    ClientReturn,
}

/// A fault with its random choices made.
#[derive(Debug, Clone)]
struct ArmedFault {
    fault: Fault,
    after_event: Option<(u32, StreamSel)>,
    away_ms: Option<u64>,
    fired: bool,
}

#[derive(Debug)]
enum Message {
    ToClient(Output),
    /// Run fault `i` now (queued at the front, right after the event that triggered it).
    Fault(usize),
}

/// Everything a finished run leaves behind.
#[derive(Debug)]
pub struct RunResult {
    pub ledger: Ledger,
    pub record: ClientRecord,
    pub trace: Vec<TraceEntry>,
    pub end_ms: u64,
    /// The notify schedule and call times the seed chose, for the report.
    pub choices: Vec<String>,
}

pub struct World<'s> {
    scenario: &'s Scenario,
    server: Server,
    client: Client,
    scheduler: Scheduler<Action>,
    io: ClientIo,
    out: Vec<Output>,
    fifo: VecDeque<Message>,
    faults: Vec<ArmedFault>,
    notify_every: Vec<u64>,
    /// Conn -> the workload call whose POST it carried (for `StreamSel::Call`).
    call_of_conn: Vec<(ConnId, usize)>,
    away_until: u64,
    held_back: Vec<(ConnId, HttpRequest, Task)>,
    sends_seen: usize,
    deaths_seen: BTreeSet<u32>,
    errors_seen: usize,
    trace: Vec<TraceEntry>,
    record_trace: bool,
    now: u64,
    horizon: u64,
    choices: Vec<String>,
}

impl<'s> World<'s> {
    pub fn new(scenario: &'s Scenario, seed: u64, policy: Policy) -> Self {
        let mut scheduler = Scheduler::new(seed);
        let server_seed = scheduler.derive_seed();
        let server = Server::new(scenario.server.clone(), server_seed);
        let cfg = &scenario.client;
        let mut client = Client::new(
            policy,
            &cfg.protocol_version,
            cfg.reconnect_delay.ms(),
            cfg.standalone_stream,
        );
        let mut choices = Vec::new();
        let mut io = ClientIo::default();

        let start = cfg.start_at.pick(scheduler.rng());
        client.schedule_start(&mut io, start);
        let mut notify_every = Vec::new();
        for (i, work) in scenario.workload.iter().enumerate() {
            match work {
                Work::CallTool { at, tool, progress } => {
                    let at_ms = at.pick(scheduler.rng());
                    let tool = match tool {
                        Tool::LongJob { steps, interval } => {
                            let n = steps.pick(scheduler.rng());
                            choices.push(format!(
                                "call {} at {}: long_job {n} steps",
                                notify_every.len(),
                                faultline_model::DurationMs(at_ms)
                            ));
                            Tool::LongJob {
                                steps: crate::pick::PickCount::fixed(n),
                                interval: *interval,
                            }
                        }
                        other => other.clone(),
                    };
                    let index = client.plan_call(tool, *progress);
                    scheduler.schedule(at_ms, Action::Call(index));
                    notify_every.push(0);
                }
                Work::Notify { from, every, count } => {
                    let at_ms = from.pick(scheduler.rng());
                    let n = count.pick(scheduler.rng());
                    notify_every.push(every.ms());
                    if n > 0 {
                        scheduler.schedule(
                            at_ms,
                            Action::Notify {
                                item: i,
                                remaining: n,
                            },
                        );
                    }
                }
            }
        }
        let mut faults = Vec::new();
        for (i, fault) in scenario.faults.iter().enumerate() {
            let mut after_event = None;
            let away = match fault {
                Fault::Drop { away, .. } | Fault::Restart { away, .. } => {
                    away.map(|a| a.pick(scheduler.rng()))
                }
                _ => None,
            };
            match fault {
                Fault::Drop { when, .. } | Fault::Restart { when, .. } | Fault::Gc { when } => {
                    match when {
                        Trigger::At(t) => {
                            let at_ms = t.pick(scheduler.rng());
                            scheduler.schedule(at_ms, Action::Fault(i));
                        }
                        Trigger::AfterEvent { n, on } => {
                            let n = n.pick(scheduler.rng());
                            after_event = Some((u32::try_from(n).unwrap_or(u32::MAX), *on));
                        }
                    }
                }
                Fault::StaleTask { at, .. } => {
                    let at_ms = at.pick(scheduler.rng());
                    scheduler.schedule(at_ms, Action::Fault(i));
                }
            }
            faults.push(ArmedFault {
                fault: fault.clone(),
                after_event,
                away_ms: away,
                fired: false,
            });
        }
        let mut world = World {
            scenario,
            server,
            client,
            scheduler,
            io: ClientIo::default(),
            out: Vec::with_capacity(64),
            fifo: VecDeque::new(),
            faults,
            notify_every,
            call_of_conn: Vec::new(),
            away_until: 0,
            held_back: Vec::new(),
            sends_seen: 0,
            deaths_seen: BTreeSet::new(),
            errors_seen: 0,
            trace: Vec::new(),
            record_trace: true,
            now: 0,
            horizon: scenario.horizon.map_or(DEFAULT_HORIZON_MS, |h| h.ms()),
            choices,
        };
        world.absorb_client_io(io);
        world
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
            let (store, log) = self.server.state_summary();
            self.note(TraceWhat::State { store, log });
        }
    }

    /// Runs to completion (nothing left to do, or the horizon).
    pub fn run(mut self) -> RunResult {
        loop {
            let action_at = self.scheduler.peek_time();
            let server_at = self.server.next_due();
            let next = match (action_at, server_at) {
                (None, None) => break,
                (a, s) => a.into_iter().chain(s).min().expect("one is some"),
            };
            if next > self.horizon {
                break;
            }
            self.now = next;
            if server_at == Some(next) {
                self.server.advance(next, &mut self.out);
                self.pump();
                self.note_deaths();
                continue;
            }
            let (_, action) = self.scheduler.pop().expect("peeked");
            self.perform(action);
            self.pump();
            self.note_deaths();
        }
        RunResult {
            ledger: self.server.ledger().clone(),
            record: self.client.record.clone(),
            trace: self.trace,
            end_ms: self.now,
            choices: self.choices,
        }
    }

    fn perform(&mut self, action: Action) {
        let now = self.now;
        let mut io = self.take_io();
        match action {
            Action::ClientWake(token) => self.client.on_wake(&mut io, now, token),
            Action::Call(index) => self.client.on_call(&mut io, now, index),
            Action::Notify { item, remaining } => {
                if let Some(session) = self.client.session() {
                    self.server.notify(session, now, &mut self.out);
                }
                if remaining > 1 {
                    let every = self.notify_every[item];
                    self.scheduler.schedule(
                        now + every,
                        Action::Notify {
                            item,
                            remaining: remaining - 1,
                        },
                    );
                }
            }
            Action::Fault(i) => {
                self.absorb_client_io(io);
                self.pump();
                self.fire(i);
                return;
            }
            Action::ClientReturn => {
                if now >= self.away_until {
                    let held = std::mem::take(&mut self.held_back);
                    for (conn, request, task) in held {
                        self.deliver_to_server(conn, request, task, true);
                    }
                }
            }
        }
        self.absorb_client_io(io);
    }

    fn take_io(&mut self) -> ClientIo {
        ClientIo {
            next_conn: self.io.next_conn,
            ..ClientIo::default()
        }
    }

    /// Executes what the client asked for: closes, timers, sends (held back while away).
    fn absorb_client_io(&mut self, io: ClientIo) {
        self.io.next_conn = io.next_conn;
        for conn in io.closes {
            self.server.disconnect(conn, self.now, &mut self.out);
        }
        for (at, token) in io.wakes {
            self.scheduler.schedule(at, Action::ClientWake(token));
        }
        for (conn, request, task) in io.sends {
            if self.now < self.away_until {
                self.held_back.push((conn, request, task));
            } else {
                self.deliver_to_server(conn, request, task, false);
            }
        }
    }

    fn deliver_to_server(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        task: Task,
        deferred: bool,
    ) {
        if deferred {
            self.client.mark_sent(conn, self.now);
        }
        if self.record_trace {
            let rpc = match &request.body {
                faultline_model::RequestBody::Json(v) => {
                    v.get("method").and_then(|m| m.as_str()).map(str::to_string)
                }
                _ => None,
            };
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
            });
        }
        if let faultline_model::RequestBody::Json(body) = &request.body
            && body.get("method").and_then(|m| m.as_str()) == Some("tools/call")
            && let Some(key) = body
                .pointer("/params/_meta/idempotencyKey")
                .and_then(|k| k.as_str())
            && let Some(call) = key.strip_prefix("call-").and_then(|n| n.parse().ok())
        {
            self.call_of_conn.push((conn, call));
        }
        // Request and response are instantaneous: whatever the server has due first runs.
        self.server.handle(conn, request, self.now, &mut self.out);
    }

    /// Moves server outputs to the client until nothing is left at this instant.
    fn pump(&mut self) {
        loop {
            for output in self.out.drain(..) {
                self.fifo.push_back(Message::ToClient(output));
            }
            let Some(message) = self.fifo.pop_front() else {
                break;
            };
            match message {
                Message::Fault(i) => self.fire(i),
                Message::ToClient(output) => self.deliver_to_client(output),
            }
            self.note_deaths();
        }
    }

    fn note_deaths(&mut self) {
        if !self.record_trace {
            return;
        }
        let ledger = self.server.ledger();
        let mut died = Vec::new();
        for (k, entry) in ledger.sessions.iter().enumerate() {
            if let Some((at, cause)) = entry.died
                && !self.deaths_seen.contains(&(k as u32))
            {
                died.push((k as u32, at, entry.wire_id.clone(), cause));
            }
        }
        for (k, at, session, cause) in died {
            self.deaths_seen.insert(k);
            self.trace.push(TraceEntry {
                at_ms: at,
                what: TraceWhat::SessionDied { session, cause },
            });
            self.note_state();
        }
    }

    fn deliver_to_client(&mut self, output: Output) {
        let now = self.now;
        let mut io = self.take_io();
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
                self.client.on_response(&mut io, now, conn, &response);
                self.note_errors();
            }
            Output::Event {
                conn,
                event,
                id,
                retry_ms,
            } => {
                let replay = self
                    .server
                    .ledger()
                    .sends
                    .get(self.sends_seen)
                    .is_some_and(|s| s.replay);
                self.sends_seen += 1;
                let produced = self.server.ledger().event(event).clone();
                let kind = self.wire_kind(produced.payload);
                let wire = WireEvent {
                    event,
                    id,
                    retry_ms,
                    kind,
                };
                let fate = self.client.on_event(&mut io, now, conn, &wire);
                if self.record_trace {
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
                self.check_event_triggers(conn, produced.ordinal, produced.stream);
            }
            Output::End { conn, how } => {
                self.note(TraceWhat::End { conn: conn.0, how });
                self.client.on_end(&mut io, now, conn, how);
                self.note_errors();
            }
        }
        self.absorb_client_io(io);
    }

    fn note_errors(&mut self) {
        if !self.record_trace {
            return;
        }
        let errors: Vec<String> = self.client.record.errors[self.errors_seen..]
            .iter()
            .map(|e| e.error.to_string())
            .collect();
        self.errors_seen = self.client.record.errors.len();
        for error in errors {
            self.note(TraceWhat::ClientError { error });
        }
    }

    fn wire_kind(&self, payload: Payload) -> WireKind {
        let ledger = self.server.ledger();
        match payload {
            Payload::Priming => WireKind::Priming,
            Payload::Progress { job, .. } => WireKind::Progress {
                token: ledger.jobs[job.0 as usize]
                    .progress_token
                    .as_ref()
                    .and_then(|t| t.as_str())
                    .map(str::to_string),
            },
            Payload::ToolResult { job } => WireKind::Response {
                request_id: ledger.jobs[job.0 as usize].request_id.as_u64(),
            },
            Payload::Notification { .. } => WireKind::Notification,
            Payload::Response { message } => WireKind::Response {
                request_id: ledger.messages[message as usize]
                    .get("id")
                    .and_then(|v| v.as_u64()),
            },
        }
    }

    fn stream_matches(
        &self,
        sel: StreamSel,
        conn: ConnId,
        stream: faultline_model::StreamId,
    ) -> bool {
        match sel {
            StreamSel::Any => true,
            StreamSel::Standalone => {
                self.server.ledger().stream(stream).kind == faultline_model::StreamKind::Standalone
            }
            StreamSel::Call(k) => {
                self.call_of_conn
                    .iter()
                    .any(|&(c, call)| c == conn && call == k)
                    || self
                        .client
                        .open_streams()
                        .iter()
                        .any(|&(c, call)| c == conn && call == Some(k))
            }
        }
    }

    fn check_event_triggers(
        &mut self,
        conn: ConnId,
        ordinal: u32,
        stream: faultline_model::StreamId,
    ) {
        for i in 0..self.faults.len() {
            let armed = &self.faults[i];
            if armed.fired {
                continue;
            }
            if let Some((n, sel)) = armed.after_event
                && n == ordinal
                && self.stream_matches(sel, conn, stream)
            {
                self.faults[i].fired = true;
                self.fifo.push_front(Message::Fault(i));
            }
        }
    }

    fn fire(&mut self, i: usize) {
        self.faults[i].fired = true;
        let now = self.now;
        let fault = self.faults[i].fault.clone();
        let away = self.faults[i].away_ms;
        if let Some(away) = away {
            self.away_until = self.away_until.max(now + away);
            self.scheduler.schedule(now + away, Action::ClientReturn);
        }
        let away_note = away
            .map(|a| format!("; client away for {}", faultline_model::DurationMs(a)))
            .unwrap_or_default();
        match fault {
            Fault::Drop { mode, stream, .. } => {
                let open = self.client.open_streams();
                let conns: Vec<ConnId> = open
                    .into_iter()
                    .filter(|&(_, call)| match stream {
                        StreamSel::Any => true,
                        StreamSel::Standalone => call.is_none(),
                        StreamSel::Call(k) => call == Some(k),
                    })
                    .map(|(c, _)| c)
                    .collect();
                let list: Vec<String> = conns.iter().map(|c| c.0.to_string()).collect();
                self.note(TraceWhat::Fault {
                    fault: format!(
                        "drop ({}) of conn {} [{stream:?}]{away_note}",
                        mode_name(mode),
                        if list.is_empty() {
                            "-".into()
                        } else {
                            list.join(", ")
                        }
                    ),
                });
                for conn in conns {
                    // The middlebox cuts both directions: the server sees the client go
                    // away, the client sees its stream end.
                    self.server.disconnect(conn, now, &mut self.out);
                    self.fifo
                        .push_front(Message::ToClient(Output::End { conn, how: mode }));
                }
                self.note_state();
            }
            Fault::Restart { .. } => {
                self.note(TraceWhat::Fault {
                    fault: format!(
                        "server restart (persistence: {:?}){away_note}",
                        self.scenario.server.restart_persistence
                    ),
                });
                self.server.restart(now, &mut self.out);
                self.note_state();
            }
            Fault::Gc { .. } => {
                self.note(TraceWhat::Fault {
                    fault: "gc sweep".into(),
                });
                self.server.gc_now(now, &mut self.out);
                self.note_state();
            }
            Fault::StaleTask {
                holds_session_from, ..
            } => {
                self.note(TraceWhat::Fault {
                    fault: format!(
                        "stale task sends with the session id held at {holds_session_from}"
                    ),
                });
                let mut io = self.take_io();
                self.client
                    .on_stale_task(&mut io, now, holds_session_from.ms());
                self.absorb_client_io(io);
            }
        }
    }
}

fn mode_name(mode: EndMode) -> &'static str {
    match mode {
        EndMode::Close => "close",
        EndMode::Reset => "reset",
    }
}
