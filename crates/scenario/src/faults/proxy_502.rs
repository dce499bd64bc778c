//! `Proxy502`: the reverse proxy in front of the server (an ingress, a gateway) answers
//! every request `502 Bad Gateway` for a while, with its own plain-text body and no
//! JSON-RPC in it, as proxies do while the upstream restarts or is unreachable. The
//! requests never reach the server: its ledger records none of them (the fault's note
//! says how long the proxy answered), and the streams already open are left alone. A
//! client that reads any non-2xx answer as a dead session, or gives up a call on the first
//! 5xx, meets it here; the spec has nothing to say about 502s, which is the point
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>
//! names only 404 as a session answer).
//!
//! A proxy answers other statuses of its own too, and `status` names one: Traefik answers
//! `404 page not found` while the container behind a route is being recreated
//! (<https://github.com/anthropics/claude-code/issues/94273>), which a client cannot tell
//! from the server's "session gone".

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Proxy502 {
    pub(crate) lasting_ms: u64,
    /// The status the proxy answers with (502 unless the scenario says otherwise).
    pub(crate) status: u16,
}

impl FaultAction for Proxy502 {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, _out: &mut Vec<Output>) -> Strike {
        let until_ms = now_ms.saturating_add(self.lasting_ms);
        target.proxy.answer_until(self.status, until_ms);
        Strike {
            note: target.note(|| {
                format!(
                    "the proxy answers every request {} until {}",
                    crate::proxy::status_line(self.status),
                    faultline_model::DurationMs(until_ms)
                )
            }),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
