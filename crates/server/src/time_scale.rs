//! How fast virtual time runs, as the control API reports it (`GET /_chaos/clock`, and
//! `time_scale` in `GET /_chaos/ledger`): a number of virtual milliseconds per wall
//! millisecond (`1`, `60`, `0` for a frozen clock), or `"auto"` for a clock that jumps to
//! the next due server event (see `auto_advance`). A script can tell the two apart by type
//! alone, which is why `auto` is not spelled as a magic number.

use serde::{Serialize, Serializer};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TimeScale {
    /// Virtual milliseconds per wall millisecond; 0 is frozen.
    Factor(f64),
    /// `--time-scale auto`.
    Auto,
}

impl Serialize for TimeScale {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TimeScale::Factor(factor) => serializer.serialize_f64(*factor),
            TimeScale::Auto => serializer.serialize_str("auto"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_factor_is_a_number_and_auto_is_a_string() {
        assert_eq!(
            serde_json::to_string(&TimeScale::Factor(60.0)).unwrap(),
            "60.0"
        );
        assert_eq!(serde_json::to_string(&TimeScale::Auto).unwrap(), "\"auto\"");
    }
}
