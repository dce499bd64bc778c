//! `DropListen`: the network cuts the client's 2026-07-28 `subscriptions/listen` streams
//! (a reset: a proxy's idle timeout, a deploy). The spec keeps no subscription state
//! across reconnections and replays nothing, so whatever changes before the client listens
//! again is never sent to it
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! the field report <https://github.com/nicobailon/pi-mcp-adapter/issues/468>).

use faultline_model::{EndMode, Output, StreamKind};

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct DropListen;

impl FaultAction for DropListen {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let conns: Vec<_> = target
            .server
            .open_connections(None)
            .into_iter()
            .filter(|&conn| {
                target
                    .server
                    .stream_of(conn)
                    .is_some_and(|s| target.server.ledger().stream(s).kind == StreamKind::Listen)
            })
            .collect();
        let list = super::drop_all(target, &conns, EndMode::Reset, now_ms, out)
            .unwrap_or_else(|| "- (no listen stream open)".to_string());
        Strike {
            note: format!("drop (reset) of the listen stream on conn {list}"),
            conns,
            then: Vec::new(),
        }
    }
}
