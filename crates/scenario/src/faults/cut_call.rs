//! `CutCall`: the network cuts the 2026-07-28 request stream answering one workload call
//! (a reset, as a proxy's timeout or a dropped mobile link would). On 2026-07-28 that
//! stream *is* the call: it has no event ids and cannot be resumed, and closing it
//! cancels the request, so the server ends the call's job as `on_stream_cut` says
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>).
//! What the client does next (re-issue it, or tell its application) is what the
//! `duplicate_effect` verdict judges.
//!
//! Only request streams are cut: a 2025 stream of the same call (resumable, a different
//! lesson) is `Drop`'s business.

use faultline_model::{EndMode, Output};

use super::{FaultAction, Strike, Target};
use crate::scenario::StreamSel;

#[derive(Debug, Clone, Copy)]
pub(crate) struct CutCall {
    /// The workload call whose request stream is cut.
    pub call: usize,
}

impl FaultAction for CutCall {
    fn only_cuts(&self) -> bool {
        true
    }

    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let conns: Vec<_> = target
            .connections_on(StreamSel::Call(self.call))
            .into_iter()
            .filter(|&conn| {
                target
                    .server
                    .stream_of(conn)
                    .is_some_and(|s| target.server.ledger().stream(s).modern)
            })
            .collect();
        super::drop_all(target, &conns, EndMode::Reset, now_ms, out);
        Strike {
            note: target.note(|| {
                format!(
                    "cut of call {}'s request stream (reset) on conn {}",
                    self.call,
                    super::conn_list(&conns, "- (no request stream open)")
                )
            }),
            conns,
            then: Vec::new(),
        }
    }
}
