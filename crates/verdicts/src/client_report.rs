//! What a real client says its application was handed: the last line of its stdout, one
//! JSON object (the client contract of `faultline grade`: `progress`, `notifications`,
//! `result`, `error`, and `supports`, what the client cannot do).
//!
//! Liberal in what it reads, because a report is usually written by an adapter around an
//! SDK, and the natural things to print are the SDK's own objects: a `result` that is a
//! whole `CallToolResult` is read for its first text item, an `error` that is an object
//! for its `message`, a progress item that is a notification's params for its `progress`.
//! What cannot be read as any of these is refused with the reason, and `grade` judges that
//! run `bad_report` (or `crashed`); it never ends the whole grade.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientReport {
    /// Progress values of the first call, in the order received.
    pub progress: Vec<f64>,
    /// `data.seq` of every `notifications/message` received, in order.
    pub notifications: Vec<u64>,
    /// The first call's result text.
    pub result: Option<String>,
    /// The first error the application saw.
    pub error: Option<String>,
    /// What the client declared it can do (`supports`; everything unless it says not).
    pub supports: Supports,
    /// The whole object as printed (other fields are shown to the user).
    pub raw: Value,
}

/// What a client declares it can do, in its report's `supports` object (for example
/// `{"progress": false}`): a field left out, or the whole object, means it can.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Supports {
    /// The application has a progress handler: the client passes a progress token.
    pub progress: bool,
    /// The application has a handler for server notifications (`notifications/message`).
    pub notifications: bool,
}

impl Default for Supports {
    fn default() -> Self {
        Supports {
            progress: true,
            notifications: true,
        }
    }
}

impl ClientReport {
    /// Parses the last non-empty line of `stdout`.
    pub fn from_stdout(stdout: &str) -> Result<ClientReport, String> {
        let Some(last) = stdout.lines().rev().find(|l| !l.trim().is_empty()) else {
            return Err(
                "the client printed nothing on stdout (its last line must be the JSON report)"
                    .into(),
            );
        };
        let raw: Value = serde_json::from_str(last.trim()).map_err(|e| {
            format!(
                "the client's last stdout line is not JSON ({e}): {}",
                clip(last)
            )
        })?;
        let Value::Object(fields) = &raw else {
            return Err(format!(
                "the client's report must be a JSON object, got: {}",
                clip(last)
            ));
        };
        Ok(ClientReport {
            progress: numbers(fields, "progress", &["progress"])?,
            notifications: numbers(fields, "notifications", &["seq", "data"])?
                .into_iter()
                .map(|n| n as u64)
                .collect(),
            result: result_text(fields.get("result")),
            error: error_text(fields.get("error")),
            supports: supports(fields)?,
            raw: raw.clone(),
        })
    }
}

/// A list of non-negative numbers; an item that is an object is read at the first of
/// `keys` it has (a progress notification's params, `{"seq": N}` or `{"data": {"seq": N}}`).
fn numbers(fields: &Map<String, Value>, key: &str, keys: &[&str]) -> Result<Vec<f64>, String> {
    fn number(v: &Value, keys: &[&str]) -> Option<f64> {
        match v {
            Value::Object(o) => keys.iter().find_map(|k| o.get(*k)).and_then(|inner| {
                // `{"data": {"seq": N}}`: the object inside is read by the same keys.
                number(inner, keys)
            }),
            _ => v.as_f64().filter(|n| n.is_finite() && *n >= 0.0),
        }
    }
    match fields.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                number(v, keys).ok_or_else(|| {
                    format!("`{key}` must be a list of non-negative numbers, found {v}")
                })
            })
            .collect(),
        Some(other) => Err(format!("`{key}` must be a list of numbers, found {other}")),
    }
}

/// The call's result as text: a string as it is; a `CallToolResult` (an object with
/// `content`) by its first text item, or as JSON when it has none (a result was handed
/// over all the same); anything else as JSON.
fn result_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Object(o) if o.contains_key("content") => Some(
            o["content"]
                .as_array()
                .and_then(|items| {
                    items
                        .iter()
                        .find(|c| c["type"] == "text")
                        .and_then(|c| c["text"].as_str())
                })
                .map_or_else(|| Value::Object(o.clone()).to_string(), str::to_string),
        ),
        other => Some(other.to_string()),
    }
}

/// The first error as text: a string as it is; an object (a JSON-RPC error, an SDK's
/// error serialized) by its `message`, with its `code` when it has one; anything else as
/// JSON. `false` is no error, as `null` is.
fn error_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::Null | Value::Bool(false) => None,
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let inner = o
                .get("error")
                .filter(|e| e.is_object())
                .map(|e| error_text(Some(e)));
            if let Some(text) = inner {
                return text;
            }
            Some(
                match (o.get("message").and_then(Value::as_str), o.get("code")) {
                    (Some(message), Some(code)) if !code.is_null() => format!("{code}: {message}"),
                    (Some(message), _) => message.to_string(),
                    _ => Value::Object(o.clone()).to_string(),
                },
            )
        }
        other => Some(other.to_string()),
    }
}

/// `supports`: an object of booleans (absent fields: supported).
fn supports(fields: &Map<String, Value>) -> Result<Supports, String> {
    let mut supports = Supports::default();
    let Some(value) = fields.get("supports").filter(|v| !v.is_null()) else {
        return Ok(supports);
    };
    let Value::Object(declared) = value else {
        return Err(format!(
            "`supports` must be an object such as {{\"progress\": false}}, found {value}"
        ));
    };
    for (name, slot) in [
        ("progress", &mut supports.progress),
        ("notifications", &mut supports.notifications),
    ] {
        match declared.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => *slot = *b,
            Some(other) => {
                return Err(format!(
                    "`supports.{name}` must be true or false, found {other}"
                ));
            }
        }
    }
    Ok(supports)
}

fn clip(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_is_the_report_and_logs_before_it_are_ignored() {
        let out = "connecting...\n{\"progress\": [1, 2], \"notifications\": [0], \"result\": \"done\", \"error\": null, \"sdk\": \"x 1\"}\n";
        let r = ClientReport::from_stdout(out).expect("a report");
        assert_eq!(r.progress, vec![1.0, 2.0]);
        assert_eq!(r.notifications, vec![0]);
        assert_eq!(r.result.as_deref(), Some("done"));
        assert_eq!(r.error, None);
        assert_eq!(r.raw["sdk"], "x 1");
    }

    #[test]
    fn bad_reports_say_what_is_wrong() {
        assert!(
            ClientReport::from_stdout("")
                .unwrap_err()
                .contains("printed nothing")
        );
        assert!(
            ClientReport::from_stdout("hello\n")
                .unwrap_err()
                .contains("not JSON")
        );
        assert!(
            ClientReport::from_stdout("[1]")
                .unwrap_err()
                .contains("object")
        );
        assert!(
            ClientReport::from_stdout(r#"{"progress": "x"}"#)
                .unwrap_err()
                .contains("`progress`")
        );
        assert!(
            ClientReport::from_stdout(r#"{"supports": {"progress": "no"}}"#)
                .unwrap_err()
                .contains("`supports.progress`")
        );
    }

    /// What SDK adapters print most naturally: the whole `CallToolResult`, the error object,
    /// each progress notification's params. Refused, each of these ended a whole grade.
    #[test]
    fn sdk_objects_are_read_for_their_text() {
        let out = r#"{"progress": [{"progress": 1, "total": 2}, 2], "notifications": [{"seq": 0}, {"data": {"seq": 1}}], "result": {"content": [{"type": "image", "data": "x"}, {"type": "text", "text": "done"}], "isError": false}, "error": {"code": -32001, "message": "Request timed out"}}"#;
        let r = ClientReport::from_stdout(out).expect("a report");
        assert_eq!(r.progress, vec![1.0, 2.0]);
        assert_eq!(r.notifications, vec![0, 1]);
        assert_eq!(r.result.as_deref(), Some("done"));
        assert_eq!(r.error.as_deref(), Some("-32001: Request timed out"));
        let r = ClientReport::from_stdout(
            r#"{"result": {"content": [], "structuredContent": {"n": 1}}, "error": {"error": {"message": "gone"}}}"#,
        )
        .expect("a report");
        assert_eq!(
            r.result.as_deref(),
            Some(r#"{"content":[],"structuredContent":{"n":1}}"#)
        );
        assert_eq!(r.error.as_deref(), Some("gone"));
        let r = ClientReport::from_stdout(r#"{"result": 42, "error": false}"#).expect("a report");
        assert_eq!(r.result.as_deref(), Some("42"));
        assert_eq!(r.error, None);
    }

    #[test]
    fn a_client_declares_what_it_cannot_do() {
        let r =
            ClientReport::from_stdout(r#"{"supports": {"progress": false}}"#).expect("a report");
        assert_eq!(
            r.supports,
            Supports {
                progress: false,
                notifications: true
            }
        );
        let r = ClientReport::from_stdout("{}").expect("a report");
        assert_eq!(r.supports, Supports::default());
    }
}
