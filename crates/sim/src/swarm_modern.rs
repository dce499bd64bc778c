//! Swarm generation for the 2026-07-28 (stateless) transport: a modern client, a workload
//! of `place_order` and job tools, the server's modern knobs and the faults that hurt a
//! stateless client (a cut request stream, a changed tools list, a dropped listen, a
//! purged or restarted task store).
//!
//! Modern draws come from their own ChaCha stream (`seed ^ MODERN_SWARM_SALT`), and the
//! choice of era under [`SwarmEra::Mixed`](crate::swarm_era::SwarmEra) from another, so the
//! 2025 draws of [`crate::swarm::generate`] keep their bytes for every seed.
//!
//! A client that listens also meets the listen transport's own hazards, drawn from a third
//! stream (`seed ^ LISTEN_SWARM_SALT`, after everything else): a keep-alive interval or
//! none, a proxy that cuts quiet listens (`IdleProxy`,
//! <https://github.com/modelcontextprotocol/go-sdk/pull/1232>), and how a dropped listen
//! ends (a reset, a `complete` result or `notifications/cancelled`).
//!
//! Every drawn scenario passes `Scenario::validate` (asserted): the generator never hands the
//! explorer a run a scenario file could not describe.

use faultline_model::{DurationMs, ListName, OnStreamCut, ServerKnobs, TaskPersistence};
use faultline_scenario::{
    ClientConfig, ClientEra, ClientModel, CutAt, Fault, PickCount, PickDuration, Scenario, Tool,
    Trigger, Work,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::swarm::{SwarmOptions, log_ms, maybe, ms, positive};

/// Salt of the modern draws' stream.
const MODERN_SWARM_SALT: u64 = 0x2026_0728_5a4d_0001;
/// Salt of the listen transport's draws (keep-alive, idle proxy, how a drop ends).
const LISTEN_SWARM_SALT: u64 = 0x2026_0728_1d1e_0003;
/// A run with keep-alives or an idle proxy and an open listen has due work until its
/// horizon; two hours is past every drawn call, fault and task lifetime.
const LISTEN_HORIZON_MS: u64 = 2 * 3_600_000;

/// A fixed instant or duration (the modern and migration draws write many).
pub(crate) fn at(ms: u64) -> PickDuration {
    PickDuration::fixed(DurationMs(ms))
}

/// A task store that runs an interrupted task again after a restart (`Everything`) makes
/// a non-idempotent tool commit twice with nothing on the wire to tell (the same task id,
/// `working` again) and no idempotency key a client could send: a server no client can
/// guard against, drawn only with dishonest servers allowed (as `SameReplica` is in
/// `swarm_fleet`).
fn task_persistence(rng: &mut ChaCha8Rng, honest: bool) -> TaskPersistence {
    if honest {
        [TaskPersistence::TerminalOnly, TaskPersistence::Nothing][ms(rng, 0, 1) as usize]
    } else {
        [
            TaskPersistence::Everything,
            TaskPersistence::TerminalOnly,
            TaskPersistence::Nothing,
        ][ms(rng, 0, 2) as usize]
    }
}

/// The 2026-07-28 scenario for `seed`.
pub fn generate(seed: u64, options: SwarmOptions) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ MODERN_SWARM_SALT);
    let rng = &mut rng;

    let mut server = ServerKnobs {
        on_stream_cut: [
            OnStreamCut::StopAtOnce,
            OnStreamCut::FinishThroughCommit,
            OnStreamCut::RunToEnd,
        ][ms(rng, 0, 2) as usize],
        list_ttl: maybe(rng, 0.7).then(|| positive(log_ms(rng, 1_000, 3_600_000))),
        tasks_offered: maybe(rng, 0.9),
        task_ttl: maybe(rng, 0.5).then(|| positive(log_ms(rng, 1_000, 3_600_000))),
        task_purge_delay: maybe(rng, 0.4).then(|| DurationMs(log_ms(rng, 1, 600_000))),
        task_persistence: task_persistence(rng, options.honest_advertisement),
        max_sessions: 10_000,
        ..ServerKnobs::default()
    };

    let lists_tools = maybe(rng, 0.5);
    let use_tasks = maybe(rng, 0.4);
    let start = ms(rng, 0, 60_000);
    let client = ClientConfig {
        model: ClientModel::Naive,
        start_at: at(start),
        protocol_version: "2026-07-28".into(),
        reconnect_delay: DurationMs(log_ms(rng, 100, 5_000)),
        standalone_stream: false,
        era: ClientEra::Modern,
        lists_tools,
        accepts_sessionless: false,
        use_tasks,
        habits: faultline_scenario::ClientHabits::default(),
    };

    // (tool streams, asks for progress) per call, for the CutCall draws below.
    let mut calls: Vec<(bool, bool)> = Vec::new();
    let mut workload = Vec::new();
    for _ in 0..ms(rng, 1, 3) {
        let when = start + ms(rng, 0, 600_000);
        let tool = match ms(rng, 0, 9) {
            0..=4 => {
                let steps = log_ms(rng, 1, 20) as u32;
                Tool::PlaceOrder {
                    steps,
                    interval: DurationMs(log_ms(rng, 10, 60_000)),
                    commit_step: maybe(rng, 0.5).then(|| ms(rng, 1, steps as u64) as u32),
                }
            }
            5..=7 => Tool::LongJob {
                steps: PickCount::fixed(log_ms(rng, 1, 100)),
                interval: DurationMs(log_ms(rng, 10, 60_000)),
            },
            _ => Tool::Echo {
                text: "swarm".into(),
            },
        };
        let progress = maybe(rng, 0.85);
        calls.push((tool.streams(), progress));
        workload.push(Work::CallTool {
            at: at(when),
            tool,
            progress,
        });
    }

    let mut faults = Vec::new();
    if options.faults {
        let budget = [0, 1, 1, 2, 2, 3, 5][ms(rng, 0, 6) as usize];
        for _ in 0..budget {
            let when = Trigger::At(at(start + ms(rng, 0, 900_000)));
            let away = maybe(rng, 0.6).then(|| at(log_ms(rng, 100, 600_000)));
            let fault = match ms(rng, 0, 9) {
                0..=2 => {
                    let cuttable: Vec<usize> = (0..calls.len()).filter(|&i| calls[i].0).collect();
                    if use_tasks || cuttable.is_empty() {
                        Fault::Restart { when, away }
                    } else {
                        let call = cuttable[ms(rng, 0, cuttable.len() as u64 - 1) as usize];
                        let cut = if calls[call].1 && maybe(rng, 0.7) {
                            CutAt::AfterProgress(PickCount::fixed(log_ms(rng, 1, 20)))
                        } else {
                            CutAt::At(at(start + ms(rng, 0, 900_000)))
                        };
                        Fault::CutCall {
                            call,
                            at: cut,
                            away,
                        }
                    }
                }
                3 | 4 => Fault::ChangeList {
                    at: at(start + ms(rng, 0, 900_000)),
                    list: ListName::Tools,
                    notify: maybe(rng, 0.7),
                    on_replica: None,
                },
                5 if lists_tools => Fault::DropListen {
                    when,
                    end: faultline_model::ListenEnd::Reset,
                    away,
                },
                6 => Fault::PurgeTasks { when },
                _ => Fault::Restart { when, away },
            };
            faults.push(fault);
        }
    }

    let mut horizon = 12 * 3_600_000;
    if lists_tools {
        let mut lrng = ChaCha8Rng::seed_from_u64(seed ^ LISTEN_SWARM_SALT);
        let lrng = &mut lrng;
        server.listen_keepalive = maybe(lrng, 0.4).then(|| positive(log_ms(lrng, 5_000, 60_000)));
        let proxy = options.faults && maybe(lrng, 0.2);
        if proxy {
            faults.push(Fault::IdleProxy {
                cut_after: DurationMs(log_ms(lrng, 30_000, 300_000)),
            });
        }
        for fault in &mut faults {
            if let Fault::DropListen { end, .. } = fault {
                *end = [
                    faultline_model::ListenEnd::Reset,
                    faultline_model::ListenEnd::Complete,
                    faultline_model::ListenEnd::Cancelled,
                ][ms(lrng, 0, 2) as usize];
            }
        }
        if server.listen_keepalive.is_some() || proxy {
            horizon = LISTEN_HORIZON_MS;
        }
    }

    let scenario = Scenario {
        name: format!("swarm_{seed}"),
        summary: "generated by the swarm (2026-07-28)".into(),
        seed,
        server,
        fleet: Default::default(),
        client,
        workload,
        faults,
        horizon: Some(positive(horizon)),
        expect: Default::default(),
    };
    if let Err(e) = scenario.validate() {
        panic!("the modern swarm drew a scenario that fails its check: {e}");
    }
    scenario
}
