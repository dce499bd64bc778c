//! The proxy in front of the server, as faults leave it: what it answers itself, without
//! asking the server, and when bytes last passed on each SSE response it carries. The
//! engine asks it first for every request, so a request the proxy answers never reaches
//! the model (and never its ledger), and shows it every output on its way out, so that an
//! idle timeout counts the bytes a client really got, in simulation and live alike.

use std::collections::BTreeMap;

use faultline_model::{ConnId, HttpResponse, Output, ResponseBody};

/// What the proxy does to requests now, and what it has seen of the open SSE responses.
#[derive(Debug, Default, Clone)]
pub struct Proxy {
    /// `Proxy502`: requests before this virtual time get 502 from the proxy.
    bad_gateway_until_ms: u64,
    /// Each open SSE response and when bytes last passed on it (its head, an event, a
    /// comment); kept only when a fault reads it (`IdleProxySse`), so that no other run
    /// pays for it.
    last_bytes_ms: Option<BTreeMap<ConnId, u64>>,
}

impl Proxy {
    /// From now until `until_ms`, every request gets 502 (a later window extends it).
    pub(crate) fn answer_502_until(&mut self, until_ms: u64) {
        self.bad_gateway_until_ms = self.bad_gateway_until_ms.max(until_ms);
    }

    /// The proxy's own answer to a request at `now_ms`, if it gives one: 502 with a
    /// plain-text body, no JSON-RPC, no `Mcp-Session-Id`.
    pub(crate) fn answer(&self, now_ms: u64) -> Option<HttpResponse> {
        (now_ms < self.bad_gateway_until_ms).then(|| {
            let mut response = HttpResponse::empty(502);
            response.body = ResponseBody::Text("Bad Gateway".into());
            response
        })
    }

    /// Starts counting the bytes of SSE responses (a fault will read them).
    pub(crate) fn count_bytes(&mut self) {
        self.last_bytes_ms.get_or_insert_with(BTreeMap::new);
    }

    /// `output` passes the proxy at `now_ms`.
    pub(crate) fn saw(&mut self, output: &Output, now_ms: u64) {
        let Some(last) = &mut self.last_bytes_ms else {
            return;
        };
        match output {
            Output::Respond { conn, response } => {
                if matches!(response.body, ResponseBody::Sse(_)) {
                    last.insert(*conn, now_ms);
                }
            }
            Output::Event { conn, .. } | Output::Comment { conn } => {
                if let Some(t) = last.get_mut(conn) {
                    *t = now_ms;
                }
            }
            Output::End { conn, .. } => {
                last.remove(conn);
            }
        }
    }

    /// `conn` is gone (the client closed it, or the proxy cut it).
    pub(crate) fn gone(&mut self, conn: ConnId) {
        if let Some(last) = &mut self.last_bytes_ms {
            last.remove(&conn);
        }
    }

    /// When bytes last passed on the open SSE response quiet the longest.
    pub(crate) fn quietest(&self) -> Option<u64> {
        self.last_bytes_ms.as_ref()?.values().copied().min()
    }

    /// The open SSE responses on which no bytes passed after `since_ms`, with when their
    /// last bytes did, in connection order.
    pub(crate) fn quiet_since(&self, since_ms: u64) -> Vec<(ConnId, u64)> {
        self.last_bytes_ms
            .iter()
            .flatten()
            .filter(|(_, t)| **t <= since_ms)
            .map(|(c, t)| (*c, *t))
            .collect()
    }
}
