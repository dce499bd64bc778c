//! Swarm generation for the migration from the 2025 session transport to 2026-07-28: the
//! hazards of a fleet of servers and clients that do not all move at once.
//!
//! - The server speaks both eras with 2025 sessions (`DualStatefulLegacy`), both without
//!   sessions (`DualStatelessLegacy`, the TypeScript SDK's `createMcpHandler`, with what it
//!   answers a 2025 GET: `legacy_get`), 2026-07-28 only, or 2025 only (with what it answers
//!   a 2026-07-28 probe: `legacy_probe_answer`).
//! - The client probes for the era (`era: Auto`, caching what it found for `era_cache`), or
//!   speaks 2025 only, with or without a tools list (`lists_tools`) and with or without
//!   requiring a session (`accepts_sessionless`).
//! - Faults: a deploy into another era (`RollEra`), plain restarts, dropped connections,
//!   and changes of the tools list for the clients that work from one.
//!
//! A 2025-only client meets only servers that speak 2025 (a `ModernOnly` server, at start or
//! after a `RollEra`, fails it for want of a revision in common: no guard can help that).
//! A `LegacyOnly` server that answers a 2026-07-28 probe 400 with one of the 2026-07-28
//! error codes (-32020, -32021, -32022) tells a client that reads the probe by the spec's
//! rule it speaks 2026-07-28 when it does not: no client can tell, so it is drawn only with
//! dishonest servers allowed, as `swarm_modern` draws a task store that re-runs tasks.
//!
//! The draws come from their own ChaCha stream (`seed ^ MIGRATION_SWARM_SALT`), so the
//! 2025 and 2026-07-28 draws keep their bytes. Every drawn scenario passes
//! `Scenario::validate` (asserted).

use faultline_model::{
    DurationMs, EndMode, Era, LegacyGet, LegacyProbeAnswer, ListName, RestartPersistence,
    ServerKnobs,
};
use faultline_scenario::{
    ClientConfig, ClientEra, ClientModel, Fault, PickCount, Scenario, StreamSel, Tool, Trigger,
    Work,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::swarm::{SwarmOptions, log_ms, maybe, ms, positive};
use crate::swarm_modern::at;

/// Salt of the migration draws' stream.
const MIGRATION_SWARM_SALT: u64 = 0x2026_0728_3196_0003;

/// Every era a server can speak.
const ERAS: [Era; 4] = [
    Era::DualStatefulLegacy,
    Era::DualStatelessLegacy,
    Era::ModernOnly,
    Era::LegacyOnly,
];

/// The eras that serve a 2025 client.
const ERAS_SPEAKING_2025: [Era; 3] = [
    Era::DualStatefulLegacy,
    Era::DualStatelessLegacy,
    Era::LegacyOnly,
];

/// The 2026-07-28 error codes (-32020 header mismatch, -32021 missing capability, -32022
/// unsupported version): on a probe's 400 they mean "this server speaks 2026-07-28".
const MODERN_ERROR_CODES: [i64; 3] = [-32020, -32021, -32022];

/// JSON-RPC codes a 2025 server answers a request it cannot place with: server error,
/// invalid request, method not found, internal error.
const LEGACY_ERROR_CODES: [i64; 4] = [-32000, -32600, -32601, -32603];

/// How a `LegacyOnly` server answers a 2026-07-28 request; a 400 carrying a 2026-07-28
/// error code (a legacy server claiming the new era) only when `honest` is false.
fn probe_answer(rng: &mut ChaCha8Rng, honest: bool) -> LegacyProbeAnswer {
    match ms(rng, 0, 5) {
        0 => LegacyProbeAnswer::AsToday,
        1 => LegacyProbeAnswer::PlainText400,
        2 => {
            let lying = !honest && maybe(rng, 0.3);
            let codes: &[i64] = if lying {
                &MODERN_ERROR_CODES
            } else {
                &LEGACY_ERROR_CODES
            };
            LegacyProbeAnswer::Rpc400(codes[ms(rng, 0, codes.len() as u64 - 1) as usize])
        }
        3 => LegacyProbeAnswer::NotFound,
        4 => LegacyProbeAnswer::MethodNotAllowed,
        _ => LegacyProbeAnswer::RunAsLegacy,
    }
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, from: &[T]) -> T {
    from[ms(rng, 0, from.len() as u64 - 1) as usize]
}

/// The migration scenario for `seed`.
pub fn generate(seed: u64, options: SwarmOptions) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ MIGRATION_SWARM_SALT);
    let rng = &mut rng;

    // The client first: which eras it can speak decides which servers it may meet.
    let probes = maybe(rng, 0.6);
    let server_eras: &[Era] = if probes { &ERAS } else { &ERAS_SPEAKING_2025 };
    let era = pick(rng, server_eras);
    let legacy_probe_answer = if era == Era::LegacyOnly {
        probe_answer(rng, options.honest_advertisement)
    } else {
        LegacyProbeAnswer::default()
    };
    let legacy_get = if era == Era::DualStatelessLegacy && maybe(rng, 0.5) {
        LegacyGet::ServeStream
    } else {
        LegacyGet::Refuse405
    };
    let server = ServerKnobs {
        era,
        legacy_probe_answer,
        legacy_get,
        list_ttl: maybe(rng, 0.7).then(|| positive(log_ms(rng, 1_000, 3_600_000))),
        restart_persistence: pick(
            rng,
            &[
                RestartPersistence::Nothing,
                RestartPersistence::SessionIdsOnly,
                RestartPersistence::Everything,
            ],
        ),
        max_sessions: 10_000,
        ..ServerKnobs::default()
    };

    let start = ms(rng, 0, 60_000);
    let lists_tools = maybe(rng, 0.6);
    let client = ClientConfig {
        model: ClientModel::Naive,
        start_at: at(start),
        protocol_version: pick(rng, &["2025-03-26", "2025-06-18", "2025-11-25"]).to_string(),
        reconnect_delay: DurationMs(log_ms(rng, 100, 5_000)),
        standalone_stream: maybe(rng, 0.7),
        era: if probes {
            ClientEra::Auto {
                era_cache: DurationMs(log_ms(rng, 1_000, 7_200_000)),
            }
        } else {
            ClientEra::Legacy
        },
        lists_tools,
        accepts_sessionless: maybe(rng, 0.5),
        use_tasks: false,
        habits: faultline_scenario::ClientHabits::default(),
    };

    let calls = ms(rng, 1, 3);
    let mut workload = Vec::new();
    for _ in 0..calls {
        let when = start + ms(rng, 0, 600_000);
        let tool = if maybe(rng, 0.6) {
            Tool::LongJob {
                steps: PickCount::fixed(log_ms(rng, 1, 50)),
                interval: DurationMs(log_ms(rng, 10, 60_000)),
            }
        } else {
            Tool::Echo {
                text: "swarm".into(),
            }
        };
        workload.push(Work::CallTool {
            at: at(when),
            tool,
            progress: maybe(rng, 0.85),
        });
    }

    let mut faults = Vec::new();
    if options.faults {
        let budget = [0, 1, 1, 2, 2, 3, 5][ms(rng, 0, 6) as usize];
        for _ in 0..budget {
            let when = Trigger::At(at(start + ms(rng, 0, 900_000)));
            let away = maybe(rng, 0.6).then(|| at(log_ms(rng, 100, 600_000)));
            let fault = match ms(rng, 0, 9) {
                0..=2 => Fault::RollEra {
                    when,
                    to: pick(rng, server_eras),
                    away,
                },
                3 | 4 if lists_tools => Fault::ChangeList {
                    at: at(start + ms(rng, 0, 900_000)),
                    list: ListName::Tools,
                    notify: maybe(rng, 0.7),
                    on_replica: None,
                },
                5 | 6 => Fault::Drop {
                    when,
                    mode: if maybe(rng, 0.5) {
                        EndMode::Reset
                    } else {
                        EndMode::Close
                    },
                    stream: StreamSel::Any,
                    away,
                },
                _ => Fault::Restart { when, away },
            };
            faults.push(fault);
        }
    }

    let scenario = Scenario {
        name: format!("swarm_{seed}"),
        summary: "generated by the swarm (migration to 2026-07-28)".into(),
        seed,
        server,
        fleet: Default::default(),
        client,
        workload,
        faults,
        horizon: Some(positive(12 * 3_600_000)),
        expect: Default::default(),
    };
    if let Err(e) = scenario.validate() {
        panic!("the migration swarm drew a scenario that fails its check: {e}");
    }
    scenario
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(honest: bool) -> SwarmOptions {
        SwarmOptions {
            honest_advertisement: honest,
            ..SwarmOptions::default()
        }
    }

    /// The draws reach every era, every probe answer, both GET answers, both client kinds
    /// and every migration fault.
    #[test]
    fn the_draws_cover_the_migration_knobs() {
        let mut eras = Vec::new();
        let mut answers = Vec::new();
        let (mut serve_stream, mut auto, mut legacy_lists, mut roll, mut change) =
            (false, false, false, false, false);
        for seed in 0..600 {
            let s = generate(seed, options(true));
            if !eras.contains(&s.server.era) {
                eras.push(s.server.era);
            }
            let answer = std::mem::discriminant(&s.server.legacy_probe_answer);
            if !answers.contains(&answer) {
                answers.push(answer);
            }
            serve_stream |= s.server.legacy_get == LegacyGet::ServeStream;
            auto |= matches!(s.client.era, ClientEra::Auto { .. });
            legacy_lists |= s.client.era == ClientEra::Legacy && s.client.lists_tools;
            roll |= s.faults.iter().any(|f| matches!(f, Fault::RollEra { .. }));
            change |= s
                .faults
                .iter()
                .any(|f| matches!(f, Fault::ChangeList { .. }));
            if s.client.era == ClientEra::Legacy {
                assert_ne!(s.server.era, Era::ModernOnly, "seed {seed}");
                for f in &s.faults {
                    assert!(
                        !matches!(
                            f,
                            Fault::RollEra {
                                to: Era::ModernOnly,
                                ..
                            }
                        ),
                        "seed {seed}"
                    );
                }
            }
        }
        assert_eq!(eras.len(), 4, "{eras:?}");
        assert_eq!(answers.len(), 6);
        assert!(serve_stream && auto && legacy_lists && roll && change);
    }

    /// A legacy server's probe answer claims the new era only with dishonest servers.
    #[test]
    fn a_probe_answer_with_a_modern_code_is_dishonest() {
        let claims = |honest: bool| {
            (0..3_000).any(|seed| {
                matches!(
                    generate(seed, options(honest)).server.legacy_probe_answer,
                    LegacyProbeAnswer::Rpc400(c) if MODERN_ERROR_CODES.contains(&c)
                )
            })
        };
        assert!(!claims(true));
        assert!(claims(false));
    }

    #[test]
    fn the_same_seed_draws_the_same_scenario() {
        for seed in [0, 1, 7, 1_000_003] {
            assert_eq!(
                generate(seed, options(true)).to_ron(),
                generate(seed, options(true)).to_ron()
            );
        }
    }
}
