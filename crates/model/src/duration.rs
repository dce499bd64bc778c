//! Human-readable durations ("30m", "5s", "1h30m", "250ms") as whole milliseconds.
//!
//! Scenario files are read by people reproducing incidents, so TTLs are written the way
//! operators write them in config files. Inside the model every duration is a `u64` of
//! milliseconds of virtual time; this type only exists at the boundary.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A span of virtual time in milliseconds, written in scenario files as `"1h30m"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DurationMs(pub u64);

impl DurationMs {
    pub const ZERO: DurationMs = DurationMs(0);

    pub fn from_secs(secs: u64) -> Self {
        DurationMs(secs.saturating_mul(1_000))
    }

    pub fn from_mins(mins: u64) -> Self {
        DurationMs(mins.saturating_mul(60_000))
    }

    pub fn ms(self) -> u64 {
        self.0
    }
}

/// Why a duration string was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError(String);

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DurationError {}

const UNITS: [(&str, u64); 5] = [
    ("ms", 1),
    ("s", 1_000),
    ("m", 60_000),
    ("h", 3_600_000),
    ("d", 86_400_000),
];

impl FromStr for DurationMs {
    type Err = DurationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |why: &str| {
            DurationError(format!(
                "invalid duration {text:?}: {why} (write e.g. \"250ms\", \"5s\", \"30m\", \"1h30m\")"
            ))
        };
        let s = text.trim();
        if s.is_empty() {
            return Err(err("it is empty"));
        }
        let bytes = s.as_bytes();
        let mut total: u64 = 0;
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if start == i {
                return Err(err("expected a number"));
            }
            let number: u64 = s[start..i].parse().map_err(|_| err("number too large"))?;
            let unit_start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            let unit = &s[unit_start..i];
            let Some(&(_, factor)) = UNITS.iter().find(|(name, _)| *name == unit) else {
                return Err(if unit.is_empty() {
                    err("a number needs a unit (ms, s, m, h or d)")
                } else {
                    err(&format!("unknown unit {unit:?}"))
                });
            };
            let part = number.checked_mul(factor).ok_or_else(|| err("too large"))?;
            total = total.checked_add(part).ok_or_else(|| err("too large"))?;
        }
        Ok(DurationMs(total))
    }
}

impl fmt::Display for DurationMs {
    /// Prints the shortest exact spelling, e.g. `1h30m`, `4m43s550ms`, `0s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        if rest == 0 {
            return f.write_str("0s");
        }
        for (name, factor) in UNITS.iter().rev() {
            if rest >= *factor {
                write!(f, "{}{}", rest / factor, name)?;
                rest %= factor;
            }
        }
        Ok(())
    }
}

impl Serialize for DurationMs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DurationMs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A duration that must be longer than zero: TTLs, intervals and periods, where `0s` would
/// mean "expire instantly" or "loop forever" and is always a typo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PositiveDurationMs(DurationMs);

impl PositiveDurationMs {
    pub fn new(ms: u64) -> Option<Self> {
        (ms > 0).then_some(PositiveDurationMs(DurationMs(ms)))
    }

    pub fn ms(self) -> u64 {
        self.0.0
    }
}

impl fmt::Display for PositiveDurationMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for PositiveDurationMs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for PositiveDurationMs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let d = DurationMs::deserialize(deserializer)?;
        PositiveDurationMs::new(d.0).ok_or_else(|| {
            serde::de::Error::custom("a duration of zero makes no sense here: use a positive duration, or leave the field out (None) to disable it")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_compound_durations() {
        assert_eq!("30m".parse::<DurationMs>().unwrap(), DurationMs(1_800_000));
        assert_eq!(
            "1h30m".parse::<DurationMs>().unwrap(),
            DurationMs(5_400_000)
        );
        assert_eq!("250ms".parse::<DurationMs>().unwrap(), DurationMs(250));
        assert_eq!("0s".parse::<DurationMs>().unwrap(), DurationMs(0));
    }

    #[test]
    fn rejects_missing_or_unknown_units() {
        assert!(
            "30".parse::<DurationMs>()
                .unwrap_err()
                .0
                .contains("needs a unit")
        );
        assert!(
            "3y".parse::<DurationMs>()
                .unwrap_err()
                .0
                .contains("unknown unit")
        );
        assert!("".parse::<DurationMs>().is_err());
        assert!("-5s".parse::<DurationMs>().is_err());
        assert!("99999999999999999999s".parse::<DurationMs>().is_err());
    }

    #[test]
    fn display_round_trips() {
        for ms in [0, 1, 999, 1_000, 61_000, 283_550, 5_400_000, 90_061_001] {
            let d = DurationMs(ms);
            assert_eq!(d.to_string().parse::<DurationMs>().unwrap(), d, "{d}");
        }
        assert_eq!(DurationMs(5_400_000).to_string(), "1h30m");
    }
}
