//! Multi-round-trip requests (MRTR, SEP-2322): a 2026-07-28 server cannot send the client a
//! request of its own (there is no session and no stream back), so a tool or prompt that
//! needs input answers `resultType: "input_required"` with `inputRequests` (each an
//! `elicitation/create`, `sampling/createMessage` or `roots/list`, keyed by an id the
//! server chooses) and an opaque `requestState`. The client retries the same request with
//! `inputResponses` under those keys and the `requestState` echoed.
//!
//! The server keeps nothing between rounds: what it gathered so far rides in the
//! `requestState`, sealed with HMAC-SHA-256 under a key only the server knows, so a state
//! the client altered is refused (-32602) rather than trusted. The key comes from its own
//! ChaCha stream (the server's seed xor [`MRTR_KEY_SALT`]), never from the OS, so runs
//! replay byte for byte.
//!
//! A round is answered when every one of its keys has an object response; unknown keys
//! are ignored; a missing key gets the round asked again (not an error); a response that
//! is not an object, or `inputResponses` that is not an object, is -32602. An input
//! request the client did not declare the capability for is never sent: the request is
//! refused with -32021 (or, for `test_input_required_result_capabilities`, left out).
//!
//! <https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2322-multi-round-trip-requests.md>

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::errors::ModernRejection;
use super::meta::RequestMeta;

/// Xored into the server's seed for the key that seals `requestState`.
pub const MRTR_KEY_SALT: u64 = 0x2322_5ea1_0000_0001;

pub const TEST_INPUT_REQUIRED_RESULT_ELICITATION: &str = "test_input_required_result_elicitation";
pub const TEST_INPUT_REQUIRED_RESULT_SAMPLING: &str = "test_input_required_result_sampling";
pub const TEST_INPUT_REQUIRED_RESULT_LIST_ROOTS: &str = "test_input_required_result_list_roots";
pub const TEST_INPUT_REQUIRED_RESULT_REQUEST_STATE: &str =
    "test_input_required_result_request_state";
pub const TEST_INPUT_REQUIRED_RESULT_MULTIPLE_INPUTS: &str =
    "test_input_required_result_multiple_inputs";
pub const TEST_INPUT_REQUIRED_RESULT_MULTI_ROUND: &str = "test_input_required_result_multi_round";
pub const TEST_INPUT_REQUIRED_RESULT_TAMPERED_STATE: &str =
    "test_input_required_result_tampered_state";
pub const TEST_INPUT_REQUIRED_RESULT_CAPABILITIES: &str = "test_input_required_result_capabilities";
pub const TEST_INPUT_REQUIRED_RESULT_PROMPT: &str = "test_input_required_result_prompt";
pub const TEST_STREAMING_ELICITATION: &str = "test_streaming_elicitation";
/// Gathers a name over MRTR, then runs as a task when the client declared the tasks
/// extension (SEP-2322 composed with SEP-2663).
pub const TEST_TOOL_WITH_TASK: &str = "test_tool_with_task";

/// The tools that gather input over MRTR (listed in the 2026-07-28 `tools/list`).
pub const MRTR_TOOLS: [&str; 10] = [
    TEST_INPUT_REQUIRED_RESULT_ELICITATION,
    TEST_INPUT_REQUIRED_RESULT_SAMPLING,
    TEST_INPUT_REQUIRED_RESULT_LIST_ROOTS,
    TEST_INPUT_REQUIRED_RESULT_REQUEST_STATE,
    TEST_INPUT_REQUIRED_RESULT_MULTIPLE_INPUTS,
    TEST_INPUT_REQUIRED_RESULT_MULTI_ROUND,
    TEST_INPUT_REQUIRED_RESULT_TAMPERED_STATE,
    TEST_INPUT_REQUIRED_RESULT_CAPABILITIES,
    TEST_STREAMING_ELICITATION,
    TEST_TOOL_WITH_TASK,
];

/// The key that seals `requestState`.
#[derive(Debug, Clone)]
pub struct StateKey([u8; 32]);

impl StateKey {
    /// `seed` is the server's; the key comes from a ChaCha stream of its own.
    pub fn new(seed: u64) -> Self {
        let mut key = [0u8; 32];
        ChaCha8Rng::seed_from_u64(seed ^ MRTR_KEY_SALT).fill_bytes(&mut key);
        StateKey(key)
    }

    /// HMAC-SHA-256 (RFC 2104) of `message`.
    fn mac(&self, message: &[u8]) -> [u8; 32] {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&self.0);
        let pad = |byte: u8| block.map(|b| b ^ byte);
        let inner = Sha256::new()
            .chain_update(pad(0x36))
            .chain_update(message)
            .finalize();
        Sha256::new()
            .chain_update(pad(0x5c))
            .chain_update(inner)
            .finalize()
            .into()
    }

    /// `payload` as a `requestState`: its JSON in hex, a dot, the hex MAC of that JSON.
    pub fn seal(&self, payload: &Value) -> String {
        let text = payload.to_string();
        format!(
            "{}.{}",
            hex(text.as_bytes()),
            hex(&self.mac(text.as_bytes()))
        )
    }

    /// The payload a `requestState` carries, or `None` when it was not sealed by this key
    /// (altered, truncated, or made up).
    pub fn open(&self, state: &str) -> Option<Value> {
        let (body, mac) = state.split_once('.')?;
        let text = unhex(body)?;
        let want = hex(&self.mac(&text));
        // Compared in full, whatever differs first.
        let same = want.len() == mac.len()
            && want
                .bytes()
                .zip(mac.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return None;
        }
        serde_json::from_slice(&text).ok()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One input request of a round: its key, and the request.
struct Ask {
    key: &'static str,
    request: Value,
}

fn elicit(key: &'static str, message: &str, field: &str, kind: &str) -> Ask {
    Ask {
        key,
        request: json!({"method": "elicitation/create", "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
        }}),
    }
}

fn sample(key: &'static str, text: &str, max_tokens: u32) -> Ask {
    Ask {
        key,
        request: json!({"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens
        }}),
    }
}

fn roots(key: &'static str) -> Ask {
    Ask {
        key,
        request: json!({"method": "roots/list", "params": {}}),
    }
}

/// The capability a client declares to be sent `request`.
fn capability_for(request: &Value) -> &'static str {
    match request.get("method").and_then(Value::as_str) {
        Some("sampling/createMessage") => "sampling",
        Some("roots/list") => "roots",
        _ => "elicitation",
    }
}

/// The rounds of `name` (a tool, or the prompt), or `None` when it does not gather input.
fn rounds(name: &str) -> Option<Vec<Vec<Ask>>> {
    let name_please = || elicit("user_name", "What is your name?", "name", "string");
    Some(match name {
        TEST_INPUT_REQUIRED_RESULT_ELICITATION
        | TEST_STREAMING_ELICITATION
        | TEST_TOOL_WITH_TASK => {
            vec![vec![name_please()]]
        }
        TEST_INPUT_REQUIRED_RESULT_SAMPLING => vec![vec![sample(
            "capital_question",
            "What is the capital of France?",
            100,
        )]],
        TEST_INPUT_REQUIRED_RESULT_LIST_ROOTS => vec![vec![roots("client_roots")]],
        TEST_INPUT_REQUIRED_RESULT_REQUEST_STATE | TEST_INPUT_REQUIRED_RESULT_TAMPERED_STATE => {
            vec![vec![elicit("confirm", "Please confirm", "ok", "boolean")]]
        }
        TEST_INPUT_REQUIRED_RESULT_MULTIPLE_INPUTS | TEST_INPUT_REQUIRED_RESULT_CAPABILITIES => {
            vec![vec![
                name_please(),
                sample("greeting", "Generate a greeting", 50),
                roots("client_roots"),
            ]]
        }
        TEST_INPUT_REQUIRED_RESULT_MULTI_ROUND => vec![
            vec![elicit(
                "step1",
                "Step 1: What is your name?",
                "name",
                "string",
            )],
            vec![elicit(
                "step2",
                "Step 2: What is your favorite color?",
                "color",
                "string",
            )],
        ],
        TEST_INPUT_REQUIRED_RESULT_PROMPT => vec![vec![elicit(
            "user_context",
            "What context should the prompt use?",
            "context",
            "string",
        )]],
        _ => return None,
    })
}

/// Where a request that gathers input stands after this round trip.
#[derive(Debug, Clone, PartialEq)]
pub enum Mrtr {
    /// Ask the client for more: the `InputRequiredResult` (without `_meta`).
    InputRequired(Value),
    /// Every round answered: the responses gathered, by key.
    Complete(Map<String, Value>),
}

/// Why a round trip was refused: a JSON-RPC error message (-32602), or a rejection.
#[derive(Debug, Clone, PartialEq)]
pub enum MrtrError {
    InvalidParams(String),
    Rejected(ModernRejection),
}

/// One round trip of `name`'s input gathering, or `None` when `name` gathers none.
pub fn round_trip(
    key: &StateKey,
    name: &str,
    params: &Value,
    meta: &RequestMeta,
) -> Option<Result<Mrtr, MrtrError>> {
    let rounds = rounds(name)?;
    Some(step(key, name, &rounds, params, meta))
}

fn step(
    key: &StateKey,
    name: &str,
    rounds: &[Vec<Ask>],
    params: &Value,
    meta: &RequestMeta,
) -> Result<Mrtr, MrtrError> {
    let invalid = |why: &str| Err(MrtrError::InvalidParams(format!("Invalid params: {why}")));
    let responses = match params.get("inputResponses") {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return invalid("inputResponses must be an object"),
    };
    let (mut round, mut gathered) = match params.get("requestState") {
        None | Some(Value::Null) => (0usize, Map::new()),
        Some(Value::String(state)) => {
            let Some(payload) = key.open(state) else {
                return invalid("requestState failed its integrity check");
            };
            if payload.get("name").and_then(Value::as_str) != Some(name) {
                return invalid("requestState belongs to another request");
            }
            let round = payload.get("round").and_then(Value::as_u64).unwrap_or(0) as usize;
            let gathered = payload
                .get("gathered")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            (round.min(rounds.len()), gathered)
        }
        Some(_) => return invalid("requestState must be a string"),
    };
    let optional = name == TEST_INPUT_REQUIRED_RESULT_CAPABILITIES;
    while round < rounds.len() {
        let mut asks = Vec::new();
        for ask in &rounds[round] {
            let capability = capability_for(&ask.request);
            if meta.declares(capability) {
                asks.push(ask);
            } else if !optional {
                return Err(MrtrError::Rejected(ModernRejection::MissingCapability(
                    capability,
                )));
            }
        }
        if asks.is_empty() {
            return Err(MrtrError::Rejected(ModernRejection::MissingCapability(
                "elicitation",
            )));
        }
        for ask in &asks {
            match responses.get(ask.key) {
                Some(Value::Object(_)) | None => {}
                Some(_) => {
                    return invalid(&format!("inputResponses.{} must be an object", ask.key));
                }
            }
        }
        if !asks.iter().all(|a| responses.contains_key(a.key)) {
            let requests: Map<String, Value> = asks
                .iter()
                .map(|a| (a.key.to_string(), a.request.clone()))
                .collect();
            let state = key.seal(&json!({"name": name, "round": round, "gathered": gathered}));
            return Ok(Mrtr::InputRequired(json!({
                "resultType": "input_required",
                "inputRequests": requests,
                "requestState": state,
            })));
        }
        for ask in &asks {
            gathered.insert(ask.key.to_string(), responses[ask.key].clone());
        }
        round += 1;
    }
    Ok(Mrtr::Complete(gathered))
}

/// The text a finished tool answers with, from what it gathered.
pub fn completion_text(name: &str, gathered: &Map<String, Value>) -> String {
    let content = |key: &str, field: &str| {
        gathered
            .get(key)
            .and_then(|r| r.get("content"))
            .and_then(|c| c.get(field))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    match name {
        TEST_INPUT_REQUIRED_RESULT_SAMPLING => {
            format!("The model said: {}", content("capital_question", "text"))
        }
        TEST_INPUT_REQUIRED_RESULT_LIST_ROOTS => {
            let uris: Vec<String> = gathered
                .get("client_roots")
                .and_then(|r| r.get("roots"))
                .and_then(Value::as_array)
                .map(|roots| {
                    roots
                        .iter()
                        .filter_map(|r| r.get("uri").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            format!("Roots: {}", uris.join(", "))
        }
        TEST_INPUT_REQUIRED_RESULT_REQUEST_STATE | TEST_INPUT_REQUIRED_RESULT_TAMPERED_STATE => {
            "state-ok: confirmed".to_string()
        }
        TEST_INPUT_REQUIRED_RESULT_MULTI_ROUND => format!(
            "{} likes {}",
            content("step1", "name"),
            content("step2", "color")
        ),
        TEST_INPUT_REQUIRED_RESULT_MULTIPLE_INPUTS | TEST_INPUT_REQUIRED_RESULT_CAPABILITIES => {
            let keys: Vec<&str> = gathered.keys().map(String::as_str).collect();
            format!("Got {}", keys.join(", "))
        }
        _ => format!("Hello, {}!", content("user_name", "name")),
    }
}

/// The prompt's result once its context is gathered.
pub fn prompt_result(gathered: &Map<String, Value>) -> Value {
    let context = gathered
        .get("user_context")
        .and_then(|r| r.get("content"))
        .and_then(|c| c.get("context"))
        .and_then(Value::as_str)
        .unwrap_or("");
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("Use this context: {context}")}}]})
}

/// The MRTR tools' `tools/list` entries.
pub fn mrtr_tools() -> Vec<Value> {
    MRTR_TOOLS
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "description": "Conformance (SEP-2322): asks the client for input with an input_required result, then answers.",
                "inputSchema": {"type": "object", "properties": {}}
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_state_opens_and_an_altered_one_does_not() {
        let key = StateKey::new(7);
        let payload = json!({"name": "t", "round": 1});
        let state = key.seal(&payload);
        assert_eq!(key.open(&state), Some(payload));
        assert_eq!(key.open(&format!("{state}-TAMPERED")), None);
        assert_eq!(key.open(&state.replacen("7b", "5b", 1)), None);
        assert_eq!(StateKey::new(8).open(&state), None);
        assert_eq!(key.open("not a state"), None);
    }

    #[test]
    fn the_key_depends_on_the_seed_only() {
        assert_eq!(StateKey::new(1).0, StateKey::new(1).0);
        assert_ne!(StateKey::new(1).0, StateKey::new(2).0);
    }

    #[test]
    fn hmac_sha256_matches_rfc_4231_case_2() {
        // Key "Jefe" padded with zeros: RFC 4231's key is 4 bytes, ours 32; HMAC pads
        // both to the block with zeros, so the tag is the same.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        assert_eq!(
            hex(&StateKey(key).mac(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
