//! What the graded application was asked to do (`FAULTLINE_CONTEXT`): one call and its
//! follow-ups. The report judge reads it to know what was owed; `faultline-grade` derives
//! it from a scenario's workload.

use serde::Serialize;
use serde_json::Value;

/// `FAULTLINE_CONTEXT`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientContext {
    pub call: CallSpec,
    /// `echo` calls to make after the first call returned.
    pub followup_echo: usize,
    /// 2026-07-28: the application keeps its tools list current the way the SDK offers
    /// (a `subscriptions/listen` for tools-list changes, opened before the call and kept
    /// open), lists tools before the call and before each follow-up, and calls from that
    /// list. Absent (false) in every 2025 context.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lists_tools: bool,
    /// 2026-07-28: the application asks for the call to run as a task (the
    /// `io.modelcontextprotocol/tasks` extension) when its client implements the
    /// extension; a client that does not makes a plain call. Absent (false) in every 2025
    /// context.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub use_tasks: bool,
}

/// One `tools/call`: the tool, its arguments verbatim, and whether to ask for progress.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallSpec {
    pub tool: String,
    pub arguments: Value,
    pub progress: bool,
}
