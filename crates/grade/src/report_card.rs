//! `grade --html FILE`: one self-contained page a client author can attach to a bug.
//!
//! The table comes first (every scenario, its verdicts, one line of why), then one section
//! per run that was not clean: the verdicts with their evidence, what the client reported,
//! the run's sequence diagram drawn from the ledger, and the commands that replay it
//! exactly. Nothing is fetched from the network; the diagrams keep their hover details.

use faultline_teach::{MAX_ROWS, elide, escape, page, to_svg};

use crate::ScenarioGrade;
use crate::VerdictKind;
use crate::ledger_diagram::{anchor_of, diagram_of_grade};

const CARD_STYLE: &str = r#"
table.grades { border-collapse: collapse; background: #fff; margin: 8px 0 18px 0; }
table.grades th, table.grades td { border: 1px solid #ddd; padding: 4px 8px; text-align: left;
  vertical-align: top; }
table.grades th { background: #f0f0f0; }
.verdict { display: inline-block; padding: 1px 6px; margin: 1px 2px; border-radius: 3px;
  font: 12px "DejaVu Sans Mono", monospace; color: #fff; background: #757575; }
.verdict.clean { background: #2e7d32; }
.verdict.silent_gap, .verdict.hung { background: #c62828; }
.verdict.surfaced_loss, .verdict.duplicate { background: #e65100; }
section.run { background: #fff; border: 1px solid #ddd; padding: 8px 14px; margin: 0 0 22px 0; }
section.run h2 { font-size: 15px; margin: 4px 0 8px 0; }
pre { background: #f5f5f5; padding: 6px 8px; overflow-x: auto;
  font: 12px/1.4 "DejaVu Sans Mono", monospace; white-space: pre-wrap; }
.lost { color: #c62828; font-weight: bold; }
"#;

/// The report card of a grade run of `command`.
pub fn report_card(command: &str, grades: &[ScenarioGrade]) -> String {
    let lost: Vec<&str> = grades
        .iter()
        .filter(|g| g.lost_silently())
        .map(|g| g.scenario.as_str())
        .collect();
    let summary = if lost.is_empty() {
        format!(
            "{} scenario(s): nothing was lost silently (grade exits 0).",
            grades.len()
        )
    } else {
        format!(
            r#"{} scenario(s): <span class="lost">the application lost data without an error in {}</span>: {} (grade exits 1)."#,
            grades.len(),
            lost.len(),
            escape(&lost.join(", "))
        )
    };
    let header = format!(
        "<h1>faultline grade: <code>{}</code></h1>\n<p>{summary}</p>\n<p>Verdicts come from the server's ledger (what it produced for the client) against the client's report (what its application was handed). Hover a diagram row for details; click to pin.</p>",
        escape(command)
    );

    let mut main = String::from(
        "<table class=\"grades\">\n<tr><th>scenario</th><th>verdicts</th><th>why</th></tr>\n",
    );
    for g in grades {
        let name = if g.failed() {
            format!(
                r##"<a href="#{}">{}</a>"##,
                anchor_of(&g.scenario),
                escape(&g.scenario)
            )
        } else {
            escape(&g.scenario)
        };
        let mut whys: Vec<String> = g.verdicts.iter().map(|v| escape(&v.why)).collect();
        if let Some(wait) = &g.compressed {
            whys.push(format!("<i>{}</i>", escape(&wait.sentence())));
        }
        main.push_str(&format!(
            "<tr><td>{name}</td><td>{}</td><td>{}</td></tr>\n",
            badges(g),
            whys.join("<br>")
        ));
    }
    main.push_str("</table>\n");

    for g in grades.iter().filter(|g| g.failed()) {
        main.push_str(&run_section(command, g));
    }
    page(
        &format!("faultline grade: {command}"),
        &header,
        &main,
        CARD_STYLE,
    )
}

fn badges(g: &ScenarioGrade) -> String {
    g.verdicts
        .iter()
        .map(|v| {
            format!(
                r#"<span class="verdict {0}">{0}</span>"#,
                escape(v.kind.name())
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_section(command: &str, g: &ScenarioGrade) -> String {
    let mut s = format!(
        "<section class=\"run\" id=\"{}\">\n<h2>{} {}</h2>\n",
        anchor_of(&g.scenario),
        escape(&g.scenario),
        badges(g)
    );
    let failing: Vec<_> = g
        .verdicts
        .iter()
        .filter(|v| v.kind != VerdictKind::Clean)
        .collect();
    for v in &failing {
        s.push_str(&format!(
            "<p><b>{}</b>: {}</p>\n",
            escape(v.kind.name()),
            escape(&v.why)
        ));
    }
    for note in &g.notes {
        s.push_str(&format!("<p>Note: {}</p>\n", escape(note)));
    }
    if g.like.is_some() {
        s.push_str(&format!(
            "<p>Replay it (the modelled client, in simulation, with its timeline):</p>\n<pre>{}</pre>\n",
            escape(&g.replay_command())
        ));
    } else {
        let context = serde_json::to_string(&g.context).unwrap_or_default();
        s.push_str(&format!(
            "<p>Replay it exactly (the server prints its URL):</p>\n<pre>{}\n# then, in another shell, with URL as printed:\nFAULTLINE_SCENARIO={} FAULTLINE_CONTEXT='{}' {} URL</pre>\n",
            escape(&g.replay_command()),
            escape(&g.scenario),
            escape(&context.replace('\'', "'\\''")),
            escape(command),
        ));
    }
    let mut diagram = diagram_of_grade(&g.ledger, &g.faults, &g.verdicts, &g.scenario);
    elide(&mut diagram, MAX_ROWS);
    s.push_str(&to_svg(&diagram));

    s.push_str("\n<details>\n<summary>Evidence, the client's report, its stderr</summary>\n");
    for v in &failing {
        s.push_str(&format!(
            "<p>{} evidence:</p>\n<pre>{}</pre>\n",
            escape(v.kind.name()),
            escape(&v.evidence.to_string())
        ));
    }
    let report = match &g.client_report {
        Some(r) => r.to_string(),
        None => "(none: no report before the timeout)".to_string(),
    };
    s.push_str(&format!(
        "<p>The client reported (last line of its stdout):</p>\n<pre>{}</pre>\n",
        escape(&report)
    ));
    if !g.client_stderr.trim().is_empty() {
        s.push_str(&format!(
            "<p>Its stderr ended with:</p>\n<pre>{}</pre>\n",
            escape(&g.client_stderr)
        ));
    }
    s.push_str(&format!(
        "<p>Ledger sha256 <code>{}</code> (<code>grade --ledgers DIR</code> writes the ledger).</p>\n</details>\n</section>\n",
        escape(&g.ledger_sha256)
    ));
    s
}
