//! A probed server beside the SDK profiles: which real SDK server it answers most like,
//! step by step and cell by cell.
//!
//! The comparison is with the real SDK servers' own rows, recorded by this same probe
//! against each server installed pinned from its registry (`real/NAME.json`; the
//! differential check in `tests/profiles/` probes them afresh on every CI run). Each
//! profile matches its real server in at least 90 % of the steps, so the closest real
//! server names the profile to start from.

use std::sync::OnceLock;

use serde::Serialize;

use crate::row::Row;

/// The real SDK servers' rows, by profile name.
const RECORDED: &[(&str, &str)] = &[
    ("ts-1.32-store", include_str!("../real/ts-1.32-store.json")),
    ("ts-1.32", include_str!("../real/ts-1.32.json")),
    ("ts-2.4", include_str!("../real/ts-2.4.json")),
    (
        "python-2.3-store",
        include_str!("../real/python-2.3-store.json"),
    ),
    ("python-2.3", include_str!("../real/python-2.3.json")),
    ("rmcp-3.11", include_str!("../real/rmcp-3.11.json")),
];

/// The recorded rows of the real server behind profile `name` (read once, on first use).
pub fn recorded(name: &str) -> Option<&'static [Row]> {
    static PARSED: OnceLock<Vec<(&str, Vec<Row>)>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        RECORDED
            .iter()
            .map(|(name, json)| {
                let rows = serde_json::from_str(json).expect("recorded probe rows are valid JSON");
                (*name, rows)
            })
            .collect()
    });
    parsed
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, rows)| rows.as_slice())
}

/// The names of the profiles with a recorded real server.
#[cfg(test)]
pub fn recorded_names() -> impl Iterator<Item = &'static str> {
    RECORDED.iter().map(|(name, _)| *name)
}

/// A cell that differs: (column, the probed server's value, the profile's real server's).
pub type CellDifference = (&'static str, String, String);

/// How one profile's real server compares with the probed one.
#[derive(Debug, Clone, Serialize)]
pub struct Closeness {
    pub profile: &'static str,
    /// Steps both took whose every cell is the same.
    pub steps_matched: usize,
    pub steps_compared: usize,
    pub cells_matched: usize,
    pub cells_compared: usize,
    /// Per step both took: the cells that differ (column, probed, profile's real server).
    pub differences: Vec<(String, Vec<CellDifference>)>,
}

/// Compares `probed` with `theirs` over the steps both hold.
pub fn compare(profile: &'static str, probed: &[Row], theirs: &[Row]) -> Closeness {
    let mut c = Closeness {
        profile,
        steps_matched: 0,
        steps_compared: 0,
        cells_matched: 0,
        cells_compared: 0,
        differences: Vec::new(),
    };
    for row in probed {
        let Some(other) = theirs.iter().find(|t| t.step == row.step) else {
            continue;
        };
        let cells = row.differences(other);
        c.steps_compared += 1;
        c.cells_compared += crate::row::COLUMNS.len() - 1;
        c.cells_matched += crate::row::COLUMNS.len() - 1 - cells.len();
        if cells.is_empty() {
            c.steps_matched += 1;
        }
        c.differences.push((row.step.clone(), cells));
    }
    c
}

/// Every recorded profile against `probed`, closest first: most steps matching, then most
/// cells, then the order `faultline profiles` lists them in.
pub fn rank(probed: &[Row]) -> Vec<Closeness> {
    let mut all: Vec<Closeness> = RECORDED
        .iter()
        .map(|(name, _)| compare(name, probed, recorded(name).unwrap_or_default()))
        .collect();
    all.sort_by_key(|c| std::cmp::Reverse((c.steps_matched, c.cells_matched)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_has_its_real_server_recorded_and_nothing_else_is() {
        let names: Vec<&str> = faultline_model::PROFILES.iter().map(|p| p.name).collect();
        assert_eq!(recorded_names().collect::<Vec<_>>(), names);
        for name in names {
            let rows = recorded(name).unwrap();
            assert!(rows.len() >= 26, "{name}: {} rows", rows.len());
        }
    }

    #[test]
    fn each_real_server_is_closest_to_itself() {
        for name in recorded_names() {
            let rows = recorded(name).unwrap();
            let ranked = rank(rows);
            assert_eq!(ranked[0].profile, name);
            assert_eq!(ranked[0].steps_matched, rows.len());
            assert!(
                ranked[1].steps_matched < rows.len(),
                "{name} ties {}",
                ranked[1].profile
            );
        }
    }

    #[test]
    fn only_shared_steps_are_compared() {
        let rows = recorded("rmcp-3.11").unwrap();
        let some: Vec<Row> = rows.iter().take(3).cloned().collect();
        let c = compare("rmcp-3.11", &some, rows);
        assert_eq!((c.steps_matched, c.steps_compared), (3, 3));
        assert_eq!(c.cells_compared, 18);
    }
}
