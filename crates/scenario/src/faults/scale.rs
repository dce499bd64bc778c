//! `Scale(when, to)`: the fleet is scaled to `to` replicas, the way an autoscaler or a
//! `kubectl scale` does it. A shrink removes the highest replicas for good: each is a
//! [`ReplicaDown`](super::replica_down) that never ends, and what it held in memory is
//! lost whatever `restart_persistence` says, since no process comes back to read it. A
//! growth adds empty replicas. The balancer then picks among the new set: rendezvous
//! hashing keeps the pins of the replicas that survive, round robin turns over the new
//! count, and a cookie naming a removed replica pins anew.

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Scale {
    pub(crate) to: u8,
}

impl FaultAction for Scale {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let server = target.server();
        let from = server.replica_count();
        let conns = server.scale(self.to, now_ms, out);
        let to = server.replica_count();
        if let Some(balancer) = target.balancer() {
            balancer.set_replicas(to);
        }
        let change = match to.cmp(&from) {
            std::cmp::Ordering::Less => format!("r{to}..r{} removed", from - 1),
            std::cmp::Ordering::Greater => format!("r{from}..r{} added", to - 1),
            std::cmp::Ordering::Equal => "no change".to_string(),
        };
        Strike {
            note: target.note(|| format!("scale from {from} to {to} replicas ({change})")),
            conns,
            then: Vec::new(),
        }
    }
}
