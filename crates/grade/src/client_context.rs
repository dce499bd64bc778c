//! What the graded client is asked to do (`FAULTLINE_CONTEXT`), derived from a scenario's
//! workload, and the scenario as the grading server plays it.
//!
//! The contract has room for one call and follow-up `echo` calls, so a scenario fits when
//! its workload's first call is any tool and the rest are `echo`. A scenario without a
//! call (Behavior B: notifications only) gets one `echo` at its end, so the client stays
//! connected while everything happens and then has something to return from. `StaleTask`
//! faults are the modelled client's own defect, not the server's: they are not played.

use faultline_scenario::{Fault, PickDuration, Scenario, Tool, Work, arm};
use serde::Serialize;
use serde_json::Value;

/// `FAULTLINE_CONTEXT`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientContext {
    pub call: CallSpec,
    /// `echo` calls to make after the first call returned.
    pub followup_echo: usize,
}

/// One `tools/call`: the tool, its arguments verbatim, and whether to ask for progress.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallSpec {
    pub tool: String,
    pub arguments: Value,
    pub progress: bool,
}

/// A scenario ready for grading: what the server plays and what the client is told.
#[derive(Debug, Clone)]
pub struct GradingPlan {
    pub scenario: Scenario,
    pub context: ClientContext,
    /// What the grading server does differently from the scenario file, in words.
    pub notes: Vec<String>,
}

/// How long after the last scheduled notification the added `echo` is made.
const SETTLE_MS: u64 = 60_000;

/// The plan for `scenario`, or why its workload does not fit the client contract.
pub fn plan(scenario: &Scenario) -> Result<GradingPlan, String> {
    if scenario.client.era.may_be_modern() {
        // The graded clients (the reference adapters, and the contract) speak 2025; a
        // 2026-07-28 scenario (or one whose client probes for the era) stays out of the
        // default set until they can be graded.
        return Err(format!(
            "a 2026-07-28 scenario (client era {:?}): grading 2026-07-28 clients is not built yet",
            scenario.client.era
        ));
    }
    let mut served = scenario.clone();
    let mut notes = Vec::new();
    let stale = served
        .faults
        .iter()
        .filter(|f| matches!(f, Fault::StaleTask { .. }))
        .count();
    if stale > 0 {
        served
            .faults
            .retain(|f| !matches!(f, Fault::StaleTask { .. }));
        notes.push(format!(
            "{stale} StaleTask fault(s) not played: they are the modelled client's own defect"
        ));
    }
    let calls: Vec<usize> = served
        .workload
        .iter()
        .enumerate()
        .filter(|(_, w)| matches!(w, Work::CallTool { .. }))
        .map(|(i, _)| i)
        .collect();
    if calls.is_empty() {
        let armed = arm(&served, served.seed);
        let last_notification = armed
            .notifies
            .iter()
            .map(|n| n.from_ms + n.every_ms * n.count.saturating_sub(1))
            .max()
            .unwrap_or(0);
        let at = faultline_model::DurationMs(last_notification + SETTLE_MS);
        served.workload.push(Work::CallTool {
            at: PickDuration::fixed(at),
            tool: Tool::Echo {
                text: "still there?".into(),
            },
            progress: false,
        });
        notes.push(format!(
            "the workload has no call: one echo is made at {} ms, a minute after the last notification",
            at.0
        ));
    }
    let armed = arm(&served, served.seed);
    let first = &armed.calls[0];
    for (k, call) in armed.calls.iter().enumerate().skip(1) {
        if !matches!(call.tool, Tool::Echo { .. }) {
            return Err(format!(
                "workload call {k} is not an echo: the client contract has one call and follow-up echo calls"
            ));
        }
    }
    let (tool, arguments) = first.tool.wire_call(0);
    Ok(GradingPlan {
        context: ClientContext {
            call: CallSpec {
                tool: tool.to_string(),
                arguments,
                progress: first.progress,
            },
            followup_echo: armed.calls.len() - 1,
        },
        scenario: served,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text, "t.ron").expect("valid")
    }

    #[test]
    fn a_call_and_echo_followups_fit() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t", workload: [
                CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1s")),
                CallTool(at: "1m", tool: Echo(text: "hi"), progress: false)])"#,
        );
        let plan = plan(&s).expect("fits");
        assert_eq!(plan.context.call.tool, "long_job");
        assert_eq!(
            plan.context.call.arguments,
            serde_json::json!({"steps": 3, "interval_ms": 1000})
        );
        assert!(plan.context.call.progress);
        assert_eq!(plan.context.followup_echo, 1);
    }

    #[test]
    fn notifications_only_get_an_echo_after_the_last_one() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t", workload: [Notify(from: "10s", every: "10s", count: 3)])"#,
        );
        let plan = plan(&s).expect("fits");
        assert_eq!(plan.context.call.tool, "echo");
        let armed = arm(&plan.scenario, plan.scenario.seed);
        assert_eq!(armed.calls[0].at_ms, 30_000 + SETTLE_MS);
    }

    #[test]
    fn a_second_long_job_does_not_fit() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t", workload: [
                CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1s")),
                CallTool(at: "1m", tool: LongJob(steps: 3, interval: "1s"))])"#,
        );
        assert!(plan(&s).unwrap_err().contains("not an echo"));
    }

    /// The graded clients speak 2025: a 2026-07-28 scenario is not in the default set.
    #[test]
    fn a_modern_scenario_does_not_fit_yet() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t", client: (era: Modern), workload: [
                CallTool(at: "0s", tool: PlaceOrder(steps: 3, interval: "1s"))])"#,
        );
        assert!(plan(&s).unwrap_err().contains("not built yet"));
    }
}
