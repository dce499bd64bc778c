//! `subscriptions/listen`: the 2026-07-28 replacement for the GET stream. A POST whose SSE
//! answer stays open and carries the list changes the client opted in to, and nothing else
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>):
//!
//! - the first message is `notifications/subscriptions/acknowledged`, carrying the subset
//!   of the requested filter the server honours;
//! - every message carries `_meta["io.modelcontextprotocol/subscriptionId"]`, the listen
//!   request's id;
//! - a change of a list the filter leaves out is never sent on it;
//! - there is no cursor and no replay: "the server holds no subscription state across
//!   reconnections". When the connection closes the subscription is gone, and a change
//!   made while the client is away is never sent to it, not even on its next listen.
//!
//! The server honours the three `*ListChanged` flags; `resourceSubscriptions` is left out
//! of the acknowledgement (this server has no resources to watch). A listen stream is
//! numbered like a request stream (ordinals, no `id:`) in the stateless scope.
//!
//! How a listen ends is where the revision contradicts itself
//! (<https://github.com/modelcontextprotocol/modelcontextprotocol/issues/3348>): the
//! subscriptions page closes it gracefully with the listen request's result, the
//! cancellation page has the server send `notifications/cancelled` naming the listen
//! request. [`Server::end_listens`] does either (or resets the connection), so that a
//! client is tried against each: whichever it meets, it is no longer listening.

use serde_json::{Map, Value, json};

use crate::http::{EndMode, HttpRequest, HttpResponse, Output};
use crate::ids::{ConnId, StreamId};
use crate::ledger::{ListenEnd, ListenEntry, ListenFilter, Payload, StreamKind};

use super::super::Server;
use super::errors::ModernRejection;

/// The `_meta` key every listen-stream message carries.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Reads `params.notifications`, the filter a listen request asks for. It is required
/// (-32602 without it); unknown members are ignored.
pub fn read_filter(params: &Value) -> Result<ListenFilter, ModernRejection> {
    let Some(asked) = params.get("notifications").and_then(Value::as_object) else {
        return Err(ModernRejection::InvalidMeta(
            "subscriptions/listen needs params.notifications (an object)".into(),
        ));
    };
    let flag = |name: &str| asked.get(name).and_then(Value::as_bool).unwrap_or(false);
    Ok(ListenFilter {
        tools: flag("toolsListChanged"),
        prompts: flag("promptsListChanged"),
        resources: flag("resourcesListChanged"),
    })
}

/// The filter as the acknowledgement writes it: the honoured flags, each `true`.
pub fn filter_json(filter: ListenFilter) -> Value {
    let mut object = Map::new();
    for (on, name) in [
        (filter.tools, "toolsListChanged"),
        (filter.prompts, "promptsListChanged"),
        (filter.resources, "resourcesListChanged"),
    ] {
        if on {
            object.insert(name.into(), Value::Bool(true));
        }
    }
    Value::Object(object)
}

/// A listen-stream notification: `method` with `params` and the subscription id.
pub fn tagged(method: &str, mut params: Map<String, Value>, subscription: &Value) -> Value {
    params.insert(
        "_meta".into(),
        json!({ META_SUBSCRIPTION_ID: subscription.clone() }),
    );
    json!({"jsonrpc": "2.0", "method": method, "params": Value::Object(params)})
}

impl Server {
    /// Answers listen request `id` with an SSE stream on `conn` and sends its
    /// acknowledgement first.
    pub(in crate::server) fn serve_listen(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        id: &Value,
        filter: ListenFilter,
        out: &mut Vec<Output>,
    ) {
        let scope = self.stateless_scope();
        let stream = self.open_stream(scope, StreamKind::Listen);
        self.ledger.stream_mut(stream).modern = true;
        let listen = self.ledger.listens_end();
        self.ledger.listens.push(ListenEntry {
            stream,
            request_id: id.clone(),
            filter,
            opened_ms: self.now_ms,
            keepalives: 0,
        });
        self.track_listen(stream, listen, id.clone(), filter);
        let rpc = Some("subscriptions/listen".to_string());
        self.respond(conn, request, rpc, HttpResponse::sse(stream), out);
        self.attach(conn, stream, out);
        self.emit(stream, Payload::ListenAck { listen }, out);
    }

    /// `stream` lost its reader: if it is an open listen stream, the subscription ends
    /// there (no state is kept for a reconnection). True when it was one.
    pub(in crate::server) fn close_listen(&mut self, stream: StreamId) -> bool {
        if self.untrack_listen(stream).is_none() {
            return false;
        }
        let now = self.now_ms;
        if let Some(entry) = self.ledger.kept_stream_mut(stream) {
            entry.closed_ms = Some(now);
        }
        true
    }

    /// Every listen stream ends (a restart resets their connections).
    pub(in crate::server) fn close_all_listens(&mut self) {
        let streams: Vec<StreamId> = self.modern.listens.keys().copied().collect();
        for stream in streams {
            self.close_listen(stream);
        }
    }

    /// Ends every open listen stream at `now_ms` as `how` says: a reset, or the listen's
    /// final message (its `complete` result, or `notifications/cancelled`) and a clean end.
    /// Returns the connections it ended, in stream order.
    pub fn end_listens(
        &mut self,
        how: ListenEnd,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Vec<ConnId> {
        self.advance(now_ms, out);
        let open: Vec<(StreamId, u32)> = self
            .modern
            .listens
            .iter()
            .map(|(&s, l)| (s, l.index))
            .collect();
        let mut ended = Vec::new();
        for (stream, listen) in open {
            let Some(conn) = self.log.get(stream).and_then(|l| l.attached) else {
                continue;
            };
            ended.push(conn);
            match how {
                ListenEnd::Reset => self.drop_connection(conn, EndMode::Reset, now_ms, out),
                ListenEnd::Complete | ListenEnd::Cancelled => {
                    self.emit(stream, Payload::ListenEnded { listen, end: how }, out);
                    self.close_listen(stream);
                    self.complete_stream(stream, out);
                }
            }
        }
        ended
    }
}

/// The message that ends listen stream `subscription` gracefully: its request's result, or
/// `notifications/cancelled` naming it (`None` for a reset, which sends nothing).
pub fn end_message(how: ListenEnd, subscription: &Value) -> Option<Value> {
    match how {
        ListenEnd::Reset => None,
        ListenEnd::Complete => Some(crate::jsonrpc::result(
            subscription,
            super::discover::complete(json!({})),
        )),
        ListenEnd::Cancelled => {
            let mut params = Map::new();
            params.insert("requestId".into(), subscription.clone());
            params.insert(
                "reason".into(),
                Value::from("the server ended the subscription"),
            );
            Some(tagged("notifications/cancelled", params, subscription))
        }
    }
}
