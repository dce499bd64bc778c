//! `IdleProxySse`: a proxy (an ingress, a load balancer, a corporate gateway) that resets
//! any SSE response on which no bytes passed for its idle timeout: the 2025 standalone
//! GET, a POST's request stream, a resumed GET, as much as a 2026-07-28 listen. A 2025
//! stream carries nothing between a long tool's progress events, and the 2025 server here
//! sends no keep-alive comments, so behind such a proxy the stream dies and the client must
//! resume: with a cursor if it has one (a priming event gives it one before any message,
//! SEP-1699: <https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery>),
//! after `retry:` if the server sent one. Nginx's `proxy_read_timeout` defaults to 60 s
//! (<https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_read_timeout>).
//!
//! A standing fault, like `IdleProxy`: due when the quietest open SSE response has been
//! quiet for `cut_after` (its last bytes as the proxy saw them go out: the response head,
//! an event, a comment), and then resets every response that quiet, each recorded in the
//! ledger's `cuts` (`reason: idle_proxy`).

use faultline_model::{CutReason, Output, Server};

use super::{FaultAction, Strike, Target};
use crate::proxy::Proxy;

#[derive(Debug, Clone, Copy)]
pub(crate) struct IdleProxySse {
    pub(crate) cut_after_ms: u64,
}

impl FaultAction for IdleProxySse {
    fn due(&self, _server: &Server, proxy: &Proxy) -> Option<u64> {
        proxy
            .quietest()
            .map(|t| t.saturating_add(self.cut_after_ms))
    }

    fn strike(&self, target: &mut Target<'_>, now_ms: u64, out: &mut Vec<Output>) -> Strike {
        let idle = target
            .proxy
            .quiet_since(now_ms.saturating_sub(self.cut_after_ms));
        let mut conns = Vec::with_capacity(idle.len());
        for (conn, last_bytes_ms) in idle {
            let reason = CutReason::IdleProxy {
                idle_ms: self.cut_after_ms,
                last_bytes_ms,
            };
            target.server().reset_connection(conn, reason, now_ms, out);
            target.proxy.gone(conn);
            conns.push(conn);
        }
        Strike {
            note: target.note(|| {
                format!(
                    "idle proxy resets the SSE response on conn {} (no bytes for {})",
                    super::conn_list(&conns, ""),
                    faultline_model::DurationMs(self.cut_after_ms)
                )
            }),
            conns,
            then: Vec::new(),
        }
    }
}
