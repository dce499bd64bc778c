//! `RollingDeploy`: a deploy replaces the fleet's replicas one at a time, the way a
//! Kubernetes Deployment's rolling update does. Replica 0 goes down for `down` when the
//! fault fires, replica 1 `every` later, and so on to the last; each goes the way a
//! [`ReplicaDown`](super::replica_down) goes (connections reset, jobs killed, in-memory
//! state as `restart_persistence` says). One strike takes one replica down and queues the
//! next as its follow-up ([`Strike::then`]), so a deploy whose trigger is an event still
//! spaces its steps `every` apart. A deploy goes over the replicas the fleet has when each
//! step fires: after a `Scale` down it skips the removed ones, after a `Scale` up it
//! reaches the added ones. With `to_era` each replica comes back speaking another era
//! ([`Server::roll_replica_era`](faultline_model::Server::roll_replica_era)): until the
//! last step the fleet is mixed, and a balancer sends one request to the old era and the
//! next to the new.

use std::sync::Arc;

use faultline_model::{DurationMs, Era, Output, ReplicaId};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct RollingDeploy {
    pub(crate) every_ms: u64,
    pub(crate) down_ms: u64,
    /// The era each replica comes back speaking, when the deploy changes it.
    pub(crate) to_era: Option<Era>,
    /// The replica this step takes down.
    pub(crate) next: u8,
}

impl FaultAction for RollingDeploy {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let server = target.server();
        let replicas = server.replica_count();
        let persistence = server.knobs().restart_persistence;
        let replica = ReplicaId(self.next);
        if self.next >= replicas {
            // The fleet was scaled down since the deploy began: the replicas left to
            // restart are gone, and so is the rest of the deploy.
            return Strike {
                note: target.note(|| format!(
                    "rolling deploy: replica {replica} skipped (scaled away; the fleet has {replicas})"
                )),
                conns: Vec::new(),
                then: Vec::new(),
            };
        }
        let from = server.era_of(replica);
        let conns = match self.to_era {
            Some(to) => server.roll_replica_era(replica, to, self.down_ms, now_ms, out),
            None => server.replica_down(replica, self.down_ms, now_ms, out),
        };
        let mut then: Vec<(u64, Arc<dyn FaultAction>)> = Vec::new();
        if self.next.saturating_add(1) < replicas {
            then.push((
                self.every_ms,
                Arc::new(RollingDeploy {
                    next: self.next + 1,
                    ..*self
                }),
            ));
        }
        Strike {
            note: target.note(|| {
                let era = match self.to_era {
                    Some(to) => format!("; {from:?} to {to:?}"),
                    None => String::new(),
                };
                format!(
                    "rolling deploy: replica {replica} down for {} ({} of {replicas}; persistence: {persistence:?}{era})",
                    DurationMs(self.down_ms),
                    self.next + 1,
                )
            }),
            conns,
            then,
        }
    }
}
