//! The shrinker: reduce a failing scenario while the same verdict (kind and knob
//! signature) still appears, so a finding is a small lesson rather than a swarm of noise.
//!
//! Greedy and deterministic: try removing each fault, each workload item; halve counts and
//! durations; move each knob outside the signature back to its default. Keep any change
//! after which the verdict persists; repeat until nothing changes. Every candidate is a full
//! simulation run, which at ~100 µs a run makes a few hundred attempts cheap.

use faultline_model::{DurationMs, PositiveDurationMs, ServerKnobs};

use crate::explore::{Signature, signature_of};
use crate::verdict::VerdictKind;
use faultline_scenario::{ClientModel, Fault, Scenario, Tool, Trigger, Work};
use faultline_scenario::{PickCount, PickDuration};

/// Whether `scenario` (run with its own seed) still shows `kind` with `signature`.
fn still_fails(
    scenario: &Scenario,
    client: ClientModel,
    kind: VerdictKind,
    signature: &Signature,
) -> bool {
    if signature_of(kind, &scenario.server) != *signature {
        return false;
    }
    crate::run_untraced(scenario, scenario.seed, client).has(kind)
}

fn halve_duration(d: PickDuration) -> Option<PickDuration> {
    (d.hi.ms() > 0).then(|| PickDuration::fixed(DurationMs(d.lo.ms() / 2)))
}

fn halve_count(c: PickCount) -> Option<PickCount> {
    (c.hi > 1).then(|| PickCount::fixed(c.lo.max(2) / 2))
}

/// All one-step simplifications of `s`, most aggressive first.
fn candidates(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
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
            Work::Notify { count, .. } => halve_count(*count).map(|h| *count = h).is_some(),
            _ => false,
        };
        if changed {
            out.push(c);
        }
        let mut c = s.clone();
        let changed = match &mut c.workload[i] {
            Work::CallTool { at, .. } | Work::Notify { from: at, .. } => {
                halve_duration(*at).map(|h| *at = h).is_some()
            }
        };
        if changed {
            out.push(c);
        }
    }
    for i in 0..s.faults.len() {
        let mut c = s.clone();
        let changed = match &mut c.faults[i] {
            Fault::Drop { away, .. } | Fault::Restart { away, .. } => match away {
                Some(a) => match halve_duration(*a) {
                    Some(h) if h.hi.ms() > 0 => {
                        *a = h;
                        true
                    }
                    _ => {
                        *away = None;
                        true
                    }
                },
                None => false,
            },
            _ => false,
        };
        if changed {
            out.push(c);
        }
        let mut c = s.clone();
        let changed = match &mut c.faults[i] {
            Fault::Drop { when, .. } | Fault::Restart { when, .. } | Fault::Gc { when } => {
                match when {
                    Trigger::At(t) => halve_duration(*t).map(|h| *t = h).is_some(),
                    Trigger::AfterEvent { n, .. } => halve_count(*n).map(|h| *n = h).is_some(),
                }
            }
            Fault::StaleTask { at, .. } => halve_duration(*at).map(|h| *at = h).is_some(),
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
    use faultline_scenario::StreamSel;
    let sel_bad = |sel: &StreamSel| matches!(sel, StreamSel::Call(k) if *k >= calls);
    match fault {
        Fault::Drop { when, stream, .. } => {
            sel_bad(stream) || matches!(when, Trigger::AfterEvent { on, .. } if sel_bad(on))
        }
        Fault::Restart { when, .. } | Fault::Gc { when } => {
            matches!(when, Trigger::AfterEvent { on, .. } if sel_bad(on))
        }
        Fault::StaleTask { .. } => false,
    }
}

const KNOBS: usize = 11;

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
        _ => set(&mut k.restart_persistence, &d.restart_persistence),
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
    best.horizon = Some(PositiveDurationMs::new(24 * 3_600_000).expect("positive"));
    let mut attempts = 0;
    loop {
        let mut improved = false;
        for candidate in candidates(&best) {
            attempts += 1;
            if attempts > MAX_ATTEMPTS {
                return best;
            }
            if still_fails(&candidate, client, kind, signature) {
                best = candidate;
                improved = true;
                break;
            }
        }
        if !improved {
            return best;
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
    scenario.faults.len() + scenario.workload.len() + knobs
}
