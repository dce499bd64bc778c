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
    /// `Proxy502`: requests before this virtual time get `error_status` from the proxy.
    error_until_ms: u64,
    /// The status of the proxy's answers in that window (the latest window's).
    error_status: u16,
    /// Each open SSE response and when bytes last passed on it (its head, an event, a
    /// comment); kept only when a fault reads it (`IdleProxySse`), so that no other run
    /// pays for it.
    last_bytes_ms: Option<BTreeMap<ConnId, u64>>,
}

impl Proxy {
    /// From now until `until_ms`, every request gets `status` (a later window extends
    /// the time, and its status is the one answered from then on).
    pub(crate) fn answer_until(&mut self, status: u16, until_ms: u64) {
        self.error_until_ms = self.error_until_ms.max(until_ms);
        self.error_status = status;
    }

    /// The proxy's own answer to a request at `now_ms`, if it gives one: its status with
    /// a plain-text body, no JSON-RPC, no `Mcp-Session-Id`.
    pub(crate) fn answer(&self, now_ms: u64) -> Option<HttpResponse> {
        (now_ms < self.error_until_ms).then(|| {
            let mut response = HttpResponse::empty(self.error_status);
            response.body = ResponseBody::Text(body_text(self.error_status).into());
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

/// The plain-text body a proxy writes with `status`: Traefik's words for a route with no
/// backend, the reason phrase otherwise.
fn body_text(status: u16) -> &'static str {
    match status {
        404 => "404 page not found",
        _ => reason(status),
    }
}

/// `status` with its reason phrase, as a note says it ("502 Bad Gateway").
pub(crate) fn status_line(status: u16) -> String {
    format!("{status} {}", reason(status))
}

fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    }
}
