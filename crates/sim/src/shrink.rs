//! The shrinker: reduce a failing scenario while the same verdict (kind and knob
//! signature) still appears, so a finding is a small lesson rather than a swarm of noise.
//!
//! Greedy and deterministic: try removing each fault, each workload item; halve counts and
//! durations; move each knob outside the signature back to its default. A fleet is tried
//! as a single server first (its fleet faults and tenants dropped), then each fleet knob
//! at its default. Keep any change
//! after which the verdict persists; repeat until nothing changes. Then round every
//! duration to whole minutes, else whole seconds, where the verdict survives it, so the
//! lesson reads `"12m"` rather than `"12m49s357ms"`. Every candidate is a full simulation
//! run, which at ~100 µs a run makes a few hundred attempts cheap.
//!
//! [`triggers`] then asks of the shrunk scenario which knobs and faults the verdict needs:
//! each is taken away alone (a knob back to its default, a fault removed) and the run
//! repeated; what makes the verdict disappear is what sets it off. That, not the explorer's
//! classification signature, is what a finding's label names.

use faultline_model::{DurationMs, EndMode, FleetKnobs, PositiveDurationMs, ServerKnobs};

use crate::explore::{Signature, verdict_signature};
use crate::verdict::VerdictKind;
use faultline_scenario::{ClientEra, ClientModel, CutAt, Fault, Scenario, Tool, Trigger, Work};
use faultline_scenario::{FaultWhen, Moment, PickCount, PickDuration, StreamSel};

/// Whether `scenario` (run with its own seed) still shows `kind` with `signature`.
fn still_fails(
    scenario: &Scenario,
    client: ClientModel,
    kind: VerdictKind,
    signature: &Signature,
) -> bool {
    crate::run_unworded(scenario, scenario.seed, client)
        .verdicts
        .iter()
        .any(|v| {
            v.kind == kind && verdict_signature(v, &scenario.server, &scenario.fleet) == *signature
        })
}

fn halve_duration(d: PickDuration) -> Option<PickDuration> {
    (d.hi.ms() > 0).then(|| PickDuration::fixed(DurationMs(d.lo.ms() / 2)))
}

fn halve_count(c: PickCount) -> Option<PickCount> {
    (c.hi > 1).then(|| PickCount::fixed(c.lo.max(2) / 2))
}

/// All one-step simplifications of `s`, most aggressive first.
fn candidates(s: &Scenario) -> Vec<Scenario> {
    let mut out = fleet_candidates(s);
    for i in 0..s.faults.len() {
        let mut c = s.clone();
        c.faults.remove(i);
        out.push(c);
    }
    for i in 0..s.workload.len() {
        // Removing a call would renumber `Call(k)` selectors; only drop trailing calls or
        // notifications.
        let calls_after = s.workload[i + 1..]
            .iter()
            .any(|w| matches!(w, Work::CallTool { .. }));
        if matches!(s.workload[i], Work::CallTool { .. }) && calls_after {
            continue;
        }
        let mut c = s.clone();
        let removed_call = matches!(c.workload.remove(i), Work::CallTool { .. });
        if removed_call {
            let calls = c
                .workload
                .iter()
                .filter(|w| matches!(w, Work::CallTool { .. }))
                .count();
            c.faults.retain(|f| !mentions_call(f, calls));
        }
        out.push(c);
    }
    for i in 0..s.workload.len() {
        let mut c = s.clone();
        let changed = match &mut c.workload[i] {
            Work::CallTool {
                tool: Tool::LongJob { steps, .. },
                ..
            } => halve_count(*steps).map(|h| *steps = h).is_some(),
            Work::Notify { count, .. } | Work::Tenant { count, .. } => {
                halve_count(*count).map(|h| *count = h).is_some()
            }
            _ => false,
        };
        if changed {
            out.push(c);
        }
        let mut c = s.clone();
        let changed = match &mut c.workload[i] {
            Work::CallTool { at, .. } | Work::Notify { from: at, .. } | Work::Tenant { at, .. } => {
                halve_duration(*at).map(|h| *at = h).is_some()
            }
        };
        if changed {
            out.push(c);
        }
    }
    for i in 0..s.faults.len() {
        // A shorter away window, or none, for every kind that sends the client away
        // (`Fault::away_mut`: the kinds arming arms an away for).
        let mut c = s.clone();
        let changed = match c.faults[i].away_mut() {
            Some(away @ Some(_)) => {
                match (*away).and_then(halve_duration) {
                    Some(h) if h.hi.ms() > 0 => *away = Some(h),
                    _ => *away = None,
                }
                true
            }
            _ => false,
        };
        if changed {
            out.push(c);
        }
        // The fault earlier: half its time, or half its event count (`IdleProxy`, in
        // force all along, has no moment to move).
        let mut c = s.clone();
        let changed = match c.faults[i].when_mut().moment() {
            Some(Moment::Time(t)) => halve_duration(*t).map(|h| *t = h).is_some(),
            Some(Moment::Count(n)) => halve_count(*n).map(|h| *n = h).is_some(),
            None => false,
        };
        if changed {
            out.push(c);
        }
    }
    let defaults = ServerKnobs::default();
    for knob in 0..KNOBS {
        let mut c = s.clone();
        if reset_knob(&mut c.server, &defaults, knob) {
            out.push(c);
        }
    }
    let mut c = s.clone();
    if c.client.start_at.hi.ms() > 0 {
        c.client.start_at = PickDuration::fixed(DurationMs::ZERO);
        out.push(c);
    }
    out
}

fn mentions_call(fault: &Fault, calls: usize) -> bool {
    let sel_bad = |sel: &StreamSel| matches!(sel, StreamSel::Call(k) if *k >= calls);
    let stream_bad = matches!(fault, Fault::Drop { stream, .. } if sel_bad(stream));
    stream_bad
        || match fault.when() {
            FaultWhen::Trigger(Trigger::AfterEvent { on, .. }) => sel_bad(on),
            FaultWhen::Cut { call, .. } => call >= calls,
            FaultWhen::Trigger(Trigger::At(_)) | FaultWhen::At(_) | FaultWhen::Always => false,
        }
}

/// A fleet's simplifications, tried before anything else: a single server first (its
/// fleet faults and tenants go with it), then each fleet knob back to its default.
fn fleet_candidates(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    if !s.fleet.is_multi() {
        return out;
    }
    let mut single = s.clone();
    single.fleet = FleetKnobs::default();
    single.faults.retain(|f| !is_fleet_fault(f));
    single
        .workload
        .retain(|w| !matches!(w, Work::Tenant { .. }));
    out.push(single);
    let d = FleetKnobs::default();
    let resets: [fn(&mut FleetKnobs, &FleetKnobs) -> bool; 4] = [
        |f, d| std::mem::replace(&mut f.balancer, d.balancer) != d.balancer,
        |f, d| std::mem::replace(&mut f.session_store, d.session_store) != d.session_store,
        |f, d| std::mem::replace(&mut f.event_store, d.event_store) != d.event_store,
        |f, d| std::mem::replace(&mut f.notifications, d.notifications) != d.notifications,
    ];
    for reset in resets {
        let mut c = s.clone();
        if reset(&mut c.fleet, &d) {
            out.push(c);
        }
    }
    if s.fleet.replicas > 2
        && !s
            .faults
            .iter()
            .any(|f| matches!(f, Fault::ReplicaDown { .. }))
    {
        let mut fewer = s.clone();
        fewer.fleet.replicas = 2;
        out.push(fewer);
    }
    out
}

/// The faults only a fleet has.
fn is_fleet_fault(f: &Fault) -> bool {
    matches!(
        f,
        Fault::ReplicaDown { .. }
            | Fault::RollingDeploy { .. }
            | Fault::Scale { .. }
            | Fault::StickyLost { .. }
    )
}

/// Fleet knobs away from their defaults, for [`size`].
fn fleet_knobs_set(fleet: &FleetKnobs) -> usize {
    let d = FleetKnobs::default();
    [
        fleet.replicas != d.replicas,
        fleet.balancer != d.balancer,
        fleet.session_store != d.session_store,
        fleet.event_store != d.event_store,
        fleet.notifications != d.notifications,
    ]
    .iter()
    .filter(|b| **b)
    .count()
}

/// The shrinker's knobs: the 2025 ones, then the 2026-07-28 ones (default on 2025 runs),
/// then the migration ones (default on both).
const KNOBS: usize = 42;

/// Moves knob number `k` to its default; false if it already is.
fn reset_knob(k: &mut ServerKnobs, d: &ServerKnobs, knob: usize) -> bool {
    fn set<T: PartialEq + Clone>(field: &mut T, default: &T) -> bool {
        if field == default {
            return false;
        }
        *field = default.clone();
        true
    }
    match knob {
        0 => set(&mut k.session_idle_ttl, &d.session_idle_ttl),
        1 => set(&mut k.session_absolute_ttl, &d.session_absolute_ttl),
        2 => set(&mut k.event_log_ttl, &d.event_log_ttl),
        3 => set(&mut k.event_log_capacity, &d.event_log_capacity),
        4 => set(&mut k.gc_interval, &d.gc_interval),
        5 => set(&mut k.priming_events, &d.priming_events),
        6 => set(&mut k.retry, &d.retry),
        7 => set(&mut k.json_responses, &d.json_responses),
        8 => set(&mut k.dead_session_answer, &d.dead_session_answer),
        9 => set(&mut k.get_validates_session, &d.get_validates_session),
        10 => set(&mut k.restart_persistence, &d.restart_persistence),
        11 => set(&mut k.on_stream_cut, &d.on_stream_cut),
        12 => set(&mut k.list_ttl, &d.list_ttl),
        13 => set(&mut k.tasks_offered, &d.tasks_offered),
        14 => set(&mut k.task_ttl, &d.task_ttl),
        15 => set(&mut k.task_purge_delay, &d.task_purge_delay),
        16 => set(&mut k.task_persistence, &d.task_persistence),
        17 => set(&mut k.legacy_probe_answer, &d.legacy_probe_answer),
        18 => set(&mut k.legacy_get, &d.legacy_get),
        19 => set(&mut k.task_poll_interval, &d.task_poll_interval),
        20 => set(&mut k.handle_idle_ttl, &d.handle_idle_ttl),
        21 => set(&mut k.handle_persistence, &d.handle_persistence),
        22 => set(&mut k.unknown_handle, &d.unknown_handle),
        23 => set(&mut k.listen_keepalive, &d.listen_keepalive),
        24 => set(&mut k.evicted_cursor, &d.evicted_cursor),
        25 => set(&mut k.replay_from_cursor, &d.replay_from_cursor),
        26 => set(&mut k.keep_answered_streams, &d.keep_answered_streams),
        27 => set(&mut k.resumed_stream_end, &d.resumed_stream_end),
        28 => set(&mut k.prime_standalone, &d.prime_standalone),
        29 => set(&mut k.prime_resumed, &d.prime_resumed),
        30 => set(&mut k.id_format, &d.id_format),
        31 => set(&mut k.error_codes, &d.error_codes),
        32 => set(&mut k.accept_wildcard, &d.accept_wildcard),
        33 => set(&mut k.session_id_header, &d.session_id_header),
        34 => set(&mut k.all_answers_over_sse, &d.all_answers_over_sse),
        35 => set(&mut k.refusal_body, &d.refusal_body),
        36 => set(&mut k.delete_answer, &d.delete_answer),
        37 => set(&mut k.second_standalone, &d.second_standalone),
        38 => set(&mut k.cursors_across_sessions, &d.cursors_across_sessions),
        39 => set(&mut k.standalone_get, &d.standalone_get),
        40 => set(&mut k.stale_standalone, &d.stale_standalone),
        // The era's two dependent knobs describe one era only (`ServerKnobs::validate`):
        // they go back with it.
        _ => {
            let era = set(&mut k.era, &d.era);
            if era {
                k.legacy_probe_answer = d.legacy_probe_answer;
                k.legacy_get = d.legacy_get;
            }
            era
        }
    }
}

/// Upper bound on simulation runs per shrink (limits on everything).
const MAX_ATTEMPTS: usize = 2_000;

/// Shrinks `scenario` (which must show `kind` with `signature` under `client`).
pub fn shrink(
    scenario: &Scenario,
    client: ClientModel,
    kind: VerdictKind,
    signature: &Signature,
) -> Scenario {
    let mut best = scenario.clone();
    // A run that ends by itself gets a day to do so; a client that reconnects for ever
    // never ends, and its run (its loop's evidence) is as long as the scenario says.
    let loops = crate::Policy::for_run(client, &scenario.client)
        .max_fruitless_reconnects
        .is_none();
    if !loops || scenario.horizon.is_none() {
        best.horizon = Some(PositiveDurationMs::new(24 * 3_600_000).expect("positive"));
    }
    let mut attempts = 0;
    loop {
        let mut improved = false;
        for candidate in candidates(&best) {
            attempts += 1;
            if attempts > MAX_ATTEMPTS {
                return round_durations(best, client, kind, signature);
            }
            if still_fails(&candidate, client, kind, signature) {
                best = candidate;
                improved = true;
                break;
            }
        }
        if !improved {
            return round_durations(best, client, kind, signature);
        }
    }
}

/// A rough size for reports: faults + workload items + knobs away from their defaults.
pub fn size(scenario: &Scenario) -> usize {
    let d = ServerKnobs::default();
    let mut knobs = 0;
    for k in 0..KNOBS {
        let mut copy = scenario.server.clone();
        if reset_knob(&mut copy, &d, k) {
            knobs += 1;
        }
    }
    knobs += [
        scenario.server.id_scheme != d.id_scheme,
        scenario.server.unknown_cursor != d.unknown_cursor,
        scenario.server.advertise_monotonic_ids != d.advertise_monotonic_ids,
    ]
    .iter()
    .filter(|b| **b)
    .count();
    scenario.faults.len() + scenario.workload.len() + knobs + fleet_knobs_set(&scenario.fleet)
}

/// Units a shrunk duration is rounded to, coarsest first.
const ROUNDING_UNITS_MS: [u64; 2] = [60_000, 1_000];

/// Rounds each duration of `s` to whole minutes, or else whole seconds, wherever the
/// verdict survives the rounding.
fn round_durations(
    mut s: Scenario,
    client: ClientModel,
    kind: VerdictKind,
    signature: &Signature,
) -> Scenario {
    let slots = map_duration(&mut s.clone(), usize::MAX, |ms| ms);
    for slot in 0..slots {
        for unit_ms in ROUNDING_UNITS_MS {
            let mut candidate = s.clone();
            let mut changed = false;
            map_duration(&mut candidate, slot, |ms| {
                let rounded = ((ms + unit_ms / 2) / unit_ms * unit_ms).max(unit_ms);
                changed |= rounded != ms;
                rounded
            });
            if !changed {
                // Already whole at this unit, hence at every finer one.
                break;
            }
            if still_fails(&candidate, client, kind, signature) {
                s = candidate;
                break;
            }
        }
    }
    s
}

/// Visits a scenario's durations in a fixed order and maps the one numbered `slot`.
struct DurationSlots<F> {
    slot: usize,
    seen: usize,
    f: F,
}

impl<F: FnMut(u64) -> u64> DurationSlots<F> {
    fn hit(&mut self) -> bool {
        let hit = self.seen == self.slot;
        self.seen += 1;
        hit
    }

    fn plain(&mut self, d: &mut DurationMs) {
        if self.hit() {
            d.0 = (self.f)(d.0);
        }
    }

    /// A range is one duration: both ends move together.
    fn pick(&mut self, p: &mut PickDuration) {
        if self.hit() {
            p.lo.0 = (self.f)(p.lo.0);
            p.hi.0 = (self.f)(p.hi.0);
        }
    }

    fn positive(&mut self, ttl: &mut Option<PositiveDurationMs>) {
        if let Some(d) = ttl
            && self.hit()
            && let Some(mapped) = PositiveDurationMs::new((self.f)(d.ms()))
        {
            *ttl = Some(mapped);
        }
    }
}

/// Applies `f` to duration number `slot` of `s` (client, workload, faults, then the
/// server's TTLs) and returns how many durations `s` has.
fn map_duration(s: &mut Scenario, slot: usize, f: impl FnMut(u64) -> u64) -> usize {
    let mut v = DurationSlots { slot, seen: 0, f };
    v.pick(&mut s.client.start_at);
    v.plain(&mut s.client.reconnect_delay);
    if let ClientEra::Auto { era_cache } = &mut s.client.era {
        v.plain(era_cache);
    }
    for w in &mut s.workload {
        match w {
            Work::CallTool { at, tool, .. } => {
                v.pick(at);
                if let Tool::LongJob { interval, .. } = tool {
                    v.plain(interval);
                }
            }
            Work::Notify { from, every, .. }
            | Work::Tenant {
                at: from, every, ..
            } => {
                v.pick(from);
                v.plain(every);
            }
        }
    }
    for fault in &mut s.faults {
        match fault {
            Fault::Drop { when, away, .. }
            | Fault::Restart { when, away }
            | Fault::DropListen { when, away, .. }
            | Fault::RollEra { when, away, .. } => {
                if let Trigger::At(t) = when {
                    v.pick(t);
                }
                if let Some(a) = away {
                    v.pick(a);
                }
            }
            Fault::Gc { when }
            | Fault::StickyLost { when }
            | Fault::Scale { when, .. }
            | Fault::PurgeTasks { when } => {
                if let Trigger::At(t) = when {
                    v.pick(t);
                }
            }
            Fault::ReplicaDown { when, down, .. }
            | Fault::Proxy502 {
                when,
                lasting: down,
                ..
            } => {
                if let Trigger::At(t) = when {
                    v.pick(t);
                }
                v.plain(down);
            }
            Fault::RollingDeploy {
                when, every, down, ..
            } => {
                if let Trigger::At(t) = when {
                    v.pick(t);
                }
                v.plain(every);
                v.plain(down);
            }
            Fault::StaleTask {
                at,
                holds_session_from,
            } => {
                v.pick(at);
                v.plain(holds_session_from);
            }
            Fault::ChangeList { at, .. } => v.pick(at),
            // Its timeout is the lesson (shorter or longer than the keep-alive): kept.
            Fault::IdleProxy { .. } | Fault::IdleProxySse { .. } => {}
            Fault::CutCall { at, away, .. } => {
                if let CutAt::At(t) = at {
                    v.pick(t);
                }
                if let Some(a) = away {
                    v.pick(a);
                }
            }
        }
    }
    let k = &mut s.server;
    v.positive(&mut k.session_idle_ttl);
    v.positive(&mut k.session_absolute_ttl);
    v.positive(&mut k.event_log_ttl);
    v.positive(&mut k.gc_interval);
    v.positive(&mut k.retry);
    v.seen
}

/// What a finding needs: the knobs (name, value as written in a scenario) and the faults
/// (in words) without which its verdict disappears.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Triggers {
    pub knobs: Vec<(String, String)>,
    pub faults: Vec<String>,
}

impl Triggers {
    /// "session_absolute_ttl: 12m; a dropped connection (reset) at 41m, client away 10m".
    pub fn label(&self) -> String {
        let mut parts: Vec<String> = self
            .knobs
            .iter()
            .map(|(name, value)| format!("{name}: {value}"))
            .collect();
        parts.extend(self.faults.iter().cloned());
        if parts.is_empty() {
            "no single knob or fault: the verdict survives taking away any one of them".into()
        } else {
            parts.join("; ")
        }
    }
}

/// Every knob of [`ServerKnobs`], for [`triggers`] (the shrinker itself leaves the
/// signature's knobs alone).
const ALL_KNOBS: usize = KNOBS + 4;

/// Knob number `knob`: its name and its value as written in a scenario.
fn knob_value(k: &ServerKnobs, knob: usize) -> (&'static str, String) {
    let duration = |d: Option<PositiveDurationMs>| match d {
        Some(d) => d.to_string(),
        None => "None".into(),
    };
    match knob {
        0 => ("session_idle_ttl", duration(k.session_idle_ttl)),
        1 => ("session_absolute_ttl", duration(k.session_absolute_ttl)),
        2 => ("event_log_ttl", duration(k.event_log_ttl)),
        3 => ("event_log_capacity", format!("{:?}", k.event_log_capacity)),
        4 => ("gc_interval", duration(k.gc_interval)),
        5 => ("priming_events", k.priming_events.to_string()),
        6 => ("retry", duration(k.retry)),
        7 => ("json_responses", k.json_responses.to_string()),
        8 => (
            "dead_session_answer",
            format!("{:?}", k.dead_session_answer),
        ),
        9 => ("get_validates_session", k.get_validates_session.to_string()),
        10 => (
            "restart_persistence",
            format!("{:?}", k.restart_persistence),
        ),
        11 => ("on_stream_cut", format!("{:?}", k.on_stream_cut)),
        12 => ("list_ttl", duration(k.list_ttl)),
        13 => ("tasks_offered", k.tasks_offered.to_string()),
        14 => ("task_ttl", duration(k.task_ttl)),
        15 => (
            "task_purge_delay",
            match k.task_purge_delay {
                Some(d) => d.to_string(),
                None => "None".into(),
            },
        ),
        16 => ("task_persistence", format!("{:?}", k.task_persistence)),
        17 => (
            "legacy_probe_answer",
            format!("{:?}", k.legacy_probe_answer),
        ),
        18 => ("legacy_get", format!("{:?}", k.legacy_get)),
        19 => ("task_poll_interval", k.task_poll_interval.to_string()),
        20 => ("handle_idle_ttl", duration(k.handle_idle_ttl)),
        21 => ("handle_persistence", format!("{:?}", k.handle_persistence)),
        22 => ("unknown_handle", format!("{:?}", k.unknown_handle)),
        23 => ("listen_keepalive", duration(k.listen_keepalive)),
        24 => ("evicted_cursor", format!("{:?}", k.evicted_cursor)),
        25 => ("replay_from_cursor", format!("{:?}", k.replay_from_cursor)),
        26 => (
            "keep_answered_streams",
            format!("{:?}", k.keep_answered_streams),
        ),
        27 => ("resumed_stream_end", format!("{:?}", k.resumed_stream_end)),
        28 => ("prime_standalone", format!("{:?}", k.prime_standalone)),
        29 => ("prime_resumed", format!("{:?}", k.prime_resumed)),
        30 => ("id_format", format!("{:?}", k.id_format)),
        31 => ("error_codes", format!("{:?}", k.error_codes)),
        32 => ("accept_wildcard", format!("{:?}", k.accept_wildcard)),
        33 => ("session_id_header", format!("{:?}", k.session_id_header)),
        34 => (
            "all_answers_over_sse",
            format!("{:?}", k.all_answers_over_sse),
        ),
        35 => ("refusal_body", format!("{:?}", k.refusal_body)),
        36 => ("delete_answer", format!("{:?}", k.delete_answer)),
        37 => ("second_standalone", format!("{:?}", k.second_standalone)),
        38 => (
            "cursors_across_sessions",
            k.cursors_across_sessions.to_string(),
        ),
        39 => ("standalone_get", format!("{:?}", k.standalone_get)),
        40 => ("stale_standalone", format!("{:?}", k.stale_standalone)),
        41 => ("era", format!("{:?}", k.era)),
        42 => ("id_scheme", format!("{:?}", k.id_scheme)),
        43 => ("unknown_cursor", format!("{:?}", k.unknown_cursor)),
        44 => (
            "advertise_monotonic_ids",
            k.advertise_monotonic_ids.to_string(),
        ),
        _ => ("max_sessions", k.max_sessions.to_string()),
    }
}

/// Moves knob number `knob` (of [`ALL_KNOBS`]) to its default; false if it already is.
fn reset_any_knob(k: &mut ServerKnobs, d: &ServerKnobs, knob: usize) -> bool {
    fn set<T: PartialEq + Clone>(field: &mut T, default: &T) -> bool {
        if field == default {
            return false;
        }
        *field = default.clone();
        true
    }
    match knob {
        0..KNOBS => reset_knob(k, d, knob),
        42 => set(&mut k.id_scheme, &d.id_scheme),
        43 => set(&mut k.unknown_cursor, &d.unknown_cursor),
        44 => set(&mut k.advertise_monotonic_ids, &d.advertise_monotonic_ids),
        _ => set(&mut k.max_sessions, &d.max_sessions),
    }
}

fn describe_trigger(when: &Trigger) -> String {
    match when {
        Trigger::At(t) => format!("at {t}"),
        Trigger::AfterEvent { n, on } => {
            let n = if n.lo == n.hi {
                n.lo.to_string()
            } else {
                format!("{}..{}", n.lo, n.hi)
            };
            let on = match on {
                StreamSel::Any => "any stream".to_string(),
                StreamSel::Standalone => "the standalone stream".to_string(),
                StreamSel::Call(k) => format!("the stream of call {k}"),
            };
            format!("after event {n} on {on}")
        }
    }
}

/// A fault in words: "a dropped connection (reset) at 41m, client away 10m54s".
pub fn describe_fault(fault: &Fault) -> String {
    let away = |away: &Option<PickDuration>| match away {
        Some(a) => format!(", client away {a}"),
        None => String::new(),
    };
    match fault {
        Fault::Drop {
            when,
            mode,
            away: a,
            ..
        } => format!(
            "a dropped connection ({}) {}{}",
            match mode {
                EndMode::Close => "close",
                EndMode::Reset => "reset",
            },
            describe_trigger(when),
            away(a)
        ),
        Fault::Restart { when, away: a } => {
            format!("a server restart {}{}", describe_trigger(when), away(a))
        }
        Fault::Gc { when } => format!("a GC sweep {}", describe_trigger(when)),
        Fault::ReplicaDown {
            when,
            replica,
            down,
        } => format!(
            "replica r{replica} down for {down} {}",
            describe_trigger(when)
        ),
        Fault::RollingDeploy {
            when,
            every,
            down,
            to_era,
        } => format!(
            "a rolling deploy (each replica down for {down}, {every} apart{}) {}",
            to_era.map_or(String::new(), |to| format!(", coming back as {to:?}")),
            describe_trigger(when)
        ),
        Fault::Scale { when, to } => {
            format!(
                "the fleet scaled to {to} replicas {}",
                describe_trigger(when)
            )
        }
        Fault::StickyLost { when } => {
            format!(
                "the balancer forgetting its pins {}",
                describe_trigger(when)
            )
        }
        Fault::PurgeTasks { when } => {
            format!("the task store purged {}", describe_trigger(when))
        }
        Fault::IdleProxySse { cut_after } => {
            format!("an idle proxy cutting SSE responses quiet for {cut_after}")
        }
        Fault::Proxy502 {
            when,
            lasting,
            status,
        } => format!(
            "a proxy answering {status} for {lasting} {}",
            describe_trigger(when)
        ),
        Fault::StaleTask {
            at,
            holds_session_from,
        } => format!("a stale task at {at} holding the session id of {holds_session_from}"),
        Fault::ChangeList {
            at,
            list,
            notify,
            on_replica,
        } => format!(
            "a change of the {} list at {at}{}{}",
            list.word(),
            if *notify { ", published" } else { ", silent" },
            on_replica.map_or(String::new(), |r| format!(" by replica r{r}"))
        ),
        Fault::DropListen { when, end, away: a } => format!(
            "{} {}{}",
            match end {
                faultline_model::ListenEnd::Reset => "a drop of the listen streams",
                faultline_model::ListenEnd::Complete =>
                    "the listen streams ended by the server (complete result)",
                faultline_model::ListenEnd::Cancelled =>
                    "the listen streams ended by the server (notifications/cancelled)",
            },
            describe_trigger(when),
            away(a)
        ),
        Fault::IdleProxy { cut_after } => {
            format!("an idle proxy cutting listen streams quiet for {cut_after}")
        }
        Fault::RollEra { when, to, away: a } => format!(
            "a restart into era {to:?} {}{}",
            describe_trigger(when),
            away(a)
        ),
        Fault::CutCall { call, at, away: a } => format!(
            "a cut of call {call}'s request stream {}{}",
            match at {
                CutAt::At(t) => format!("at {t}"),
                CutAt::AfterProgress(n) if n.lo == n.hi => {
                    format!("after its progress event {}", n.lo)
                }
                CutAt::AfterProgress(n) => {
                    format!("after its progress event {}..{}", n.lo, n.hi)
                }
            },
            away(a)
        ),
    }
}

/// The knobs and faults of `scenario` without which `kind` disappears for `client`: each
/// is taken away alone (a knob reset to its default, a fault removed) and the run repeated.
pub fn triggers(scenario: &Scenario, client: ClientModel, kind: VerdictKind) -> Triggers {
    let shows = |s: &Scenario| crate::run_unworded(s, s.seed, client).has(kind);
    let defaults = ServerKnobs::default();
    let mut out = Triggers::default();
    for knob in 0..ALL_KNOBS {
        let mut c = scenario.clone();
        if reset_any_knob(&mut c.server, &defaults, knob) && !shows(&c) {
            let (name, value) = knob_value(&scenario.server, knob);
            out.knobs.push((name.to_string(), value));
        }
    }
    if scenario.fleet.is_multi() {
        let f = scenario.fleet;
        let named = [
            ("replicas", f.replicas.to_string()),
            ("balancer", format!("{:?}", f.balancer)),
            ("session_store", format!("{:?}", f.session_store)),
            (
                "event_store",
                crate::explore::event_store_name(f.event_store),
            ),
            ("notifications", format!("{:?}", f.notifications)),
        ];
        let d = FleetKnobs::default();
        for (knob, (name, value)) in named.into_iter().enumerate() {
            let mut c = scenario.clone();
            let changed = match knob {
                0 => {
                    c.fleet = d;
                    c.faults.retain(|f| !is_fleet_fault(f));
                    c.workload.retain(|w| !matches!(w, Work::Tenant { .. }));
                    true
                }
                1 => std::mem::replace(&mut c.fleet.balancer, d.balancer) != d.balancer,
                2 => {
                    std::mem::replace(&mut c.fleet.session_store, d.session_store)
                        != d.session_store
                }
                3 => std::mem::replace(&mut c.fleet.event_store, d.event_store) != d.event_store,
                _ => {
                    std::mem::replace(&mut c.fleet.notifications, d.notifications)
                        != d.notifications
                }
            };
            if changed && !shows(&c) {
                out.knobs.push((name.to_string(), value));
            }
        }
    }
    for i in 0..scenario.faults.len() {
        let mut c = scenario.clone();
        c.faults.remove(i);
        if !shows(&c) {
            out.faults.push(describe_fault(&scenario.faults[i]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use faultline_model::{
        DeadSessionAnswer, DeleteAnswer, DurationMs, Era, ErrorCodes, HandlePersistence, IdFormat,
        IdScheme, LegacyGet, LegacyProbeAnswer, OnStreamCut, PositiveDurationMs, RefusalBody,
        RestartPersistence, ResumedStreamEnd, SecondStandalone, ServerKnobs, SessionIdHeader,
        StaleStandalone, StaleStandaloneAnswer, StandaloneGet, TaskPersistence, UnknownCursor,
        UnknownHandle,
    };

    use super::{ALL_KNOBS, knob_value, reset_any_knob};

    fn ms(ms: u64) -> Option<PositiveDurationMs> {
        PositiveDurationMs::new(ms)
    }

    /// Every knob away from its default, written field by field (no `..`): a new field of
    /// [`ServerKnobs`] does not compile here until the shrinker handles it.
    fn every_knob_moved() -> ServerKnobs {
        ServerKnobs {
            session_idle_ttl: ms(1),
            session_absolute_ttl: ms(2),
            event_log_ttl: ms(3),
            event_log_capacity: Some(4),
            gc_interval: ms(5),
            id_scheme: IdScheme::PerStream,
            unknown_cursor: UnknownCursor::FreshStream,
            get_validates_session: false,
            restart_persistence: RestartPersistence::Nothing,
            advertise_monotonic_ids: false,
            priming_events: true,
            retry: ms(6),
            dead_session_answer: DeadSessionAnswer::Gone,
            json_responses: false,
            max_sessions: 7,
            era: Era::LegacyOnly,
            legacy_probe_answer: LegacyProbeAnswer::NotFound,
            legacy_get: LegacyGet::ServeStream,
            list_ttl: None,
            on_stream_cut: OnStreamCut::RunToEnd,
            tasks_offered: false,
            task_ttl: ms(8),
            task_poll_interval: ms(9).expect("positive"),
            task_purge_delay: Some(DurationMs::ZERO),
            task_persistence: TaskPersistence::Nothing,
            handle_idle_ttl: ms(10),
            handle_persistence: HandlePersistence::Nothing,
            unknown_handle: UnknownHandle::InvalidParams,
            listen_keepalive: ms(11),
            evicted_cursor: Some(UnknownCursor::Empty200),
            replay_from_cursor: true,
            keep_answered_streams: false,
            resumed_stream_end: ResumedStreamEnd::Open,
            prime_standalone: false,
            prime_resumed: true,
            id_format: IdFormat::Uuid,
            error_codes: ErrorCodes {
                invalid_request: -32000,
                session_not_found: -32600,
            },
            accept_wildcard: false,
            session_id_header: SessionIdHeader::Every,
            all_answers_over_sse: true,
            refusal_body: RefusalBody::Text,
            delete_answer: DeleteAnswer::Accepted202,
            second_standalone: SecondStandalone::Shadow,
            cursors_across_sessions: true,
            standalone_get: StandaloneGet::Hang,
            stale_standalone: Some(StaleStandalone {
                answer: StaleStandaloneAnswer::Conflict409,
                lasting: ms(12).expect("positive"),
            }),
        }
    }

    #[test]
    fn resetting_every_knob_gives_the_defaults() {
        let defaults = ServerKnobs::default();
        let mut knobs = every_knob_moved();
        let mut names = Vec::new();
        for knob in 0..ALL_KNOBS {
            names.push(knob_value(&knobs, knob).0);
            assert!(
                reset_any_knob(&mut knobs, &defaults, knob),
                "knob {knob} ({}) was already at its default",
                names.last().expect("just pushed")
            );
        }
        assert_eq!(knobs, defaults, "some knob was not reset");
        // Each knob is named once, so a trigger names the knob it moved.
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            names.len(),
            "a knob is named twice: {names:?}"
        );
    }

    /// One fault of every kind, written field by field: a new kind of [`Fault`] does not
    /// compile here (`kind_of`) until this list has it.
    fn every_fault_kind() -> Vec<faultline_scenario::Fault> {
        use faultline_model::{EndMode, ListName, ListenEnd};
        use faultline_scenario::{CutAt, Fault, PickCount, PickDuration, StreamSel, Trigger};
        let at = || Trigger::At(PickDuration::fixed(DurationMs(60_000)));
        let away = || Some(PickDuration::fixed(DurationMs(40_000)));
        vec![
            Fault::Drop {
                when: at(),
                mode: EndMode::Reset,
                stream: StreamSel::Any,
                away: away(),
            },
            Fault::Restart {
                when: at(),
                away: away(),
            },
            Fault::Gc { when: at() },
            Fault::StaleTask {
                at: PickDuration::fixed(DurationMs(60_000)),
                holds_session_from: DurationMs(0),
            },
            Fault::CutCall {
                call: 0,
                at: CutAt::AfterProgress(PickCount::fixed(4)),
                away: away(),
            },
            Fault::ReplicaDown {
                when: at(),
                replica: 0,
                down: DurationMs(1_000),
            },
            Fault::RollingDeploy {
                when: at(),
                every: DurationMs(1_000),
                down: DurationMs(1_000),
                to_era: None,
            },
            Fault::StickyLost { when: at() },
            Fault::Scale { when: at(), to: 2 },
            Fault::ChangeList {
                at: PickDuration::fixed(DurationMs(60_000)),
                list: ListName::Tools,
                notify: true,
                on_replica: None,
            },
            Fault::DropListen {
                when: at(),
                end: ListenEnd::Reset,
                away: away(),
            },
            Fault::IdleProxy {
                cut_after: DurationMs(1_000),
            },
            Fault::PurgeTasks { when: at() },
            Fault::Proxy502 {
                when: at(),
                lasting: DurationMs(1_000),
                status: 404,
            },
            Fault::IdleProxySse {
                cut_after: DurationMs(1_000),
            },
            Fault::RollEra {
                when: at(),
                to: Era::LegacyOnly,
                away: away(),
            },
        ]
    }

    fn kind_of(fault: &faultline_scenario::Fault) -> usize {
        use faultline_scenario::Fault;
        match fault {
            Fault::Drop { .. } => 0,
            Fault::Restart { .. } => 1,
            Fault::Gc { .. } => 2,
            Fault::StaleTask { .. } => 3,
            Fault::CutCall { .. } => 4,
            Fault::ReplicaDown { .. } => 5,
            Fault::RollingDeploy { .. } => 6,
            Fault::StickyLost { .. } => 7,
            Fault::Scale { .. } => 8,
            Fault::ChangeList { .. } => 9,
            Fault::DropListen { .. } => 10,
            Fault::IdleProxy { .. } => 11,
            Fault::PurgeTasks { .. } => 12,
            Fault::RollEra { .. } => 13,
            Fault::Proxy502 { .. } => 14,
            Fault::IdleProxySse { .. } => 15,
        }
    }

    /// Issue: the shrinker once shortened `away` only for `Drop`, `Restart` and `RollEra`
    /// while arming armed it for `CutCall` and `DropListen` too. Now, for every kind: an
    /// away window arming arms is one the shrinker shortens (and never the other way), and
    /// every fault with a moment is moved earlier.
    #[test]
    fn the_shrinker_shortens_every_away_that_arming_arms() {
        let base = faultline_scenario::Scenario::parse(
            r#"Scenario(name: "t", summary: "t", workload: [
                CallTool(at: "0s", tool: LongJob(steps: 8, interval: "1m"))])"#,
            "t.ron",
        )
        .expect("valid");
        let faults = every_fault_kind();
        let mut kinds: Vec<usize> = faults.iter().map(kind_of).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), 16, "one fault of every kind");
        for fault in faults {
            let mut scenario = base.clone();
            scenario.faults = vec![fault.clone()];
            let armed = faultline_scenario::arm(&scenario, scenario.seed);
            let armed_away = armed.faults[0].away_ms;
            let away_of = |s: &faultline_scenario::Scenario| s.faults[0].away().flatten();
            let shortened = super::candidates(&scenario).iter().any(|c| {
                c.faults.len() == 1
                    && match away_of(c) {
                        None => true,
                        Some(a) => a.hi.ms() < 40_000,
                    }
                    && armed_away.is_some()
            });
            assert_eq!(
                armed_away.is_some(),
                shortened,
                "{fault:?}: arming arms an away of {armed_away:?}; the shrinker shortens it: {shortened}"
            );
            let moved = super::candidates(&scenario).iter().any(|c| {
                c.faults.len() == 1
                    && format!("{:?}", c.faults[0].when()) != format!("{:?}", fault.when())
            });
            assert_eq!(
                !matches!(fault.when(), faultline_scenario::FaultWhen::Always),
                moved,
                "{fault:?}: moved earlier: {moved}"
            );
        }
    }
}
