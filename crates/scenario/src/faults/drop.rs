//! `Drop`: the network (a load balancer's idle timeout, a flaky link) cuts the open SSE
//! connections on the selected streams, gracefully (`Close`: the body ends) or not
//! (`Reset`: the connection aborts). The server sees its client go away; the stream and
//! its log stay, detached, for a resumption.

use faultline_model::{EndMode, Output};

use super::{FaultAction, Strike, Target};
use crate::scenario::StreamSel;

#[derive(Debug, Clone, Copy)]
pub(crate) struct DropStreams {
    pub mode: EndMode,
    pub stream: StreamSel,
}

impl FaultAction for DropStreams {
    fn only_cuts(&self) -> bool {
        true
    }

    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let conns = target.connections_on(self.stream);
        super::drop_all(target, &conns, self.mode, now_ms, out);
        let mode = match self.mode {
            EndMode::Close => "close",
            EndMode::Reset => "reset",
        };
        Strike {
            note: target.note(|| {
                format!(
                    "drop ({mode}) of conn {} [{:?}]",
                    super::conn_list(&conns, "-"),
                    self.stream
                )
            }),
            conns,
            then: Vec::new(),
        }
    }
}
