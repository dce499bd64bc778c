//! A client that finds the server's era by probing (`era: Auto`): it sends
//! `server/discover` first, then becomes the 2026-07-28 client or, when the answer means
//! "fall back", the 2025 one, which sends `initialize`.
//!
//! The spec's rule (<https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>,
//! and the transport page's backwards-compatibility section:
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>):
//! a result, or a 400 carrying one of the 2026-07-28 error codes (-32020 header mismatch,
//! -32021 missing capability, -32022 unsupported version), means the server speaks
//! 2026-07-28; anything else (a plain-text 400, 400 -32000 or -32600, 404, 405) means fall
//! back to `initialize`. Clients should cache the era per origin and probe again when the
//! cache fails. The guarded client (`era_fallback_by_spec`, `reprobe_on_failure`) does
//! both. The naive one is rmcp's Auto mode before
//! <https://github.com/modelcontextprotocol/rust-sdk/issues/1040> was fixed: it falls back
//! only on -32601, so a legacy server answering 400 -32000 is taken for a modern one; and,
//! like the clients that cached the era for hours, it never probes again before
//! `era_cache` has passed, so a server that changed era (a deploy: `RollEra`) keeps
//! failing it.
//!
//! When the guarded client probes again and finds the other era, the failures of the era
//! it leaves are caught here: their errors are taken back out of the record and their calls
//! re-run by the client of the new era (an SDK's auto mode retrying transparently). It
//! switches only when the era in use has answered nothing since the failure: a server that
//! speaks both eras keeps a client in the one that works, with its calls in flight. The
//! probe itself is an ordinary request in the record.

use faultline_model::{
    ConnId, EndMode, HttpRequest, HttpResponse, Outcome, ResponseBody, RpcAnswer,
};
use faultline_scenario::{ClientConfig, Tool};
use serde_json::json;

use crate::client::{CallState, Client, ClientIo, Fate, Policy, WireEvent, plan_call_into};
use crate::client_record::{ClientRecord, RequestRecord, Task};
use crate::client_side::{legacy_client, modern_client};
use crate::modern_client::{MODERN_VERSION, ModernClient};

/// The methods the probe needs of either era's client to hand a run over from one to the
/// other, written once: both clients keep `calls`, `record`, `next_request_id` and
/// `next_token` under those names. Expanded inside each client's `impl` block, where its
/// fields are visible.
macro_rules! era_handover {
    () => {
        /// A fresh JSON-RPC request id, for a request sent on this client's behalf (the era
        /// probe of [`crate::era_probe`]).
        pub(crate) fn take_request_id(&mut self) -> u64 {
            self.next_request_id += 1;
            self.next_request_id
        }

        /// (next request id, next wake token): where a client taking over must go on from.
        pub(crate) fn counters(&self) -> (u64, u64) {
            (self.next_request_id, self.next_token)
        }

        /// Which calls are done.
        pub(crate) fn calls_done(&self) -> Vec<bool> {
            self.calls.iter().map(|c| c.done).collect()
        }

        /// Takes over from another client (the era probe switching eras): its record, its
        /// counters (so ids, wake tokens and the record's order of actions are never
        /// reused) and the calls it finished.
        pub(crate) fn adopt(
            &mut self,
            record: crate::client_record::ClientRecord,
            counters: (u64, u64),
            done: &[bool],
        ) {
            self.seq = record
                .requests
                .iter()
                .flat_map(|r| [Some(r.sent_seq), r.answered_seq])
                .flatten()
                .max()
                .unwrap_or(0);
            self.record = record;
            (self.next_request_id, self.next_token) = counters;
            for (state, &done) in self.calls.iter_mut().zip(done) {
                state.done = done;
            }
        }
    };
}
pub(crate) use era_handover;

/// The 2026-07-28 error codes that mean "this server speaks 2026-07-28" on a probe's 400.
const MODERN_ERROR_CODES: [i64; 3] = [-32020, -32021, -32022];

/// JSON-RPC "method not found": the only answer the naive client falls back on.
const METHOD_NOT_FOUND: i64 = -32601;

/// The era a probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Modern,
    Legacy,
}

/// Which client the probe settled on.
#[derive(Debug)]
enum Chosen {
    Undecided,
    Legacy(Box<Client>),
    Modern(Box<ModernClient>),
}

/// Calls the same method on the client chosen, if any.
macro_rules! chosen {
    ($self:expr, $c:ident => $call:expr) => {
        match &mut $self.chosen {
            Chosen::Undecided => None,
            Chosen::Legacy($c) => Some($call),
            Chosen::Modern($c) => Some($call),
        }
    };
}

#[derive(Debug)]
pub struct AutoClient {
    policy: Policy,
    config: ClientConfig,
    era_cache_ms: u64,
    chosen: Chosen,
    /// The workload's calls (tool, progress), in file order.
    planned: Vec<(Tool, bool)>,
    /// Which calls the workload has asked for so far.
    asked: Vec<bool>,
    /// The probe in flight.
    probe: Option<ConnId>,
    /// When the era in use was found.
    probed_ms: u64,
    /// How many of the record's errors were already looked at.
    errors_seen: usize,
    /// When the failure that set off the probe in flight happened.
    failed_ms: Option<u64>,
    /// This client's own wake tokens count down from the top, the chosen client's up from 1.
    next_token: u64,
    start_token: Option<u64>,
    /// The record until a client is chosen (then the chosen client's).
    record: ClientRecord,
    calls: Vec<CallState>,
    next_request_id: u64,
    seq: u64,
}

impl AutoClient {
    pub fn new(config: &ClientConfig, policy: Policy, era_cache_ms: u64) -> Self {
        AutoClient {
            policy,
            config: config.clone(),
            era_cache_ms,
            chosen: Chosen::Undecided,
            planned: Vec::new(),
            asked: Vec::new(),
            probe: None,
            probed_ms: 0,
            errors_seen: 0,
            failed_ms: None,
            next_token: u64::MAX,
            start_token: None,
            record: ClientRecord::default(),
            calls: Vec::new(),
            next_request_id: 0,
            seq: 0,
        }
    }

    pub fn record(&self) -> &ClientRecord {
        match &self.chosen {
            Chosen::Undecided => &self.record,
            Chosen::Legacy(c) => &c.record,
            Chosen::Modern(c) => &c.record,
        }
    }

    pub fn record_mut(&mut self) -> &mut ClientRecord {
        match &mut self.chosen {
            Chosen::Undecided => &mut self.record,
            Chosen::Legacy(c) => &mut c.record,
            Chosen::Modern(c) => &mut c.record,
        }
    }

    pub fn into_record(self) -> ClientRecord {
        match self.chosen {
            Chosen::Undecided => self.record,
            Chosen::Legacy(c) => c.record,
            Chosen::Modern(c) => c.record,
        }
    }

    pub fn schedule_start(&mut self, io: &mut ClientIo, at: u64) {
        let token = self.next_token;
        self.next_token -= 1;
        self.start_token = Some(token);
        io.wakes.push((at, token));
    }

    pub fn plan_call(&mut self, tool: Tool, progress: bool) -> usize {
        self.planned.push((tool.clone(), progress));
        self.asked.push(false);
        plan_call_into(&mut self.calls, &mut self.record, tool, progress)
    }

    pub fn mark_sent(&mut self, conn: ConnId, now: u64) {
        if let Some(i) = self.record().requests.iter().position(|r| r.conn == conn) {
            self.record_mut().requests[i].at_ms = now;
        }
        chosen!(self, c => c.mark_sent(conn, now));
    }

    /// See [`crate::client_side::ClientSide::may_leave`].
    pub fn may_leave(&mut self, io: &mut ClientIo, now: u64, conn: ConnId) -> bool {
        match &mut self.chosen {
            Chosen::Modern(c) => c.may_leave(io, now, conn),
            Chosen::Undecided | Chosen::Legacy(_) => true,
        }
    }

    pub fn on_call(&mut self, io: &mut ClientIo, now: u64, call: usize) {
        self.asked[call] = true;
        chosen!(self, c => c.on_call(io, now, call));
        self.after(io, now);
    }

    pub fn on_wake(&mut self, io: &mut ClientIo, now: u64, token: u64) {
        if self.start_token == Some(token) {
            self.start_token = None;
            self.send_probe(io, now);
            return;
        }
        chosen!(self, c => c.on_wake(io, now, token));
        self.after(io, now);
    }

    pub fn on_response(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        response: &HttpResponse,
    ) {
        if self.probe == Some(conn) {
            self.probe = None;
            self.on_probe_answer(io, now, conn, response);
            return;
        }
        chosen!(self, c => c.on_response(io, now, conn, response));
        self.after(io, now);
    }

    pub fn on_event(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        event: &WireEvent,
    ) -> Fate {
        let fate = chosen!(self, c => c.on_event(io, now, conn, event)).unwrap_or(Fate::Ignored);
        self.after(io, now);
        fate
    }

    pub fn on_end(&mut self, io: &mut ClientIo, now: u64, conn: ConnId, how: EndMode) {
        if self.probe == Some(conn) {
            return;
        }
        chosen!(self, c => c.on_end(io, now, conn, how));
        self.after(io, now);
    }

    /// The next number in the record's order of actions (after everything recorded).
    fn next_seq(&mut self) -> u64 {
        let last = self
            .record()
            .requests
            .iter()
            .flat_map(|r| [Some(r.sent_seq), r.answered_seq])
            .flatten()
            .max()
            .unwrap_or(0);
        self.seq = self.seq.max(last) + 1;
        self.seq
    }

    /// Sends `server/discover` as a 2026-07-28 request.
    fn send_probe(&mut self, io: &mut ClientIo, now: u64) {
        let rid = match chosen!(self, c => c.take_request_id()) {
            Some(rid) => rid,
            None => {
                self.next_request_id += 1;
                self.next_request_id
            }
        };
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "faultline-modelled-client", "version": "0"},
        });
        let body = json!({"jsonrpc": "2.0", "id": rid, "method": "server/discover",
            "params": {"_meta": meta}});
        let mut request = HttpRequest::post(None, body);
        request.protocol_version = Some(MODERN_VERSION.into());
        request.mcp_method = Some("server/discover".into());
        let conn = io.conn();
        let sent_seq = self.next_seq();
        self.record_mut().requests.push(RequestRecord {
            at_ms: now,
            conn,
            task: Task::Main,
            http: "POST",
            rpc: Some("server/discover".into()),
            session: None,
            last_event_id: None,
            status: None,
            sent_seq,
            answered_seq: None,
            call: None,
        });
        self.probe = Some(conn);
        io.sends.push((conn, request, Task::Main));
    }

    /// The era `response` to the probe says the server speaks, read by this policy.
    fn read_probe(&self, response: &HttpResponse) -> Found {
        let code = match &response.body {
            ResponseBody::Json(body) => body.get("error").and_then(|e| e["code"].as_i64()),
            ResponseBody::Answer(RpcAnswer {
                outcome: Outcome::Error { code, .. },
                ..
            })
            | ResponseBody::Refusal { code, .. } => Some(*code),
            _ => None,
        };
        let result = response.body.has_rpc_result();
        if self.policy.era_fallback_by_spec {
            let modern = (response.status == 200 && result)
                || (response.status == 400
                    && code.is_some_and(|c| MODERN_ERROR_CODES.contains(&c)));
            if modern { Found::Modern } else { Found::Legacy }
        } else if code == Some(METHOD_NOT_FOUND) {
            Found::Legacy
        } else {
            Found::Modern
        }
    }

    fn on_probe_answer(
        &mut self,
        io: &mut ClientIo,
        now: u64,
        conn: ConnId,
        response: &HttpResponse,
    ) {
        let seq = self.next_seq();
        if let Some(r) = self
            .record_mut()
            .requests
            .iter_mut()
            .find(|r| r.conn == conn)
        {
            r.status = Some(response.status);
            r.answered_seq = Some(seq);
        }
        let found = self.read_probe(response);
        self.probed_ms = now;
        let same = matches!(
            (&self.chosen, found),
            (Chosen::Legacy(_), Found::Legacy) | (Chosen::Modern(_), Found::Modern)
        );
        if same || self.era_in_use_works(conn) {
            // The era did not change, or the one in use still works (a server that speaks
            // both): the failure stands, and calls in flight stay where they are.
            self.failed_ms = None;
            self.errors_seen = self.record().errors.len();
            return;
        }
        self.switch(io, now, found);
    }

    /// Whether the era in use answered a request 2xx since the failure that set off the
    /// probe on `probe`: then the failure was not the era's (a dropped stream, a restart),
    /// and switching would strand what the client has in flight in it (a call's stream
    /// its successor would not know of: the 2026-07-28 client sends no idempotency key).
    fn era_in_use_works(&self, probe: ConnId) -> bool {
        let Some(failed) = self.failed_ms else {
            return false;
        };
        !matches!(self.chosen, Chosen::Undecided)
            && self.record().requests.iter().any(|r| {
                r.conn != probe
                    && r.at_ms >= failed
                    && r.status.is_some_and(|s| (200..300).contains(&s))
                    && r.rpc.as_deref() != Some("server/discover")
            })
    }

    /// Builds the client of `found` and hands it everything: the record, the counters,
    /// the calls finished, and the calls asked for and not finished (to send now).
    fn switch(&mut self, io: &mut ClientIo, now: u64, found: Found) {
        let mut next = match found {
            Found::Legacy => Chosen::Legacy(Box::new(legacy_client(&self.config, self.policy))),
            Found::Modern => Chosen::Modern(Box::new(modern_client(&self.config, self.policy))),
        };
        let previous = std::mem::replace(&mut self.chosen, Chosen::Undecided);
        let (mut record, counters, done) = match previous {
            Chosen::Undecided => (
                std::mem::take(&mut self.record),
                (self.next_request_id, 0),
                vec![false; self.planned.len()],
            ),
            Chosen::Legacy(c) => {
                let (counters, done) = (c.counters(), c.calls_done());
                (c.record, counters, done)
            }
            Chosen::Modern(c) => {
                let (counters, done) = (c.counters(), c.calls_done());
                (c.record, counters, done)
            }
        };
        if let Some(failed) = self.failed_ms.take() {
            // The era left behind failed these calls: caught here, re-run below. A typed
            // resumption error stays: it is the client's own word that something of the old
            // era's session was lost (a standalone stream cut before its first id, a cursor
            // refused), and what the new era re-runs does not bring that back.
            record
                .errors
                .retain(|e| e.at_ms < failed || e.error.is_typed());
            for call in &mut record.calls {
                if call.failed_at_ms.is_some_and(|t| t >= failed) {
                    call.failed_at_ms = None;
                }
            }
        }
        self.chosen = next_with(&mut next, &self.planned, record, counters, &done);
        for (call, &finished) in done.iter().enumerate() {
            if self.asked[call] && !finished {
                chosen!(self, c => c.on_call(io, now, call));
            }
        }
        chosen!(self, c => c.schedule_start(io, now));
        self.errors_seen = self.record().errors.len();
    }

    /// After the chosen client acted: a new error is a failure of the era in use, which
    /// sets off a probe when the policy says so or the cached era has expired.
    fn after(&mut self, io: &mut ClientIo, now: u64) {
        let errors = &self.record().errors;
        if errors.len() <= self.errors_seen || self.probe.is_some() {
            return;
        }
        let first = errors[self.errors_seen].at_ms;
        let expired = now >= self.probed_ms.saturating_add(self.era_cache_ms);
        if self.policy.reprobe_on_failure || expired {
            self.failed_ms = Some(first);
            self.send_probe(io, now);
        } else {
            self.errors_seen = errors.len();
        }
    }
}

/// `next` with its calls planned and the state handed over.
fn next_with(
    next: &mut Chosen,
    planned: &[(Tool, bool)],
    record: ClientRecord,
    counters: (u64, u64),
    done: &[bool],
) -> Chosen {
    let mut chosen = std::mem::replace(next, Chosen::Undecided);
    match &mut chosen {
        Chosen::Undecided => {}
        Chosen::Legacy(c) => {
            for (tool, progress) in planned {
                c.plan_call(tool.clone(), *progress);
            }
            c.adopt(record, counters, done);
        }
        Chosen::Modern(c) => {
            for (tool, progress) in planned {
                c.plan_call(tool.clone(), *progress);
            }
            c.adopt(record, counters, done);
        }
    }
    chosen
}
