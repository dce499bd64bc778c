//! What a property run tested: how many cases fired a fault, resumed, met each answer to a
//! resumption, and how the cases ended. A passing property is only as good as what its
//! cases reached; this says what that was, so that "256 cases passed" is not read as
//! "256 cases tested resumption".

use std::collections::BTreeMap;
use std::fmt;

use faultline_model::CursorResolution;

use crate::Outcome;

/// Tallies [`Outcome`]s; print it (`Display`) after the property ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Cases run.
    pub cases: usize,
    /// Cases in which at least one fault fired.
    pub fired: usize,
    /// Cases in which the client resumed at least once (`Last-Event-ID`).
    pub resumed: usize,
    /// How the server answered resumptions, over all cases: `honoured`, `stale`,
    /// `unknown`, ... (the resolution's name).
    pub answers: BTreeMap<String, usize>,
    /// Cases whose client re-initialized (a second `initialize`).
    pub reinitialized: usize,
    /// How the cases ended, by the one word of each (`clean`, `silent_gap`, ...).
    pub verdicts: BTreeMap<&'static str, usize>,
}

impl Coverage {
    /// Counts one case.
    pub fn add(&mut self, outcome: &Outcome) {
        let ledger = &outcome.truth.ledger;
        self.cases += 1;
        self.fired += usize::from(!outcome.truth.faults_fired.is_empty());
        self.resumed += usize::from(!ledger.resumptions.is_empty());
        for r in &ledger.resumptions {
            *self
                .answers
                .entry(resolution_name(&r.resolution))
                .or_default() += 1;
        }
        let inits = ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("initialize"))
            .count();
        self.reinitialized += usize::from(inits > 1);
        *self.verdicts.entry(outcome.verdict.name()).or_default() += 1;
    }
}

/// A resolution's name, with the answer it got where there are several.
fn resolution_name(r: &CursorResolution) -> String {
    match r {
        CursorResolution::Honoured { .. } => "honoured".into(),
        CursorResolution::Stale { answer, .. } => format!("stale ({answer:?})"),
        CursorResolution::Unknown { answer } => format!("unknown ({answer:?})"),
        CursorResolution::SessionRejected { status } => format!("session rejected ({status})"),
    }
}

impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<K: fmt::Display>(m: &BTreeMap<K, usize>) -> String {
            m.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
        writeln!(
            f,
            "{} cases: {} fired a fault, {} resumed, {} re-initialized",
            self.cases, self.fired, self.resumed, self.reinitialized
        )?;
        writeln!(f, "  resumptions answered: {}", list(&self.answers))?;
        write!(f, "  verdicts: {}", list(&self.verdicts))
    }
}
