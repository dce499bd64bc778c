//! `Restart`: the server process restarts. Every connection is reset and every running
//! job dies; the `restart_persistence` knob decides what survives (nothing, session ids
//! only, or sessions and event logs), and surviving sessions enter a new generation.

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Restart;

impl FaultAction for Restart {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let server = target.server();
        let conns = server.open_connections(None);
        server.restart(now_ms, out);
        Strike {
            // A restart keeps its knobs: what they say it kept is what it kept.
            note: target
                .note(|| format!("server restart ({})", target.server.knobs().restart_keeps())),
            conns,
            then: Vec::new(),
        }
    }
}
