//! How many of a scenario's faults were meant to fire and how many did: what a run that
//! tested nothing (`untested`) is told by, for `faultline grade` and the testkit alike.

use crate::{FaultWhen, FiredFault, Scenario};

/// The faults that fire at a moment (the standing ones, in force all along, fire at
/// none), how many distinct ones of them fired, and which did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultsExercised {
    pub planned: usize,
    pub fired: usize,
    /// Bit `i` set: the scenario's `faults[i]` (one of the first 64) was planned and
    /// never met the client.
    pub unmet: u64,
    /// Of those, the ones that fired and cut nothing (every strike missed: no connection
    /// of the kind it cuts was open); the others never fired.
    pub cut_nothing: u64,
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
        let planned = || {
            scenario
                .faults
                .iter()
                .enumerate()
                .filter(|(_, f)| !matches!(f.when(), FaultWhen::Always))
                .map(|(i, _)| i)
        };
        let unmet = unmet_mask(planned(), |i| indices.binary_search(&i).is_ok());
        let missed = fired
            .iter()
            .filter(|f| f.missed)
            .filter_map(|f| f.fault)
            .fold(0, |mask, i| mask | fault_bit(i));
        FaultsExercised {
            planned: planned().count(),
            fired: indices.len(),
            unmet,
            cut_nothing: unmet & missed,
        }
    }
}

/// [`FaultsExercised::unmet`] of the `planned` faults (by their place in the scenario)
/// that `met` says never met the client: bit `i` for `faults[i]`, the first 64 only.
pub fn unmet_mask(planned: impl IntoIterator<Item = usize>, met: impl Fn(usize) -> bool) -> u64 {
    planned
        .into_iter()
        .filter(|&i| !met(i))
        .fold(0, |mask, i| mask | fault_bit(i))
}

/// The bit of `faults[i]` in a fault mask ([`FaultsExercised::unmet`], `cut_nothing`):
/// `1 << i` for the first 64 faults, none for the others.
pub fn fault_bit(i: usize) -> u64 {
    if i < 64 { 1 << i } else { 0 }
}
