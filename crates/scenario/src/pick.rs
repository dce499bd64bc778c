//! Values a scenario may leave to the seed: `41` or `"30..50"`, `"5m"` or `"5m..6m"`.
//!
//! A scenario with ranges is a family of runs; the seed picks one member, always the same
//! one for the same seed, so a range never costs reproducibility.

use std::fmt;

use faultline_model::DurationMs;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A count fixed in the file, or a range the seed chooses from (both ends inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickCount {
    pub lo: u64,
    pub hi: u64,
}

impl PickCount {
    pub fn fixed(n: u64) -> Self {
        PickCount { lo: n, hi: n }
    }

    pub fn pick(&self, rng: &mut ChaCha8Rng) -> u64 {
        if self.lo == self.hi {
            self.lo
        } else {
            rng.random_range(self.lo..=self.hi)
        }
    }
}

/// A duration fixed in the file, or a range the seed chooses from (both ends inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickDuration {
    pub lo: DurationMs,
    pub hi: DurationMs,
}

impl PickDuration {
    pub fn fixed(d: DurationMs) -> Self {
        PickDuration { lo: d, hi: d }
    }

    pub fn pick(&self, rng: &mut ChaCha8Rng) -> u64 {
        if self.lo == self.hi {
            self.lo.ms()
        } else {
            rng.random_range(self.lo.ms()..=self.hi.ms())
        }
    }
}

/// Splits `"a..b"` / `"a..=b"` (both inclusive here: a range in a lesson reads as
/// "anywhere from a to b").
fn split_range(text: &str) -> Option<(&str, &str)> {
    text.split_once("..=").or_else(|| text.split_once(".."))
}

fn ordered<T: PartialOrd + fmt::Display, E: de::Error>(
    lo: T,
    hi: T,
    text: &str,
) -> Result<(T, T), E> {
    if lo > hi {
        return Err(E::custom(format!(
            "range {text:?} is empty: {lo} is after {hi}"
        )));
    }
    Ok((lo, hi))
}

impl<'de> Deserialize<'de> for PickCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PickCount;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-negative integer or a range string such as \"30..50\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<PickCount, E> {
                Ok(PickCount::fixed(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PickCount, E> {
                u64::try_from(v)
                    .map(PickCount::fixed)
                    .map_err(|_| E::custom(format!("{v} is negative; a count must be 0 or more")))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<PickCount, E> {
                let number = |s: &str| {
                    s.trim().parse::<u64>().map_err(|_| {
                        E::custom(format!(
                            "{text:?} is not a count or a range like \"30..50\""
                        ))
                    })
                };
                match split_range(text) {
                    Some((a, b)) => {
                        let (lo, hi) = ordered(number(a)?, number(b)?, text)?;
                        Ok(PickCount { lo, hi })
                    }
                    None => Ok(PickCount::fixed(number(text)?)),
                }
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for PickDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let duration = |s: &str| s.parse::<DurationMs>().map_err(de::Error::custom);
        match split_range(&text) {
            Some((a, b)) => {
                let (lo, hi) = ordered(duration(a)?, duration(b)?, &text)?;
                Ok(PickDuration { lo, hi })
            }
            None => Ok(PickDuration::fixed(duration(&text)?)),
        }
    }
}

impl Serialize for PickCount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.lo == self.hi {
            s.serialize_u64(self.lo)
        } else {
            s.collect_str(&format_args!("{}..{}", self.lo, self.hi))
        }
    }
}

impl Serialize for PickDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.lo == self.hi {
            s.collect_str(&self.lo)
        } else {
            s.collect_str(&format_args!("{}..{}", self.lo, self.hi))
        }
    }
}

impl fmt::Display for PickDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lo == self.hi {
            write!(f, "{}", self.lo)
        } else {
            write!(f, "{}..{}", self.lo, self.hi)
        }
    }
}
