//! The vertical axis: virtual time, compressed.
//!
//! Rows are laid out one after another, not in proportion to time: a 25-minute wait and a
//! 50-ms gap would otherwise be impossible to show on the same page. Instead, every idle
//! span longer than [`IDLE_BREAK_MS`] gets a visible break ("— 25m —") so the reader
//! never mistakes adjacency for simultaneity. And when even folded rows are too many (a
//! long, busy run), stretches of unremarkable rows are folded into one marker, keeping
//! every harmful or notable row and its neighbours.

use faultline_sim::vtime;

use crate::diagram::{Diagram, Row, Shape};

/// Gaps at least this long between two rows are drawn as a labelled break.
pub const IDLE_BREAK_MS: u64 = 20_000;

/// A diagram with more rows than this is shortened by eliding unremarkable stretches.
pub const MAX_ROWS: usize = 240;

/// Rows kept on each side of a notable row when eliding.
const CONTEXT: usize = 2;

/// The idle time between two consecutive rows, if long enough to mark.
pub fn idle_gap(prev: &Row, next: &Row) -> Option<u64> {
    let gap = next.at_ms.saturating_sub(prev.until_ms.max(prev.at_ms));
    (gap >= IDLE_BREAK_MS).then_some(gap)
}

/// An idle span, rounded to what a reader needs (whole seconds under ten minutes, whole
/// minutes above) and spelled like every other duration: "45s", "2m5s", "25m", "1h30m".
pub fn idle_span(ms: u64) -> String {
    let secs = ms / 1000;
    let rounded = if secs < 600 { secs } else { secs / 60 * 60 };
    faultline_model::DurationMs::from_secs(rounded).to_string()
}

/// Folds stretches of unremarkable rows when the diagram has more than `max_rows`.
pub fn elide(diagram: &mut Diagram, max_rows: usize) {
    let n = diagram.rows.len();
    if n <= max_rows {
        return;
    }
    let mut keep = vec![false; n];
    for (i, row) in diagram.rows.iter().enumerate() {
        if row.is_notable() {
            for k in keep
                .iter_mut()
                .take((i + CONTEXT + 1).min(n))
                .skip(i.saturating_sub(CONTEXT))
            {
                *k = true;
            }
        }
    }
    // Always show how the run starts and ends.
    for k in keep.iter_mut().take(CONTEXT * 4) {
        *k = true;
    }
    for k in keep.iter_mut().skip(n.saturating_sub(CONTEXT * 2)) {
        *k = true;
    }
    // If even the notable rows are too many, keep the first ones and elide the rest.
    let mut budget = max_rows;
    for k in keep.iter_mut() {
        if *k {
            if budget == 0 {
                *k = false;
            } else {
                budget -= 1;
            }
        }
    }
    let rows = std::mem::take(&mut diagram.rows);
    let mut out: Vec<Row> = Vec::with_capacity(max_rows + 16);
    let mut hidden: Vec<Row> = Vec::new();
    for (row, k) in rows.into_iter().zip(keep) {
        if k {
            push_elided(&mut out, &mut hidden);
            out.push(row);
        } else {
            hidden.push(row);
        }
    }
    push_elided(&mut out, &mut hidden);
    diagram.rows = out;
}

fn push_elided(out: &mut Vec<Row>, hidden: &mut Vec<Row>) {
    let (Some(first), Some(last)) = (hidden.first(), hidden.last()) else {
        return;
    };
    let harmful = hidden.iter().filter(|r| r.harm.is_some()).count();
    let mut row = Row::new(
        first.at_ms,
        Shape::Elided { rows: hidden.len() },
        format!(
            "… {} rows folded ({} … {}){} …",
            hidden.len(),
            vtime(first.at_ms),
            vtime(last.until_ms.max(last.at_ms)),
            if harmful > 0 {
                format!(", {harmful} of them harmful")
            } else {
                String::new()
            }
        ),
    );
    row.until_ms = hidden
        .iter()
        .map(|r| r.until_ms.max(r.at_ms))
        .max()
        .unwrap_or(first.at_ms);
    row.detail = hidden
        .iter()
        .take(40)
        .map(|r| {
            if r.label.is_empty() {
                r.detail.lines().nth(1).unwrap_or_default().to_string()
            } else {
                format!("{} {}", vtime(r.at_ms), r.label)
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    if hidden.len() > 40 {
        row.detail
            .push_str(&format!("\n… and {} more", hidden.len() - 40));
    }
    out.push(row);
    hidden.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_spans_are_rounded_and_spelled_like_durations() {
        assert_eq!(idle_span(25 * 60_000 + 3_120), "25m");
        assert_eq!(idle_span(45_300), "45s");
        assert_eq!(idle_span(90 * 60_000 + 59_000), "1h30m");
        assert_eq!(idle_span(125_000), "2m5s");
    }
}
