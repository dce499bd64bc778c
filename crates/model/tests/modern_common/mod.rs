//! Builders and a tiny driver shared by the 2026-07-28 tests.
#![allow(dead_code)]

use faultline_model::{ConnId, HttpRequest, HttpResponse, Limits, Output, Server, ServerKnobs};
use serde_json::{Value, json};

pub const MODERN: &str = "2026-07-28";

/// The `_meta` a 2026-07-28 client sends.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    })
}

/// `params` with the standard `_meta` added.
pub fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

/// A POST as a 2026-07-28 client sends it: headers agree with the body.
pub fn modern_post(id: u64, method: &str, params: Value) -> HttpRequest {
    let name = ["name", "uri"]
        .iter()
        .find_map(|f| params.get(*f).and_then(Value::as_str))
        .map(str::to_string);
    let mut request = HttpRequest::post(
        None,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
    request.protocol_version = Some(MODERN.into());
    request.mcp_method = Some(method.into());
    if matches!(method, "tools/call" | "resources/read" | "prompts/get") {
        request.mcp_name = name;
    }
    request
}

/// Sends one request to a fresh connection and returns its answer.
pub fn answer(server: &mut Server, request: HttpRequest) -> HttpResponse {
    answer_at(server, request, 0)
}

/// [`answer`], at `now_ms`.
pub fn answer_at(server: &mut Server, request: HttpRequest, now_ms: u64) -> HttpResponse {
    let mut out = Vec::new();
    let conn = ConnId(server.ledger().answers.len() as u64 + 1);
    server.handle(conn, request, now_ms, &mut out);
    the_answer(out)
}

/// The HTTP answer among a request's outputs.
pub fn the_answer(out: Vec<Output>) -> HttpResponse {
    out.into_iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => Some(*response),
            _ => None,
        })
        .expect("an answer")
}

pub fn server(knobs: ServerKnobs) -> Server {
    Server::new(knobs, 7)
}

/// [`server`], under a long-lived server's `limits`.
pub fn limited(knobs: ServerKnobs, limits: Limits) -> Server {
    let mut server = server(knobs);
    server.set_limits(limits);
    server
}

/// The JSON body (built, for a typed refusal).
pub fn body(response: &HttpResponse) -> std::borrow::Cow<'_, Value> {
    match response.body.json() {
        Some(v) => v,
        None => panic!("expected a JSON body, got {:?}", response.body),
    }
}

pub fn code(response: &HttpResponse) -> Option<i64> {
    body(response)["error"]["code"].as_i64()
}
