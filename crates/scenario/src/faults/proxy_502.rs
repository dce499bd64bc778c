//! `Proxy502`: the reverse proxy in front of the server (an ingress, a gateway) answers
//! every request `502 Bad Gateway` for a while, with its own plain-text body and no
//! JSON-RPC in it, as proxies do while the upstream restarts or is unreachable. The
//! requests never reach the server: its ledger records none of them (the fault's note
//! says how long the proxy answered), and the streams already open are left alone. A
//! client that reads any non-2xx answer as a dead session, or gives up a call on the first
//! 5xx, meets it here; the spec has nothing to say about 502s, which is the point
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>
//! names only 404 as a session answer).

use faultline_model::Output;

use super::{FaultAction, Strike, Target};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Proxy502 {
    pub(crate) lasting_ms: u64,
}

impl FaultAction for Proxy502 {
    fn strike(&self, target: &mut Target<'_>, now_ms: u64, _out: &mut Vec<Output>) -> Strike {
        let until_ms = now_ms.saturating_add(self.lasting_ms);
        target.proxy.answer_502_until(until_ms);
        Strike {
            note: format!(
                "the proxy answers every request 502 Bad Gateway until {}",
                faultline_model::DurationMs(until_ms)
            ),
            conns: Vec::new(),
            then: Vec::new(),
        }
    }
}
