//! The proxy in front of the server, as faults leave it: what it answers itself, without
//! asking the server. The engine asks it first for every request, so a request the proxy
//! answers never reaches the model (and never its ledger), in simulation and live alike.

use faultline_model::{HttpResponse, ResponseBody};

/// What the proxy does to requests now.
#[derive(Debug, Default, Clone)]
pub(crate) struct Proxy {
    /// `Proxy502`: requests before this virtual time get 502 from the proxy.
    bad_gateway_until_ms: u64,
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
}
