//! `RollEra`: a deploy that changes which protocol eras the server speaks (an SDK upgrade
//! to one that serves MCP 2026-07-28, or a rollback from one): a restart, after which the
//! `era` knob is `to`. Recorded in `Ledger.era_changes`. A client that cached the era it
//! found and never probes again keeps speaking the old one
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>: clients
//! should re-probe when the cached era fails).

use faultline_model::{Era, Output};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct RollEra {
    pub(crate) to: Era,
}

impl FaultAction for RollEra {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let server = target.server();
        let conns = server.open_connections(None);
        let from = server.knobs().era;
        server.roll_era(self.to, now_ms, out);
        Strike {
            note: target.note(|| {
                if from == self.to {
                    // The swarm draws such rolls: a redeploy of the same era.
                    format!("server restart, redeployed in the same era ({from:?})")
                } else {
                    format!(
                        "server restart into another era ({from:?} to {:?})",
                        self.to
                    )
                }
            }),
            conns,
            then: Vec::new(),
        }
    }
}
