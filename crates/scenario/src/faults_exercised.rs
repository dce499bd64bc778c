//! How many of a scenario's faults were meant to fire and how many did: what a run that
//! tested nothing (`untested`) is told by, for `faultline grade` and the testkit alike.

use crate::{FaultWhen, FiredFault, Scenario};

/// The faults that fire at a moment (the standing ones, in force all along, fire at
/// none), and how many distinct ones of them fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultsExercised {
    pub planned: usize,
    pub fired: usize,
}

impl FaultsExercised {
    pub fn of(scenario: &Scenario, fired: &[FiredFault]) -> FaultsExercised {
        // A fault met something if any of its strikes did (a rolling deploy strikes once
        // a replica); one that only ever missed exercised nothing.
        let mut indices: Vec<usize> = fired
            .iter()
            .filter(|f| !f.missed)
            .filter_map(|f| f.fault)
            .collect();
        indices.sort_unstable();
        indices.dedup();
        FaultsExercised {
            planned: scenario
                .faults
                .iter()
                .filter(|f| !matches!(f.when(), FaultWhen::Always))
                .count(),
            fired: indices.len(),
        }
    }
}
