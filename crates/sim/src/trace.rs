//! The trace: everything that happened in a run, in order, as JSON lines.
//!
//! The trace is the run's fingerprint: its SHA-256 is printed in every JSON report, and two
//! runs of the same scenario and seed must produce identical bytes. Entries are compact
//! (ids and enums, no rendered JSON bodies) so recording costs little on the hot path.

use std::fmt;

use faultline_model::{DeathCause, EndMode, Payload};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::client::Fate;
use crate::client_record::Task;

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

/// Serializes the trace as JSON lines.
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

/// Reads a JSON-lines trace back. Blank lines are allowed; any other line must be an entry,
/// and a bad one is reported with its 1-based number instead of being skipped.
pub fn from_jsonl(text: &str) -> Result<Vec<TraceEntry>, TraceError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| TraceError {
                line: i + 1,
                message: format!("not a faultline trace entry: {e}"),
            })
        })
        .collect()
}

/// SHA-256 of the JSON-lines trace, lowercase hex.
pub fn sha256_hex(jsonl: &str) -> String {
    let digest = Sha256::digest(jsonl.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
