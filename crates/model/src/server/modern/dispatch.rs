//! A 2026-07-28 POST: the checks in the spec's order, then a method table.
//!
//! 1. one message (no batches: 400 -32600);
//! 2. notifications and responses are accepted (202), nothing else about them is checked;
//! 3. `_meta`: protocol version and client capabilities are required (400 -32602);
//! 4. headers against the body: `MCP-Protocol-Version` against `_meta`, `Mcp-Method`,
//!    `Mcp-Name` (400 -32020);
//! 5. the version is one this server speaks (400 -32022 with `supported`, `requested`);
//! 6. the method: `server/discover`, `tools/list`, `tools/call`, `subscriptions/listen`
//!    and the tasks extension's `tasks/get`, `tasks/cancel`, `tasks/update`
//!    ([`super::tasks`]) are served; anything else (the removed `initialize`, `ping`,
//!    `logging/setLevel`, …, and `tasks/result` and `tasks/list`, which SEP-2663 removed)
//!    is 404 -32601.
//!
//! Every answer here is an immediate JSON body, except a tool call that runs as a job
//! (`long_job`, `test_tool_with_progress`, `test_reconnection`, `place_order`): that one is
//! answered with a request stream ([`super::request_stream`]), or with a task id when the
//! client declared the tasks extension ([`super::tasks`]); and `subscriptions/listen`,
//! answered with a listen stream ([`super::listen`]). The `json_responses` knob is not
//! consulted on this path.
//!
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>

use std::sync::LazyLock;

use serde_json::Value;

use crate::http::{HttpRequest, HttpResponse, Output};
use crate::ids::ConnId;
use crate::jsonrpc::{self, Incoming};
use crate::ledger::{ListName, ListenFilter};
use crate::rpc_answer::RpcAnswer;
use crate::rpc_params::RpcParams;
use crate::tools::{self, ToolCall};

use super::super::Server;
use super::super::era::MODERN_PROTOCOL_VERSIONS;
use super::super::jobs::JobSpec;
use super::discover::{cache_hint, cache_ttl_ms, complete, discover_result};
use super::effects::{PLACE_ORDER, PlaceOrder, parse_place_order, place_order_tool};
use super::errors::ModernRejection;
use super::fixtures::fixture_tools;
use super::handles::basket_tools;
use super::headers::check_headers;
use super::input_required::mrtr_tools;
use super::list_versions::{TEST_TRIGGER_TOOL_CHANGE, added_tools};
use super::listen::read_filter;
use super::meta::{RequestMeta, read_meta};
use super::task_fixtures::{FixtureCall, task_fixture_tools};
use super::tasks::declares_tasks;

/// A tool only the 2026-07-28 path lists: it needs the client's `sampling` capability and
/// answers -32021 without it (the conformance suite's `server-stateless` probe).
pub const TEST_MISSING_CAPABILITY: &str = "test_missing_capability";

impl Server {
    /// Answers a POST classified as 2026-07-28 (see the module docs for the order).
    pub(in crate::server) fn handle_modern_post(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        batch: bool,
        items: &[Incoming],
        out: &mut Vec<Output>,
    ) {
        if batch {
            let response = ModernRejection::Batch.response(&Value::Null);
            self.respond(conn, request, Some("batch".to_string()), response, out);
            return;
        }
        let rpc = items[0].method().map(str::to_string);
        let Incoming::Request { id, method, params } = &items[0] else {
            self.respond(conn, request, rpc, HttpResponse::empty(202), out);
            return;
        };
        let answer = self
            .modern_answer(conn, request, id, method, params)
            .and_then(|answer| self.within_step_budget(answer));
        let response = match answer {
            Ok(Answer::Now(message)) => HttpResponse::answer(200, message),
            Ok(Answer::List(message, version)) => {
                self.respond(conn, request, rpc, HttpResponse::answer(200, message), out);
                self.note_modern_list(version);
                return;
            }
            Ok(Answer::Task(spec, order)) => match self.make_task_room() {
                Ok(()) => HttpResponse::answer(200, self.create_task(id, params, spec, order)),
                Err(why) => why.response(id),
            },
            Ok(Answer::FixtureTask(call)) => match self.make_task_room() {
                Ok(()) => HttpResponse::answer(200, self.create_fixture_task(id, params, call)),
                Err(why) => why.response(id),
            },
            Ok(Answer::Stream(spec, order)) => {
                self.serve_request_stream(conn, request, rpc, id, params, spec, order, out);
                return;
            }
            Ok(Answer::Listen(filter)) => {
                self.serve_listen(conn, request, id, filter, out);
                return;
            }
            Ok(Answer::ChangeTools(message)) => {
                self.respond(conn, request, rpc, HttpResponse::answer(200, message), out);
                let on = Some(self.serving.replica);
                self.publish_change(ListName::Tools, true, on, out);
                return;
            }
            Err(why) => why.response(id),
        };
        self.respond(conn, request, rpc, response, out);
    }

    /// `answer`, unless the job it starts (a request stream's or a task's) would pass a
    /// step budget: the stateless scope stands for the session.
    fn within_step_budget(&self, answer: Answer) -> Result<Answer, ModernRejection> {
        let steps = match &answer {
            Answer::Task(spec, _) | Answer::Stream(spec, _) => spec.steps,
            Answer::FixtureTask(call) => call.work.0,
            _ => return Ok(answer),
        };
        self.step_budget(self.modern.scope(), u64::from(steps))
            .map_err(ModernRejection::StepBudget)?;
        Ok(answer)
    }

    /// The JSON-RPC response to one modern request, or why it is refused.
    fn modern_answer(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        id: &Value,
        method: &str,
        params: &RpcParams,
    ) -> Result<Answer, ModernRejection> {
        let meta = read_meta(params)?;
        // The readers below look up the request's own members, never `_meta` (read above;
        // a job's progress token is read from `params` where the job starts).
        let members = params.own_members();
        let params: &Value = &members;
        check_headers(request, method, params, meta.protocol_version)?;
        if !MODERN_PROTOCOL_VERSIONS.contains(&meta.protocol_version) {
            return Err(ModernRejection::UnsupportedVersion {
                requested: meta.protocol_version.to_string(),
            });
        }
        match method {
            "server/discover" => Ok(Answer::Now(RpcAnswer::result(
                id,
                discover_result(&self.knobs),
            ))),
            "tools/list" => {
                let version = self.list_version(ListName::Tools);
                let ttl_ms = cache_ttl_ms(&self.knobs);
                Ok(Answer::List(
                    RpcAnswer::modern_tools(id, version, ttl_ms),
                    version,
                ))
            }
            "subscriptions/listen" => Ok(Answer::Listen(read_filter(params)?)),
            "tools/call" => match self.basket_call(conn, id, params) {
                Some(answer) => Ok(answer),
                None => self.modern_tool_call(request, id, params, &meta),
            },
            "prompts/list"
            | "prompts/get"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "completion/complete" => self.fixture_answer(id, method, params, &meta),
            "tasks/get" | "tasks/cancel" | "tasks/update" => Ok(Answer::Now(
                self.task_method(conn, id, method, params, &meta)?,
            )),
            other => Err(ModernRejection::MethodNotFound(other.to_string())),
        }
    }

    fn modern_tool_call(
        &self,
        request: &HttpRequest,
        id: &Value,
        params: &Value,
        meta: &RequestMeta,
    ) -> Result<Answer, ModernRejection> {
        if let Some(answer) = self.fixture_tool(request, id, params, meta) {
            return answer;
        }
        if params.get("name").and_then(Value::as_str) == Some(TEST_MISSING_CAPABILITY) {
            if !meta.declares("sampling") {
                return Err(ModernRejection::MissingCapability("sampling"));
            }
            return Ok(Answer::Now(RpcAnswer::complete(
                id,
                tools::text_result("the client declared sampling"),
            )));
        }
        if params.get("name").and_then(Value::as_str) == Some(TEST_TRIGGER_TOOL_CHANGE) {
            return Ok(Answer::ChangeTools(RpcAnswer::complete(
                id,
                tools::text_result("the tools list changed"),
            )));
        }
        let max_job_steps = self.limits.max_job_steps;
        let as_task = self.knobs.tasks_offered && declares_tasks(meta);
        let job = |spec, order| {
            if as_task {
                Answer::Task(spec, order)
            } else {
                Answer::Stream(spec, order)
            }
        };
        if let Some(order) = parse_place_order(params, max_job_steps) {
            return Ok(match order {
                Ok(order) => job(
                    JobSpec {
                        tool: PLACE_ORDER.to_string(),
                        steps: order.steps,
                        interval_ms: order.interval_ms,
                    },
                    Some(order),
                ),
                Err(message) => Answer::Now(RpcAnswer::error(id, jsonrpc::INVALID_PARAMS, message)),
            });
        }
        Ok(match tools::call_within(params, max_job_steps) {
            ToolCall::Immediate(result) => Answer::Now(RpcAnswer::complete(id, result)),
            ToolCall::Text(text) => Answer::Now(RpcAnswer::complete(id, tools::text_result(&text))),
            ToolCall::Error { code, message } => Answer::Now(RpcAnswer::error(id, code, message)),
            ToolCall::Job { steps, interval_ms } => {
                job(JobSpec::of_call(params, steps, interval_ms), None)
            }
        })
    }
}

/// How a modern request is answered: a JSON body now, a request stream for a job, or a
/// listen stream.
pub(super) enum Answer {
    Now(RpcAnswer),
    Task(JobSpec, Option<PlaceOrder>),
    /// A conformance fixture's task ([`super::task_fixtures`]).
    FixtureTask(FixtureCall),
    /// A `tools/list` result, and the version of the list it gives.
    List(RpcAnswer, u32),
    Stream(JobSpec, Option<PlaceOrder>),
    Listen(ListenFilter),
    /// `test_trigger_tool_change`: this result, then a published change of the tools list.
    ChangeTools(RpcAnswer),
}

/// The conformance fixtures ([`super::fixtures`], [`super::input_required`],
/// [`super::task_fixtures`]; first, so that the first tool takes no argument), the tools
/// of [`tools::list`], the modern-only [`TEST_MISSING_CAPABILITY`],
/// [`TEST_TRIGGER_TOOL_CHANGE`], [`PLACE_ORDER`] and the basket tools
/// ([`super::handles`]), and those the changes up to `version`
/// added.
///
/// Everything but the added tools is the same for every version: built once and copied
/// (every 2026-07-28 client lists its tools; building the list was a twentieth of a
/// mixed-era explorer seed).
fn modern_tool_list(version: u32) -> Value {
    static BASE: LazyLock<Value> = LazyLock::new(base_tool_list);
    let mut list = BASE.clone();
    if version >= 2
        && let Some(tools) = list.get_mut("tools").and_then(Value::as_array_mut)
    {
        tools.extend(added_tools(version));
    }
    list
}

/// The `tools/list` result of list version `version` with the cache hint `ttl_ms`, marked
/// complete ([`crate::Outcome::ModernTools`] written out).
pub(crate) fn modern_tools_result(version: u32, ttl_ms: u64) -> Value {
    let mut result = modern_tool_list(version);
    cache_hint(&mut result, ttl_ms);
    complete(result)
}

/// [`modern_tool_list`] without the tools a change of the list added.
fn base_tool_list() -> Value {
    let mut list = tools::list();
    if let Some(tools) = list.get_mut("tools").and_then(Value::as_array_mut) {
        let mut first = fixture_tools();
        first.extend(mrtr_tools());
        first.extend(task_fixture_tools());
        tools.splice(0..0, first);
        tools.push(serde_json::json!({
            "name": TEST_MISSING_CAPABILITY,
            "description": "Needs the client's sampling capability: answers -32021 when the request's _meta does not declare it.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        tools.push(serde_json::json!({
            "name": TEST_TRIGGER_TOOL_CHANGE,
            "description": "Changes the tools list: listen streams that asked for toolsListChanged get notifications/tools/list_changed.",
            "inputSchema": {"type": "object", "properties": {}}
        }));
        tools.push(place_order_tool());
        tools.extend(basket_tools());
    }
    list
}
