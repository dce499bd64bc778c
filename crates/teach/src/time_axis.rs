//! The vertical axis: virtual time, compressed.
//!
//! Rows are laid out one after another, not in proportion to time: a 25-minute wait and a
//! 50-ms gap would otherwise be impossible to show on the same page. Instead, every idle
//! span longer than [`IDLE_BREAK_MS`] gets a visible break ("— 25 min —") so the reader
//! never mistakes adjacency for simultaneity. And when even folded rows are too many (a
//! long, busy run), stretches of unremarkable rows are folded into one marker, keeping
//! every harmful or notable row and its neighbours.

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

/// "25 min", "1 h 30 min", "45 s", "2 min 5 s": a span as people say it.
pub fn span_words(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s} s"),
        (0, m, 0) => format!("{m} min"),
        (0, m, s) if m < 10 => format!("{m} min {s} s"),
        (0, m, _) => format!("{m} min"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
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
            crate::diagram::time(first.at_ms),
            crate::diagram::time(last.until_ms.max(last.at_ms)),
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
                format!("{} {}", crate::diagram::time(r.at_ms), r.label)
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
    fn spans_read_like_speech() {
        assert_eq!(span_words(25 * 60_000), "25 min");
        assert_eq!(span_words(45_000), "45 s");
        assert_eq!(span_words(90 * 60_000), "1 h 30 min");
        assert_eq!(span_words(125_000), "2 min 5 s");
    }
}
