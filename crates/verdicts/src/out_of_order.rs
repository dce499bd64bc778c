//! `out_of_order`: the application was handed the call's progress in another order than
//! the server produced it.
//!
//! Counting values finds what was lost or handed twice, not order: a client that runs each
//! notification handler as its own task (the rmcp client) hands every value over, but
//! `[2, 1, 3, 4, 5]`, and an application that shows the latest value shows a stale one.
//! The server sends a call's progress in increasing order, so the rule reads the report
//! alone: a value handed over for the first time after a larger one is out of order. A
//! value handed again after larger ones (a replay, or a re-issued call that starts again
//! from one) is not: that is `duplicate`'s business, or no harm. Real clients only: the
//! simulator's modelled clients apply events in the order they read them.

use serde::Serialize;

/// The evidence: where the order broke first, and how often.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutOfOrder {
    /// The first value handed over after a larger one: its position in the report's
    /// `progress` list (0-based), the value, and the largest handed before it.
    pub first_at: usize,
    pub value: f64,
    pub after: f64,
    /// How many values were handed over after a larger one.
    pub count: usize,
    /// The first values as handed over (at most 20), to see the order.
    pub handed: Vec<f64>,
}

impl OutOfOrder {
    pub fn sentence(&self) -> String {
        format!(
            "progress handed over out of order: {} after {} (position {}; {} value(s) out of order), as handed: {}",
            self.value,
            self.after,
            self.first_at,
            self.count,
            list(&self.handed)
        )
    }
}

/// The report's progress, if any value was handed over for the first time after a larger
/// one.
pub fn out_of_order(progress: &[f64]) -> Option<OutOfOrder> {
    let mut seen: Vec<f64> = Vec::new();
    let mut largest: Option<f64> = None;
    let mut first = None;
    let mut count = 0;
    for (i, &value) in progress.iter().enumerate() {
        let new = !seen.contains(&value);
        if new {
            if let Some(max) = largest.filter(|&max| value < max) {
                count += 1;
                first.get_or_insert((i, value, max));
            }
            seen.push(value);
        }
        largest = Some(largest.map_or(value, |m: f64| m.max(value)));
    }
    let (first_at, value, after) = first?;
    Some(OutOfOrder {
        first_at,
        value,
        after,
        count,
        handed: progress.iter().copied().take(20).collect(),
    })
}

fn list(values: &[f64]) -> String {
    let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_after_a_larger_new_one_is_out_of_order() {
        let found = out_of_order(&[2.0, 1.0, 3.0, 4.0, 5.0]).expect("out of order");
        assert_eq!((found.first_at, found.value, found.after), (1, 1.0, 2.0));
        assert_eq!(found.count, 1);
        assert!(
            found.sentence().contains("1 after 2"),
            "{}",
            found.sentence()
        );
    }

    #[test]
    fn replays_and_restarts_are_not_reordering() {
        assert_eq!(out_of_order(&[1.0, 2.0, 3.0, 4.0]), None);
        // A replay after a resume hands 2 and 3 again.
        assert_eq!(out_of_order(&[1.0, 2.0, 3.0, 2.0, 3.0, 4.0]), None);
        // A re-issued call starts again from 1.
        assert_eq!(out_of_order(&[1.0, 2.0, 1.0, 2.0, 3.0]), None);
        assert_eq!(out_of_order(&[]), None);
    }
}
