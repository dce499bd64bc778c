//! MCP 2026-07-28, the stateless revision, beside the 2025 path.
//!
//! A 2026-07-28 request needs no session: it carries its protocol version and client
//! capabilities in `_meta`, and the server keeps nothing between requests. This module
//! never touches the session store, mints no `Mcp-Session-Id` and ignores one a client
//! sends, as it ignores `Last-Event-ID`
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>;
//! SEP-2575: <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2575-stateless-mcp.md>).
//!
//! Here is where a request leaves the 2025 path: [`Server::route_non_post`] and
//! [`Server::route_post`] classify it ([`super::era`]) and consult the `era` knob:
//!
//! | `era` | 2026-07-28 request | 2025 request |
//! |---|---|---|
//! | `DualStatefulLegacy` | served here | the 2025 path |
//! | `ModernOnly` | served here | POST: served here (so a legacy `initialize` fails on `_meta`, 400 -32602); GET, DELETE: 405 `Allow: POST` |
//! | `LegacyOnly` | `legacy_probe_answer` | the 2025 path |
//! | `DualStatelessLegacy` | served here | [`stateless_legacy`]: no sessions; GET per `legacy_get` |
//!
//! A 2026-07-28 GET or DELETE (rule 1) gets 405 `Allow: POST` from a dual server too.
//!
//! The files, one concept each: [`headers`] (headers against the body), [`meta`] (the
//! request `_meta`), [`errors`] (the refusal table), [`discover`] (`server/discover` and
//! what every result carries), [`dispatch`] (the checks in order, then the methods),
//! [`request_stream`] (a long tool call answered over SSE), [`cancel_on_close`] (what a
//! cut stream does to its job), [`effects`] (`place_order`, the non-idempotent tool),
//! [`listen`] (`subscriptions/listen` and how it ends), [`keepalive`] (quiet listen
//! streams and their keep-alive comments), [`list_versions`] (list changes and who hears
//! of them), [`tasks`] (the tasks extension: durable work polled with `tasks/get`),
//! [`stateless_legacy`] (2025 requests served without sessions), [`era_answers`] (what
//! the ledger records when a request's era is not served as asked, and `RollEra`), and
//! the conformance suite's fixtures: [`fixtures`] (content tools, prompts, resources,
//! completion), [`input_required`] (multi-round-trip requests with a sealed
//! `requestState`), [`task_fixtures`] (tasks that fail, error or wait for input), and
//! [`fixture_dispatch`] (where they meet the dispatch); and [`handles`] (explicit state
//! handles: `create_basket`, `add_item`). A long-lived server bounds the task and handle
//! stores: [`task_bounds`], [`handle_bounds`], and [`tombstones`] (what a bounded store
//! remembers of a record whose room it gave away).

pub mod cancel_on_close;
pub mod discover;
pub mod dispatch;
pub mod effects;
pub mod era_answers;
pub mod errors;
pub mod fixture_dispatch;
pub mod fixtures;
pub mod handle_bounds;
pub mod handles;
pub mod headers;
pub mod input_required;
pub mod keepalive;
pub mod list_versions;
pub mod listen;
pub mod meta;
pub mod replica_era;
pub mod request_stream;
pub mod stateless_legacy;
pub mod task_bounds;
pub mod task_fixtures;
pub mod tasks;
pub mod tombstones;

pub use request_stream::ModernState;

use serde_json::Value;

use crate::http::{HttpRequest, HttpResponse, Output, ResponseBody};
use crate::ids::ConnId;
use crate::jsonrpc::{self, Incoming, METHOD_NOT_FOUND};
use crate::knobs::{Era, LegacyProbeAnswer};
use crate::ledger::EraAnswerKind;

use super::Server;
use super::era::{RequestEra, classify, header_names_modern};
use errors::ModernRejection;

/// The `Allow` header a legacy server's 405 carries.
const LEGACY_ALLOWED_METHODS: &str = "GET, POST, DELETE";

impl Server {
    /// A GET, DELETE or other non-POST request, after the origin check: true when it was
    /// answered here (a modern-only server, or a 2026-07-28 `MCP-Protocol-Version`), false
    /// when the 2025 path takes it, unchanged.
    pub(super) fn route_non_post(
        &mut self,
        conn: ConnId,
        request: &mut HttpRequest,
        out: &mut Vec<Output>,
    ) -> bool {
        let modern = header_names_modern(request);
        match self.era() {
            Era::ModernOnly => {}
            Era::DualStatefulLegacy | Era::DualStatelessLegacy if modern => {}
            Era::LegacyOnly if modern => return self.legacy_probe(conn, request, None, out),
            Era::DualStatelessLegacy => return self.stateless_legacy_non_post(conn, request, out),
            _ => return false,
        }
        if !modern {
            self.note_era_answer(RequestEra::Legacy, EraAnswerKind::Refused, None);
        }
        let response = ModernRejection::PostOnly.response(&Value::Null);
        self.respond(conn, request, None, response, out);
        true
    }

    /// A POST whose body parsed into `items`: true when it was answered here, false when
    /// the 2025 path takes it (possibly with its version header dropped, under
    /// `legacy_probe_answer: RunAsLegacy`).
    pub(super) fn route_post(
        &mut self,
        conn: ConnId,
        request: &mut HttpRequest,
        batch: bool,
        items: &[Incoming],
        out: &mut Vec<Output>,
    ) -> bool {
        let era = classify(request, items.first());
        match (self.era(), era) {
            (Era::ModernOnly, RequestEra::Legacy) => {
                self.note_era_answer(RequestEra::Legacy, EraAnswerKind::Refused, None);
                self.handle_modern_post(conn, request, batch, items, out);
                true
            }
            (Era::ModernOnly, RequestEra::Modern)
            | (Era::DualStatefulLegacy | Era::DualStatelessLegacy, RequestEra::Modern) => {
                self.handle_modern_post(conn, request, batch, items, out);
                true
            }
            (Era::LegacyOnly, RequestEra::Modern) => {
                let rpc = if batch {
                    Some("batch".to_string())
                } else {
                    items.first().and_then(Incoming::method).map(str::to_string)
                };
                self.legacy_probe(conn, request, rpc, out)
            }
            (Era::DualStatelessLegacy, RequestEra::Legacy) => {
                self.handle_stateless_legacy_post(conn, request, batch, items, out);
                true
            }
            (_, RequestEra::Legacy) => false,
        }
    }

    /// A legacy-only server meets a 2026-07-28 request: answers it as `legacy_probe_answer`
    /// says (true), or lets the 2025 path take it (false).
    fn legacy_probe(
        &mut self,
        conn: ConnId,
        request: &mut HttpRequest,
        rpc: Option<String>,
        out: &mut Vec<Output>,
    ) -> bool {
        let code = match self.knobs.legacy_probe_answer {
            LegacyProbeAnswer::Rpc400(code) => Some(code),
            LegacyProbeAnswer::NotFound => Some(METHOD_NOT_FOUND),
            LegacyProbeAnswer::MethodNotAllowed => Some(jsonrpc::INVALID_REQUEST),
            _ => None,
        };
        // The 2025 path answers `AsToday` and `RunAsLegacy`: the note waits for it.
        self.note_era_answer(RequestEra::Modern, EraAnswerKind::Refused, code);
        let response = match self.knobs.legacy_probe_answer {
            LegacyProbeAnswer::AsToday => return false,
            LegacyProbeAnswer::RunAsLegacy => {
                request.protocol_version = None;
                return false;
            }
            LegacyProbeAnswer::PlainText400 => HttpResponse {
                body: ResponseBody::Text("Bad Request: unsupported protocol version\n".into()),
                ..HttpResponse::empty(400)
            },
            LegacyProbeAnswer::Rpc400(code) => HttpResponse::json(
                400,
                jsonrpc::error_without_id(code, "Bad Request: unsupported protocol version"),
            ),
            LegacyProbeAnswer::NotFound => HttpResponse::json(
                404,
                jsonrpc::error_without_id(METHOD_NOT_FOUND, "Not Found"),
            ),
            LegacyProbeAnswer::MethodNotAllowed => HttpResponse {
                allow: Some(LEGACY_ALLOWED_METHODS),
                ..HttpResponse::json(
                    405,
                    jsonrpc::error_without_id(jsonrpc::INVALID_REQUEST, "Method Not Allowed"),
                )
            },
        };
        self.respond(conn, request, rpc, response, out);
        true
    }
}
