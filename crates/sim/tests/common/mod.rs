//! Helpers the simulator's scenario tests share (each test file is its own crate and uses
//! the part it needs).
#![allow(dead_code)]

use faultline_sim::{ClientError, RunOutcome, Scenario};

/// A scenario written inline in a test.
pub fn scenario(text: &str) -> Scenario {
    Scenario::parse(text, "inline.ron").expect("valid scenario")
}

/// The messages of the client's typed `ResumptionCursorError`s.
pub fn cursor_errors(outcome: &RunOutcome) -> Vec<String> {
    outcome
        .result
        .record
        .errors
        .iter()
        .filter(|e| matches!(e.error, ClientError::ResumptionCursor(_)))
        .map(|e| e.error.to_string())
        .collect()
}
