//! The trace: everything that happened in a run, in order, as JSON lines.
//!
//! The trace is the run's fingerprint: its SHA-256 is printed in every JSON report, and two
//! runs of the same scenario and seed must produce identical bytes. Entries are compact
//! (ids and enums, no rendered JSON bodies) so recording costs little on the hot path.
//!
//! A trace *file* (`faultline run --trace FILE`) starts with one header line naming the run
//! the entries belong to, so the file alone says how to reproduce it:
//!
//! ```text
//! {"header":{"scenario":"replay_404_cascade","scenario_path":"scenarios/replay_404_cascade.ron","seed":7,"client":"naive"}}
//! {"at_ms":60000,"what":"request","conn":1,"task":"main","http":"POST","rpc":"initialize",...}
//! ```
//!
//! [`from_jsonl`] reads files with or without the header (files written before it existed).

use std::fmt;

use faultline_model::{DeathCause, EndMode, Payload, Route};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use crate::client::Fate;
use crate::client_record::Task;
use faultline_scenario::ClientModel;

/// The first line of a trace file: which run its entries belong to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceHeader {
    /// The scenario's `name`.
    pub scenario: String,
    /// The scenario file as it was given to `faultline run`, when the run came from a file
    /// (relative to the directory `run` was started in).
    pub scenario_path: Option<String>,
    pub seed: u64,
    /// `"naive"` or `"guarded"`, as on the command line.
    #[serde(serialize_with = "client_name", deserialize_with = "client_by_name")]
    pub client: ClientModel,
}

fn client_name<S: Serializer>(client: &ClientModel, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(client.name())
}

fn client_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<ClientModel, D::Error> {
    let name = String::deserialize(d)?;
    ClientModel::parse(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "unknown client model {name:?} (expected naive or guarded)"
        ))
    })
}

/// How the header is spelled on its line: `{"header": {...}}`, so it can never be taken
/// for an entry (entries have `at_ms` and `what`).
#[derive(Serialize, Deserialize)]
struct HeaderLine {
    header: TraceHeader,
}

impl TraceHeader {
    /// The header line, without its newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(&HeaderLine {
            header: self.clone(),
        })
        .expect("trace headers serialize")
    }
}

/// A trace file read back: its header, if it has one, and its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// `None` for trace files written before the header existed.
    pub header: Option<TraceHeader>,
    pub entries: Vec<TraceEntry>,
}

impl Trace {
    /// The file's text: the header line (if any), then one line per entry.
    pub fn to_jsonl(&self) -> String {
        let entries = to_jsonl(&self.entries);
        match &self.header {
            Some(h) => format!("{}\n{entries}", h.to_line()),
            None => entries,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEntry {
    pub at_ms: u64,
    #[serde(flatten)]
    pub what: TraceWhat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum TraceWhat {
    Request {
        conn: u64,
        task: Task,
        http: String,
        rpc: Option<String>,
        session: Option<String>,
        last_event_id: Option<String>,
        /// Held back while the client was away; this is when it really went out.
        deferred: bool,
        /// In a fleet: the replica the balancer sent the request to, and why (read from
        /// the server's ledger once the request was answered). Never written for a single
        /// server, whose traces keep their bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        route: Option<Route>,
    },
    Response {
        conn: u64,
        status: u16,
        session: Option<String>,
        stream: Option<u32>,
    },
    Event {
        conn: u64,
        id: Option<u64>,
        stream: u32,
        session: u32,
        generation: u32,
        payload: Payload,
        replay: bool,
        fate: Fate,
    },
    End {
        conn: u64,
        how: EndMode,
    },
    /// A keep-alive comment (`: keep-alive`) on a 2026-07-28 listen stream.
    KeepAlive {
        conn: u64,
    },
    Fault {
        fault: String,
    },
    ClientError {
        error: String,
    },
    SessionDied {
        session: String,
        cause: DeathCause,
    },
    /// What the session store and the event log held at this moment.
    State {
        store: String,
        log: String,
    },
}

/// Serializes the entries as JSON lines (no header: see [`Trace::to_jsonl`]).
pub fn to_jsonl(trace: &[TraceEntry]) -> String {
    let mut out = String::with_capacity(trace.len() * 120);
    for entry in trace {
        out.push_str(&serde_json::to_string(entry).expect("trace entries serialize"));
        out.push('\n');
    }
    out
}

/// A trace line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number (0 when the whole input is at fault).
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// Reads a trace file back: an optional header on the first non-blank line, then entries.
/// Blank lines are allowed; any other line must be an entry, and a bad one is reported with
/// its 1-based number instead of being skipped (so is a header anywhere but first).
pub fn from_jsonl(text: &str) -> Result<Trace, TraceError> {
    let mut trace = Trace {
        header: None,
        entries: Vec::new(),
    };
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    for (n, (i, line)) in lines.enumerate() {
        let error = |message: String| TraceError {
            line: i + 1,
            message,
        };
        match serde_json::from_str::<TraceEntry>(line) {
            Ok(entry) => trace.entries.push(entry),
            Err(e) if !is_header(line) => {
                return Err(error(format!("not a faultline trace entry: {e}")));
            }
            Err(_) if n > 0 => {
                return Err(error(
                    "a trace header belongs on the first line only".to_string(),
                ));
            }
            Err(_) => {
                let h: HeaderLine = serde_json::from_str(line)
                    .map_err(|e| error(format!("not a faultline trace header: {e}")))?;
                trace.header = Some(h.header);
            }
        }
    }
    Ok(trace)
}

/// Whether a line is a JSON object with a `header` key.
fn is_header(line: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
        .is_ok_and(|m| m.contains_key("header"))
}

/// SHA-256 of JSON-lines text, lowercase hex (see `RunOutcome::trace_sha256` for what a
/// run's hash covers).
pub fn sha256_hex(jsonl: &str) -> String {
    let digest = Sha256::digest(jsonl.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAULT: &str = r#"{"at_ms":0,"what":"fault","fault":"x"}"#;

    fn header() -> TraceHeader {
        TraceHeader {
            scenario: "behavior_a".into(),
            scenario_path: Some("scenarios/behavior_a.ron".into()),
            seed: 42,
            client: ClientModel::Guarded,
        }
    }

    #[test]
    fn a_header_is_the_first_line_and_reads_back() {
        let trace = Trace {
            header: Some(header()),
            entries: from_jsonl(FAULT).unwrap().entries,
        };
        let text = trace.to_jsonl();
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"header":{"scenario":"behavior_a","scenario_path":"scenarios/behavior_a.ron","seed":42,"client":"guarded"}}"#
        );
        assert_eq!(from_jsonl(&text).unwrap(), trace);
    }

    #[test]
    fn a_trace_without_a_header_still_reads() {
        let trace = from_jsonl(&format!("{FAULT}\n\n{FAULT}\n")).unwrap();
        assert_eq!(trace.header, None);
        assert_eq!(trace.entries.len(), 2);
    }

    #[test]
    fn bad_lines_and_misplaced_headers_are_reported_by_number() {
        let h = header().to_line();
        let err = from_jsonl(&format!("{FAULT}\n{FAULT}\n{h}\n")).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.to_string().contains("first line only"), "{err}");
        let err = from_jsonl(&format!("\n{h}\n{FAULT}\nnot json\n")).unwrap_err();
        assert_eq!(err.line, 4);
        let bad = h.replace("guarded", "paranoid");
        let err = from_jsonl(&format!("{bad}\n{FAULT}\n")).unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.to_string().contains("paranoid"), "{err}");
    }
}
