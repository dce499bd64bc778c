//! A real client that gave no report to judge: `hung`, `crashed` or `bad_report`.
//!
//! A report is what `grade` judges a client's application by, so a run without one is a
//! verdict of its own, never the end of the grade: one client that crashes on one scenario
//! must not throw away the scenarios already graded (an exit 2 is for bad input to `grade`
//! itself). Which verdict says what happened to the process: it was still running at the
//! timeout (`hung`, with the time waited: a client without its own timeout costs the whole
//! `--timeout-s` per scenario), it ended with a failure status or a signal (`crashed`), or
//! it exited 0 with no report that reads (`bad_report`: the adapter is broken), or its
//! report claims what the server never sent (`bad_report` too: see
//! [`crate::untrue_report`]). The ledger-only rules still judge the wire.

use serde::Serialize;

use faultline_model::Ledger;

use crate::VerdictKind;
use crate::verdict::{Evidence, Verdict};
use crate::words::Words;

/// Why a run has no report, with what the process left behind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum MissingReport {
    /// Still running when the timeout came; killed with everything it started.
    Hung {
        /// Wall time waited before it was killed (the timeout), in milliseconds; `None`
        /// for a modelled client, which the horizon cut and no one waited for.
        waited_ms: Option<u64>,
    },
    /// Ended with a failure status or a signal and no readable report.
    Crashed {
        /// The exit status, `None` when a signal killed it.
        exit_status: Option<i32>,
        /// The signal that killed it, when one did.
        signal: Option<i32>,
        /// What was wrong with its stdout (it printed nothing, or no JSON report).
        report_problem: String,
        /// The last lines it wrote on stderr.
        stderr_tail: String,
    },
    /// Exited 0 with no report that reads.
    BadReport {
        report_problem: String,
        stderr_tail: String,
    },
    /// A report that reads, but claims what the server never sent: it cannot be judged.
    Untrue {
        #[serde(flatten)]
        claims: crate::untrue_report::UnsentClaims,
    },
}

impl MissingReport {
    /// The process ended without a report: `crashed` when its status says it failed,
    /// `bad_report` when it exited 0.
    pub fn ended(
        exit_status: Option<i32>,
        signal: Option<i32>,
        report_problem: String,
        stderr_tail: String,
    ) -> MissingReport {
        if exit_status == Some(0) {
            MissingReport::BadReport {
                report_problem,
                stderr_tail,
            }
        } else {
            MissingReport::Crashed {
                exit_status,
                signal,
                report_problem,
                stderr_tail,
            }
        }
    }

    /// The verdict, with the evidence the process left.
    pub fn verdict(&self, ledger: &Ledger, words: Words) -> Verdict {
        let (kind, why) = match self {
            MissingReport::Hung { waited_ms: None } => (
                VerdictKind::Hung,
                "no report before the timeout: the application got neither everything nor an error"
                    .to_string(),
            ),
            MissingReport::Hung {
                waited_ms: Some(ms),
            } => (
                VerdictKind::Hung,
                format!(
                    "no report within {} of wall time (--timeout-s): the application got neither everything nor an error, and every scenario it hangs on costs that long",
                    seconds(*ms)
                ),
            ),
            MissingReport::Crashed {
                exit_status,
                signal,
                report_problem,
                stderr_tail,
            } => (
                VerdictKind::Crashed,
                format!(
                    "the client {} without a report ({report_problem}){}",
                    match (exit_status, signal) {
                        (Some(code), _) => format!("exited {code}"),
                        (None, Some(sig)) => format!("was killed by signal {sig}"),
                        (None, None) => "was killed".to_string(),
                    },
                    last_line(stderr_tail)
                ),
            ),
            MissingReport::BadReport {
                report_problem,
                stderr_tail,
            } => (
                VerdictKind::BadReport,
                format!(
                    "the client exited 0 but its report cannot be read: {report_problem}{}",
                    last_line(stderr_tail)
                ),
            ),
            MissingReport::Untrue { claims } => (VerdictKind::BadReport, claims.sentence()),
        };
        Verdict {
            kind,
            // It was last heard from at its last answered request.
            at_ms: ledger.answers.iter().map(|a| a.at_ms).max().unwrap_or(0),
            summary: words.say(|| why),
            evidence: Evidence::NoReport {
                missing: self.clone(),
                answers: ledger.answers.len(),
            },
        }
    }
}

/// `75 s`, `1.5 s`.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// `; stderr ends: LINE` when it wrote anything.
fn last_line(stderr_tail: &str) -> String {
    stderr_tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!("; stderr ends: {}", l.trim()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReportVerdict;

    /// The verdict as grade prints it, for a run whose server answered nothing.
    fn row(missing: &MissingReport) -> ReportVerdict {
        ReportVerdict::from(&missing.verdict(&Ledger::default(), Words::Written))
    }

    #[test]
    fn a_failure_status_is_a_crash_and_exit_0_a_bad_report() {
        let crash =
            MissingReport::ended(Some(13), None, "printed nothing".into(), "a\nboom\n".into());
        let v = row(&crash);
        assert_eq!(v.kind, VerdictKind::Crashed);
        assert!(v.why.contains("exited 13"), "{}", v.why);
        assert!(v.why.ends_with("stderr ends: boom"), "{}", v.why);
        assert_eq!(v.evidence["exit_status"], 13);
        assert_eq!(v.evidence["ended"], "crashed");
        assert_eq!(v.evidence["answers"], 0);
        let killed = MissingReport::ended(None, Some(9), "printed nothing".into(), String::new());
        assert!(row(&killed).why.contains("killed by signal 9"));
        let bad = MissingReport::ended(Some(0), None, "not JSON".into(), String::new());
        assert_eq!(row(&bad).kind, VerdictKind::BadReport);
        let hung = MissingReport::Hung {
            waited_ms: Some(75_000),
        };
        assert!(row(&hung).why.contains("within 75 s"));
        assert_eq!(row(&hung).evidence["waited_ms"], 75_000);
    }
}
