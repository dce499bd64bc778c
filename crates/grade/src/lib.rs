//! # faultline-grade
//!
//! Grade any MCP client, in any language, against faultline's scenarios.
//!
//! For each scenario a fresh live server (the same engine as `faultline run` and
//! `faultline serve`) is started on loopback, on the harness's clock: virtual time jumps
//! to the next due event only while the client waits on the server, so an hour of TTLs
//! passes in milliseconds and nothing the client does in wall time reaches the ledger.
//! What that compression hides, the client's own wall-clock timers, each grade says
//! (`compressed_time`), and `--time-scale` paces the clock so that they meet the scenario.
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
mod compressed_time;
mod ledger_diagram;
mod modelled_client;
mod report_card;

use std::time::Duration;

use faultline_model::Ledger;
use faultline_scenario::{ClientEra, FiredFault, Scenario, Work};
use serde_json::{Value, json};

pub use client_context::{CallSpec, ClientContext, GradingPlan, plan};
pub use client_process::grading_config;
pub use compressed_time::CompressedWait;

/// The one judge's verdicts on a real client's run (`faultline_verdicts::judge`),
/// as grade prints them.
pub fn judge(
    ledger: &faultline_model::Ledger,
    context: &ClientContext,
    report: Result<&ClientReport, &MissingReport>,
    exercise: faultline_verdicts::untested::Exercise,
) -> Vec<ReportVerdict> {
    let observation = faultline_verdicts::Observation::real(ledger, exercise, context, report);
    faultline_verdicts::judge(&observation, faultline_verdicts::Words::Written)
        .iter()
        .map(ReportVerdict::from)
        .collect()
}
pub use faultline_verdicts::{ClientReport, MissingReport, ReportVerdict, VerdictKind};
pub use ledger_diagram::diagram_of_grade;
pub use modelled_client::{STILL_AT_WORK, grade_modelled, report_of};
pub use report_card::report_card;

/// How long a client may take on one scenario before it is `hung`: longer than the
/// TypeScript SDK's 60 s request timeout, so a client that gives up after it is seen to.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(75);

/// How long a real client gets on `scenario` before it is `hung`: `timeout_s` when given,
/// else [`DEFAULT_TIMEOUT`], plus, with a `pace`, the scenario's time at that pace (how
/// long the guarded modelled client's run of it lasts, in virtual time: a client that
/// waits the scenario out on a clock of the wall's pace needs that much wall time).
pub fn timeout_for(scenario: &Scenario, timeout_s: Option<u64>, pace: Option<f64>) -> Duration {
    if let Some(seconds) = timeout_s {
        return Duration::from_secs(seconds.max(1));
    }
    let Some(pace) = pace.filter(|&p| faultline_server::is_pace(p)) else {
        return DEFAULT_TIMEOUT;
    };
    let mut lasting = scenario.clone();
    lasting.client.habits.when_done = Some(faultline_scenario::WhenDone::Exit);
    let span_ms =
        faultline_sim::run_untraced(&lasting, lasting.seed, faultline_sim::ClientModel::Guarded)
            .result
            .end_ms;
    DEFAULT_TIMEOUT + Duration::from_secs_f64(span_ms as f64 / pace / 1000.0)
}

/// One scenario's grade.
#[derive(Debug, Clone)]
pub struct ScenarioGrade {
    pub scenario: String,
    /// How to name the scenario on a command line to replay it: its bundled name, or the
    /// file it was read from (set by the caller; the name by default).
    pub source: String,
    pub verdicts: Vec<ReportVerdict>,
    /// The client's report as printed (`None`: it gave none that reads: hung, crashed,
    /// bad report).
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
    /// Graded is the naive modelled client with this SDK client's habits (`grade --like`),
    /// not a real client: it replays with `faultline run`.
    pub like: Option<faultline_scenario::SdkClient>,
    /// A real client's call waited longer in scenario time than its whole run took in
    /// wall time: its own wall-clock timers did not meet that wait ([`CompressedWait`]).
    pub compressed: Option<CompressedWait>,
    /// The grading clock's pace (`--time-scale`), if it had one: the replay keeps it.
    pub pace: Option<f64>,
}

impl ScenarioGrade {
    /// Nothing the scenario tests happened: the grade vouches for nothing here.
    pub fn untested(&self) -> bool {
        self.has(VerdictKind::Untested)
    }

    pub fn has(&self, kind: VerdictKind) -> bool {
        self.verdicts.iter().any(|v| v.kind == kind)
    }

    pub fn lost_silently(&self) -> bool {
        self.verdicts.iter().any(|v| v.kind.is_failure())
    }

    /// What makes `grade` exit 1 ([`VerdictKind::fails_grade`]).
    pub fn fails_grade(&self) -> bool {
        self.verdicts.iter().any(|v| v.kind.fails_grade())
    }

    /// Anything but a clean verdict.
    pub fn failed(&self) -> bool {
        self.verdicts.iter().any(|v| v.kind != VerdictKind::Clean)
    }

    /// The ledger as JSON: the bytes `ledger_sha256` digests.
    pub fn ledger_json(&self) -> String {
        serde_json::to_string(&self.ledger).expect("a ledger serializes")
    }

    /// The command that serves this run again, exactly as graded (for a modelled client,
    /// the command that runs it again).
    pub fn replay_command(&self) -> String {
        if let Some(sdk) = self.like {
            return format!(
                "faultline run {} --like {}",
                shell_word(&self.source),
                sdk.name()
            );
        }
        let pace = self
            .pace
            .map(|p| format!(" --time-scale {p}"))
            .unwrap_or_default();
        format!(
            "faultline serve --scenario {} --grading --control{pace}",
            shell_word(&self.source)
        )
    }
}

/// Grades `command` on one scenario. `pace`: at most that many virtual milliseconds per
/// wall millisecond (`--time-scale`; `None`: as fast as the client allows). `Err`: bad
/// input, in a sentence.
pub fn grade_scenario(
    command: &str,
    scenario: &Scenario,
    timeout: Duration,
    pace: Option<f64>,
) -> Result<ScenarioGrade, String> {
    let plan = plan(scenario).map_err(|why| format!("{}: {why}", scenario.name))?;
    let run = client_process::run_client(command, &plan, timeout, pace)
        .map_err(|why| format!("{}: {why}", scenario.name))?;
    let verdicts = judge(
        &run.ledger,
        &plan.context,
        run.report.as_ref(),
        exercise(&plan.scenario, &run.faults),
    );
    let client_report = run.report.ok().map(|r| r.raw);
    let compressed = CompressedWait::of(&run.ledger, &plan.context, run.wall);
    let ledger_json = serde_json::to_string(&run.ledger).expect("a ledger serializes");
    Ok(ScenarioGrade {
        scenario: scenario.name.clone(),
        source: scenario.name.clone(),
        verdicts,
        client_report,
        context: plan.context,
        notes: plan.notes,
        wall: run.wall,
        ledger_sha256: faultline_sim::sha256_hex(&ledger_json),
        client_stderr: run.stderr_tail,
        ledger: run.ledger,
        faults: run.faults,
        like: None,
        compressed,
        pace,
    })
}

/// What the graded run was meant to exercise and what of it happened: the contract's one
/// call, the scenario's faults that fire at a moment, and how many of them fired; what of
/// the client they act on; the era they break.
pub fn exercise(
    scenario: &Scenario,
    fired: &[FiredFault],
) -> faultline_verdicts::untested::Exercise {
    let faults = faultline_scenario::FaultsExercised::of(scenario, fired);
    faultline_verdicts::untested::Exercise {
        calls_planned: 1,
        // The judge tells the contract's call from the follow-ups where it can.
        calls_reached: None,
        faults_planned: faults.planned,
        faults_fired: faults.fired,
        faults_unmet: faults.unmet,
        faults_cut_nothing: faults.cut_nothing,
        needs: needs(scenario),
        era: match scenario.client.era {
            ClientEra::Legacy => Some(faultline_model::RequestEra::Legacy),
            ClientEra::Modern => Some(faultline_model::RequestEra::Modern),
            // Its faults are about which era a client ends up speaking: either meets them.
            ClientEra::Auto { .. } => None,
        },
    }
}

/// What of the client the scenario's faults act on: the call's progress, when a fault is
/// timed by the events of a call made with a progress token; server notifications, when
/// the workload sends them or a fault waits for the standalone stream's events.
fn needs(scenario: &Scenario) -> faultline_verdicts::not_applicable::Needs {
    use faultline_scenario::{CutAt, FaultWhen, StreamSel, Trigger};
    let call_progress = scenario.workload.iter().find_map(|w| match w {
        Work::CallTool { progress, .. } => Some(*progress),
        _ => None,
    }) == Some(true);
    let on = |wanted: fn(&StreamSel) -> bool| {
        scenario.faults.iter().any(|f| match f.when() {
            FaultWhen::Trigger(Trigger::AfterEvent { on, .. }) => wanted(on),
            FaultWhen::Cut {
                at: CutAt::AfterProgress(_),
                ..
            } => wanted(&StreamSel::Call(0)),
            _ => false,
        })
    };
    faultline_verdicts::not_applicable::Needs {
        progress: call_progress && on(|s| matches!(s, StreamSel::Call(_) | StreamSel::Any)),
        notifications: scenario
            .workload
            .iter()
            .any(|w| matches!(w, Work::Notify { .. }))
            || on(|s| matches!(s, StreamSel::Standalone)),
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
            "compressed_wait": g.compressed.as_ref().map(CompressedWait::json),
        })).collect::<Vec<_>>(),
        "lost_silently": grades.iter().any(ScenarioGrade::lost_silently),
        "untested": names_with(grades, &[VerdictKind::Untested]),
        "no_report": names_with(grades, &[VerdictKind::Crashed, VerdictKind::BadReport]),
        "hung": names_with(grades, &[VerdictKind::Hung]),
        "not_applicable": names_with(grades, &[VerdictKind::NotApplicable]),
        "other_era": names_with(grades, &[VerdictKind::OtherEra]),
        "passed": !grades.iter().any(ScenarioGrade::fails_grade),
    })
}

/// The scenarios with a verdict of one of `kinds`.
fn names_with<'a>(grades: &'a [ScenarioGrade], kinds: &[VerdictKind]) -> Vec<&'a str> {
    grades
        .iter()
        .filter(|g| kinds.iter().any(|&k| g.has(k)))
        .map(|g| g.scenario.as_str())
        .collect()
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

/// The summary lines of the outcomes that are not about what was lost: runs without a
/// report, hung runs and the time they cost, scenarios that did not apply.
fn outcome_lines(grades: &[ScenarioGrade]) -> String {
    let mut out = String::new();
    let no_report = names_with(grades, &[VerdictKind::Crashed, VerdictKind::BadReport]);
    if !no_report.is_empty() {
        out.push_str(&format!(
            "{} scenario(s) gave no report that reads (crashed or bad_report; the why says its exit status and stderr): {}; the rest were graded.\n",
            no_report.len(),
            no_report.join(", ")
        ));
    }
    let hung: Vec<&ScenarioGrade> = grades.iter().filter(|g| g.has(VerdictKind::Hung)).collect();
    if !hung.is_empty() {
        let waited_ms: u64 = hung.iter().map(|g| g.wall.as_millis() as u64).sum();
        out.push_str(&format!(
            "{} scenario(s) hung: {}; each cost the whole --timeout-s ({:.0} s of wall time in all): a client without a timeout of its own pays it on every scenario it hangs on.\n",
            hung.len(),
            hung.iter()
                .map(|g| format!("{} ({:.0} s)", g.scenario, g.wall.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(", "),
            waited_ms as f64 / 1000.0
        ));
    }
    let not_applicable = names_with(grades, &[VerdictKind::NotApplicable]);
    if !not_applicable.is_empty() {
        out.push_str(&format!(
            "{} scenario(s) did not apply to what the client declared it cannot do (its report's `supports`): {}; not a failure, and not tested.\n",
            not_applicable.len(),
            not_applicable.join(", ")
        ));
    }
    let other_era: Vec<&ReportVerdict> = grades
        .iter()
        .flat_map(|g| &g.verdicts)
        .filter(|v| v.kind == VerdictKind::OtherEra)
        .collect();
    if let Some(first) = other_era.first() {
        out.push_str(&format!(
            "{} scenario(s) test {} but the client spoke {}: this set did not apply to it, and their verdicts vouch for nothing; grade it with --era {}.\n",
            other_era.len(),
            first.evidence["scenario_era"].as_str().unwrap_or("?"),
            first.evidence["client_era"].as_str().unwrap_or("?"),
            first.evidence["grade_with"].as_str().unwrap_or("?"),
        ));
    }
    out
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
        if let Some(wait) = &g.compressed {
            out.push_str(&format!(
                "{:width$}  {:20}  ({})\n",
                "",
                "",
                wait.sentence()
            ));
        }
    }
    let lost: Vec<&str> = grades
        .iter()
        .filter(|g| g.lost_silently())
        .map(|g| g.scenario.as_str())
        .collect();
    out.push('\n');
    for g in grades.iter().filter(|g| g.lost_silently()) {
        let then = if g.like.is_some() {
            ""
        } else {
            "  (then run the client against the printed URL with FAULTLINE_CONTEXT as printed)"
        };
        out.push_str(&format!(
            "replay {}: {}{then}\n",
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
            "{} scenario(s) tested nothing, or not all they plan (the client never made the call, or a fault never met it): {}; they vouch for nothing.\n",
            untested.len(),
            untested.join(", ")
        ));
    }
    out.push_str(&outcome_lines(grades));
    // The runs that vouch for nothing, or did not apply, are no evidence that nothing was
    // lost: the sentence says which runs it speaks for.
    let judged = grades
        .iter()
        .filter(|g| {
            !g.verdicts.iter().any(|v| {
                matches!(
                    v.kind,
                    VerdictKind::Untested
                        | VerdictKind::Crashed
                        | VerdictKind::BadReport
                        | VerdictKind::NotApplicable
                        | VerdictKind::OtherEra
                )
            })
        })
        .count();
    if lost.is_empty() {
        out.push_str(&format!(
            "{} scenario(s): nothing was lost silently{}.\n",
            grades.len(),
            if judged == grades.len() {
                String::new()
            } else {
                format!(" in the {judged} that tested something")
            }
        ));
    } else {
        out.push_str(&format!(
            "{} scenario(s): the application lost or misapplied data without an error, or hung, in {}: {}.\n",
            grades.len(),
            lost.len(),
            lost.join(", ")
        ));
    }
    out
}
