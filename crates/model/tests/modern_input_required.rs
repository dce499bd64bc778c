//! Multi-round-trip requests (SEP-2322) on the 2026-07-28 path: `input_required` rounds,
//! a `requestState` that carries the rounds gathered and is refused when altered, a
//! missing response asked again, extra keys ignored, bad responses refused, and input
//! requests only for the capabilities the client declared.

use crate::modern_common::*;
use faultline_model::{HttpResponse, Server, ServerKnobs};
use serde_json::{Value, json};

/// The `_meta` of a client declaring `capabilities`.
fn meta_with(capabilities: Value) -> Value {
    let mut m = meta();
    m["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    m
}

fn all_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

fn call(server: &mut Server, tool: &str, extra: Value, capabilities: Value) -> HttpResponse {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some(extra) = extra.as_object() {
        for (k, v) in extra {
            params[k] = v.clone();
        }
    }
    params["_meta"] = meta_with(capabilities);
    answer(server, modern_post(1, "tools/call", params))
}

fn result(r: &HttpResponse) -> Value {
    assert_eq!(r.status, 200, "{:?}", r.body);
    body(r)["result"].clone()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[test]
fn an_elicitation_round_then_the_answer() {
    let mut s = server(ServerKnobs::default());
    let tool = "test_input_required_result_elicitation";
    let r1 = result(&call(&mut s, tool, json!({}), all_capabilities()));
    assert_eq!(r1["resultType"], "input_required");
    assert_eq!(
        r1["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    assert!(r1["requestState"].is_string());
    let r2 = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))}, "requestState": r1["requestState"]}),
        all_capabilities(),
    ));
    assert_eq!(r2["resultType"], "complete");
    assert_eq!(r2["content"][0]["text"], "Hello, Alice!");
}

#[test]
fn three_rounds_each_with_a_new_state() {
    let mut s = server(ServerKnobs::default());
    let tool = "test_input_required_result_multi_round";
    let r1 = result(&call(&mut s, tool, json!({}), all_capabilities()));
    assert!(r1["inputRequests"]["step1"].is_object());
    let r2 = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"step1": accept(json!({"name": "Alice"}))}, "requestState": r1["requestState"]}),
        all_capabilities(),
    ));
    assert_eq!(r2["resultType"], "input_required");
    assert!(r2["inputRequests"]["step2"].is_object());
    assert_ne!(r2["requestState"], r1["requestState"]);
    let r3 = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"step2": accept(json!({"color": "blue"}))}, "requestState": r2["requestState"]}),
        all_capabilities(),
    ));
    // The name came back from the sealed state, not from this request.
    assert_eq!(r3["content"][0]["text"], "Alice likes blue");
}

#[test]
fn a_tampered_state_is_refused() {
    let mut s = server(ServerKnobs::default());
    let tool = "test_input_required_result_tampered_state";
    let r1 = result(&call(&mut s, tool, json!({}), all_capabilities()));
    let state = r1["requestState"].as_str().expect("state");
    for forged in [
        format!("{state}-TAMPERED"),
        state.replacen("7b", "5b", 1),
        "made-up".to_string(),
    ] {
        let r = call(
            &mut s,
            tool,
            json!({"inputResponses": {"confirm": accept(json!({"ok": true}))}, "requestState": forged}),
            all_capabilities(),
        );
        assert_eq!(code(&r), Some(-32602), "{forged}");
    }
    // A state sealed by another server (another seed) is refused too.
    let mut other = Server::new(ServerKnobs::default(), 8);
    let r = call(
        &mut other,
        tool,
        json!({"inputResponses": {"confirm": accept(json!({"ok": true}))}, "requestState": state}),
        all_capabilities(),
    );
    assert_eq!(code(&r), Some(-32602));
    // The untouched state is accepted.
    let ok = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"confirm": accept(json!({"ok": true}))}, "requestState": state}),
        all_capabilities(),
    ));
    assert!(
        ok["content"][0]["text"]
            .as_str()
            .expect("text")
            .contains("state-ok")
    );
}

#[test]
fn the_same_seed_seals_the_same_state() {
    let tool = "test_input_required_result_request_state";
    let state = |seed| {
        let mut s = Server::new(ServerKnobs::default(), seed);
        result(&call(&mut s, tool, json!({}), all_capabilities()))["requestState"].clone()
    };
    assert_eq!(state(3), state(3));
    assert_ne!(state(3), state(4));
}

#[test]
fn a_missing_response_is_asked_again_and_extra_keys_are_ignored() {
    let mut s = server(ServerKnobs::default());
    let tool = "test_input_required_result_elicitation";
    let again = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"wrong_key": accept(json!({}))}}),
        all_capabilities(),
    ));
    assert_eq!(again["resultType"], "input_required");
    assert!(again["inputRequests"]["user_name"].is_object());
    let done = result(&call(
        &mut s,
        tool,
        json!({"inputResponses": {"user_name": accept(json!({"name": "Bo"})), "extra": accept(json!({}))}}),
        all_capabilities(),
    ));
    assert_eq!(done["resultType"], "complete");
}

#[test]
fn malformed_responses_are_invalid_params() {
    let mut s = server(ServerKnobs::default());
    let tool = "test_input_required_result_elicitation";
    for responses in [json!({"user_name": 12345}), Value::Null, json!([1])] {
        let r = call(
            &mut s,
            tool,
            json!({"inputResponses": responses}),
            all_capabilities(),
        );
        assert_eq!(code(&r), Some(-32602), "{responses}");
    }
}

#[test]
fn input_requests_only_for_declared_capabilities() {
    let mut s = server(ServerKnobs::default());
    let r = result(&call(
        &mut s,
        "test_input_required_result_capabilities",
        json!({}),
        json!({"sampling": {}}),
    ));
    let methods: Vec<&str> = r["inputRequests"]
        .as_object()
        .expect("requests")
        .values()
        .filter_map(|v| v["method"].as_str())
        .collect();
    assert_eq!(methods, ["sampling/createMessage"]);
    // A tool that needs elicitation, from a client without it: -32021, never a request.
    let r = call(
        &mut s,
        "test_input_required_result_elicitation",
        json!({}),
        json!({"sampling": {}}),
    );
    assert_eq!((r.status, code(&r)), (400, Some(-32021)));
}

#[test]
fn a_prompt_gathers_input_too_and_lists_do_not() {
    let mut s = server(ServerKnobs::default());
    let mut params = json!({"name": "test_input_required_result_prompt"});
    params["_meta"] = meta_with(all_capabilities());
    let r1 = result(&answer(
        &mut s,
        modern_post(1, "prompts/get", params.clone()),
    ));
    assert_eq!(r1["resultType"], "input_required");
    params["inputResponses"] = json!({"user_context": accept(json!({"context": "ctx"}))});
    params["requestState"] = r1["requestState"].clone();
    let r2 = result(&answer(&mut s, modern_post(2, "prompts/get", params)));
    assert_eq!(
        r2["messages"][0]["content"]["text"],
        "Use this context: ctx"
    );
    for method in ["tools/list", "prompts/list"] {
        let r = result(&answer(
            &mut s,
            modern_post(3, method, with_meta(json!({}))),
        ));
        assert_eq!(r["resultType"], "complete", "{method}");
    }
}

#[test]
fn gathered_input_then_a_task() {
    let mut s = server(ServerKnobs::default());
    let caps = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let r1 = result(&call(
        &mut s,
        "test_tool_with_task",
        json!({}),
        caps.clone(),
    ));
    assert_eq!(r1["resultType"], "input_required");
    assert!(r1.get("taskId").is_none());
    let r2 = result(&call(
        &mut s,
        "test_tool_with_task",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))}, "requestState": r1["requestState"]}),
        caps,
    ));
    assert_eq!(r2["resultType"], "task");
    assert!(r2.get("requestState").is_none());
    assert!(r2.get("inputRequests").is_none());
}
