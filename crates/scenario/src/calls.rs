//! Which server streams carry which workload call, so that `StreamSel::Call(k)` means the
//! same thing to the simulator and to the live server.
//!
//! A `tools/call` request is workload call `k` when its `_meta.idempotencyKey` is
//! `call-k` (what the modelled 2025 clients send), or when it is a `place_order` whose
//! `arguments.order` is `call-k` (the order key names the call, re-issues included: a
//! 2026-07-28 client sends no idempotency key), or else when its tool name and arguments are
//! those of workload call `k` (what a real client told the workload sends): the lowest such
//! `k` not yet seen, or the latest one seen when all are (a retry or a re-issue). Requests
//! that match no workload call (another task's `echo`, the conformance tools) are nobody's.
//!
//! Call `k`'s streams are the SSE stream that answered its POST, plus every stream its
//! job's events later went out on (Behavior A's fresh stream adopts an orphaned call).
//! Memory is bounded: only workload calls are tracked, each with a capped history.

use std::collections::BTreeSet;

use faultline_model::{
    HttpMethod, HttpRequest, JobId, ParamMembers, Payload, RequestBody, Server, StreamId,
    StreamKind,
};
use serde_json::Value;

use crate::arming::ArmedCall;
use crate::scenario::StreamSel;

/// Jobs and streams remembered per call (re-issues and resumptions beyond this are rare
/// and only ever make the selector match less).
const HISTORY_CAP: usize = 64;

#[derive(Debug, Default)]
struct Tracked {
    /// `(tool name, arguments)` as sent on the wire.
    name: &'static str,
    arguments: Value,
    seen: bool,
    streams: BTreeSet<StreamId>,
    jobs: Vec<JobId>,
}

#[derive(Debug, Default)]
pub(crate) struct CallTracker {
    calls: Vec<Tracked>,
    last_seen: Option<usize>,
}

impl CallTracker {
    pub fn new(calls: &[ArmedCall]) -> Self {
        CallTracker {
            calls: calls
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let (name, arguments) = c.tool.wire_call(k);
                    Tracked {
                        name,
                        arguments,
                        ..Tracked::default()
                    }
                })
                .collect(),
            last_seen: None,
        }
    }

    /// The workload call a request makes, if any (see the module doc), remembered as seen.
    pub fn attribute(&mut self, request: &HttpRequest) -> Option<usize> {
        if self.calls.is_empty() || request.method != HttpMethod::Post {
            return None;
        }
        // The engine parsed the body; one still in bytes is not JSON, so no call.
        let k = match &request.body {
            RequestBody::Json(body) => self.call_in(body)?,
            RequestBody::Rpc(message) if message.method == "tools/call" => {
                self.call_of_params(message.params.as_ref()?)?
            }
            RequestBody::Rpc(_) | RequestBody::Bytes(_) | RequestBody::Empty => return None,
        };
        self.calls[k].seen = true;
        self.last_seen = Some(k);
        Some(k)
    }

    /// The workload call a POST body makes, without remembering it (see the module doc):
    /// the one definition of "call k" for the engine's stream selectors and for the live
    /// server's gates, which hold call k until its time. A retry of call `k` is call `k`
    /// again (its key, its order, or its signature once every call with that signature
    /// was seen); a JSON-RPC batch makes the call of its first `tools/call` member.
    pub fn call_in(&self, body: &Value) -> Option<usize> {
        if self.calls.is_empty() {
            return None;
        }
        let message = match body {
            Value::Array(batch) => batch
                .iter()
                .find(|m| m.get("method").and_then(Value::as_str) == Some("tools/call"))?,
            message => message,
        };
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        self.call_of_params(message.get("params")?)
    }

    /// The workload call a `tools/call` with `params` makes (see [`call_in`](Self::call_in)),
    /// read from JSON or from a modelled client's typed params alike.
    fn call_of_params<P: ParamMembers + ?Sized>(&self, params: &P) -> Option<usize> {
        match params
            .idempotency_key()
            .and_then(|key| key.strip_prefix("call-"))
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(k) => (k < self.calls.len()).then_some(k),
            None => match self.by_order(params) {
                Some(k) => Some(k),
                None => self.by_signature(params),
            },
        }
    }

    /// A `place_order` names its call by its order key: every attempt at call `k`, the
    /// re-issues with new request ids included, orders `call-k` (matching by signature
    /// would credit a re-issue to the next identical call not yet seen).
    fn by_order<P: ParamMembers + ?Sized>(&self, params: &P) -> Option<usize> {
        if params.tool_name() != Some("place_order") {
            return None;
        }
        let k = params
            .arguments()
            .and_then(|a| a.get("order"))
            .and_then(Value::as_str)
            .and_then(|order| order.strip_prefix("call-"))
            .and_then(|n| n.parse::<usize>().ok())?;
        self.calls
            .get(k)
            .is_some_and(|c| c.name == "place_order")
            .then_some(k)
    }

    fn by_signature<P: ParamMembers + ?Sized>(&self, params: &P) -> Option<usize> {
        let name = params.tool_name()?;
        let empty = Value::Object(Default::default());
        let arguments = params.arguments().unwrap_or(&empty);
        let same = |c: &Tracked| c.name == name && &c.arguments == arguments;
        self.calls
            .iter()
            .position(|c| !c.seen && same(c))
            .or_else(|| {
                self.last_seen
                    .filter(|&k| same(&self.calls[k]))
                    .or_else(|| self.calls.iter().rposition(same))
            })
    }

    /// Call `k` was accepted: its POST answered on `stream` (if SSE) and started `jobs`.
    pub fn accepted(
        &mut self,
        k: usize,
        stream: Option<StreamId>,
        jobs: impl Iterator<Item = JobId>,
    ) {
        let Some(call) = self.calls.get_mut(k) else {
            return;
        };
        if let Some(s) = stream
            && call.streams.len() < HISTORY_CAP
        {
            call.streams.insert(s);
        }
        for job in jobs {
            if call.jobs.len() < HISTORY_CAP {
                call.jobs.push(job);
            }
        }
    }

    /// An event went out on `stream`: a call's output may have moved there.
    pub fn on_event(&mut self, payload: Payload, stream: StreamId) {
        let (Payload::Progress { job, .. } | Payload::ToolResult { job }) = payload else {
            return;
        };
        if let Some(call) = self.calls.iter_mut().find(|c| c.jobs.contains(&job))
            && call.streams.len() < HISTORY_CAP
        {
            call.streams.insert(stream);
        }
    }

    pub fn matches(&self, server: &Server, sel: StreamSel, stream: StreamId) -> bool {
        match sel {
            StreamSel::Any => true,
            StreamSel::Standalone => server.ledger().stream(stream).kind == StreamKind::Standalone,
            StreamSel::Call(k) => self
                .calls
                .get(k)
                .is_some_and(|c| c.streams.contains(&stream)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Tool;
    use faultline_model::{DurationMs, HttpRequest};
    use serde_json::json;

    fn post(body: Value) -> HttpRequest {
        HttpRequest {
            method: HttpMethod::Post,
            session_id: Some("s".into()),
            protocol_version: None,
            accept: None,
            content_type: None,
            last_event_id: None,
            origin: None,
            mcp_method: None,
            mcp_name: None,
            mcp_params: Vec::new(),
            cookie: None,
            peer: None,
            body: RequestBody::Json(body),
        }
    }

    fn call(name: &str, arguments: Value, meta: Value) -> HttpRequest {
        post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}}))
    }

    /// A workload long job of `steps` steps, a second apart, with progress.
    fn job(steps: u64) -> ArmedCall {
        ArmedCall {
            at_ms: 0,
            tool: Tool::LongJob {
                steps: crate::PickCount::fixed(steps),
                interval: DurationMs(1_000),
            },
            progress: true,
        }
    }

    fn tracker() -> CallTracker {
        CallTracker::new(&[job(81), job(81), job(5)])
    }

    #[test]
    fn the_idempotency_key_names_the_call_and_other_keys_name_none() {
        let mut t = tracker();
        let args = json!({"steps": 5, "interval_ms": 1000});
        assert_eq!(
            t.attribute(&call(
                "long_job",
                args.clone(),
                json!({"idempotencyKey": "call-1"})
            )),
            Some(1)
        );
        // A stale task's echo carries a key past the workload: nobody's call.
        assert_eq!(
            t.attribute(&call(
                "echo",
                json!({"text": "x"}),
                json!({"idempotencyKey": "call-3"})
            )),
            None
        );
    }

    #[test]
    fn without_a_key_calls_are_matched_by_tool_and_arguments_in_order() {
        let mut t = tracker();
        let same = json!({"steps": 81, "interval_ms": 1000});
        assert_eq!(
            t.attribute(&call("long_job", same.clone(), json!({}))),
            Some(0)
        );
        assert_eq!(
            t.attribute(&call("long_job", same.clone(), json!({}))),
            Some(1)
        );
        // Both taken: a third identical call is a retry of the latest.
        assert_eq!(t.attribute(&call("long_job", same, json!({}))), Some(1));
        assert_eq!(
            t.attribute(&call(
                "long_job",
                json!({"steps": 5, "interval_ms": 1000}),
                json!({})
            )),
            Some(2)
        );
        assert_eq!(
            t.attribute(&call("echo", json!({"text": "hi"}), json!({}))),
            None
        );
        assert_eq!(
            t.attribute(&post(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))),
            None
        );
    }

    /// A re-issued `place_order` carries no idempotency key and a new request id, but
    /// the same order key: it is the same workload call, never the next identical one.
    #[test]
    fn a_place_order_is_its_order_keys_call_re_issues_included() {
        let order = |steps| ArmedCall {
            at_ms: 0,
            tool: Tool::PlaceOrder {
                steps,
                interval: DurationMs(100),
                commit_step: None,
            },
            progress: true,
        };
        let mut t = CallTracker::new(&[order(3), order(3)]);
        let (name, args) = t.calls[1].clone_wire();
        assert_eq!(args["order"], "call-1");
        // Call 1 first, then again (a re-issue): both are call 1, though call 0 has the
        // same tool and steps and was never seen.
        assert_eq!(t.attribute(&call(name, args.clone(), json!({}))), Some(1));
        assert_eq!(t.attribute(&call(name, args, json!({}))), Some(1));
        let (name, args) = t.calls[0].clone_wire();
        assert_eq!(t.attribute(&call(name, args, json!({}))), Some(0));
        // An order key past the workload is nobody's by key; its arguments match no call.
        let stray = json!({"order": "call-9", "steps": 3, "interval_ms": 100});
        assert_eq!(t.attribute(&call("place_order", stray, json!({}))), None);
    }

    impl Tracked {
        fn clone_wire(&self) -> (&'static str, Value) {
            (self.name, self.arguments.clone())
        }
    }

    /// One definition of call k, for the engine and the live server's gates: a retry of
    /// call 0 (same tool, same arguments, no key) is call 0, not call 1, once call 0 was
    /// seen, whether the gates ask (`call_in`, which remembers nothing) or the engine
    /// (`attribute`).
    #[test]
    fn a_retried_call_zero_is_call_zero_for_the_gates_and_the_engine() {
        let echo = |text: &str| ArmedCall {
            at_ms: 0,
            tool: Tool::Echo { text: text.into() },
            progress: false,
        };
        let mut t = CallTracker::new(&[
            ArmedCall {
                at_ms: 0,
                tool: Tool::LongJob {
                    steps: crate::PickCount::fixed(3),
                    interval: DurationMs(1_000),
                },
                progress: true,
            },
            echo("followup 1"),
        ]);
        let first = call(
            "long_job",
            json!({"steps": 3, "interval_ms": 1000}),
            json!({"progressToken": "p"}),
        );
        let RequestBody::Json(body) = &first.body else {
            unreachable!("built as JSON")
        };
        assert_eq!(
            t.call_in(body),
            Some(0),
            "the gates' question remembers nothing"
        );
        assert_eq!(t.call_in(body), Some(0));
        assert_eq!(t.attribute(&first), Some(0));
        assert_eq!(t.call_in(body), Some(0), "a retry of call 0 is call 0");
        assert_eq!(t.attribute(&first), Some(0));
        let followup = call("echo", json!({"text": "followup 1"}), json!({}));
        assert_eq!(t.attribute(&followup), Some(1));
    }

    /// A modelled client's typed `tools/call` is the call its JSON is: by key, by order
    /// key and by signature, in the same sequence of attributions (the typed params are
    /// read through the same rules as the JSON).
    #[test]
    fn typed_params_make_the_call_their_json_makes() {
        use faultline_model::{RpcMessage, ToolCallParams};
        let order = ArmedCall {
            at_ms: 0,
            tool: Tool::PlaceOrder {
                steps: 3,
                interval: DurationMs(100),
                commit_step: None,
            },
            progress: true,
        };
        let workload = || CallTracker::new(&[job(81), job(81), job(5), order.clone()]);
        let typed = |name, arguments: Value, key: &str, progress| {
            RpcMessage::request(
                1,
                "tools/call",
                ToolCallParams {
                    name,
                    arguments,
                    idempotency_key: key.to_string(),
                    progress,
                },
            )
        };
        let long = json!({"steps": 81, "interval_ms": 1000});
        let sent = [
            typed("long_job", long.clone(), "call-2", true),
            typed("long_job", long.clone(), "not-a-call", false),
            typed("long_job", long.clone(), "not-a-call", true),
            typed("long_job", long, "not-a-call", false),
            typed("place_order", order.tool.wire_call(3).1, "k", true),
            typed("echo", json!({"text": "x"}), "call-9", false),
        ];
        let (mut from_typed, mut from_json) = (workload(), workload());
        let mut found = Vec::new();
        for message in sent {
            let json = post(message.to_value());
            let RequestBody::Json(body) = &json.body else {
                unreachable!("built as JSON")
            };
            let gates = from_json.call_in(body);
            let k = from_typed.attribute(&HttpRequest::rpc(Some("s".into()), message));
            assert_eq!(k, from_json.attribute(&json));
            assert_eq!(k, gates);
            found.push(k);
        }
        assert_eq!(found, [Some(2), Some(0), Some(1), Some(1), Some(3), None]);
    }

    /// A JSON-RPC batch (2025-03-26) makes the call of its first `tools/call` member, for
    /// the gates and the engine alike; a batch without one makes none.
    #[test]
    fn a_batch_makes_the_call_of_its_first_tools_call() {
        let mut t = tracker();
        let batch = post(json!([
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": "long_job", "arguments": {"steps": 5, "interval_ms": 1000}}},
        ]));
        let RequestBody::Json(body) = &batch.body else {
            unreachable!("built as JSON")
        };
        assert_eq!(t.call_in(body), Some(2), "the only long_job of 5 steps");
        assert_eq!(t.attribute(&batch), Some(2));
        let none = post(json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]));
        assert_eq!(t.attribute(&none), None);
    }
}
