//! `ReplicaDown`: one replica of a fleet crashes and stays down for `down`. Its
//! connections are reset and its jobs die; what it held in memory (per-replica sessions
//! and their logs) goes the way `restart_persistence` says. The balancer sends nothing to
//! it while it is down: pinned traffic fails over. Named `down` because `away` already
//! means the client's absence.

use faultline_model::{DurationMs, Output, ReplicaId};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct ReplicaDown {
    pub(crate) replica: ReplicaId,
    pub(crate) down_ms: u64,
}

impl FaultAction for ReplicaDown {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let server = target.server();
        let persistence = server.knobs().restart_persistence;
        let conns = server.replica_down(self.replica, self.down_ms, now_ms, out);
        Strike {
            note: target.note(|| {
                format!(
                    "replica {} down for {} (persistence: {persistence:?})",
                    self.replica,
                    DurationMs(self.down_ms)
                )
            }),
            conns,
            then: Vec::new(),
        }
    }
}
