//! `Gc`: the server's sweeper runs now, removing every session and logged event past its
//! TTL, whatever `gc_interval` says (a cron job, or an operator's manual cleanup).

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct GcSweep;

impl FaultAction for GcSweep {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        target.server().gc_now(now_ms, out);
        Strike {
            note: target.note(|| "gc sweep".into()),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
