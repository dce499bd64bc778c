//! The swarm's fleets: the topology in front of a generated scenario (how many replicas,
//! which balancer, what the replicas share) and the faults only a fleet has.
//!
//! Everything here comes from its own random stream, drawn after the rest of the scenario,
//! so the rest of a seed's scenario is the same whether fleets are on or not. Half the
//! seeds keep a single server: for those nothing here changes a byte. A notification bus
//! that reaches only the publishing replica (`SameReplica`) produces events no client is
//! ever sent, so it appears only with dishonest servers allowed.

use faultline_model::{
    Balancer, DurationMs, EventStoreScope, FleetKnobs, Notifications, SessionStoreScope, SharedKey,
};
use faultline_scenario::{Fault, PickCount, PickDuration, Scenario, Trigger, Work};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::swarm::{log_ms, ms};

/// Keeps the fleet draws apart from the rest of the seed's scenario.
const FLEET_STREAM: u64 = 0x5eed_fa17_11e5_0002;

/// Puts half the seeds behind a fleet of 2 to 4 replicas, with a tenant sometimes, and
/// fleet faults when `faults` (replicas down, a rolling deploy, a scale, the balancer
/// forgetting its pins). `dishonest` allows `SameReplica` notifications.
pub(crate) fn add_fleet(scenario: &mut Scenario, seed: u64, faults: bool, dishonest: bool) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ FLEET_STREAM);
    let rng = &mut rng;
    if rng.random_bool(0.5) {
        return;
    }
    let replicas = ms(rng, 2, 4) as u8;
    let fleet = FleetKnobs {
        replicas,
        balancer: [
            Balancer::RoundRobin,
            Balancer::StickySessionId,
            Balancer::Random,
            Balancer::StickyCookie,
            Balancer::ClientAddress,
        ][ms(rng, 0, 4) as usize],
        session_store: if rng.random_bool(0.5) {
            SessionStoreScope::PerReplica
        } else {
            SessionStoreScope::Shared
        },
        event_store: [
            EventStoreScope::PerReplica,
            EventStoreScope::Shared {
                by: SharedKey::Session,
            },
            EventStoreScope::Shared {
                by: SharedKey::Stream,
            },
        ][ms(rng, 0, 2) as usize],
        notifications: if dishonest && rng.random_bool(0.5) {
            Notifications::SameReplica
        } else {
            Notifications::AllReplicas
        },
    };
    scenario.fleet = fleet;
    let start = scenario.client.start_at.lo.ms();
    if rng.random_bool(0.3) {
        scenario.workload.push(Work::Tenant {
            at: PickDuration::fixed(DurationMs(start + ms(rng, 0, 600_000))),
            every: DurationMs(log_ms(rng, 50, 60_000)),
            count: PickCount::fixed(log_ms(rng, 1, 200)),
        });
    }
    if !faults {
        return;
    }
    let count = [0, 1, 1, 2, 3][ms(rng, 0, 4) as usize];
    for _ in 0..count {
        let when = Trigger::At(PickDuration::fixed(DurationMs(
            start + ms(rng, 0, 3_600_000),
        )));
        let fault = match ms(rng, 0, 3) {
            0 => Fault::ReplicaDown {
                when,
                replica: ms(rng, 0, u64::from(replicas) - 1) as u8,
                down: DurationMs(log_ms(rng, 1_000, 3_600_000)),
            },
            1 => Fault::RollingDeploy {
                when,
                every: DurationMs(log_ms(rng, 1_000, 120_000)),
                down: DurationMs(log_ms(rng, 1_000, 120_000)),
                to_era: None,
            },
            2 => Fault::Scale {
                when,
                to: ms(rng, 1, 5) as u8,
            },
            _ => Fault::StickyLost { when },
        };
        scenario.faults.push(fault);
    }
}
