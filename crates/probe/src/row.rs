//! One probe step's normalised answer: the unit two servers are compared by.

use serde::{Deserialize, Serialize};

/// What a server answered to one step, normalised (see `normalise`). `frames`, `ids` and
/// `end` are `-` for a response that is not an event stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub step: String,
    pub status: u16,
    /// `+` when the response carried `Mcp-Session-Id`.
    pub sid: String,
    /// `sse`, or the class of a whole body (`empty`, `text`, `jsonrpc-error(-32600)`, …).
    pub body: String,
    pub frames: String,
    pub ids: String,
    /// `ended` when the server ended the stream, `open` when it stayed open and quiet.
    pub end: String,
}

/// The cells of a row, in the order tables show them.
pub const COLUMNS: [&str; 7] = ["step", "status", "body", "frames", "ids", "end", "sid"];

impl Row {
    /// The cell under `column` (one of [`COLUMNS`]).
    pub fn cell(&self, column: &str) -> String {
        match column {
            "step" => self.step.clone(),
            "status" => self.status.to_string(),
            "body" => self.body.clone(),
            "frames" => self.frames.clone(),
            "ids" => self.ids.clone(),
            "end" => self.end.clone(),
            "sid" => self.sid.clone(),
            other => unreachable!("no column {other}"),
        }
    }

    /// The cells (other than the step's name) where `other` differs: (column, ours, theirs).
    pub fn differences(&self, other: &Row) -> Vec<crate::closest::CellDifference> {
        COLUMNS[1..]
            .iter()
            .filter_map(|&c| {
                let (a, b) = (self.cell(c), other.cell(c));
                (a != b).then_some((c, a, b))
            })
            .collect()
    }
}

/// The rows as an aligned text table, one line per step.
pub fn table(rows: &[Row]) -> String {
    let widths: Vec<usize> = COLUMNS
        .iter()
        .map(|c| {
            rows.iter()
                .map(|r| r.cell(c).len())
                .fold(c.len(), usize::max)
        })
        .collect();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(COLUMNS.iter().map(|c| c.to_string()).collect())];
    out.extend(
        rows.iter()
            .map(|r| line(COLUMNS.iter().map(|c| r.cell(c)).collect())),
    );
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(sid: &str) -> Row {
        Row {
            step: "get".into(),
            status: 200,
            sid: sid.into(),
            body: "sse".into(),
            frames: "-".into(),
            ids: "-".into(),
            end: "open".into(),
        }
    }

    #[test]
    fn a_step_differs_by_the_cells_that_do() {
        assert!(get("+").differences(&get("+")).is_empty());
        assert_eq!(
            get("+").differences(&get("-")),
            vec![("sid", "+".to_string(), "-".to_string())]
        );
    }

    #[test]
    fn the_table_aligns_its_columns() {
        let t = table(&[get("+")]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].find("status"), lines[1].find("200"));
    }
}
