//! The explorer: run swarm seeds, classify failures, aggregate a failure-mode map.
//!
//! A failure is identified by its verdict kind plus the knob settings that cause it (its
//! [`Signature`]), so ten thousand seeds hitting Behavior A are one finding with ten
//! thousand witnesses. Aggregates are plain counts keyed by ordered maps, so results from
//! any number of threads or machines (`--shard k/n`) merge into the same bytes.

use std::collections::BTreeMap;

use faultline_model::{EventStoreScope, FleetKnobs, IdScheme, ServerKnobs};
use serde::{Deserialize, Serialize};

use crate::swarm::{SwarmOptions, generate};
use crate::swarm_era::SwarmEra;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use faultline_scenario::{ClientModel, Fault, Scenario, Work};

/// The knob settings that name a failure, as (knob, value) pairs in a fixed order.
pub type Signature = Vec<(String, String)>;

/// Which knobs explain each kind of failure (the rest are noise for classification).
pub fn signature_of(kind: VerdictKind, k: &ServerKnobs, fleet: &FleetKnobs) -> Signature {
    let mut sig = Vec::new();
    let mut put = |name: &str, value: String| sig.push((name.to_string(), value));
    match kind {
        VerdictKind::SilentGap | VerdictKind::Duplicate | VerdictKind::ForeignEvent => {
            put("id_scheme", format!("{:?}", k.id_scheme));
            put("unknown_cursor", format!("{:?}", k.unknown_cursor));
            // Behind a fleet, a store keyed by stream replays other sessions' events: a
            // cause of its own, so it is named. The other stores resolve a cursor as one
            // server would, and naming them would only split one finding into several.
            if fleet.is_multi()
                && fleet.event_store
                    == (EventStoreScope::Shared {
                        by: faultline_model::SharedKey::Stream,
                    })
            {
                put("event_store", event_store_name(fleet.event_store));
            }
        }
        VerdictKind::CursorReuse => {
            put("id_scheme", format!("{:?}", k.id_scheme));
            put(
                "restart_persistence",
                format!("{:?}", k.restart_persistence),
            );
        }
        VerdictKind::ZombieSession | VerdictKind::QuarantineViolation => {
            put("get_validates_session", k.get_validates_session.to_string());
        }
        VerdictKind::RetryAmplification
        | VerdictKind::ReinitCollision
        | VerdictKind::RefusedWithoutRecovery => {
            put(
                "dead_session_answer",
                format!("{:?}", k.dead_session_answer),
            );
        }
        // A live session dropped: by a balancer's misroute, or on a GET's refusal.
        VerdictKind::SessionAbandoned => {
            put("balancer", format!("{:?}", fleet.balancer));
            put("second_standalone", format!("{:?}", k.second_standalone));
        }
        VerdictKind::SurfacedLoss => put("unknown_cursor", format!("{:?}", k.unknown_cursor)),
        VerdictKind::MisroutedSession => {
            put("balancer", format!("{:?}", fleet.balancer));
            put("session_store", format!("{:?}", fleet.session_store));
        }
        VerdictKind::DuplicateEffect => {
            put("on_stream_cut", format!("{:?}", k.on_stream_cut));
        }
        // Durations are named by whether they are set, not by their value: every drawn
        // TTL would otherwise be a finding of its own.
        VerdictKind::MissedChange => put("list_ttl", set_or_none(k.list_ttl.is_some())),
        VerdictKind::LostTask => {
            put("task_persistence", format!("{:?}", k.task_persistence));
            put("task_ttl", set_or_none(k.task_ttl.is_some()));
            put(
                "task_purge_delay",
                set_or_none(k.task_purge_delay.is_some()),
            );
        }
        VerdictKind::EraMismatch => {
            put("era", format!("{:?}", k.era));
            // Only a 2025-only server has a probe answer of its own choosing (a roll into
            // one from another era keeps the default, `AsToday`).
            if k.era == faultline_model::Era::LegacyOnly {
                put(
                    "legacy_probe_answer",
                    format!("{:?}", k.legacy_probe_answer),
                );
            }
        }
        // A client that never gives up meets the answers that never change: an empty 200
        // to a cursor, or a dead session's status.
        VerdictKind::ReconnectLoop | VerdictKind::Hung => {
            put("unknown_cursor", format!("{:?}", k.unknown_cursor));
            put(
                "dead_session_answer",
                format!("{:?}", k.dead_session_answer),
            );
        }
        VerdictKind::Clean | VerdictKind::Detected | VerdictKind::Untested => {}
        // Verdicts of real clients only (`grade`): no modelled client gives them.
        VerdictKind::Crashed
        | VerdictKind::BadReport
        | VerdictKind::NotApplicable
        | VerdictKind::OutOfOrder
        | VerdictKind::OtherEra => {}
    }
    sig
}

/// The signature of one verdict: [`signature_of`] its kind, except where the evidence
/// shows another cause:
///
/// - a `duplicate_effect` the server made alone, by running a task again after a restart
///   with no client re-issuing anything, is named by the knob that re-runs it
///   (`task_persistence`): no client can prevent it, and `on_stream_cut` plays no part in
///   it;
/// - a `missed_change` whose channel was a 2025 GET stream is named by the server's `era`
///   and `legacy_get` (whether that stream belonged to a session and could carry a
///   change), not by the 2026-07-28 `list_ttl`;
/// - an `era_mismatch` after a deploy into another era (`RollEra`) also names the era the
///   server moved to (`rolled_to`): a client that cached the era it found is another
///   lesson than one that misread its probe.
pub fn verdict_signature(v: &Verdict, k: &ServerKnobs, fleet: &FleetKnobs) -> Signature {
    match &v.evidence {
        Evidence::DuplicateEffect { commits, .. }
            if commits.len() > 1 && commits[1..].iter().all(|c| c.rerun_of_task.is_some()) =>
        {
            vec![(
                "task_persistence".to_string(),
                format!("{:?}", k.task_persistence),
            )]
        }
        Evidence::MissedChange(m) if m.via_standalone_stream => vec![
            ("era".to_string(), format!("{:?}", k.era)),
            ("legacy_get".to_string(), format!("{:?}", k.legacy_get)),
        ],
        Evidence::EraMismatch(m) => {
            let mut sig = signature_of(v.kind, k, fleet);
            if let Some((_, _, to)) = m.era_changes.last() {
                sig.push(("rolled_to".to_string(), to.clone()));
            }
            sig
        }
        _ => signature_of(v.kind, k, fleet),
    }
}

/// The distinct (kind, signature) pairs of a run's failure verdicts, sorted.
pub fn failure_signatures(
    verdicts: &[Verdict],
    k: &ServerKnobs,
    fleet: &FleetKnobs,
) -> Vec<(VerdictKind, Signature)> {
    let mut out: Vec<(VerdictKind, Signature)> = Vec::new();
    for v in verdicts.iter().filter(|v| is_failure(v.kind)) {
        let pair = (v.kind, verdict_signature(v, k, fleet));
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out.sort();
    out
}

/// `PerReplica`, `SharedBySession`, `SharedByStream`: one word, for signatures and file
/// names.
pub fn event_store_name(store: EventStoreScope) -> String {
    match store {
        EventStoreScope::PerReplica => "PerReplica".into(),
        EventStoreScope::Shared { by } => format!("SharedBy{by:?}"),
    }
}

fn set_or_none(set: bool) -> String {
    if set { "Set" } else { "None" }.to_string()
}

/// Whether a verdict kind is a failure worth a finding (a seed that tested nothing,
/// `untested`, is counted, not a finding: there is nothing to shrink toward).
pub fn is_failure(kind: VerdictKind) -> bool {
    !matches!(
        kind,
        VerdictKind::Clean | VerdictKind::Detected | VerdictKind::Untested
    )
}

/// One distinct failure.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Finding {
    pub kind: VerdictKind,
    pub signature: Signature,
    pub witnesses: u64,
    /// The smallest seed that shows it: the one that is shrunk, whatever the sharding.
    pub first_seed: u64,
    /// Size of the witness scenario and of the shrunk one (faults + workload + non-default knobs).
    pub original_size: usize,
    pub shrunk_size: Option<usize>,
    pub shrunk_path: Option<String>,
}

/// Rows and columns of the failure-mode map.
pub const MAP_ROWS: [&str; 3] = ["SessionMonotonic", "PerStream", "PerGeneration"];
pub const MAP_COLS: [&str; 6] = [
    "no log TTL",
    "log/session < 0.1",
    "0.1 to 1",
    "1 to 10",
    ">= 10",
    "no session TTL",
];

fn map_row(k: &ServerKnobs) -> usize {
    match k.id_scheme {
        IdScheme::SessionMonotonic => 0,
        // Ids that repeat within a session (`Constant`, only ever pinned with `--knob`: the
        // swarm never draws it) share the row of the other scheme whose ids repeat across
        // streams, so the map keeps its shape.
        IdScheme::PerStream | IdScheme::Constant => 1,
        IdScheme::PerGeneration => 2,
    }
}

/// The event-log TTL divided by the session's TTL (the shorter of idle and absolute).
fn map_col(k: &ServerKnobs) -> usize {
    let session = match (k.session_idle_ttl, k.session_absolute_ttl) {
        (Some(a), Some(b)) => Some(a.ms().min(b.ms())),
        (a, b) => a.or(b).map(|d| d.ms()),
    };
    match (k.event_log_ttl, session) {
        (None, _) => 0,
        (Some(_), None) => 5,
        (Some(log), Some(s)) => {
            let ratio = log.ms() as f64 / s as f64;
            if ratio < 0.1 {
                1
            } else if ratio < 1.0 {
                2
            } else if ratio < 10.0 {
                3
            } else {
                4
            }
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MapCell {
    pub seeds: u64,
    /// Seeds with at least one loss verdict (silent_gap, cursor_reuse, quarantine_violation,
    /// foreign_event, duplicate).
    pub loss: u64,
    pub kinds: BTreeMap<VerdictKind, u64>,
}

/// The aggregate of a set of seeds for one client model. Contains no timings, so equal
/// seed sets give equal bytes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Aggregate {
    /// Written as `run --format json` writes it (`"naive"`); `"Naive"` is read too.
    #[serde(with = "client_name")]
    pub client: ClientModel,
    pub dishonest_servers: bool,
    /// Which era's runs the seeds drew; written only when not `legacy`.
    #[serde(default, skip_serializing_if = "SwarmEra::is_legacy")]
    pub era: SwarmEra,
    pub seeds_run: u64,
    /// Seeds on which each verdict kind appeared.
    pub verdicts: BTreeMap<VerdictKind, u64>,
    pub findings: Vec<Finding>,
    /// `map[row][col]`, rows [`MAP_ROWS`], columns [`MAP_COLS`].
    pub map: Vec<Vec<MapCell>>,
    /// The seeds behind a fleet, by balancer (rows, [`FLEET_ROWS`]) and stores (columns,
    /// [`fleet_col`]): `fleet_map[balancer][stores]`. Absent when no seed had a fleet.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fleet_map: BTreeMap<String, BTreeMap<String, MapCell>>,
    /// The knobs every seed was pinned to (`--knob NAME=VALUE`), in the order given:
    /// `merge` refuses results pinned otherwise and shrinks its findings with them.
    /// Written only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pins: Vec<(String, String)>,
}

/// Rows of the fleet map: the balancers.
pub const FLEET_ROWS: [&str; 5] = [
    "RoundRobin",
    "StickySessionId",
    "Random",
    "StickyCookie",
    "ClientAddress",
];

/// Columns of the fleet map: session store x event store.
pub const FLEET_COLS: [&str; 6] = [
    "sessions PerReplica, events PerReplica",
    "sessions PerReplica, events SharedBySession",
    "sessions PerReplica, events SharedByStream",
    "sessions Shared, events PerReplica",
    "sessions Shared, events SharedBySession",
    "sessions Shared, events SharedByStream",
];

/// The fleet map's column of a fleet (one of [`FLEET_COLS`]).
pub fn fleet_col(fleet: &FleetKnobs) -> String {
    format!(
        "sessions {:?}, events {}",
        fleet.session_store,
        event_store_name(fleet.event_store)
    )
}

impl MapCell {
    fn add(&mut self, other: &MapCell) {
        self.seeds += other.seeds;
        self.loss += other.loss;
        for (k, n) in &other.kinds {
            *self.kinds.entry(*k).or_insert(0) += n;
        }
    }
}

impl Aggregate {
    pub fn new(client: ClientModel, dishonest_servers: bool) -> Self {
        Aggregate {
            client,
            dishonest_servers,
            era: SwarmEra::Legacy,
            seeds_run: 0,
            verdicts: BTreeMap::new(),
            findings: Vec::new(),
            map: vec![vec![MapCell::default(); MAP_COLS.len()]; MAP_ROWS.len()],
            fleet_map: BTreeMap::new(),
            pins: Vec::new(),
        }
    }

    /// The same aggregate over seeds pinned to `pins`.
    pub fn with_pins(mut self, pins: &[(String, String)]) -> Self {
        self.pins = pins.to_vec();
        self
    }

    /// The same aggregate over the runs of `era`.
    pub fn with_era(mut self, era: SwarmEra) -> Self {
        self.era = era;
        self
    }

    /// Adds another aggregate of the same client (threads, shards).
    pub fn merge(&mut self, other: &Aggregate) -> Result<(), String> {
        if self.client != other.client || self.dishonest_servers != other.dishonest_servers {
            return Err(format!(
                "cannot merge results for client {} with results for client {}",
                self.client.name(),
                other.client.name()
            ));
        }
        if self.era != other.era {
            return Err(format!(
                "cannot merge results for era {} with results for era {}",
                self.era.name(),
                other.era.name()
            ));
        }
        if self.pins != other.pins {
            let said = |pins: &[(String, String)]| match pins {
                [] => "no --knob".to_string(),
                _ => pins
                    .iter()
                    .map(|(k, v)| format!("--knob {k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            return Err(format!(
                "cannot merge results pinned with {} with results pinned with {}",
                said(&self.pins),
                said(&other.pins)
            ));
        }
        self.seeds_run += other.seeds_run;
        for (k, n) in &other.verdicts {
            *self.verdicts.entry(*k).or_insert(0) += n;
        }
        for (r, row) in other.map.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let mine = &mut self.map[r][c];
                mine.seeds += cell.seeds;
                mine.loss += cell.loss;
                for (k, n) in &cell.kinds {
                    *mine.kinds.entry(*k).or_insert(0) += n;
                }
            }
        }
        for (balancer, row) in &other.fleet_map {
            for (stores, cell) in row {
                self.fleet_map
                    .entry(balancer.clone())
                    .or_default()
                    .entry(stores.clone())
                    .or_default()
                    .add(cell);
            }
        }
        for f in &other.findings {
            match self
                .findings
                .iter_mut()
                .find(|g| g.kind == f.kind && g.signature == f.signature)
            {
                Some(g) => {
                    g.witnesses += f.witnesses;
                    if f.first_seed < g.first_seed {
                        let witnesses = g.witnesses;
                        *g = f.clone();
                        g.witnesses = witnesses;
                    }
                }
                None => self.findings.push(f.clone()),
            }
        }
        self.findings
            .sort_by(|a, b| (a.kind, &a.signature).cmp(&(b.kind, &b.signature)));
        Ok(())
    }

    /// Any loss verdict at all (what CI gates on for a client declared safe).
    pub fn any_loss(&self) -> bool {
        self.verdicts.iter().any(|(k, n)| k.is_loss() && *n > 0)
    }
}

/// The client model as its snake_case name, the spelling every JSON output uses.
mod client_name {
    use faultline_scenario::ClientModel;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(client: &ClientModel, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(client.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ClientModel, D::Error> {
        let text = String::deserialize(d)?;
        ClientModel::parse(&text.to_ascii_lowercase()).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "client {text:?}: expected \"naive\" or \"guarded\""
            ))
        })
    }
}

/// The swarm options the explorer uses (2025 runs).
pub fn swarm_options(dishonest_servers: bool) -> SwarmOptions {
    SwarmOptions {
        faults: true,
        honest_advertisement: !dishonest_servers,
        fleets: true,
        era: SwarmEra::Legacy,
    }
}

/// Applies `--knob name=value` pins to a generated scenario.
///
/// A pinned `era` takes with it the drawn knobs that describe another era only
/// (`legacy_probe_answer`, `legacy_get`: see [`ServerKnobs::validate`]); pinning one of
/// those under an era it does not apply to is an error that says so.
pub fn pin(scenario: &mut Scenario, pins: &[(String, String)]) -> Result<(), String> {
    for (name, value) in pins {
        if name == "faults" && value == "none" {
            scenario.faults.clear();
        } else if !pin_fleet(&mut scenario.fleet, name, value)?
            && !pin_server_knob(&mut scenario.server, name, value)?
        {
            return Err(format!(
                "--knob {name}: unknown knob; use one of {}, {}, faults=none",
                PINNABLE_SERVER_KNOBS.join(", "),
                PINNABLE_FLEET_KNOBS.join(", ")
            ));
        }
    }
    let pinned = |knob: &str| pins.iter().any(|(name, _)| name == knob);
    if pinned("era") {
        let k = &mut scenario.server;
        let d = ServerKnobs::default();
        if !pinned("legacy_probe_answer") && k.era != d.era {
            k.legacy_probe_answer = d.legacy_probe_answer;
        }
        if !pinned("legacy_get") && k.era != faultline_model::Era::DualStatelessLegacy {
            k.legacy_get = d.legacy_get;
        }
    }
    if !pins.is_empty() {
        scenario
            .server
            .validate()
            .map_err(|e| format!("--knob: {e}"))?;
    }
    // A fault naming a replica the pinned fleet lacks, or a fleet fault on a single
    // server, would not load: drop it.
    let replicas = scenario.fleet.replicas;
    scenario.faults.retain(|f| match f {
        Fault::ReplicaDown { replica, .. } => *replica < replicas,
        Fault::RollingDeploy { .. } | Fault::Scale { .. } | Fault::StickyLost { .. } => {
            replicas > 1
        }
        _ => true,
    });
    if replicas < 2 {
        scenario
            .workload
            .retain(|w| !matches!(w, Work::Tenant { .. }));
    }
    Ok(())
}

/// The fleet knobs a pin may name.
pub const PINNABLE_FLEET_KNOBS: &[&str] = &[
    "replicas",
    "balancer",
    "session_store",
    "event_store",
    "notifications",
];

/// The fleet knobs a pin may name (`replicas=3`, `balancer=RoundRobin`,
/// `session_store=Shared`, `event_store=Shared(by: Stream)`, `notifications=SameReplica`).
/// Returns whether `name` was one of them.
fn pin_fleet(fleet: &mut FleetKnobs, name: &str, value: &str) -> Result<bool, String> {
    match name {
        "replicas" => {
            fleet.replicas = parse(name, value)?;
            fleet.validate().map_err(|e| format!("--knob {e}"))?;
        }
        "balancer" => fleet.balancer = parse(name, value)?,
        "session_store" => fleet.session_store = parse(name, value)?,
        "event_store" => fleet.event_store = parse(name, value)?,
        "notifications" => fleet.notifications = parse(name, value)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `value` read as RON for knob `name`. A value that starts with a digit and ends with a
/// letter is a duration (`30s`) and is read as a string; a value an optional knob would
/// not take as it is gets a second reading as `Some(value)`, so `event_log_capacity=5`
/// and `retry=2s` need no `Some(…)`.
fn parse<T: serde::de::DeserializeOwned>(name: &str, value: &str) -> Result<T, String> {
    let as_ron = if value.starts_with(|c: char| c.is_ascii_digit())
        && value.ends_with(|c: char| c.is_ascii_alphabetic())
    {
        format!("{value:?}")
    } else {
        value.to_string()
    };
    ron::de::from_str(&as_ron)
        .or_else(|first| ron::de::from_str(&format!("Some({as_ron})")).map_err(|_| first))
        .map_err(|e| format!("--knob {name}={value}: {}", e.code))
}

/// Every server knob, by its name in a scenario file: the names `--knob` takes and the
/// code that sets each, from the one list of fields (`faultline_model::with_server_knob_fields`);
/// a field of [`ServerKnobs`] missing from it does not compile (`every_server_knob_is_listed`).
macro_rules! server_knobs {
    ($($field:ident),* $(,)?) => {
        /// The server knobs a pin may name: every field of [`ServerKnobs`].
        pub const PINNABLE_SERVER_KNOBS: &[&str] = &[$(stringify!($field)),*];

        /// Sets knob `name` of `k` to `value`; false if no server knob has that name.
        fn pin_server_knob(k: &mut ServerKnobs, name: &str, value: &str) -> Result<bool, String> {
            match name {
                $(stringify!($field) => k.$field = parse(name, value)?,)*
                _ => return Ok(false),
            }
            Ok(true)
        }

        #[cfg(test)]
        #[allow(dead_code)]
        fn every_server_knob_is_listed(k: ServerKnobs) {
            let ServerKnobs { $($field: _),* } = k;
        }
    };
}

faultline_model::with_server_knob_fields!(server_knobs);

/// The 2025 scenario the explorer runs for `seed`.
pub fn scenario_for(
    seed: u64,
    dishonest: bool,
    pins: &[(String, String)],
) -> Result<Scenario, String> {
    scenario_for_era(seed, dishonest, SwarmEra::Legacy, pins)
}

/// The scenario the explorer runs for `seed` under `era`.
pub fn scenario_for_era(
    seed: u64,
    dishonest: bool,
    era: SwarmEra,
    pins: &[(String, String)],
) -> Result<Scenario, String> {
    let options = SwarmOptions {
        era,
        ..swarm_options(dishonest)
    };
    let mut s = generate(seed, options);
    pin(&mut s, pins)?;
    Ok(s)
}

/// Runs one seed and folds it into `agg`.
pub fn explore_seed(
    agg: &mut Aggregate,
    seed: u64,
    pins: &[(String, String)],
) -> Result<(), String> {
    let scenario = scenario_for_era(seed, agg.dishonest_servers, agg.era, pins)?;
    let outcome = crate::run_unworded(&scenario, seed, agg.client);
    agg.seeds_run += 1;
    let cell = &mut agg.map[map_row(&scenario.server)][map_col(&scenario.server)];
    cell.seeds += 1;
    let mut kinds = outcome.kinds();
    kinds.sort();
    kinds.dedup();
    let loss = kinds.iter().any(|k| k.is_loss());
    if loss {
        cell.loss += 1;
    }
    for &kind in &kinds {
        *cell.kinds.entry(kind).or_insert(0) += 1;
    }
    if scenario.fleet.is_multi() {
        let fleet_cell = agg
            .fleet_map
            .entry(format!("{:?}", scenario.fleet.balancer))
            .or_default()
            .entry(fleet_col(&scenario.fleet))
            .or_default();
        fleet_cell.seeds += 1;
        fleet_cell.loss += u64::from(loss);
        for &kind in &kinds {
            *fleet_cell.kinds.entry(kind).or_insert(0) += 1;
        }
    }
    for kind in kinds {
        *agg.verdicts.entry(kind).or_insert(0) += 1;
    }
    for (kind, signature) in
        failure_signatures(&outcome.verdicts, &scenario.server, &scenario.fleet)
    {
        match agg
            .findings
            .iter_mut()
            .find(|f| f.kind == kind && f.signature == signature)
        {
            Some(f) => {
                f.witnesses += 1;
                if seed < f.first_seed {
                    f.first_seed = seed;
                    f.original_size = crate::shrink::size(&scenario);
                }
            }
            None => agg.findings.push(Finding {
                kind,
                signature,
                witnesses: 1,
                first_seed: seed,
                original_size: crate::shrink::size(&scenario),
                shrunk_size: None,
                shrunk_path: None,
            }),
        }
    }
    Ok(())
}

/// The file name of a finding's shrunk scenario: client, verdict, then each knob of the
/// signature with its value (`naive_zombie_session_get_validates_session_false`).
pub fn finding_name(client: ClientModel, f: &Finding) -> String {
    let sig: Vec<String> = f
        .signature
        .iter()
        .map(|(k, v)| format!("{k}_{}", file_word(v)))
        .collect();
    let mut name = format!("{}_{}", client.name(), f.kind.name());
    if !sig.is_empty() {
        name.push('_');
        name.push_str(&sig.join("_"));
    }
    name
}

/// A knob's value as a word of a file name: lower case, every run of other characters
/// than letters and digits one `_` (`Rpc400(-32000)` is `rpc400_32000`).
fn file_word(value: &str) -> String {
    let mut word = String::new();
    for c in value.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        } else if !word.is_empty() && !word.ends_with('_') {
            word.push('_');
        }
    }
    word.trim_end_matches('_').to_string()
}

/// "1 witness", "7 witnesses".
pub fn witnesses(n: u64) -> String {
    if n == 1 {
        "1 witness".into()
    } else {
        format!("{n} witnesses")
    }
}

/// Shrinks a finding and returns the commented RON lesson that pins its verdict; `path` is
/// where the lesson will be written, for its "reproduce" line.
pub fn shrunk_scenario_text(
    client: ClientModel,
    f: &Finding,
    dishonest: bool,
    pins: &[(String, String)],
    path: &str,
) -> Result<(Scenario, String), String> {
    shrunk_era_scenario_text(client, f, dishonest, SwarmEra::Legacy, pins, path)
}

/// [`shrunk_scenario_text`] for a finding of a run drawn under `era`.
pub fn shrunk_era_scenario_text(
    client: ClientModel,
    f: &Finding,
    dishonest: bool,
    era: SwarmEra,
    pins: &[(String, String)],
    path: &str,
) -> Result<(Scenario, String), String> {
    let original = scenario_for_era(f.first_seed, dishonest, era, pins)?;
    let mut shrunk = crate::shrink::shrink(&original, client, f.kind, &f.signature);
    shrunk.name = finding_name(client, f);
    shrunk.client.model = client;
    let triggers = crate::shrink::triggers(&shrunk, client, f.kind);
    let signature: Vec<String> = f
        .signature
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let signature = if signature.is_empty() {
        "any knobs".to_string()
    } else {
        signature.join(" ")
    };
    shrunk.summary = format!(
        "Found by the explorer: {} set off by {} ({}; smallest seed {}).",
        f.kind,
        triggers.label(),
        witnesses(f.witnesses),
        f.first_seed
    );
    shrunk.expect = BTreeMap::from([(
        client,
        faultline_scenario::Expectation {
            must: vec![f.kind],
            must_not: vec![],
        },
    )]);
    let text = format!(
        "// Shrunk by `faultline explore` from swarm seed {seed} ({original} -> {small} parts).\n\
         // Verdict pinned below: {kind} for the {client} client.\n\
         // What sets it off (take any one away and the verdict disappears): {triggers}.\n\
         // Grouped by the explorer under: {kind} with {signature} ({witnesses}).\n\
         // Reproduce: faultline run {path} --client {client}\n{ron}\n",
        seed = f.first_seed,
        original = crate::shrink::size(&original),
        small = crate::shrink::size(&shrunk),
        kind = f.kind,
        client = client.name(),
        triggers = triggers.label(),
        witnesses = witnesses(f.witnesses),
        ron = shrunk.to_ron(),
    );
    Ok((shrunk, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_one_word_of_a_file_name() {
        assert_eq!(super::file_word("Rpc400(-32000)"), "rpc400_32000");
        assert_eq!(super::file_word("PerStream"), "perstream");
        assert_eq!(super::file_word("SharedByStream"), "sharedbystream");
        assert_eq!(super::file_word("None"), "none");
    }

    #[test]
    fn one_witness_is_singular() {
        assert_eq!(witnesses(1), "1 witness");
        assert_eq!(witnesses(2), "2 witnesses");
        assert_eq!(witnesses(0), "0 witnesses");
    }

    /// A drawn scenario whose server has the default knobs.
    fn base() -> Scenario {
        let mut scenario = generate(1, swarm_options(false));
        scenario.server = ServerKnobs::default();
        scenario
    }

    fn pinned(pins: &[(&str, &str)]) -> Result<Scenario, String> {
        let mut scenario = base();
        let pins: Vec<(String, String)> = pins
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        pin(&mut scenario, &pins).map(|()| scenario)
    }

    /// Every server knob can be pinned, and a pin moves the knob it names: one value
    /// other than the default per knob, written as a scenario file writes it (the era's
    /// two dependent knobs with the era they describe).
    #[test]
    fn every_server_knob_can_be_pinned() {
        let values: &[(&str, &str)] = &[
            ("session_idle_ttl", "5m"),
            ("session_absolute_ttl", "1h"),
            ("event_log_ttl", "30s"),
            ("event_log_capacity", "5"),
            ("gc_interval", "1m"),
            ("id_scheme", "PerStream"),
            ("unknown_cursor", "FreshStream"),
            ("get_validates_session", "false"),
            ("restart_persistence", "SessionIdsOnly"),
            ("advertise_monotonic_ids", "false"),
            ("priming_events", "true"),
            ("retry", "2s"),
            ("dead_session_answer", "Gone"),
            ("json_responses", "false"),
            ("max_sessions", "5"),
            ("era", "ModernOnly"),
            ("legacy_probe_answer", "NotFound"),
            ("legacy_get", "ServeStream"),
            ("list_ttl", "None"),
            ("on_stream_cut", "RunToEnd"),
            ("tasks_offered", "false"),
            ("task_ttl", "1m"),
            ("task_poll_interval", "3s"),
            ("task_purge_delay", "0s"),
            ("task_persistence", "TerminalOnly"),
            ("handle_idle_ttl", "10m"),
            ("handle_persistence", "Nothing"),
            ("unknown_handle", "InvalidParams"),
            ("listen_keepalive", "15s"),
            ("evicted_cursor", "ReplayRemaining"),
            ("replay_from_cursor", "true"),
            ("keep_answered_streams", "false"),
            ("resumed_stream_end", "Open"),
            ("prime_standalone", "false"),
            ("id_format", "Uuid"),
            (
                "error_codes",
                "(invalid_request: -32000, session_not_found: -32600)",
            ),
            ("accept_wildcard", "false"),
            ("session_id_header", "Every"),
            ("all_answers_over_sse", "true"),
            ("prime_resumed", "true"),
            ("refusal_body", "Text"),
            ("delete_answer", "Accepted202"),
            ("second_standalone", "Shadow"),
            ("cursors_across_sessions", "true"),
            ("standalone_get", "Hang"),
            ("stale_standalone", "(answer: Conflict409, for: \"2m\")"),
        ];
        let named: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
        assert_eq!(named, PINNABLE_SERVER_KNOBS, "one value per pinnable knob");
        let default = ServerKnobs::default();
        for &(name, value) in values {
            let mut pins = vec![(name, value)];
            match name {
                "legacy_probe_answer" => pins.push(("era", "LegacyOnly")),
                "legacy_get" => pins.push(("era", "DualStatelessLegacy")),
                _ => {}
            }
            let knobs = pinned(&pins)
                .unwrap_or_else(|e| panic!("--knob {name}={value}: {e}"))
                .server;
            let mut only_this = default.clone();
            assert!(
                pin_server_knob(&mut only_this, name, value).expect("parses"),
                "{name}"
            );
            assert_ne!(only_this, default, "--knob {name}={value} moved nothing");
            match name {
                "legacy_probe_answer" | "legacy_get" => {}
                _ => assert_eq!(knobs, only_this, "--knob {name}={value}"),
            }
        }
    }

    /// What a finding's file name says of a knob, `--knob` takes back: a finding can be
    /// explored again with its knobs pinned as it names them.
    #[test]
    fn every_knob_a_finding_names_can_be_pinned_as_named() {
        let knobs = ServerKnobs {
            era: faultline_model::Era::LegacyOnly,
            ..ServerKnobs::default()
        };
        let fleet = FleetKnobs::default();
        let kinds = [
            VerdictKind::SilentGap,
            VerdictKind::CursorReuse,
            VerdictKind::ZombieSession,
            VerdictKind::RetryAmplification,
            VerdictKind::SurfacedLoss,
            VerdictKind::MisroutedSession,
            VerdictKind::DuplicateEffect,
            VerdictKind::LostTask,
            VerdictKind::EraMismatch,
        ];
        for kind in kinds {
            for (name, value) in signature_of(kind, &knobs, &fleet) {
                // Durations are named by whether they are set: pinned as a duration.
                let value = match value.as_str() {
                    "set" => "1m".to_string(),
                    "none" => "None".to_string(),
                    _ => value,
                };
                let mut pins = vec![(name.as_str(), value.as_str())];
                if name == "legacy_probe_answer" {
                    pins.push(("era", "LegacyOnly"));
                }
                pinned(&pins).unwrap_or_else(|e| panic!("{kind:?}: --knob {name}={value}: {e}"));
            }
        }
    }

    #[test]
    fn a_pinned_era_takes_the_knobs_of_another_era_with_it() {
        let mut drawn = base();
        drawn.server.era = faultline_model::Era::LegacyOnly;
        drawn.server.legacy_probe_answer = faultline_model::LegacyProbeAnswer::NotFound;
        let pins = vec![("era".to_string(), "ModernOnly".to_string())];
        pin(&mut drawn, &pins).expect("the drawn probe answer goes with the era");
        assert_eq!(drawn.server.era, faultline_model::Era::ModernOnly);
        assert!(drawn.server.legacy_probe_answer.is_default());
        // Pinned both ways, the two cannot hold together: an error that says why.
        let err = pinned(&[("era", "ModernOnly"), ("legacy_probe_answer", "NotFound")])
            .expect_err("a probe answer applies only to a 2025-only server");
        assert!(err.contains("legacy_probe_answer"), "{err}");
        let err = pinned(&[("colour", "red")]).expect_err("no such knob");
        assert!(
            err.contains("unknown knob") && err.contains("listen_keepalive"),
            "{err}"
        );
    }
}
