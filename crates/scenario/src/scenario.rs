//! The scenario file: a field incident written down as a lesson, in RON.
//!
//! A scenario says what the server is (knobs), who talks to it (client model and
//! workload), what goes wrong and when (faults), and what the oracle must conclude
//! (`expect`). Unknown fields are rejected and every error names the file, line and column,
//! because a typo in a TTL silently changes which incident you are looking at.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use faultline_model::{
    DurationMs, EndMode, Era, FleetKnobs, ListName, ListenEnd, PositiveDurationMs, ServerKnobs,
};
use serde::{Deserialize, Serialize};

use crate::pick::{PickCount, PickDuration};
use crate::ron_error;
use crate::source_map::{self, TextPosition};
use faultline_verdicts::VerdictKind;

use crate::client_habits::ClientHabits;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// One or two sentences: the lesson.
    pub summary: String,
    #[serde(default)]
    pub seed: u64,
    /// The server's knobs; `profile: "NAME"` starts them from an SDK profile's (see
    /// `server_block`).
    #[serde(default, deserialize_with = "crate::server_block::deserialize")]
    pub server: ServerKnobs,
    /// How many replicas of the server stand behind one address, how the load balancer
    /// spreads requests over them and what they share. Default: one replica.
    #[serde(default, skip_serializing_if = "FleetKnobs::is_default")]
    pub fleet: FleetKnobs,
    #[serde(default)]
    pub client: ClientConfig,
    #[serde(default)]
    pub workload: Vec<Work>,
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// Stop simulating at this virtual time even if work remains (a client that
    /// reconnects forever would otherwise never stop). Default: 24h.
    #[serde(default)]
    pub horizon: Option<PositiveDurationMs>,
    /// What the oracle must (and must not) conclude, per client model.
    #[serde(default)]
    pub expect: BTreeMap<ClientModel, Expectation>,
}

/// Which modelled client library talks to the server.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub enum ClientModel {
    /// Behaves as the clients in the reproduced incidents: skips ids `<= cursor`, trusts a 200 on GET,
    /// retries a 404 three times, lets other tasks keep the old session id.
    #[default]
    Naive,
    /// Applies the resumption guards (capability gating, contiguity check, liveness probe,
    /// one shared session handle) and raises typed resumption errors.
    Guarded,
}

impl ClientModel {
    pub fn name(self) -> &'static str {
        match self {
            ClientModel::Naive => "naive",
            ClientModel::Guarded => "guarded",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "naive" => Some(ClientModel::Naive),
            "guarded" => Some(ClientModel::Guarded),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClientConfig {
    pub model: ClientModel,
    /// When the client sends `initialize`.
    pub start_at: PickDuration,
    /// The `protocolVersion` the client asks for.
    pub protocol_version: String,
    /// Delay before reconnecting a dropped stream when the server sent no `retry:`.
    pub reconnect_delay: DurationMs,
    /// Whether the client opens the standalone GET stream after initializing (a 2025
    /// client's; a 2026-07-28 client has no standalone stream and ignores it).
    pub standalone_stream: bool,
    /// Which revision the client speaks: the 2025 session transport (`Legacy`) or the
    /// stateless 2026-07-28 one (`Modern`). Written only when it is `Modern`.
    #[serde(skip_serializing_if = "ClientEra::is_legacy")]
    pub era: ClientEra,
    /// A client that works from a tools list: it calls `tools/list` and calls tools only
    /// from a list it holds. A 2026-07-28 client opens `subscriptions/listen` for
    /// `toolsListChanged` and caches the list with its `ttlMs`; a 2025 one hears of changes
    /// on its standalone GET stream. Written only when true.
    #[serde(skip_serializing_if = "is_false")]
    pub lists_tools: bool,
    /// (2025 client) The naive client works with a server that assigns no session, as the
    /// 2025 spec allows (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>).
    /// Without it the naive client is a gateway that requires `Mcp-Session-Id`
    /// (<https://github.com/baruchiro/paperless-mcp/issues/154>); the guarded client always
    /// works sessionless. Written only when true.
    #[serde(skip_serializing_if = "is_false")]
    pub accepts_sessionless: bool,
    /// (2026-07-28 client) Run job tools as tasks of the tasks extension: declare it, keep
    /// the task id, poll `tasks/get`. Written only when set.
    #[serde(skip_serializing_if = "is_false")]
    pub use_tasks: bool,
    /// The field client's habits on top of the naive preset (reconnect budget, what it
    /// does after a 404, timeouts, ...): see [`ClientHabits`]. The guarded client is the
    /// reference and ignores them. Written only when some habit is set.
    #[serde(skip_serializing_if = "ClientHabits::is_empty")]
    pub habits: ClientHabits,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The protocol revision a modelled client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ClientEra {
    /// 2025-03-26 to 2025-11-25: `initialize`, `Mcp-Session-Id`, resumable SSE streams.
    #[default]
    Legacy,
    /// 2026-07-28: no session, no `initialize`; every POST carries its protocol version
    /// and capabilities in `_meta` and repeats its method in `Mcp-Method`/`Mcp-Name`; a
    /// request's SSE stream cannot be resumed.
    Modern,
    /// Either, found by probing: a `server/discover` first, then the 2026-07-28 client or
    /// (on the answers that mean "fall back") the 2025 one. The era found is kept for
    /// `era_cache` (the policy says whether a failure re-probes sooner), as the versioning
    /// page asks clients to cache it per origin
    /// (<https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>).
    Auto { era_cache: DurationMs },
}

impl ClientEra {
    pub fn is_legacy(&self) -> bool {
        *self == ClientEra::Legacy
    }

    /// Whether the client can speak 2026-07-28 (it may, probing, end up on 2025).
    pub fn may_be_modern(&self) -> bool {
        *self != ClientEra::Legacy
    }
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            model: ClientModel::Naive,
            start_at: PickDuration::fixed(DurationMs::ZERO),
            protocol_version: "2025-11-25".into(),
            reconnect_delay: DurationMs::from_secs(1),
            standalone_stream: true,
            era: ClientEra::Legacy,
            lists_tools: false,
            accepts_sessionless: false,
            use_tasks: false,
            habits: ClientHabits::default(),
        }
    }
}

/// The tool a workload call invokes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Tool {
    Echo {
        text: String,
    },
    LongJob {
        steps: PickCount,
        interval: DurationMs,
    },
    /// `place_order`, a non-idempotent tool served on the 2026-07-28 path: `steps` steps
    /// `interval` apart, committing its order at `commit_step` (default: the last step).
    /// The order key is the call's own (`call-k`), so a re-issue names the same order.
    PlaceOrder {
        steps: u32,
        interval: DurationMs,
        #[serde(default)]
        commit_step: Option<u32>,
    },
}

impl Tool {
    /// The `tools/call` name and arguments this tool is called with on the wire as
    /// workload call `call` (`steps` as picked: call it on an armed tool). The modelled
    /// clients send exactly this, and the engine recognises a real client's call to a
    /// workload tool by it. Only `place_order` reads `call`: its order key is `call-k`.
    pub fn wire_call(&self, call: usize) -> (&'static str, serde_json::Value) {
        match self {
            Tool::Echo { text } => ("echo", serde_json::json!({ "text": text })),
            Tool::LongJob { steps, interval } => (
                "long_job",
                serde_json::json!({ "steps": steps.lo, "interval_ms": interval.ms() }),
            ),
            Tool::PlaceOrder {
                steps,
                interval,
                commit_step,
            } => {
                let mut args = serde_json::json!({
                    "order": format!("call-{call}"),
                    "steps": steps,
                    "interval_ms": interval.ms(),
                });
                if let Some(c) = commit_step {
                    args["commit_step"] = serde_json::json!(c);
                }
                ("place_order", args)
            }
        }
    }

    /// Whether calling the tool again does no harm: what a guarded client asks before it
    /// re-issues a call whose answer it lost. The model's `tools/list` says the same
    /// (`place_order` carries `annotations.idempotentHint: false`).
    pub fn idempotent(&self) -> bool {
        !matches!(self, Tool::PlaceOrder { .. })
    }

    /// Whether the tool runs as a job whose answer streams (and can be cut).
    pub fn streams(&self) -> bool {
        !matches!(self, Tool::Echo { .. })
    }
}

/// What the client (and the server's application) do when nothing goes wrong.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Work {
    /// The client calls a tool (with a progress token unless `progress: false`).
    CallTool {
        at: PickDuration,
        tool: Tool,
        #[serde(default = "yes")]
        progress: bool,
    },
    /// The server emits `count` notifications on the client's standalone stream, the first
    /// at `from`, then one every `every`.
    Notify {
        from: PickDuration,
        every: DurationMs,
        count: PickCount,
    },
    /// Another client of the fleet, played by the engine on the model (no HTTP): it
    /// initializes at `at` and listens, and the server emits `count` notifications on its
    /// standalone stream, the first at `at`, then one every `every`. `Notify` never goes
    /// to a tenant.
    Tenant {
        at: PickDuration,
        every: DurationMs,
        count: PickCount,
    },
}

fn yes() -> bool {
    true
}

/// When a fault fires.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Trigger {
    /// At a virtual time.
    At(PickDuration),
    /// Right after the client has been sent the `n`-th event (1-based, counting every event
    /// produced on that stream) of a stream matching `on`.
    AfterEvent {
        n: PickCount,
        #[serde(default)]
        on: StreamSel,
    },
}

/// Which of the client's streams a fault concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum StreamSel {
    #[default]
    Any,
    /// The standalone GET stream.
    Standalone,
    /// The stream answering workload call number `k` (0-based, in file order).
    Call(usize),
}

/// What goes wrong.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Fault {
    /// The network (a load balancer's idle timeout, a flaky link) cuts the client's open
    /// streams matching `stream`, gracefully (`Close`) or not (`Reset`). The client then
    /// stays away for `away` before it may send anything again.
    Drop {
        when: Trigger,
        mode: EndMode,
        #[serde(default)]
        stream: StreamSel,
        #[serde(default)]
        away: Option<PickDuration>,
    },
    /// The server process restarts; `restart_persistence` decides what survives.
    Restart {
        when: Trigger,
        #[serde(default)]
        away: Option<PickDuration>,
    },
    /// The server's sweeper runs now, removing everything past its TTL.
    Gc { when: Trigger },
    /// Another task of the client sends `tools/call echo` with the session id it
    /// remembered at `holds_session_from` (the guarded client's tasks share one handle).
    StaleTask {
        at: PickDuration,
        holds_session_from: DurationMs,
    },
    /// The network cuts the 2026-07-28 request stream answering workload call `call`
    /// (a reset), at a time or right after its `n`-th progress event. Such a stream
    /// cannot be resumed: the server ends the call as `on_stream_cut` says. The client
    /// then stays away for `away`.
    CutCall {
        call: usize,
        at: CutAt,
        #[serde(default)]
        away: Option<PickDuration>,
    },
    /// Replica `replica` of the fleet (counted from 0) crashes and stays down for `down`:
    /// its connections are reset, its jobs die, and its in-memory sessions and logs go
    /// the way `restart_persistence` says. The balancer fails its pinned traffic over.
    ReplicaDown {
        when: Trigger,
        replica: u8,
        down: DurationMs,
    },
    /// A deploy restarts the fleet's replicas one at a time: replica 0 crashes for `down`
    /// when the fault fires, replica 1 `every` later, and so on, each as a `ReplicaDown`
    /// (its in-memory sessions and logs go the way `restart_persistence` says). With
    /// `to_era`, each replica comes back speaking that era (an SDK upgrade or rollback), so
    /// the fleet speaks both eras until the last step.
    RollingDeploy {
        when: Trigger,
        every: DurationMs,
        down: DurationMs,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to_era: Option<Era>,
    },
    /// The load balancer forgets its pins: cookies it set name nothing, hashes re-salt.
    StickyLost { when: Trigger },
    /// The fleet is scaled to `to` replicas (1 to 16). A shrink removes the highest
    /// replicas for good (a down that never ends: their connections reset, their jobs
    /// killed, what they held in memory lost); a growth adds empty replicas. The balancer
    /// picks among the new set from then on.
    Scale { when: Trigger, to: u8 },
    /// The server's application changes `list` (default: tools) at `at`, publishing
    /// `list_changed` to the 2026-07-28 listen streams open then (`notify: true`) or
    /// silently. A listen stream that is down then never hears of it. On a fleet,
    /// `on_replica: Some(r)` has one replica publish it (a change made through one
    /// process); with `notifications: SameReplica` only the listens it holds hear of it.
    ChangeList {
        at: PickDuration,
        #[serde(default = "tools_list")]
        list: ListName,
        notify: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on_replica: Option<u8>,
    },
    /// The client's 2026-07-28 `subscriptions/listen` streams end: the network resets them
    /// (`end: Reset`, the default), or the server ends them with the listen's `complete`
    /// result (`Complete`) or with `notifications/cancelled` (`Cancelled`), the two
    /// graceful ends the spec disagrees on
    /// (<https://github.com/modelcontextprotocol/modelcontextprotocol/issues/3348>).
    /// Nothing is replayed to a new listen. The client then stays away for `away`.
    DropListen {
        when: Trigger,
        #[serde(default, skip_serializing_if = "ListenEnd::is_reset")]
        end: ListenEnd,
        #[serde(default)]
        away: Option<PickDuration>,
    },
    /// A proxy between client and server (a load balancer, an ingress) resets any
    /// 2026-07-28 listen stream on which no bytes passed for `cut_after`: no event, no
    /// keep-alive comment. In force for the whole run. A server whose `listen_keepalive`
    /// is shorter keeps its listens; without it a quiet listen is cut at its last bytes
    /// plus `cut_after` (<https://github.com/modelcontextprotocol/go-sdk/pull/1232>).
    IdleProxy { cut_after: DurationMs },
    /// The server's 2026-07-28 task store is purged: every task id is unknown from now on
    /// and running task work stops.
    PurgeTasks { when: Trigger },
    /// A proxy that resets any SSE response (2025 standalone GET, request stream, resumed
    /// GET, or a 2026-07-28 listen) on which no bytes passed for `cut_after`. In force for
    /// the whole run.
    IdleProxySse { cut_after: DurationMs },
    /// The reverse proxy in front of the server answers every request `502 Bad Gateway`
    /// (plain text, no JSON-RPC) from `when` for `lasting`; the requests never reach the
    /// server, and open streams are left alone. `status` names another answer of the
    /// proxy's own (a 4xx or 5xx): Traefik answers `404 page not found` while the
    /// container behind a route is recreated
    /// (<https://github.com/anthropics/claude-code/issues/94273>), and a 404 reads as a
    /// dead session where a 502 reads as an outage. Written only when it is not 502, so
    /// the fault keeps its name and its older scenarios their bytes.
    Proxy502 {
        when: Trigger,
        lasting: DurationMs,
        #[serde(default = "bad_gateway", skip_serializing_if = "is_bad_gateway")]
        status: u16,
    },
    /// A deploy that changes which protocol eras the server speaks: a restart (as
    /// `Restart`, `restart_persistence` deciding what survives) after which the `era`
    /// knob is `to`. The client then stays away for `away`.
    RollEra {
        when: Trigger,
        to: Era,
        #[serde(default)]
        away: Option<PickDuration>,
    },
}

fn tools_list() -> ListName {
    ListName::Tools
}

/// When a `CutCall` fires.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum CutAt {
    /// At a virtual time (a call whose stream is not open then is not cut).
    At(PickDuration),
    /// Right after the call's `n`-th progress event (1-based) is put on the wire.
    AfterProgress(PickCount),
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Expectation {
    pub must: Vec<VerdictKind>,
    pub must_not: Vec<VerdictKind>,
}

/// A check's sentence, and the list item it is about (`("faults", 1)`), if any.
type CheckError = (String, Option<(&'static str, usize)>);

/// The sentence for a fault whose stream selector names a call the workload lacks.
fn missing_call(fault: usize, call: usize, calls: usize) -> String {
    format!(
        "faults[{fault}]: Call({call}) names a call the workload does not have (it has {calls}; calls count from 0 in file order)"
    )
}

/// A scenario file that could not be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: file.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read the scenario: {e}"),
        })?;
        Scenario::parse(&text, &file)
    }

    /// Parses scenario text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        if source_map::is_blank(text) {
            return Err(ScenarioError {
                file: file.to_string(),
                line: 0,
                column: 0,
                message: "the file is empty: a scenario is `Scenario(name: \"...\", summary: \"...\", ...)`".into(),
            });
        }
        // `Some(...)` may be left out around an optional value (`away: "2s"`): habits and
        // other optional fields read as what they are.
        let scenario: Scenario = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| {
                let mut at = TextPosition {
                    line: e.span.start.line,
                    column: e.span.start.col,
                };
                // ron notices a missing field of the scenario at its closing parenthesis, the
                // end of the file: point at the `Scenario(` that lacks it instead.
                if let ron::Error::MissingStructField {
                    outer: Some(outer), ..
                } = &e.code
                    && outer == "Scenario"
                    && let Some(open) = source_map::struct_open(text, "Scenario")
                {
                    at = open;
                }
                ScenarioError {
                    file: file.to_string(),
                    line: at.line,
                    column: at.column,
                    message: ron_error::explain(&e.code, text, at),
                }
            })?;
        scenario.check().map_err(|(message, part)| {
            let at = part.and_then(|(field, index)| source_map::list_item(text, field, index));
            ScenarioError {
                file: file.to_string(),
                line: at.map_or(0, |a| a.line),
                column: at.map_or(0, |a| a.column),
                message,
            }
        })?;
        Ok(scenario)
    }

    /// The checks [`Scenario::parse`] makes once the text is read, for a scenario built in
    /// code (the swarm's draws): what serde cannot see field by field. A draw is checked
    /// here rather than written out and parsed back (a seed's run otherwise spent a
    /// fifth of its time printing and reading RON); that every draw reads back as written
    /// is a property test (`crates/sim/tests/properties.rs`).
    pub fn validate(&self) -> Result<(), String> {
        self.check().map_err(|(message, _)| message)
    }

    /// Checks what serde cannot see field by field. An error names the list item it is
    /// about (`("faults", 1)`), so that the caller can point at its line and column.
    fn check(&self) -> Result<(), CheckError> {
        self.server
            .validate()
            .map_err(|e| (format!("server.{e}"), None))?;
        self.fleet
            .validate()
            .map_err(|e| (format!("fleet.{e}"), None))?;
        if self.name.trim().is_empty() {
            return Err(("name: give the scenario a name".into(), None));
        }
        let calls = self
            .workload
            .iter()
            .filter(|w| matches!(w, Work::CallTool { .. }))
            .count();
        self.check_modern(calls)?;
        if let Some(horizon) = self.horizon {
            // A call the run ends before is never asked: it would test nothing, and a
            // reader of the file would take it for part of the run.
            for (i, work) in self.workload.iter().enumerate() {
                if let Work::CallTool { at, .. } = work
                    && at.lo.ms() >= horizon.ms()
                {
                    return Err((
                        format!(
                            "workload[{i}]: CallTool at {} is at or after the horizon ({}): the run ends before the call is made (move it earlier or the horizon later)",
                            at.lo, horizon
                        ),
                        Some(("workload", i)),
                    ));
                }
            }
        }
        if let Some(sdk) = self.client.habits.like {
            sdk.fits(self.client.era)
                .map_err(|e| (format!("client.habits.like: {e}"), None))?;
        }
        for (i, fault) in self.faults.iter().enumerate() {
            if let Fault::ChangeList {
                on_replica: Some(replica),
                ..
            } = fault
                && *replica >= self.fleet.replicas
            {
                return Err((
                    format!(
                        "faults[{i}]: ChangeList on_replica names replica {replica}, but the fleet has {} (replicas count from 0)",
                        self.fleet.replicas
                    ),
                    Some(("faults", i)),
                ));
            }
            if let Fault::ReplicaDown { replica, .. } = fault
                && *replica >= self.fleet.replicas
            {
                return Err((
                    format!(
                        "faults[{i}]: ReplicaDown names replica {replica}, but the fleet has {} (replicas count from 0)",
                        self.fleet.replicas
                    ),
                    Some(("faults", i)),
                ));
            }
            if let Fault::RollingDeploy { every, down, .. } = fault {
                let problem = if self.fleet.replicas < 2 {
                    Some(format!(
                        "RollingDeploy needs a fleet, but this one has {} replica (set fleet.replicas to 2 or more)",
                        self.fleet.replicas
                    ))
                } else if every.ms() == 0 {
                    Some("RollingDeploy every: \"0s\" takes every replica down at once; a rolling deploy spaces them (give every > 0)".to_string())
                } else if down.ms() == 0 {
                    Some("RollingDeploy down: \"0s\" restarts nothing (give down > 0)".to_string())
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err((format!("faults[{i}]: {problem}"), Some(("faults", i))));
                }
            }
            if let Fault::Scale { to, .. } = fault {
                let problem = if self.fleet.replicas < 2 {
                    Some(format!(
                        "Scale needs a fleet, but this one has {} replica (set fleet.replicas to 2 or more)",
                        self.fleet.replicas
                    ))
                } else if *to == 0 {
                    Some("Scale to: 0 leaves no replica to answer (give to: 1 or more)".to_string())
                } else if *to > faultline_model::MAX_REPLICAS {
                    Some(format!(
                        "Scale to: {to} is out of range; a fleet has 1 to {} replicas",
                        faultline_model::MAX_REPLICAS
                    ))
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err((format!("faults[{i}]: {problem}"), Some(("faults", i))));
                }
            }
            let crate::FaultWhen::Trigger(when) = fault.when() else {
                continue;
            };
            if let Trigger::AfterEvent { n, on } = when {
                if n.lo == 0 {
                    return Err((
                        format!("faults[{i}]: AfterEvent counts from 1; n: 0 never fires"),
                        Some(("faults", i)),
                    ));
                }
                if let StreamSel::Call(k) = on
                    && *k >= calls
                {
                    return Err((missing_call(i, *k, calls), Some(("faults", i))));
                }
            }
            if let Fault::Drop {
                stream: StreamSel::Call(k),
                ..
            } = fault
                && *k >= calls
            {
                return Err((missing_call(i, *k, calls), Some(("faults", i))));
            }
        }
        for (i, work) in self.workload.iter().enumerate() {
            if let Work::Notify { every, .. } | Work::Tenant { every, .. } = work
                && every.ms() == 0
            {
                return Err((
                    format!(
                        "workload[{i}]: every: \"0s\" would emit all notifications at one instant; use a positive period"
                    ),
                    Some(("workload", i)),
                ));
            }
        }
        Ok(())
    }

    /// What only a 2026-07-28 client can do (`place_order`, `CutCall`), and what it
    /// cannot (a standalone stream's notifications, another task's session id).
    fn check_modern(&self, calls: usize) -> Result<(), CheckError> {
        let modern = self.client.era == ClientEra::Modern;
        let workload_calls: Vec<(&Tool, bool)> = self
            .workload
            .iter()
            .filter_map(|w| match w {
                Work::CallTool { tool, progress, .. } => Some((tool, *progress)),
                Work::Notify { .. } | Work::Tenant { .. } => None,
            })
            .collect();
        if self.client.use_tasks && !modern {
            return Err((
                "client: use_tasks is the 2026-07-28 tasks extension; set era: Modern too".into(),
                None,
            ));
        }
        for (i, work) in self.workload.iter().enumerate() {
            match work {
                Work::CallTool {
                    tool:
                        Tool::PlaceOrder {
                            steps, commit_step, ..
                        },
                    ..
                } => {
                    if !modern {
                        return Err((
                            format!(
                                "workload[{i}]: place_order is served on the 2026-07-28 path only; set client: (era: Modern)"
                            ),
                            Some(("workload", i)),
                        ));
                    }
                    if *steps == 0 {
                        return Err((
                            format!("workload[{i}]: PlaceOrder steps counts from 1"),
                            Some(("workload", i)),
                        ));
                    }
                    if let Some(c) = commit_step
                        && !(1..=*steps).contains(c)
                    {
                        return Err((
                            format!(
                                "workload[{i}]: PlaceOrder commit_step must be from 1 to steps ({steps}), not {c}"
                            ),
                            Some(("workload", i)),
                        ));
                    }
                }
                Work::Notify { .. } if self.client.era.may_be_modern() => {
                    return Err((
                        format!(
                            "workload[{i}]: Notify goes to a standalone stream, which a 2026-07-28 client does not open"
                        ),
                        Some(("workload", i)),
                    ));
                }
                _ => {}
            }
        }
        for (i, fault) in self.faults.iter().enumerate() {
            match fault {
                Fault::DropListen { .. } if !(modern && self.client.lists_tools) => {
                    return Err((
                        format!(
                            "faults[{i}]: DropListen cuts a 2026-07-28 listen stream, which only a client with era: Modern and lists_tools: true opens"
                        ),
                        Some(("faults", i)),
                    ));
                }
                Fault::Proxy502 { status, .. } if !(400..600).contains(status) => {
                    return Err((
                        format!(
                            "faults[{i}]: Proxy502 status: {status} is not an error a proxy answers with; give a 4xx or 5xx (502 when left out, 404 for a proxy without a route)"
                        ),
                        Some(("faults", i)),
                    ));
                }
                Fault::IdleProxySse { cut_after } if cut_after.ms() == 0 => {
                    return Err((
                        format!(
                            "faults[{i}]: IdleProxySse cut_after: \"0s\" would cut every SSE response as it opens; give the proxy's idle timeout (e.g. \"60s\")"
                        ),
                        Some(("faults", i)),
                    ));
                }
                Fault::IdleProxy { cut_after } => {
                    let problem = if !(modern && self.client.lists_tools) {
                        Some("IdleProxy cuts idle 2026-07-28 listen streams, which only a client with era: Modern and lists_tools: true opens".to_string())
                    } else if cut_after.ms() == 0 {
                        Some("IdleProxy cut_after: \"0s\" would cut every listen stream as it opens; give the proxy's idle timeout (e.g. \"60s\")".to_string())
                    } else if self.faults[..i]
                        .iter()
                        .any(|f| matches!(f, Fault::IdleProxy { .. }))
                    {
                        Some("a second IdleProxy: one proxy stands between the client and the server (keep the one with the shorter cut_after)".to_string())
                    } else {
                        None
                    };
                    if let Some(problem) = problem {
                        return Err((format!("faults[{i}]: {problem}"), Some(("faults", i))));
                    }
                }
                Fault::StaleTask { .. } if self.client.era.may_be_modern() => {
                    return Err((
                        format!(
                            "faults[{i}]: StaleTask replays a remembered session id, and a 2026-07-28 client has no session"
                        ),
                        Some(("faults", i)),
                    ));
                }
                Fault::PurgeTasks { .. } if !modern => {
                    return Err((
                        format!(
                            "faults[{i}]: PurgeTasks wipes the 2026-07-28 task store; set client: (era: Modern, use_tasks: true)"
                        ),
                        Some(("faults", i)),
                    ));
                }
                Fault::CutCall { call, at, .. } => {
                    if self.client.use_tasks {
                        return Err((
                            format!(
                                "faults[{i}]: with use_tasks a job tool answers with a task id, not a stream: there is no stream to cut"
                            ),
                            Some(("faults", i)),
                        ));
                    }
                    if !modern {
                        return Err((
                            format!(
                                "faults[{i}]: CutCall cuts a 2026-07-28 request stream; set client: (era: Modern), or use Drop for a 2025 stream"
                            ),
                            Some(("faults", i)),
                        ));
                    }
                    let Some((tool, progress)) = workload_calls.get(*call) else {
                        return Err((missing_call(i, *call, calls), Some(("faults", i))));
                    };
                    if !tool.streams() {
                        return Err((
                            format!(
                                "faults[{i}]: call {call} is an echo, answered at once: it has no stream to cut"
                            ),
                            Some(("faults", i)),
                        ));
                    }
                    if let CutAt::AfterProgress(n) = at {
                        if n.lo == 0 {
                            return Err((
                                format!("faults[{i}]: AfterProgress counts from 1; 0 never fires"),
                                Some(("faults", i)),
                            ));
                        }
                        if !progress {
                            return Err((
                                format!(
                                    "faults[{i}]: call {call} asks for no progress (progress: false), so AfterProgress never fires"
                                ),
                                Some(("faults", i)),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The RON text of this scenario (used by the explorer's shrinker and by tests).
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default().struct_names(true))
            .expect("a scenario always serializes")
    }
}

/// `Proxy502`'s status when the scenario names none.
fn bad_gateway() -> u16 {
    502
}

fn is_bad_gateway(status: &u16) -> bool {
    *status == 502
}
