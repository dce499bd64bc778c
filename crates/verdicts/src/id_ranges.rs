//! Event ids as compact inclusive ranges, the one spelling every verdict's evidence and
//! sentence uses (`1..=41, 50`), simulated or graded.

use std::fmt;

use serde::Serialize;

/// Ids as compact inclusive ranges: `[[1,41],[50,50]]`, printed `1..=41, 50`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IdRanges(pub Vec<(u64, u64)>);

impl IdRanges {
    pub fn from_sorted(ids: impl IntoIterator<Item = u64>) -> Self {
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for id in ids {
            match ranges.last_mut() {
                Some((_, hi)) if *hi + 1 == id => *hi = id,
                Some((_, hi)) if *hi == id => {}
                _ => ranges.push((id, id)),
            }
        }
        IdRanges(ranges)
    }

    pub fn count(&self) -> u64 {
        self.0.iter().map(|(lo, hi)| hi - lo + 1).sum()
    }
}

impl fmt::Display for IdRanges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (lo, hi)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if lo == hi {
                write!(f, "{lo}")?
            } else {
                write!(f, "{lo}..={hi}")?
            }
        }
        Ok(())
    }
}

/// `1..=3, 7` style (the simulator's spelling of id ranges, so outputs compare).
pub fn ranges<T: Copy + Into<u64>>(values: &[T]) -> String {
    let mut sorted: Vec<u64> = values.iter().map(|&v| v.into()).collect();
    sorted.sort_unstable();
    IdRanges::from_sorted(sorted).to_string()
}
