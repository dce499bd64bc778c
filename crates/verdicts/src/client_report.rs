//! What a real client says its application was handed: the last line of its stdout, one
//! JSON object (the client contract of `faultline grade`: `progress`, `notifications`,
//! `result`, `error`).

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
    /// The whole object as printed (other fields are shown to the user).
    pub raw: Value,
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
            progress: numbers(fields, "progress")?,
            notifications: numbers(fields, "notifications")?
                .into_iter()
                .map(|n| n as u64)
                .collect(),
            result: text(fields, "result")?,
            error: text(fields, "error")?,
            raw: raw.clone(),
        })
    }
}

fn numbers(fields: &Map<String, Value>, key: &str) -> Result<Vec<f64>, String> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_f64()
                    .filter(|n| n.is_finite() && *n >= 0.0)
                    .ok_or_else(|| {
                        format!("`{key}` must be a list of non-negative numbers, found {v}")
                    })
            })
            .collect(),
        Some(other) => Err(format!("`{key}` must be a list of numbers, found {other}")),
    }
}

fn text(fields: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` must be a string or null, found {other}")),
    }
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
    }
}
