//! A modelled client graded as `grade` grades a real one: the same grading plan (the
//! scenario as the grading server plays it, the `FAULTLINE_CONTEXT` the client is given),
//! the same judge, and for a report what a real client running as the modelled one would
//! print. `faultline grade --like ts-1` grades the naive client with the TypeScript SDK
//! client's habits this way, so that its table can be set beside the real client's: where
//! the two differ, either the habits are wrong or the difference has a reason that can be
//! named (a timer the harness's clock never lets fire, a scheduling race).
//!
//! The one difference in how the run is made: the modelled client runs in the simulator,
//! on virtual time all through, where a real client's timers run in wall time while the
//! grading server's clock jumps. A modelled client's 60 s request timeout fires after 60 s
//! of virtual time; a real one's after 60 s of waiting, which a 20-minute job compressed
//! into milliseconds never lasts.

use faultline_model::Payload;
use faultline_scenario::{Calls, ClientModel, Scenario, SdkClient, WhenDone};
use faultline_sim::RunOutcome;

use crate::{ClientContext, ClientReport, MissingReport, ScenarioGrade, judge, plan};

/// What a modelled client still at work when its run ended gives instead of a report:
/// `hung`, with no wall time waited.
pub const STILL_AT_WORK: MissingReport = MissingReport::Hung { waited_ms: None };

/// Grades the modelled `client` on `scenario` (with `like`'s habits when given: the naive
/// client as that SDK client). `Err`: the scenario does not fit the client contract.
pub fn grade_modelled(
    scenario: &Scenario,
    client: ClientModel,
    like: Option<SdkClient>,
) -> Result<ScenarioGrade, String> {
    let mut plan = plan(scenario).map_err(|why| format!("{}: {why}", scenario.name))?;
    if let Some(sdk) = like {
        sdk.fits(scenario.client.era)
            .map_err(|why| format!("{}: {why}", scenario.name))?;
        plan.scenario.client.habits.like = like;
    }
    // The contract's client makes its call, then its follow-ups, each once the last has
    // ended, and exits once they are done (and a real one's clock stops there): so does
    // the modelled one, closing as its transport does (`on_close`).
    plan.scenario.client.habits.calls = Some(Calls::OneAtATime);
    plan.scenario.client.habits.when_done = Some(WhenDone::Exit);
    let started = std::time::Instant::now();
    let outcome = faultline_sim::run(&plan.scenario, plan.scenario.seed, client);
    let wall = started.elapsed();
    let report = report_of(&outcome, &plan.context);
    let sim = outcome.result.record.exercise;
    let mut exercise = crate::exercise(&plan.scenario, &[]);
    exercise.faults_fired = sim.faults_fired;
    exercise.faults_unmet = sim.faults_unmet;
    exercise.faults_cut_nothing = sim.faults_cut_nothing;
    exercise.faults_planned = sim.faults_planned;
    let verdicts = judge(
        &outcome.result.ledger,
        &plan.context,
        report.as_ref().ok_or(&STILL_AT_WORK),
        exercise,
    );
    let ledger = outcome.result.ledger;
    let ledger_json = serde_json::to_string(&ledger).expect("a ledger serializes");
    Ok(ScenarioGrade {
        scenario: scenario.name.clone(),
        source: scenario.name.clone(),
        verdicts,
        client_report: report.map(|r| r.raw),
        context: plan.context,
        notes: plan.notes,
        wall,
        ledger_sha256: faultline_sim::sha256_hex(&ledger_json),
        client_stderr: String::new(),
        ledger,
        faults: Vec::new(),
        like: plan.scenario.client.habits.like,
        // Its timers run on the scenario's time, as the SDK's do in the field.
        compressed: None,
        pace: None,
    })
}

/// What a real client running as the modelled one did would report: the values its
/// application was handed, in order, the call's result, and the first error it saw; and
/// nothing at all when the run ended with a call still waiting (at the horizon, or gone
/// quiet: it would never have printed its report, and `grade` times it out).
pub fn report_of(outcome: &RunOutcome, context: &ClientContext) -> Option<ClientReport> {
    let ledger = &outcome.result.ledger;
    let record = &outcome.result.record;
    let pending = record
        .calls
        .iter()
        .any(|c| c.completed_at_ms.is_none() && c.failed_at_ms.is_none());
    if pending {
        return None;
    }
    let call_zero = serde_json::Value::from("call-0");
    let mut report = ClientReport::default();
    for applied in &record.applied {
        let event = ledger.event(applied.event);
        match event.payload {
            Payload::Progress { job, step, .. }
                if context.call.progress
                    && ledger.job(job).progress_token.as_ref() == Some(&call_zero) =>
            {
                report.progress.push(f64::from(step));
            }
            Payload::Notification { seq } => report.notifications.push(seq),
            _ => {}
        }
    }
    report.result = record
        .calls
        .first()
        .and_then(|c| c.completed_at_ms)
        .map(|_| format!("{} finished", context.call.tool));
    report.error = record.errors.first().map(|e| e.error.to_string());
    report.raw = serde_json::json!({
        "progress": report.progress,
        "notifications": report.notifications,
        "result": report.result,
        "error": report.error,
    });
    Some(report)
}
