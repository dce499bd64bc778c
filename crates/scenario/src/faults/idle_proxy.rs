//! `IdleProxy`: a proxy between the client and the server (an ingress, a load balancer, a
//! corporate gateway) that resets any connection on which no bytes passed for its idle
//! timeout. A 2026-07-28 listen stream carries nothing between list changes, so behind such
//! a proxy it dies unless the server sends keep-alive comments: the Go SDK sent none, and
//! listen streams behind proxies were cut
//! (<https://github.com/modelcontextprotocol/go-sdk/pull/1232>; the transport page
//! recommends keep-alives on long-lived streams:
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>).
//!
//! A standing fault: in force for the whole run. It is due when the quietest open listen
//! stream has been quiet for `cut_after` (its last bytes, read from the model: the opening
//! answer and acknowledgement, an event, a keep-alive comment), and then resets every
//! listen that quiet, at exactly its last bytes plus `cut_after`. The ledger records each
//! cut in `cuts` (`reason: idle_proxy`). Bytes at the very instant of the deadline count
//! (the engine strikes a standing fault after the model's work and the scripted actions of
//! that instant), so a keep-alive every `cut_after` or sooner keeps a listen alive.

use faultline_model::{CutReason, Output, Server};

use crate::proxy::Proxy;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct IdleProxy {
    pub(crate) cut_after_ms: u64,
}

impl FaultAction for IdleProxy {
    fn due(&self, server: &Server, _proxy: &Proxy) -> Option<u64> {
        server
            .quietest_listen()
            .map(|t| t.saturating_add(self.cut_after_ms))
    }

    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let idle = target
            .server()
            .idle_listens(now_ms.saturating_sub(self.cut_after_ms));
        let mut conns = Vec::with_capacity(idle.len());
        for (conn, last_bytes_ms) in idle {
            let reason = CutReason::IdleProxy {
                idle_ms: self.cut_after_ms,
                last_bytes_ms,
            };
            target.server().reset_connection(conn, reason, now_ms, out);
            conns.push(conn);
        }
        Strike {
            note: target.note(|| {
                format!(
                    "idle proxy resets the listen stream on conn {} (no bytes for {})",
                    super::conn_list(&conns, ""),
                    faultline_model::DurationMs(self.cut_after_ms)
                )
            }),
            conns,
            then: Vec::new(),
        }
    }
}
