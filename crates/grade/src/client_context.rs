//! What the graded client is asked to do (`FAULTLINE_CONTEXT`), derived from a scenario's
//! workload, and the scenario as the grading server plays it.
//!
//! The contract has room for one call and follow-up `echo` calls, so a scenario fits when
//! its workload's first call is any tool and the rest are `echo`. A scenario without a
//! call (Behavior B: notifications only) gets one `echo` at its end, so the client stays
//! connected while everything happens and then has something to return from. `StaleTask`
//! faults are the modelled client's own defect, not the server's: they are not played.
//!
//! A 2026-07-28 scenario (client era `Modern`) fits the same way: its client model's
//! `lists_tools` and `use_tasks` become the context's `lists_tools` and `use_tasks`, the
//! two things its application does beyond calling
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>).
//! The graded client negotiates its era itself; the grading server speaks both.

use faultline_scenario::{Fault, PickDuration, Scenario, Tool, Work, arm};
pub use faultline_verdicts::{CallSpec, ClientContext};

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
    // The follow-ups are the contract's echoes (`{"text": "followup k"}`): the served
    // scenario says the same, so that the engine knows a client's call k by its
    // signature, as its stream selectors and the gates holding call k until its time do.
    let mut k = 0;
    for work in &mut served.workload {
        if let Work::CallTool {
            tool: Tool::Echo { text },
            ..
        } = work
            && k > 0
        {
            *text = format!("followup {k}");
        }
        if matches!(work, Work::CallTool { .. }) {
            k += 1;
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
            lists_tools: served.client.lists_tools,
            use_tasks: served.client.use_tasks,
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
        // The served follow-up is the echo the contract tells the client to make, so the
        // engine (and the gates) know it as call 1.
        let armed = arm(&plan.scenario, plan.scenario.seed);
        assert_eq!(
            armed.calls[1].tool.wire_call(1).1,
            serde_json::json!({"text": "followup 1"})
        );
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

    /// A 2026-07-28 scenario fits: its order key travels in the arguments, and what its
    /// client model does beyond calling reaches the context (and only then: a 2025
    /// context's JSON is unchanged).
    #[test]
    fn a_modern_scenario_fits_with_what_its_application_does() {
        let s = scenario(
            r#"Scenario(name: "t", summary: "t", client: (era: Modern, lists_tools: true), workload: [
                CallTool(at: "0s", tool: PlaceOrder(steps: 3, interval: "1s"))])"#,
        );
        let plan = plan(&s).expect("fits");
        assert_eq!(plan.context.call.tool, "place_order");
        assert_eq!(plan.context.call.arguments["order"], "call-0");
        assert!(plan.context.lists_tools);
        assert!(!plan.context.use_tasks);
        let json = serde_json::to_value(&plan.context).unwrap();
        assert_eq!(json["lists_tools"], true);
        assert!(json.get("use_tasks").is_none(), "{json}");
        let legacy = scenario(
            r#"Scenario(name: "t", summary: "t", workload: [
                CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1s"))])"#,
        );
        let json = serde_json::to_value(plan_of(&legacy).context).unwrap();
        assert_eq!(
            json.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["call", "followup_echo"]
        );
    }

    fn plan_of(s: &Scenario) -> GradingPlan {
        plan(s).expect("fits")
    }
}
