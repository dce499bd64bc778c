//! Reading a trace file back: the JSON lines `faultline run --trace` writes.
//!
//! The simulator's `TraceEntry` only serializes (it is written on the hot path and never
//! read there), so this module mirrors its shape with owned, deserializable types. A diagram
//! must be drawable from the file alone, long after the run, so every line is checked and
//! a bad one is reported with its line number instead of being skipped.

use std::fmt;

use serde::Deserialize;

/// One line of the trace.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Entry {
    pub at_ms: u64,
    #[serde(flatten)]
    pub what: What,
}

/// Which of the client's tasks sent a request: `"main"`, `"probe"` or `{"stale": n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    Main,
    Probe,
    Stale(u32),
}

impl Task {
    pub fn label(self) -> String {
        match self {
            Task::Main => "main".into(),
            Task::Probe => "probe".into(),
            Task::Stale(n) => format!("stale-{n}"),
        }
    }
}

/// What an SSE event carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    Priming,
    Progress { job: u32, step: u32, total: u32 },
    ToolResult { job: u32 },
    Notification { seq: u64 },
    Response { message: u32 },
}

impl Payload {
    pub fn label(self) -> &'static str {
        match self {
            Payload::Priming => "priming",
            Payload::Progress { .. } => "progress",
            Payload::ToolResult { .. } => "tool result",
            Payload::Notification { .. } => "notification",
            Payload::Response { .. } => "response",
        }
    }
}

/// What the client did with an event it received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    Applied,
    SkippedAsSeen,
    Buffered,
    Quarantined,
    Ignored,
    Primed,
}

impl Fate {
    pub fn label(self) -> &'static str {
        match self {
            Fate::Applied => "applied",
            Fate::SkippedAsSeen => "SKIPPED as already seen",
            Fate::Buffered => "buffered until the probe answers",
            Fate::Quarantined => "quarantined",
            Fate::Ignored => "lost in flight",
            Fate::Primed => "cursor primed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum What {
    Request {
        conn: u64,
        task: Task,
        http: String,
        rpc: Option<String>,
        session: Option<String>,
        last_event_id: Option<String>,
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
        /// `"Close"` or `"Reset"`.
        how: String,
    },
    Fault {
        fault: String,
    },
    ClientError {
        error: String,
    },
    SessionDied {
        session: String,
        cause: String,
    },
    State {
        store: String,
        log: String,
    },
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

/// Parses JSON-lines trace text. Blank lines are allowed; anything else must be an entry,
/// and entries must not go back in time (a shuffled file would draw a false story).
pub fn parse_trace(text: &str) -> Result<Vec<Entry>, TraceError> {
    let mut entries: Vec<Entry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = serde_json::from_str(line).map_err(|e| TraceError {
            line: line_no,
            message: format!("not a faultline trace entry: {e}"),
        })?;
        if let Some(prev) = entries.last()
            && entry.at_ms < prev.at_ms
        {
            return Err(TraceError {
                line: line_no,
                message: format!(
                    "time goes backwards (at_ms {} after {}); is this file sorted as written?",
                    entry.at_ms, prev.at_ms
                ),
            });
        }
        entries.push(entry);
    }
    if entries.is_empty() {
        return Err(TraceError {
            line: 0,
            message: "the trace is empty: write one with `faultline run SCENARIO --trace FILE`"
                .into(),
        });
    }
    Ok(entries)
}
