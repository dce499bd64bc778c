//! The fixtures a conformant 2026-07-28 server provides for the official conformance suite
//! (`@modelcontextprotocol/conformance`, server scenarios): tools that return each kind of
//! content, prompts, resources and a resource template, `completion/complete`, a tool whose
//! input schema uses JSON Schema 2020-12, a tool whose argument travels in an `Mcp-Param-*`
//! header, and `greet`, the tasks scenarios' synchronous tool. Each is served on the
//! 2026-07-28 path only: the 2025 `tools/list` does not move.
//!
//! Content and results: <https://modelcontextprotocol.io/specification/2026-07-28/server/tools>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/prompts>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/resources> (an unknown URI
//! is -32602 with `data.uri`, SEP-2164),
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion>;
//! custom headers (SEP-2243):
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports>.

use serde_json::{Value, json};

use crate::http::HttpRequest;
use crate::jsonrpc::INVALID_PARAMS;
use crate::knobs::ServerKnobs;
use crate::rpc_answer::RpcAnswer;

use super::discover::add_cache_hint;
use super::errors::ModernRejection;
use super::headers::decode_base64_strict;

/// A 1×1 PNG.
pub const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV of two silent 8-bit samples at 8 kHz.
pub const WAV_SILENCE: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";

pub const GREET: &str = "greet";
pub const TEST_IMAGE_CONTENT: &str = "test_image_content";
pub const TEST_AUDIO_CONTENT: &str = "test_audio_content";
pub const TEST_EMBEDDED_RESOURCE: &str = "test_embedded_resource";
pub const TEST_MULTIPLE_CONTENT_TYPES: &str = "test_multiple_content_types";
pub const TEST_LOGGING_TOOL: &str = "test_logging_tool";
pub const JSON_SCHEMA_2020_12_TOOL: &str = "json_schema_2020_12_tool";
pub const TEST_HEADER_PARAM: &str = "test_header_param";
/// `test_header_param`'s argument, and the `Mcp-Param-*` header that repeats it.
const HEADER_PARAM: &str = "region";
const HEADER_PARAM_HEADER: &str = "Region";

fn no_arguments(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}})
}

/// The fixture tools, first in the 2026-07-28 `tools/list` (the suite's header checks
/// call the first listed tool with no arguments, so it must take none).
pub fn fixture_tools() -> Vec<Value> {
    vec![
        json!({
            "name": GREET,
            "description": "Says hello to `name` (\"World\" when absent); never a task.",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }),
        no_arguments(TEST_IMAGE_CONTENT, "Conformance: returns a 1x1 PNG image."),
        no_arguments(TEST_AUDIO_CONTENT, "Conformance: returns a short WAV clip."),
        no_arguments(
            TEST_EMBEDDED_RESOURCE,
            "Conformance: returns an embedded text resource.",
        ),
        no_arguments(
            TEST_MULTIPLE_CONTENT_TYPES,
            "Conformance: returns text, an image and an embedded resource.",
        ),
        no_arguments(
            TEST_LOGGING_TOOL,
            "Conformance: logs through notifications/message only when the request's _meta sets a logLevel; answers at once, so it sends none.",
        ),
        json!({
            "name": JSON_SCHEMA_2020_12_TOOL,
            "description": "Conformance: an input schema using JSON Schema 2020-12 keywords.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }
        }),
        json!({
            "name": TEST_HEADER_PARAM,
            "description": "Conformance (SEP-2243): its `region` argument is repeated in the Mcp-Param-Region header, which must match it.",
            "inputSchema": {
                "type": "object",
                "properties": {HEADER_PARAM: {"type": "string", "x-mcp-header": HEADER_PARAM_HEADER}}
            }
        }),
    ]
}

/// The answer to a `tools/call` of an immediate fixture tool, or `None` when `name` is not
/// one.
pub fn fixture_tool_call(
    request: &HttpRequest,
    name: &str,
    args: &Value,
) -> Option<Result<Value, ModernRejection>> {
    let content = match name {
        GREET => {
            let who = args.get("name").and_then(Value::as_str).unwrap_or("World");
            json!([{"type": "text", "text": format!("Hello, {who}!")}])
        }
        TEST_IMAGE_CONTENT => json!([{"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]),
        TEST_AUDIO_CONTENT => {
            json!([{"type": "audio", "data": WAV_SILENCE, "mimeType": "audio/wav"}])
        }
        TEST_EMBEDDED_RESOURCE => json!([{"type": "resource", "resource": {
            "uri": "test://embedded-resource",
            "mimeType": "text/plain",
            "text": "This is an embedded resource content."
        }}]),
        TEST_MULTIPLE_CONTENT_TYPES => json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            {"type": "resource", "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": "{\"test\":\"data\",\"value\":123}"
            }}
        ]),
        TEST_LOGGING_TOOL => json!([{"type": "text", "text": "logging tool done"}]),
        JSON_SCHEMA_2020_12_TOOL => json!([{"type": "text", "text": "ok"}]),
        TEST_HEADER_PARAM => {
            if let Err(why) = check_param_header(request, args) {
                return Some(Err(why));
            }
            let region = args.get(HEADER_PARAM).and_then(Value::as_str).unwrap_or("");
            json!([{"type": "text", "text": format!("region {region}")}])
        }
        _ => return None,
    };
    Some(Ok(json!({"content": content, "isError": false})))
}

/// SEP-2243: an argument the schema marks `x-mcp-header` travels in `Mcp-Param-<name>` too;
/// the header must be present when the argument is, and decode (`=?base64?…?=`, strict
/// padding and alphabet; anything else is literal) to the same value.
fn check_param_header(request: &HttpRequest, args: &Value) -> Result<(), ModernRejection> {
    let Some(body) = args.get(HEADER_PARAM).and_then(Value::as_str) else {
        return Ok(());
    };
    let wanted = HEADER_PARAM_HEADER.to_ascii_lowercase();
    let Some((_, raw)) = request
        .mcp_params
        .iter()
        .find(|(name, _)| name.to_ascii_lowercase() == wanted)
    else {
        return Err(ModernRejection::HeaderMismatch(format!(
            "the Mcp-Param-{HEADER_PARAM_HEADER} header is required when params.arguments.{HEADER_PARAM} is set"
        )));
    };
    let raw = raw.trim();
    let value = match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => decode_base64_strict(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| {
                ModernRejection::HeaderMismatch(format!(
                    "Mcp-Param-{HEADER_PARAM_HEADER} is not valid =?base64?…?= UTF-8"
                ))
            })?,
        None => raw.to_string(),
    };
    if value != body {
        return Err(ModernRejection::HeaderMismatch(format!(
            "Mcp-Param-{HEADER_PARAM_HEADER} is {value:?} but params.arguments.{HEADER_PARAM} is {body:?}"
        )));
    }
    Ok(())
}

pub const TEST_SIMPLE_PROMPT: &str = "test_simple_prompt";
pub const TEST_PROMPT_WITH_ARGUMENTS: &str = "test_prompt_with_arguments";
pub const TEST_PROMPT_WITH_EMBEDDED_RESOURCE: &str = "test_prompt_with_embedded_resource";
pub const TEST_PROMPT_WITH_IMAGE: &str = "test_prompt_with_image";

/// The fixture prompts (`prompts/list`), and the input-required one of
/// [`super::input_required`].
pub fn prompts() -> Value {
    json!({"prompts": [
        {"name": TEST_SIMPLE_PROMPT, "description": "A simple prompt without arguments."},
        {"name": TEST_PROMPT_WITH_ARGUMENTS, "description": "A prompt with two arguments.", "arguments": [
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true}
        ]},
        {"name": TEST_PROMPT_WITH_EMBEDDED_RESOURCE, "description": "A prompt that embeds a resource.", "arguments": [
            {"name": "resourceUri", "description": "URI of the resource to embed", "required": true}
        ]},
        {"name": TEST_PROMPT_WITH_IMAGE, "description": "A prompt with image content."},
        {"name": super::input_required::TEST_INPUT_REQUIRED_RESULT_PROMPT, "description": "Asks the client for context (elicitation) before it answers."}
    ]})
}

/// `prompts/get` of a fixture prompt: the result, or `None` when `name` is not one.
pub fn prompt_get(name: &str, args: &Value) -> Option<Value> {
    let arg = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let messages = match name {
        TEST_SIMPLE_PROMPT => {
            json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        }
        TEST_PROMPT_WITH_ARGUMENTS => json!([{"role": "user", "content": {"type": "text", "text":
            format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2"))}}]),
        TEST_PROMPT_WITH_EMBEDDED_RESOURCE => json!([
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": arg("resourceUri"), "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
        ]),
        TEST_PROMPT_WITH_IMAGE => json!([
            {"role": "user", "content": {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
        ]),
        _ => return None,
    };
    Some(json!({"messages": messages}))
}

pub const STATIC_TEXT_URI: &str = "test://static-text";
pub const STATIC_BINARY_URI: &str = "test://static-binary";
const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";

/// `resources/list`: the two direct resources (templates are listed apart).
pub fn resources() -> Value {
    json!({"resources": [
        {"uri": STATIC_TEXT_URI, "name": "static-text", "description": "A static text resource.", "mimeType": "text/plain"},
        {"uri": STATIC_BINARY_URI, "name": "static-binary", "description": "A static binary resource (a 1x1 PNG).", "mimeType": "image/png"}
    ]})
}

/// `resources/templates/list`.
pub fn resource_templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "test://template/{id}/data", "name": "template-data", "description": "Data for an id.", "mimeType": "application/json"}
    ]})
}

/// `resources/read`: the contents of `uri`, or `None` when no resource has it.
pub fn resource_read(uri: &str) -> Option<Value> {
    let contents = match uri {
        STATIC_TEXT_URI => {
            json!([{"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}])
        }
        STATIC_BINARY_URI => json!([{"uri": uri, "mimeType": "image/png", "blob": PNG_1X1}]),
        _ => {
            let id = uri
                .strip_prefix(TEMPLATE_PREFIX)?
                .strip_suffix(TEMPLATE_SUFFIX)?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            json!([{"uri": uri, "mimeType": "application/json", "text": text.to_string()}])
        }
    };
    Some(json!({"contents": contents}))
}

/// `completion/complete`: the fixture prompt's and template's argument values that start
/// with what the client typed.
pub fn completion(params: &Value) -> Value {
    let typed = params
        .get("argument")
        .and_then(|a| a.get("value"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let values: Vec<&str> = ["paris", "park", "party", "test", "testValue1", "testValue2"]
        .into_iter()
        .filter(|v| v.starts_with(typed))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

/// The answer to a fixture method (`prompts/*`, `resources/*`, `completion/complete`);
/// `None` for any other method. Lists and reads carry the caching hints.
pub fn fixture_method(
    knobs: &ServerKnobs,
    id: &Value,
    method: &str,
    params: &Value,
) -> Option<RpcAnswer> {
    let cached = |mut result: Value| {
        add_cache_hint(&mut result, knobs);
        RpcAnswer::complete(id, result)
    };
    Some(match method {
        "prompts/list" => cached(prompts()),
        "resources/list" => cached(resources()),
        "resources/templates/list" => cached(resource_templates()),
        "completion/complete" => RpcAnswer::complete(id, completion(params)),
        "prompts/get" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            let args = params.get("arguments").cloned().unwrap_or(Value::Null);
            match prompt_get(name, &args) {
                Some(result) => RpcAnswer::complete(id, result),
                None => RpcAnswer::error(
                    id,
                    INVALID_PARAMS,
                    format!("Invalid params: unknown prompt {name:?}"),
                ),
            }
        }
        "resources/read" => {
            let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
            match resource_read(uri) {
                Some(result) => cached(result),
                None => RpcAnswer::error_with_data(
                    id,
                    INVALID_PARAMS,
                    "Resource not found",
                    json!({"uri": uri}),
                ),
            }
        }
        _ => return None,
    })
}
