//! 2025 requests served without sessions: the legacy half of
//! [`Era::DualStatelessLegacy`](crate::knobs::Era::DualStatelessLegacy).
//!
//! The TypeScript SDK's `createMcpHandler` serves 2026-07-28 requests and, by default,
//! 2025 ones through a stateless transport (`legacy: 'stateless'`): `initialize` answers
//! with no `Mcp-Session-Id`, every later request is served whatever session header it
//! carries or lacks, and a GET gets 405. Sessions are optional in 2025
//! (<https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management>:
//! the server *may* assign one), so this is a compliant 2025 server; a client or gateway
//! that insists on a session id drops it
//! (<https://github.com/baruchiro/paperless-mcp/issues/154>).
//!
//! A job started here runs in the stateless scope, on a request stream without event ids
//! (there is no event store to resume from), and a cut ends it as `on_stream_cut` says,
//! as a 2026-07-28 request stream does. The GET answer is the `legacy_get` knob: 405
//! `Allow: POST`, or (nutrition-mcp before
//! <https://github.com/akutishevsky/nutrition-mcp/pull/31>) a standalone stream that
//! belongs to no session.

use serde_json::Value;

use crate::http::{HttpMethod, HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::ConnId;
use crate::jsonrpc::Incoming;
use crate::knobs::LegacyGet;
use crate::ledger::{EraAnswerKind, ListName, StreamKind};
use crate::rpc_answer::RpcAnswer;

use super::super::Server;
use super::super::admission::{Rejection, check_protocol_version};
use super::super::era::RequestEra;
use super::super::post::{Dispatch, dispatch, negotiated_version};
use super::errors::ModernRejection;

impl Server {
    /// A 2025 POST under `DualStatelessLegacy`: answered without a session.
    pub(in crate::server) fn handle_stateless_legacy_post(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        batch: bool,
        items: &[Incoming],
        out: &mut Vec<Output>,
    ) {
        if batch {
            let rpc = Some("batch".to_string());
            self.reject(conn, request, rpc, Rejection::BatchNeedsOldProtocol, out);
            return;
        }
        let message = &items[0];
        let rpc = message.method().map(str::to_string);
        let Incoming::Request { id, method, params } = message else {
            // A notification or a response: nothing to answer.
            self.respond(conn, request, rpc, HttpResponse::empty(202), out);
            return;
        };
        if method == "initialize" {
            let answer = self.initialize_answer(id, negotiated_version(params));
            // No `Mcp-Session-Id`: there is no session to name.
            self.note_era_answer(RequestEra::Legacy, EraAnswerKind::Sessionless, None);
            self.answer_statelessly(conn, request, rpc, answer, out);
            return;
        }
        if self
            .admit(
                conn,
                request,
                rpc.clone(),
                check_protocol_version(request),
                out,
            )
            .is_none()
        {
            return;
        }
        let tools_version = self.list_version(ListName::Tools);
        match dispatch(id, method, params, self.limits.max_job_steps, tools_version) {
            Dispatch::Now(answer) => {
                self.answer_statelessly(conn, request, rpc, answer, out);
                if method == "tools/list" {
                    self.note_list_version(tools_version);
                }
            }
            Dispatch::Job(spec) => {
                if let Err(over) = self.step_budget(self.modern.scope(), u64::from(spec.steps)) {
                    self.reject(conn, request, rpc, Rejection::StepBudget(over), out);
                    return;
                }
                self.serve_request_stream(conn, request, rpc, id, params, spec, None, out);
            }
        }
    }

    /// An immediate answer: JSON, or one event on a request stream of the stateless scope
    /// under `all_answers_over_sse` (createMcpHandler's legacy fallback answers over SSE).
    fn answer_statelessly(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        rpc: Option<String>,
        answer: RpcAnswer,
        out: &mut Vec<Output>,
    ) {
        if self.knobs.all_answers_over_sse {
            let scope = self.stateless_scope();
            self.answer_on_stream(conn, request, rpc, scope, None, answer, out);
        } else {
            self.respond(conn, request, rpc, HttpResponse::answer(200, answer), out);
        }
    }

    /// A 2025 GET or DELETE under `DualStatelessLegacy` (always answered here).
    pub(in crate::server) fn stateless_legacy_non_post(
        &mut self,
        conn: ConnId,
        request: &HttpRequest,
        out: &mut Vec<Output>,
    ) -> bool {
        if request.method == HttpMethod::Get && self.knobs.legacy_get == LegacyGet::ServeStream {
            let scope = self.stateless_scope();
            let stream = self.open_stream(scope, StreamKind::Standalone);
            self.respond(conn, request, None, HttpResponse::sse(stream), out);
            self.attach(conn, stream, out);
            return true;
        }
        let mut response = ModernRejection::PostOnly.response(&Value::Null);
        // The transport's refusal, in the code the `error_codes` knob names.
        if let ResponseBody::Json(body) = &mut response.body {
            body["error"]["code"] = self.knobs.error_codes.invalid_request.into();
        }
        self.respond(conn, request, None, response, out);
        true
    }
}
