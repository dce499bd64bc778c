//! # faultline-teach
//!
//! Turns a faultline run into something a person can learn from: a sequence diagram (SVG
//! for documents, or one self-contained HTML page with hover details) and a plain-words
//! explanation of what set the trap, what the client believed, what was true and what was
//! lost, and which guard would have caught it.
//!
//! ```text
//! trace file ─▶ trace_file ─▶ build (fold, harm) ─▶ Diagram ─▶ marks (verdicts, optional)
//!                                                     └▶ time_axis (elide) ─▶ svg / html
//! scenario + RunOutcome ─▶ explain (knobs_story, guards)
//! ```
//!
//! Diagrams need only the trace: a trace attached to a ticket can be drawn years later.
//! The verdicts, when available, are pinned on top.

mod build;
mod diagram;
mod explain;
mod fold;
mod guards;
mod harm;
mod html;
mod knobs_story;
mod marks;
mod svg;
mod time_axis;
mod trace_file;
mod xml;

pub use build::build;
pub use diagram::{ArrowKind, Diagram, Harm, Lane, Row, Shape, Tone, VerdictLine};
pub use explain::explain;
pub use guards::{Guard, guard_for, guard_for_verdict, guards_fired};
pub use html::to_html;
pub use marks::pin_verdicts;
pub use svg::to_svg;
pub use time_axis::{MAX_ROWS, elide};
pub use trace_file::{Entry, TraceError, parse_trace};
pub use xml::escape;

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

/// Parses trace text and builds its diagram (no verdicts).
pub fn diagram_of_trace(text: &str, title: &str) -> Result<Diagram, TraceError> {
    let entries = parse_trace(text)?;
    Ok(build(&entries, title))
}

/// Elides what a huge run needs elided, then renders.
pub fn render(mut diagram: Diagram, format: Format) -> String {
    elide(&mut diagram, MAX_ROWS);
    match format {
        Format::Svg => to_svg(&diagram),
        Format::Html => to_html(&diagram),
    }
}
