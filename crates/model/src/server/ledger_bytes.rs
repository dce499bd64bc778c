//! What the ledger's records weigh in memory, kept current as they grow and shrink.
//!
//! A window in entries alone does not bound memory: one answer may carry a long header
//! prefix, one job a client's megabyte request id, one message a megabyte echo. So every
//! entry is weighed once, when the trimmer first sees it, and unweighed when it is cut;
//! the window then bounds bytes as well (see `ledger_window`). Weights are estimates of
//! heap use (struct size plus the text and JSON an entry owns), not exact allocator bytes.

use serde_json::Value;

use crate::ledger::{
    AnswerEntry, JobEntry, Ledger, ProducedEvent, ResumeEntry, SendEntry, SessionEntry, StreamEntry,
};

/// The ledger's records that grow with traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Record {
    Sessions,
    Streams,
    Events,
    Sends,
    Answers,
    Resumptions,
    Jobs,
    Messages,
}

impl Record {
    pub(super) const ALL: [Record; 8] = [
        Record::Sessions,
        Record::Streams,
        Record::Events,
        Record::Sends,
        Record::Answers,
        Record::Resumptions,
        Record::Jobs,
        Record::Messages,
    ];

    pub(super) fn len(self, ledger: &Ledger) -> usize {
        match self {
            Record::Sessions => ledger.sessions.len(),
            Record::Streams => ledger.streams.len(),
            Record::Events => ledger.events.len(),
            Record::Sends => ledger.sends.len(),
            Record::Answers => ledger.answers.len(),
            Record::Resumptions => ledger.resumptions.len(),
            Record::Jobs => ledger.jobs.len(),
            Record::Messages => ledger.messages.len(),
        }
    }

    /// The weight of the record's `index`-th kept entry.
    pub(super) fn weight(self, ledger: &Ledger, index: usize) -> u64 {
        match self {
            Record::Sessions => session_weight(&ledger.sessions[index]),
            Record::Streams => size_of::<StreamEntry>() as u64,
            Record::Events => size_of::<ProducedEvent>() as u64,
            Record::Sends => size_of::<SendEntry>() as u64,
            Record::Answers => answer_weight(&ledger.answers[index]),
            Record::Resumptions => resume_weight(&ledger.resumptions[index]),
            Record::Jobs => job_weight(&ledger.jobs[index]),
            Record::Messages => value_weight(&ledger.messages[index]),
        }
    }
}

/// Per record: how many entries, from the front, are weighed, and what they weigh.
#[derive(Debug, Default)]
pub(crate) struct LedgerBytes {
    weighed: [usize; 8],
    bytes: [u64; 8],
}

impl LedgerBytes {
    /// Weighs every entry appended since the last call.
    pub(super) fn catch_up(&mut self, ledger: &Ledger) {
        for (i, record) in Record::ALL.into_iter().enumerate() {
            let len = record.len(ledger);
            for index in self.weighed[i]..len {
                self.bytes[i] += record.weight(ledger, index);
            }
            self.weighed[i] = len;
        }
    }

    /// What the record's kept entries weigh (as of the last [`LedgerBytes::catch_up`]).
    pub(super) fn of(&self, record: Record) -> u64 {
        self.bytes[record as usize]
    }

    /// What the whole ledger weighs (as of the last [`LedgerBytes::catch_up`]).
    pub(crate) fn total(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// The record's first `cut` entries are about to be drained: unweigh them.
    pub(super) fn forget(&mut self, ledger: &Ledger, record: Record, cut: usize) {
        let i = record as usize;
        let cut = cut.min(self.weighed[i]);
        let gone: u64 = (0..cut).map(|index| record.weight(ledger, index)).sum();
        // Saturating: a session entry gains a generation at a restart after it was weighed.
        self.bytes[i] = self.bytes[i].saturating_sub(gone);
        self.weighed[i] -= cut;
    }
}

fn session_weight(entry: &SessionEntry) -> u64 {
    (size_of::<SessionEntry>() + entry.wire_id.len() + entry.generations.len() * 8) as u64
}

fn answer_weight(entry: &AnswerEntry) -> u64 {
    let text = entry.rpc_method.as_ref().map_or(0, String::len)
        + entry.session_sent.as_ref().map_or(0, String::len);
    (size_of::<AnswerEntry>() + text) as u64
}

fn resume_weight(entry: &ResumeEntry) -> u64 {
    let text = entry.session_sent.as_ref().map_or(0, String::len) + entry.cursor.len();
    (size_of::<ResumeEntry>() + text) as u64
}

fn job_weight(entry: &JobEntry) -> u64 {
    size_of::<JobEntry>() as u64
        + entry.tool.len() as u64
        + value_weight(&entry.request_id)
        + entry.progress_token.as_ref().map_or(0, value_weight)
        + entry.idempotency_key.as_ref().map_or(0, |k| k.len() as u64)
}

/// A JSON value's weight: a node per value, plus its text.
pub(super) fn value_weight(value: &Value) -> u64 {
    let node = size_of::<Value>() as u64;
    match value {
        Value::String(s) => node + s.len() as u64,
        Value::Array(items) => node + items.iter().map(value_weight).sum::<u64>(),
        Value::Object(map) => {
            node + map
                .iter()
                .map(|(k, v)| k.len() as u64 + value_weight(v))
                .sum::<u64>()
        }
        _ => node,
    }
}
