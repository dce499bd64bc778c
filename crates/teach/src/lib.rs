//! # faultline-teach
//!
//! Turns a faultline run into something a person can learn from: a sequence diagram (SVG
//! for documents, or one self-contained HTML page with hover details) and a plain-words
//! explanation of what set the trap, what the client believed, what was true and what was
//! lost, and which guard would have caught it.
//!
//! ```text
//! trace file ─▶ read_trace ─▶ build (fold_trace, harm) ─▶ Diagram ─▶ marks (verdicts, optional)
//!                                                           └▶ time_axis (elide) ─▶ svg / html
//! scenario + RunOutcome ─▶ explain (knobs_story, guards)
//! ```
//!
//! Diagrams need only the trace: a trace attached to a ticket can be drawn years later.
//! The trace is the simulator's own typed trace ([`faultline_sim::TraceEntry`], read back
//! with [`faultline_sim::from_jsonl`]); there is no second reader to drift from the writer.
//! The verdicts, when available, are pinned on top.

mod build;
mod diagram;
mod explain;
mod fleet_story;
mod guards;
mod harm;
mod html;
mod knobs_story;
mod marks;
mod replica_lanes;
mod svg;
mod time_axis;
mod xml;

pub use build::build;
pub use diagram::{ArrowKind, Diagram, Harm, Lane, Row, Shape, Tone, VerdictLine};
pub use explain::explain;
pub use guards::{Guard, guard_for, guard_for_verdict, guards_fired};
pub use html::{page, to_html};
pub use marks::pin_verdicts;
pub use svg::to_svg;
pub use time_axis::{MAX_ROWS, elide};
pub use xml::escape;

use faultline_sim::{Trace, TraceError, from_jsonl};

/// The two output formats of `render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Html,
}

impl Format {
    /// The format an output path asks for by its extension (`.svg`, `.html`, `.htm`).
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "svg" => Some(Format::Svg),
            "html" | "htm" => Some(Format::Html),
            _ => None,
        }
    }
}

/// Reads trace text for drawing: [`from_jsonl`] (the header, if any, and the entries; a
/// bad line is reported by number), and then what a picture needs besides: at least one
/// entry, and entries that never go back in time (a shuffled file would draw a false story).
pub fn read_trace(text: &str) -> Result<Trace, TraceError> {
    let trace = from_jsonl(text)?;
    if trace.entries.is_empty() {
        return Err(TraceError {
            line: 0,
            message:
                "the trace has no entries: write one with `faultline run SCENARIO --trace FILE`"
                    .into(),
        });
    }
    // The line number of each entry, to name the one that goes back in time.
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, _)| i + 1)
        .skip(usize::from(trace.header.is_some()));
    let entries = &trace.entries;
    for ((prev, entry), line) in entries.iter().zip(&entries[1..]).zip(lines.skip(1)) {
        if entry.at_ms < prev.at_ms {
            return Err(TraceError {
                line,
                message: format!(
                    "time goes backwards (at_ms {} after {}); is this file sorted as written?",
                    entry.at_ms, prev.at_ms
                ),
            });
        }
    }
    Ok(trace)
}

/// Reads trace text and builds its diagram (no verdicts).
pub fn diagram_of_trace(text: &str, title: &str) -> Result<Diagram, TraceError> {
    Ok(build(&read_trace(text)?.entries, title))
}

/// Elides what a huge run needs elided, then renders.
pub fn render(mut diagram: Diagram, format: Format) -> String {
    elide(&mut diagram, MAX_ROWS);
    match format {
        Format::Svg => to_svg(&diagram),
        Format::Html => to_html(&diagram),
    }
}
