//! The conformance fixtures of the 2026-07-28 path: each content kind from its tool, the
//! prompts, resources (an unknown URI is -32602 naming it), completion, caching hints on
//! every list and read, and the `Mcp-Param-*` header checked against its argument.

use crate::modern_common::*;
use faultline_model::{HttpRequest, Server, ServerKnobs};
use serde_json::{Value, json};

fn dual() -> Server {
    server(ServerKnobs::default())
}

/// The result of one request with the standard `_meta`.
fn result_of(method: &str, params: Value) -> Value {
    let r = answer(&mut dual(), modern_post(1, method, with_meta(params)));
    assert_eq!(r.status, 200, "{method}: {:?}", r.body);
    let result = body(&r)["result"].clone();
    assert_eq!(result["resultType"], "complete", "{method}");
    result
}

#[test]
fn the_content_tools_return_their_kind_of_content() {
    for (tool, kind, mime) in [
        ("test_image_content", "image", Some("image/png")),
        ("test_audio_content", "audio", Some("audio/wav")),
        ("test_embedded_resource", "resource", None),
    ] {
        let result = result_of("tools/call", json!({"name": tool, "arguments": {}}));
        let item = &result["content"][0];
        assert_eq!(item["type"], kind, "{tool}");
        if let Some(mime) = mime {
            assert_eq!(item["mimeType"], mime, "{tool}");
            assert!(!item["data"].as_str().unwrap_or("").is_empty(), "{tool}");
        } else {
            assert!(item["resource"]["text"].is_string());
        }
    }
    let mixed = result_of(
        "tools/call",
        json!({"name": "test_multiple_content_types", "arguments": {}}),
    );
    let kinds: Vec<&str> = mixed["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|c| c["type"].as_str())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    let greet = result_of(
        "tools/call",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    assert_eq!(greet["content"][0]["text"], "Hello, Ada!");
}

#[test]
fn the_modern_tools_list_starts_with_fixtures_that_take_no_argument_and_keeps_the_schema() {
    let list = result_of("tools/list", json!({}));
    let tools = list["tools"].as_array().expect("tools");
    assert_eq!(tools[0]["name"], "greet");
    assert!(tools[0]["inputSchema"].get("required").is_none());
    let schema = &tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .expect("the 2020-12 tool")["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["allOf"][0]["anyOf"].is_array());
    for name in [
        "slow_compute",
        "failing_job",
        "confirm_delete",
        "test_input_required_result_elicitation",
    ] {
        assert!(tools.iter().any(|t| t["name"] == name), "{name}");
    }
}

#[test]
fn prompts_are_listed_and_filled_in() {
    let list = result_of("prompts/list", json!({}));
    assert!(list["prompts"].as_array().expect("prompts").len() >= 4);
    assert!(list["ttlMs"].is_u64());
    assert_eq!(list["cacheScope"], "private");
    let with_args = result_of(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a1", "arg2": "b2"}}),
    );
    assert_eq!(
        with_args["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='a1', arg2='b2'"
    );
    let embedded = result_of(
        "prompts/get",
        json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://x"}}),
    );
    assert_eq!(
        embedded["messages"][0]["content"]["resource"]["uri"],
        "test://x"
    );
    let image = result_of("prompts/get", json!({"name": "test_prompt_with_image"}));
    assert_eq!(image["messages"][0]["content"]["type"], "image");
    let r = answer(
        &mut dual(),
        modern_post(9, "prompts/get", with_meta(json!({"name": "nope"}))),
    );
    assert_eq!(code(&r), Some(-32602));
}

#[test]
fn resources_read_by_uri_and_template_with_caching_hints() {
    for method in ["resources/list", "resources/templates/list"] {
        let list = result_of(method, json!({}));
        assert!(list["ttlMs"].is_u64(), "{method}");
        assert_eq!(list["cacheScope"], "private", "{method}");
    }
    let text = result_of("resources/read", json!({"uri": "test://static-text"}));
    assert!(text["contents"][0]["text"].is_string());
    assert!(text["ttlMs"].is_u64());
    let binary = result_of("resources/read", json!({"uri": "test://static-binary"}));
    assert!(binary["contents"][0]["blob"].is_string());
    let templated = result_of("resources/read", json!({"uri": "test://template/123/data"}));
    let data: Value =
        serde_json::from_str(templated["contents"][0]["text"].as_str().expect("text"))
            .expect("json");
    assert_eq!(data["id"], "123");
}

#[test]
fn an_unknown_resource_is_invalid_params_naming_the_uri() {
    let uri = "test://nonexistent";
    let r = answer(
        &mut dual(),
        modern_post(3, "resources/read", with_meta(json!({"uri": uri}))),
    );
    assert_eq!((r.status, code(&r)), (200, Some(-32602)));
    assert_eq!(body(&r)["error"]["data"]["uri"], uri);
    assert_eq!(body(&r)["id"], 3);
}

#[test]
fn completion_offers_values_that_start_with_the_typed_text() {
    let result = result_of(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "par"}}),
    );
    assert_eq!(
        result["completion"]["values"],
        json!(["paris", "park", "party"])
    );
}

/// A `test_header_param` call whose argument is `body` and whose header (if any) is `header`.
fn header_call(body: &str, header: Option<&str>) -> HttpRequest {
    let mut request = modern_post(
        4,
        "tools/call",
        with_meta(json!({"name": "test_header_param", "arguments": {"region": body}})),
    );
    if let Some(value) = header {
        request.mcp_params.push(("region".into(), value.into()));
    }
    request
}

#[test]
fn an_mcp_param_header_must_match_its_argument() {
    let accepted = |request| {
        let r = answer(&mut dual(), request);
        (r.status, code(&r))
    };
    assert_eq!(
        accepted(header_call("Hello", Some("=?base64?SGVsbG8=?="))),
        (200, None)
    );
    assert_eq!(
        accepted(header_call("Hello", Some("  Hello  "))),
        (200, None)
    );
    // Without the sentinel's both ends the value is literal.
    assert_eq!(
        accepted(header_call("SGVsbG8=", Some("SGVsbG8="))),
        (200, None)
    );
    assert_eq!(
        accepted(header_call("=?base64?SGVsbG8=", Some("=?base64?SGVsbG8="))),
        (200, None)
    );
    for bad in [
        header_call("Hello", Some("=?base64?SGVsbG8?=")),
        header_call("Hello", Some("=?base64?SGVs!!!bG8=?=")),
        header_call("Hello", Some("Goodbye")),
        header_call("Hello", None),
    ] {
        assert_eq!(accepted(bad), (400, Some(-32020)));
    }
}

#[test]
fn mcp_name_on_a_task_method_must_match_the_task_id_when_sent() {
    let task_meta = |mut params: Value| {
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        params
    };
    let mut request = modern_post(5, "tasks/get", task_meta(json!({"taskId": "t-1"})));
    request.mcp_name = Some("another".into());
    let r = answer(&mut dual(), request);
    assert_eq!((r.status, code(&r)), (400, Some(-32020)));
    let mut request = modern_post(6, "tasks/get", task_meta(json!({"taskId": "t-1"})));
    request.mcp_name = Some("t-1".into());
    // Names agree: the id is merely unknown.
    assert_eq!(code(&answer(&mut dual(), request)), Some(-32602));
}
