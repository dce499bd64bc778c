//! `StickyLost`: the load balancer forgets its pins (restarted, or its affinity table
//! flushed). Affinity cookies it set before name nothing and hashes move to a new salt,
//! so a pinned client may land on another replica. No connection is cut.

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct StickyLost;

impl FaultAction for StickyLost {
    fn strike(&self, target: &mut Target<'_>, _now_ms: u64, _out: &mut Vec<Output>) -> Strike {
        let epoch = target.balancer().map(|balancer| {
            balancer.forget_pins();
            balancer.epoch()
        });
        let note = target.note(|| match epoch {
            Some(epoch) => format!("the balancer forgot its pins (epoch {epoch})"),
            None => "the balancer forgot its pins (a single server has none)".to_string(),
        });
        Strike {
            note,
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
