//! Latency percentiles within a run, medians across runs.
//!
//! Latencies go into an HDR histogram (`hdrhistogram`: 1 µs to 60 s, 3 significant digits,
//! so every percentile is within 0.1 % of the exact one) instead of a vector of every
//! sample sorted at the end: memory stays constant however many requests a phase makes,
//! and each worker's histogram merges into the phase's exactly.

use std::time::Duration;

use hdrhistogram::Histogram;

/// The latencies of one phase (or of one worker of it), in microseconds.
pub struct Latencies(Histogram<u64>);

impl Latencies {
    /// Longest latency kept apart; anything slower is recorded as this.
    const HIGHEST_US: u64 = 60_000_000;

    pub fn new() -> Self {
        Latencies(
            Histogram::new_with_bounds(1, Self::HIGHEST_US, 3).expect("constant, valid bounds"),
        )
    }

    pub fn record(&mut self, latency: Duration) {
        let us = latency.as_micros().min(u128::from(Self::HIGHEST_US)) as u64;
        self.0.saturating_record(us);
    }

    pub fn merge(&mut self, other: &Latencies) {
        self.0.add(&other.0).expect("same bounds: every value fits");
    }

    /// How many latencies were recorded.
    pub fn count(&self) -> u64 {
        self.0.len()
    }

    /// The latency at quantile `q` (0.5 for the median, 1.0 for the maximum), in ms;
    /// 0 if nothing was recorded.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.value_at_quantile(q) as f64 / 1000.0
    }

    /// The slowest latency recorded, in ms (0 if none).
    pub fn max_ms(&self) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.max() as f64 / 1000.0
    }
}

/// The median of the runs' figures (the upper one for an even count; 0 for none).
pub fn median(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut xs: Vec<f64> = xs.into_iter().collect();
    if xs.is_empty() {
        return 0.0;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_merged_workers() {
        let (mut a, mut b) = (Latencies::new(), Latencies::new());
        for us in 1..=500 {
            a.record(Duration::from_micros(us));
        }
        for us in 501..=1_000 {
            b.record(Duration::from_micros(us));
        }
        a.merge(&b);
        assert_eq!(a.count(), 1_000);
        assert!(
            (a.quantile_ms(0.5) - 0.5).abs() <= 0.001,
            "{}",
            a.quantile_ms(0.5)
        );
        assert!((a.quantile_ms(0.99) - 0.99).abs() <= 0.001);
        assert!((a.max_ms() - 1.0).abs() <= 0.001);
        assert_eq!(Latencies::new().quantile_ms(0.99), 0.0);
    }

    #[test]
    fn median_of_runs() {
        assert_eq!(median([3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median([]), 0.0);
    }
}
