//! Swarm generation: a whole scenario — server knobs, workload, fault script — chosen by
//! the seed alone.
//!
//! Like TigerBeetle's VOPR swarm, each seed first picks *how much* of everything to use
//! (some seeds have no faults at all, some many; some servers are generous, some stingy),
//! then the details. The property tests, the explorer and the testkit all draw scenarios
//! from here, so there is one generator to trust and to improve.

use faultline_model::{
    DeadSessionAnswer, DurationMs, EndMode, IdScheme, PositiveDurationMs, RestartPersistence,
    ServerKnobs, UnknownCursor,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::swarm_era::DrawnEra;

use faultline_scenario::{
    ClientConfig, ClientModel, Fault, Scenario, StreamSel, Tool, Trigger, Work,
};
use faultline_scenario::{PickCount, PickDuration};

/// What kinds of runs to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwarmOptions {
    /// Generate fault scripts (otherwise none, and no TTL can expire mid-run).
    pub faults: bool,
    /// Only servers whose monotonic-id advertisement is true of their numbering (and, in
    /// a fleet, whose notifications reach their listener wherever it is connected; on
    /// 2026-07-28, whose task store does not run an interrupted task again).
    pub honest_advertisement: bool,
    /// Put half the seeds behind a fleet of replicas (see `swarm_fleet`); the rest of each
    /// seed's scenario is the same either way.
    pub fleets: bool,
    /// Which protocol era's runs to draw (2025 by default, so every seed keeps its bytes).
    pub era: crate::swarm_era::SwarmEra,
}

impl Default for SwarmOptions {
    fn default() -> Self {
        SwarmOptions {
            faults: true,
            honest_advertisement: true,
            fleets: false,
            era: Default::default(),
        }
    }
}

/// Uniform in [lo, hi] (the other swarm modules draw with it too).
pub(crate) fn ms(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    rng.random_range(lo..=hi)
}

/// Log-uniform in [lo, hi]: short and long TTLs are equally likely to be explored.
pub(crate) fn log_ms(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    let (a, b) = ((lo as f64).ln(), (hi as f64).ln());
    let x: f64 = rng.random_range(a..=b);
    (x.exp() as u64).clamp(lo, hi)
}

pub(crate) fn positive(ms: u64) -> PositiveDurationMs {
    PositiveDurationMs::new(ms.max(1)).expect("positive")
}

pub(crate) fn maybe(rng: &mut ChaCha8Rng, p: f64) -> bool {
    rng.random_bool(p)
}

/// The scenario for `seed`.
pub fn generate(seed: u64, options: SwarmOptions) -> Scenario {
    match options.era.draw(seed) {
        DrawnEra::Legacy => {}
        DrawnEra::Modern => return crate::swarm_modern::generate(seed, options),
        DrawnEra::Migration => return crate::swarm_migration::generate(seed, options),
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_fa17_11e5_0001);
    let rng = &mut rng;

    let id_scheme = [
        IdScheme::SessionMonotonic,
        IdScheme::PerStream,
        IdScheme::PerGeneration,
    ][ms(rng, 0, 2) as usize];
    let unknown_cursor = [
        UnknownCursor::FreshStream,
        UnknownCursor::BadRequest,
        UnknownCursor::NotFound,
        UnknownCursor::Empty200,
        UnknownCursor::ReplayRemaining,
    ][ms(rng, 0, 4) as usize];
    let advertise = if options.honest_advertisement {
        id_scheme == IdScheme::SessionMonotonic && maybe(rng, 0.8)
    } else {
        maybe(rng, 0.5)
    };
    let mut server = ServerKnobs {
        session_idle_ttl: maybe(rng, 0.5).then(|| positive(log_ms(rng, 30_000, 7_200_000))),
        session_absolute_ttl: maybe(rng, 0.25).then(|| positive(log_ms(rng, 60_000, 7_200_000))),
        event_log_ttl: maybe(rng, 0.6).then(|| positive(log_ms(rng, 1_000, 7_200_000))),
        event_log_capacity: if maybe(rng, 0.6) {
            Some(log_ms(rng, 1, 10_000) as u32)
        } else {
            None
        },
        gc_interval: maybe(rng, 0.3).then(|| positive(log_ms(rng, 1_000, 600_000))),
        id_scheme,
        unknown_cursor,
        get_validates_session: maybe(rng, 0.5),
        restart_persistence: [
            RestartPersistence::Nothing,
            RestartPersistence::SessionIdsOnly,
            RestartPersistence::Everything,
        ][ms(rng, 0, 2) as usize],
        advertise_monotonic_ids: advertise,
        priming_events: maybe(rng, 0.5),
        retry: maybe(rng, 0.3).then(|| positive(log_ms(rng, 100, 10_000))),
        dead_session_answer: [
            DeadSessionAnswer::NotFound,
            DeadSessionAnswer::NotFound,
            DeadSessionAnswer::Gone,
            DeadSessionAnswer::BadRequest,
        ][ms(rng, 0, 3) as usize],
        json_responses: maybe(rng, 0.8),
        max_sessions: 10_000,
        ..ServerKnobs::default()
    };
    if !options.faults {
        server.session_idle_ttl = None;
        server.session_absolute_ttl = None;
    }

    let start = ms(rng, 0, 60_000);
    let client = ClientConfig {
        model: ClientModel::Naive,
        start_at: PickDuration::fixed(DurationMs(start)),
        protocol_version: ["2025-03-26", "2025-06-18", "2025-11-25"][ms(rng, 0, 2) as usize]
            .to_string(),
        reconnect_delay: DurationMs(log_ms(rng, 100, 5_000)),
        standalone_stream: maybe(rng, 0.7),
        era: Default::default(),
        lists_tools: false,
        accepts_sessionless: false,
        use_tasks: false,
        habits: faultline_scenario::ClientHabits::default(),
    };

    let mut workload = Vec::new();
    let calls = ms(rng, 0, 3) as usize;
    for _ in 0..calls {
        let at = start + ms(rng, 0, 1_800_000);
        let tool = if maybe(rng, 0.75) {
            Tool::LongJob {
                steps: PickCount::fixed(log_ms(rng, 1, 300)),
                interval: DurationMs(log_ms(rng, 10, 60_000)),
            }
        } else {
            Tool::Echo {
                text: "swarm".into(),
            }
        };
        workload.push(Work::CallTool {
            at: PickDuration::fixed(DurationMs(at)),
            tool,
            progress: maybe(rng, 0.85),
        });
    }
    let notifies = ms(rng, 0, 2);
    for _ in 0..notifies {
        workload.push(Work::Notify {
            from: PickDuration::fixed(DurationMs(start + ms(rng, 1, 600_000))),
            every: DurationMs(log_ms(rng, 50, 120_000)),
            count: PickCount::fixed(log_ms(rng, 1, 500)),
        });
    }

    let mut faults = Vec::new();
    if options.faults {
        // Swarm: first how many faults this seed gets (often none, sometimes many).
        let budget = [0, 0, 1, 1, 2, 3, 5, 8][ms(rng, 0, 7) as usize];
        for _ in 0..budget {
            let when = if calls + (notifies as usize) > 0 && maybe(rng, 0.5) {
                let on = if calls > 0 && maybe(rng, 0.5) {
                    StreamSel::Call(ms(rng, 0, calls as u64 - 1) as usize)
                } else if maybe(rng, 0.5) {
                    StreamSel::Standalone
                } else {
                    StreamSel::Any
                };
                Trigger::AfterEvent {
                    n: PickCount::fixed(log_ms(rng, 1, 300)),
                    on,
                }
            } else {
                Trigger::At(PickDuration::fixed(DurationMs(
                    start + ms(rng, 0, 3_600_000),
                )))
            };
            let away = maybe(rng, 0.6)
                .then(|| PickDuration::fixed(DurationMs(log_ms(rng, 100, 7_200_000))));
            let fault = match ms(rng, 0, 9) {
                0..=5 => Fault::Drop {
                    when,
                    mode: if maybe(rng, 0.5) {
                        EndMode::Reset
                    } else {
                        EndMode::Close
                    },
                    stream: StreamSel::Any,
                    away,
                },
                6 => Fault::Restart { when, away },
                7 | 8 => Fault::Gc { when },
                _ => Fault::StaleTask {
                    at: PickDuration::fixed(DurationMs(start + ms(rng, 0, 3_600_000))),
                    holds_session_from: DurationMs(start),
                },
            };
            faults.push(fault);
        }
    }

    let mut scenario = Scenario {
        name: format!("swarm_{seed}"),
        summary: "generated by the swarm".into(),
        seed,
        server,
        fleet: Default::default(),
        client,
        workload,
        faults,
        horizon: Some(positive(12 * 3_600_000)),
        expect: Default::default(),
    };
    if options.fleets {
        crate::swarm_fleet::add_fleet(
            &mut scenario,
            seed,
            options.faults,
            !options.honest_advertisement,
        );
    }
    scenario
}
