//! POST: JSON-RPC messages in, answers out as JSON or as an SSE stream.
//!
//! This is where `initialize` mints a session and where a `tools/call` becomes a job whose
//! output outlives the request: the reason streams (and so resumption) exist at all.

use rand_chacha::rand_core::Rng;
use serde_json::{Value, json};

use crate::http::{HttpRequest, HttpResponse, Output, RequestBody, ResponseBody};
use crate::ids::{ConnId, SessionKey, StreamId};
use crate::jsonrpc::{self, Incoming};
use crate::ledger::{Payload, SessionEntry, StreamKind};
use crate::session_store::Session;
use crate::tools::{self, ToolCall};

use super::{LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, Server};

/// The version assumed when a request carries no `MCP-Protocol-Version` (spec 2025-06-18).
const DEFAULT_PROTOCOL_VERSION: &str = "2025-03-26";

impl Server {
    pub(super) fn handle_post(
        &mut self,
        conn: ConnId,
        request: HttpRequest,
        out: &mut Vec<Output>,
    ) {
        let accept = request.accept.as_deref().unwrap_or("");
        let accepts_both = accept.contains("*/*")
            || (accept.contains("application/json") && accept.contains("text/event-stream"));
        if !accepts_both {
            self.reject(
                conn,
                &request,
                None,
                406,
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
                out,
            );
            return;
        }
        let json_content = request.content_type.as_deref().is_some_and(|c| {
            c.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
        if !json_content {
            self.reject(
                conn,
                &request,
                None,
                415,
                jsonrpc::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
                out,
            );
            return;
        }
        let body = match &request.body {
            RequestBody::Json(v) => Ok(v.clone()),
            RequestBody::Bytes(b) => serde_json::from_slice::<Value>(b),
            RequestBody::Empty => serde_json::from_slice::<Value>(b""),
        };
        let body = match body {
            Ok(v) => v,
            Err(_) => {
                self.reject(
                    conn,
                    &request,
                    None,
                    400,
                    jsonrpc::PARSE_ERROR,
                    "Parse error: the body is not JSON",
                    out,
                );
                return;
            }
        };
        let (batch, values) = match body {
            Value::Array(items) => (true, items),
            single => (false, vec![single]),
        };
        let mut messages = Vec::with_capacity(values.len());
        for value in &values {
            match jsonrpc::classify(value) {
                Ok(m) => messages.push(m),
                Err(why) => {
                    self.reject(
                        conn,
                        &request,
                        None,
                        400,
                        jsonrpc::INVALID_REQUEST,
                        &format!("Invalid Request: {why}"),
                        out,
                    );
                    return;
                }
            }
        }
        if messages.is_empty() {
            self.reject(
                conn,
                &request,
                None,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: empty batch",
                out,
            );
            return;
        }
        let rpc = if batch {
            Some("batch".to_string())
        } else {
            messages[0].method().map(str::to_string)
        };
        let is_init = messages.iter().any(|m| m.method() == Some("initialize"));
        if is_init {
            if batch {
                self.reject(
                    conn,
                    &request,
                    rpc,
                    400,
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: initialize must not be part of a batch",
                    out,
                );
                return;
            }
            self.initialize(conn, &request, &messages[0], out);
            return;
        }
        if !Self::protocol_ok(&request) {
            self.reject(
                conn,
                &request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
                out,
            );
            return;
        }
        let Some(key) = self.require_session(conn, &request, rpc.clone(), out) else {
            return;
        };
        let version = self
            .sessions
            .get(key)
            .map_or(DEFAULT_PROTOCOL_VERSION, |s| s.protocol_version);
        if batch && version != "2025-03-26" {
            self.reject(
                conn,
                &request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: batches are only allowed in protocol 2025-03-26",
                out,
            );
            return;
        }
        self.touch(key);

        let mut replies: Vec<Reply> = Vec::new();
        let mut pending_stream: Option<StreamId> = None;
        for message in messages {
            match message {
                Incoming::Response => {}
                Incoming::Notification { method, params } => {
                    if method == "notifications/cancelled" {
                        self.cancel(key, params.get("requestId"), out);
                    }
                }
                Incoming::Request { id, method, params } => {
                    match self.dispatch(key, &id, &method, &params) {
                        Dispatch::Now(v) => replies.push(Reply::Immediate(v)),
                        Dispatch::Job {
                            steps,
                            interval_ms,
                            tool,
                        } => {
                            let stream = *pending_stream
                                .get_or_insert_with(|| self.open_stream(key, StreamKind::Request));
                            let job =
                                self.start_job(key, stream, &id, &params, tool, steps, interval_ms);
                            let _ = job;
                            replies.push(Reply::Job);
                        }
                    }
                }
            }
        }
        if replies.is_empty() {
            self.respond(conn, &request, rpc, HttpResponse::empty(202), out);
            return;
        }
        let all_immediate = replies.iter().all(|r| matches!(r, Reply::Immediate(_)));
        if all_immediate && self.knobs.json_responses {
            let mut values: Vec<Value> = replies
                .into_iter()
                .map(|r| match r {
                    Reply::Immediate(v) => v,
                    Reply::Job => unreachable!("all immediate"),
                })
                .collect();
            let body = if batch {
                Value::Array(values)
            } else {
                values.pop().expect("one reply")
            };
            self.respond(conn, &request, rpc, HttpResponse::json(200, body), out);
            return;
        }
        let stream =
            *pending_stream.get_or_insert_with(|| self.open_stream(key, StreamKind::Request));
        self.respond(
            conn,
            &request,
            rpc,
            HttpResponse {
                status: 200,
                session_id: None,
                allow: None,
                body: ResponseBody::Sse(stream),
            },
            out,
        );
        self.attach(conn, stream, out);
        self.prime(stream, key, out);
        for reply in replies {
            if let Reply::Immediate(v) = reply {
                let message = self.ledger.messages_end();
                self.ledger.messages.push(v);
                self.emit(stream, Payload::Response { message }, out);
            }
        }
        let jobs_open = self
            .log
            .get(stream)
            .is_some_and(|l| !l.open_jobs.is_empty());
        if !jobs_open {
            self.complete_stream(stream, out);
        } else {
            // Steps due "now" (interval 0) run at once, in order.
            let now = self.now_ms;
            self.advance(now, out);
        }
    }

    fn initialize(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        message: &Incoming,
        out: &mut Vec<Output>,
    ) {
        let rpc = Some("initialize".to_string());
        let Incoming::Request { id, params, .. } = message else {
            self.reject(
                conn,
                request,
                rpc,
                400,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: initialize must be a request",
                out,
            );
            return;
        };
        if self.sessions.len() >= self.knobs.max_sessions as usize {
            self.reject(
                conn,
                request,
                rpc,
                503,
                jsonrpc::INVALID_REQUEST,
                "Service Unavailable: session limit reached",
                out,
            );
            return;
        }
        let asked = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let version = SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .copied()
            .find(|v| *v == asked)
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let wire_id = format!("{:016x}{:016x}", self.rng.next_u64(), self.rng.next_u64());
        let key = SessionKey(self.ledger.sessions.len() as u32);
        let now = self.now_ms;
        self.ledger.sessions.push(SessionEntry {
            wire_id: wire_id.clone(),
            created_ms: now,
            generations: vec![now],
            died: None,
        });
        self.ever_minted.insert(wire_id.clone(), key);
        let session = Session {
            wire_id: wire_id.clone(),
            generation: 1,
            created_ms: now,
            last_touch_ms: now,
            protocol_version: version,
            counter: 0,
            standalone: None,
            listening: false,
        };
        let deadline = self.deadline_of(&session);
        self.sessions.insert(key, session, deadline);
        let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
        if self.knobs.advertise_monotonic_ids {
            capabilities["experimental"] =
                json!({"resumption": {"sessionMonotonicEventIds": true}});
        }
        let result = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": "faultline", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "faultline: a fault-injecting MCP server. Tools: echo, long_job.",
        });
        let mut response = HttpResponse::json(200, jsonrpc::result(id, result));
        response.session_id = Some(wire_id);
        self.respond(conn, request, rpc, response, out);
    }

    fn dispatch(&mut self, _key: SessionKey, id: &Value, method: &str, params: &Value) -> Dispatch {
        match method {
            "ping" => Dispatch::Now(jsonrpc::result(id, json!({}))),
            "tools/list" => Dispatch::Now(jsonrpc::result(id, tools::list())),
            "logging/setLevel" => match params.get("level").and_then(Value::as_str) {
                Some(_) => Dispatch::Now(jsonrpc::result(id, json!({}))),
                None => Dispatch::Now(jsonrpc::error(
                    id,
                    jsonrpc::INVALID_PARAMS,
                    "logging/setLevel needs params.level",
                )),
            },
            "tools/call" => match tools::call(params) {
                ToolCall::Immediate(result) => Dispatch::Now(jsonrpc::result(id, result)),
                ToolCall::Error { code, message } => {
                    Dispatch::Now(jsonrpc::error(id, code, &message))
                }
                ToolCall::Job { steps, interval_ms } => Dispatch::Job {
                    steps,
                    interval_ms,
                    tool: params
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("long_job")
                        .to_string(),
                },
            },
            "initialize" => Dispatch::Now(jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                "already initialized",
            )),
            other => Dispatch::Now(jsonrpc::error(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
            )),
        }
    }
}

/// What one request turned into before it is put on the wire.
enum Reply {
    Immediate(Value),
    Job,
}

enum Dispatch {
    Now(Value),
    Job {
        steps: u32,
        interval_ms: u64,
        tool: String,
    },
}
