//! `DropListen`: the client's 2026-07-28 `subscriptions/listen` streams end. By default the
//! network resets them (a proxy's idle timeout, a deploy); `end: Complete` or `Cancelled`
//! has the server end them gracefully instead, with the listen's `complete` result or with
//! `notifications/cancelled`, the two ends the spec's pages disagree on
//! (<https://github.com/modelcontextprotocol/modelcontextprotocol/issues/3348>). Either way
//! the spec keeps no subscription state across reconnections and replays nothing, so
//! whatever changes before the client listens again is never sent to it
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! the field report <https://github.com/nicobailon/pi-mcp-adapter/issues/468>).

use faultline_model::{ListenEnd, Output};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct DropListen {
    pub(crate) end: ListenEnd,
}

impl FaultAction for DropListen {
    fn only_cuts(&self) -> bool {
        true
    }

    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let conns = target.server().end_listens(self.end, now_ms, out);
        let note = target.note(|| {
            let list = super::conn_list(&conns, "- (no listen stream open)");
            match self.end {
                ListenEnd::Reset => format!("drop (reset) of the listen stream on conn {list}"),
                ListenEnd::Complete => {
                    format!("the server ends the listen stream on conn {list} (complete result)")
                }
                ListenEnd::Cancelled => format!(
                    "the server ends the listen stream on conn {list} (notifications/cancelled)"
                ),
            }
        });
        Strike {
            note,
            conns,
            then: Vec::new(),
        }
    }
}
