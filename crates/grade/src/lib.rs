//! # faultline-grade
//!
//! Grade any MCP client, in any language, against faultline's scenarios.
//!
//! For each scenario a fresh live server (the same engine as `faultline run` and
//! `faultline serve`) is started on loopback, on the harness's clock: virtual time jumps
//! to the next due event only while the client waits on the server, so an hour of TTLs
//! passes in milliseconds and nothing the client does in wall time reaches the ledger.
//! The client runs as a subprocess; what it reports its application was handed is judged
//! against what the server produced for it (the ledger).
//!
//! ## The client contract
//!
//! It follows the client mode of the official MCP conformance suite:
//!
//! - the MCP endpoint URL is appended to the command as its last argument
//!   (`sh -c 'COMMAND "$@"' faultline URL`);
//! - `FAULTLINE_SCENARIO` holds the scenario's name, `FAULTLINE_CONTEXT` what the
//!   application does: `{"call": {"tool": "long_job", "arguments": {"steps": 45,
//!   "interval_ms": 60000}, "progress": true}, "followup_echo": 1}`: one `tools/call`
//!   (arguments verbatim; with a progress token when `progress`), then `followup_echo`
//!   calls of `echo` with `{"text": "followup N"}`; a 2026-07-28 scenario's context may
//!   add `"lists_tools": true` (keep the tools list current through a
//!   `subscriptions/listen` for its changes, list tools before each call and call from
//!   that list) and `"use_tasks": true` (run the call as a task when the client
//!   implements the tasks extension), both absent when false;
//! - the last line of the client's stdout is its report, one JSON object: `progress` (the
//!   progress values of the call, in order), `notifications` (`data.seq` of every
//!   `notifications/message`, in order), `result` (the call's result text, or null),
//!   `error` (the first error the application saw, or null); other fields are shown;
//! - a client never sleeps in virtual time: a call the scenario schedules later (the
//!   cascade's at T+33m) is held by the server until its time comes, after everything due
//!   before it has happened;
//! - the server sends an SSE event of type `faultline.quiet` on open streams when nothing
//!   more can come until the client acts; MCP SDKs ignore it, a hand-written client may
//!   use it instead of a read timeout.
//!
//! The grading server speaks 2025-11-25 and 2026-07-28 (it picks the era per request), so
//! a client that negotiates lands in 2026-07-28: such a client is graded on the
//! 2026-07-28 scenarios (`faultline grade --era modern`), a 2025 client on the others.

mod client_context;
mod client_process;
mod ledger_diagram;
mod report_card;

use std::time::Duration;

use faultline_model::Ledger;
use faultline_scenario::{FiredFault, Scenario};
use serde_json::{Value, json};

pub use client_context::{CallSpec, ClientContext, GradingPlan, plan};
pub use client_process::grading_config;
pub use faultline_verdicts::judge_report as judge;
pub use faultline_verdicts::{ClientReport, ReportVerdict, VerdictKind};
pub use ledger_diagram::diagram_of_grade;
pub use report_card::report_card;

/// How long a client may take on one scenario before it is `hung`: longer than the
/// TypeScript SDK's 60 s request timeout, so a client that gives up after it is seen to.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(75);

/// One scenario's grade.
#[derive(Debug, Clone)]
pub struct ScenarioGrade {
    pub scenario: String,
    /// How to name the scenario on a command line to replay it: its bundled name, or the
    /// file it was read from (set by the caller; the name by default).
    pub source: String,
    pub verdicts: Vec<ReportVerdict>,
    /// The client's report as printed (`None`: hung).
    pub client_report: Option<Value>,
    /// What the application was asked to do (`FAULTLINE_CONTEXT`).
    pub context: ClientContext,
    /// What the grading server played differently from the file.
    pub notes: Vec<String>,
    pub wall: Duration,
    pub ledger_sha256: String,
    /// The last lines the client wrote on stderr.
    pub client_stderr: String,
    /// The server's ground truth (its JSON is what `ledger_sha256` digests).
    pub ledger: Ledger,
    /// The scenario's faults as they fired.
    pub faults: Vec<FiredFault>,
}

impl ScenarioGrade {
    /// Nothing the scenario tests happened: the grade vouches for nothing here.
    pub fn untested(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| v.kind == VerdictKind::Untested)
    }

    pub fn lost_silently(&self) -> bool {
        self.verdicts.iter().any(|v| v.kind.is_failure())
    }

    /// Anything but a clean verdict.
    pub fn failed(&self) -> bool {
        self.verdicts.iter().any(|v| v.kind != VerdictKind::Clean)
    }

    /// The ledger as JSON: the bytes `ledger_sha256` digests.
    pub fn ledger_json(&self) -> String {
        serde_json::to_string(&self.ledger).expect("a ledger serializes")
    }

    /// The command that serves this run again, exactly as graded.
    pub fn replay_command(&self) -> String {
        format!(
            "faultline serve --scenario {} --grading --control",
            shell_word(&self.source)
        )
    }
}

/// Grades `command` on one scenario. `Err`: bad input, in a sentence.
pub fn grade_scenario(
    command: &str,
    scenario: &Scenario,
    timeout: Duration,
) -> Result<ScenarioGrade, String> {
    let plan = plan(scenario).map_err(|why| format!("{}: {why}", scenario.name))?;
    let run = client_process::run_client(command, &plan, timeout)
        .map_err(|why| format!("{}: {why}", scenario.name))?;
    let verdicts = judge(
        &run.ledger,
        &plan.context,
        run.report.as_ref(),
        exercise(&plan.scenario, &run.faults),
    );
    let ledger_json = serde_json::to_string(&run.ledger).expect("a ledger serializes");
    Ok(ScenarioGrade {
        scenario: scenario.name.clone(),
        source: scenario.name.clone(),
        verdicts,
        client_report: run.report.map(|r| r.raw),
        context: plan.context,
        notes: plan.notes,
        wall: run.wall,
        ledger_sha256: faultline_sim::sha256_hex(&ledger_json),
        client_stderr: run.stderr_tail,
        ledger: run.ledger,
        faults: run.faults,
    })
}

/// What the graded run was meant to exercise and what of it happened: the contract's one
/// call, the scenario's faults that fire at a moment, and how many of them fired.
pub fn exercise(
    scenario: &Scenario,
    fired: &[FiredFault],
) -> faultline_verdicts::untested::Exercise {
    let mut indices: Vec<usize> = fired.iter().filter_map(|f| f.fault).collect();
    indices.sort_unstable();
    indices.dedup();
    faultline_verdicts::untested::Exercise {
        calls_planned: 1,
        faults_planned: scenario
            .faults
            .iter()
            .filter(|f| !matches!(f.when(), faultline_scenario::FaultWhen::Always))
            .count(),
        faults_fired: indices.len(),
    }
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The `--format json` document.
pub fn json_report(command: &str, grades: &[ScenarioGrade]) -> Value {
    json!({
        "command": command,
        "scenarios": grades.iter().map(|g| json!({
            "scenario": g.scenario,
            "verdicts": g.verdicts.iter().map(verdict_json).collect::<Vec<_>>(),
            "client_report": g.client_report,
            "notes": g.notes,
            "ledger_sha256": g.ledger_sha256,
            "client_stderr": g.client_stderr,
            "wall_ms": g.wall.as_millis() as u64,
        })).collect::<Vec<_>>(),
        "lost_silently": grades.iter().any(ScenarioGrade::lost_silently),
        "untested": grades.iter().filter(|g| g.untested()).map(|g| g.scenario.as_str()).collect::<Vec<_>>(),
    })
}

/// `{kind, why, ...evidence}`.
fn verdict_json(v: &ReportVerdict) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("kind".into(), v.kind.name().into());
    object.insert("why".into(), v.why.clone().into());
    if let Value::Object(evidence) = &v.evidence {
        for (k, value) in evidence {
            object.insert(k.clone(), value.clone());
        }
    }
    Value::Object(object)
}

/// The text table: one row per verdict, scenario first.
pub fn text_report(command: &str, grades: &[ScenarioGrade]) -> String {
    let mut out = format!("faultline grade: {command}\n\n");
    let width = grades
        .iter()
        .map(|g| g.scenario.len())
        .max()
        .unwrap_or(8)
        .max(8);
    out.push_str(&format!("{:width$}  {:20}  why\n", "scenario", "verdict"));
    for g in grades {
        for (i, v) in g.verdicts.iter().enumerate() {
            let name = if i == 0 { g.scenario.as_str() } else { "" };
            out.push_str(&format!("{name:width$}  {:20}  {}\n", v.kind.name(), v.why));
        }
        for note in &g.notes {
            out.push_str(&format!("{:width$}  {:20}  (note: {note})\n", "", ""));
        }
    }
    let lost: Vec<&str> = grades
        .iter()
        .filter(|g| g.lost_silently())
        .map(|g| g.scenario.as_str())
        .collect();
    out.push('\n');
    for g in grades.iter().filter(|g| g.lost_silently()) {
        out.push_str(&format!(
            "replay {}: {}  (then run the client against the printed URL with FAULTLINE_CONTEXT as printed)\n",
            g.scenario,
            g.replay_command()
        ));
    }
    let untested: Vec<&str> = grades
        .iter()
        .filter(|g| g.untested())
        .map(|g| g.scenario.as_str())
        .collect();
    if !untested.is_empty() {
        out.push_str(&format!(
            "{} scenario(s) tested nothing (the client never made the call, or no fault fired): {}; they vouch for nothing.\n",
            untested.len(),
            untested.join(", ")
        ));
    }
    if lost.is_empty() {
        out.push_str(&format!(
            "{} scenario(s): nothing was lost silently{}.\n",
            grades.len(),
            if untested.is_empty() {
                ""
            } else {
                " in the ones that tested something"
            }
        ));
    } else {
        out.push_str(&format!(
            "{} scenario(s): the application lost data without an error in {}: {}.\n",
            grades.len(),
            lost.len(),
            lost.join(", ")
        ));
    }
    out
}
