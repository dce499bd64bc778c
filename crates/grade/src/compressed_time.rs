//! What the grading clock passed in a moment: the scenario time a real client's call
//! waited, against the wall time its whole run took.
//!
//! `grade` runs a scenario on the harness's clock: virtual time jumps to the next due
//! event while the client waits on the server, so a 20-minute job is over in well under a
//! second. The client's own timers (a request timeout, a read timeout, a reconnect
//! backoff) run on the wall clock and never see those 20 minutes. A `clean` there says
//! the client handled the scenario's faults; it says nothing of what its timers do to a
//! call that waits that long in the field (the TypeScript SDK's request timeout fails
//! any call still unanswered after 60 s, `DEFAULT_REQUEST_TIMEOUT_MSEC` in its protocol
//! layer, <https://github.com/modelcontextprotocol/typescript-sdk>).
//! So every real client's grade says how much scenario time its call waited in how much
//! wall time, and `--time-scale` runs the scenario on a clock of the wall's pace for
//! whoever wants those timers to meet it. A modelled client (`grade --like`) needs none
//! of this: its timers run on virtual time, as the SDK's do in the field.

use std::time::Duration;

use faultline_model::{DurationMs, JobEntry, Ledger};
use serde_json::{Value, json};

use crate::ClientContext;

/// The longest the call waited in scenario time, and the wall time of the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressedWait {
    /// Virtual milliseconds from a job of the call's tool starting to its end (or to the
    /// last thing the ledger holds, for a job still running): the longest of them.
    pub call_waited_ms: u64,
    /// Wall milliseconds the client's whole run took, start-up included.
    pub wall_ms: u64,
}

impl CompressedWait {
    /// The wait when it is longer in scenario time than the whole run in wall time (a
    /// timer of the client's shorter than the wait could not fire, and would in the
    /// field); `None` when the call ran as no job or the clock did not compress it.
    pub fn of(ledger: &Ledger, context: &ClientContext, wall: Duration) -> Option<Self> {
        let last_ms = ledger
            .answers
            .iter()
            .map(|a| a.at_ms)
            .chain(ledger.events.iter().map(|e| e.at_ms))
            .max()
            .unwrap_or(0);
        Self::of_jobs(&ledger.jobs, &context.call.tool, last_ms, wall)
    }

    /// [`CompressedWait::of`] from the ledger's jobs and its last moment (`last_ms`: where
    /// a job still running stopped being watched).
    fn of_jobs(jobs: &[JobEntry], tool: &str, last_ms: u64, wall: Duration) -> Option<Self> {
        let call_waited_ms = jobs
            .iter()
            .filter(|j| j.tool == tool)
            .map(|j| {
                let end = j.ended.map_or(last_ms, |(at, _)| at);
                end.saturating_sub(j.started_ms)
            })
            .max()?;
        let wall_ms = u64::try_from(wall.as_millis()).unwrap_or(u64::MAX);
        (call_waited_ms > wall_ms).then_some(CompressedWait {
            call_waited_ms,
            wall_ms,
        })
    }

    /// One sentence for the report's notes.
    pub fn sentence(&self) -> String {
        let waited = DurationMs(self.call_waited_ms);
        let wall = format!("{:.1} s", self.wall_ms as f64 / 1000.0);
        format!(
            "time: the call waited {waited} of the scenario's time, in a run of {wall} of wall time: a timer of the client's own on the wall clock (a request timeout, a read timeout, a backoff) of between {wall} and {waited} could not fire here, and would in the field (`--time-scale 1` runs the scenario at the wall's pace)"
        )
    }

    /// `{call_waited_ms, wall_ms}`.
    pub fn json(&self) -> Value {
        json!({"call_waited_ms": self.call_waited_ms, "wall_ms": self.wall_ms})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faultline_model::{JobEnd, SessionKey};

    fn job(tool: &str, started_ms: u64, ended: Option<u64>) -> JobEntry {
        JobEntry {
            session: SessionKey(0),
            generation: 0,
            tool: tool.to_string(),
            request_id: json!(1),
            progress_token: None,
            idempotency_key: None,
            steps: 3,
            started_ms,
            ended: ended.map(|at| (at, JobEnd::Finished)),
        }
    }

    fn context(tool: &str) -> ClientContext {
        ClientContext {
            call: crate::CallSpec {
                tool: tool.to_string(),
                arguments: json!({}),
                progress: true,
            },
            followup_echo: 0,
            lists_tools: false,
            use_tasks: false,
        }
    }

    #[test]
    fn the_longest_job_of_the_calls_tool_against_the_runs_wall_time() {
        let ledger = Ledger {
            jobs: vec![
                job("long_job", 1_000, Some(61_000)),
                job("long_job", 70_000, Some(1_270_000)),
                job("other", 0, Some(9_000_000)),
            ],
            ..Ledger::default()
        };
        let wait = CompressedWait::of(&ledger, &context("long_job"), Duration::from_millis(900));
        assert_eq!(
            wait,
            Some(CompressedWait {
                call_waited_ms: 1_200_000,
                wall_ms: 900
            })
        );
        let sentence = wait.unwrap().sentence();
        assert!(
            sentence.contains("waited 20m of the scenario's time"),
            "{sentence}"
        );
        assert!(sentence.contains("0.9 s of wall time"), "{sentence}");
    }

    #[test]
    fn no_note_when_the_wall_clock_kept_pace_or_no_job_ran() {
        let ledger = Ledger {
            jobs: vec![job("long_job", 0, Some(3_000))],
            ..Ledger::default()
        };
        let ctx = context("long_job");
        assert_eq!(
            CompressedWait::of(&ledger, &ctx, Duration::from_secs(4)),
            None
        );
        assert!(CompressedWait::of(&ledger, &ctx, Duration::from_secs(2)).is_some());
        assert_eq!(
            CompressedWait::of(&ledger, &context("echo"), Duration::ZERO),
            None
        );
    }

    /// A job still at work when the client left waited until the last thing the ledger
    /// holds.
    #[test]
    fn a_job_still_running_waited_until_the_ledgers_last_moment() {
        let jobs = [job("long_job", 2_000, None)];
        let wait = CompressedWait::of_jobs(&jobs, "long_job", 542_000, Duration::from_secs(6));
        assert_eq!(wait.map(|w| w.call_waited_ms), Some(540_000));
    }
}
