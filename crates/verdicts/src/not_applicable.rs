//! `not_applicable`: the client declared it cannot do what the scenario's faults act on.
//!
//! The client contract assumes a progress handler and a handler for server notifications.
//! A client without one says so in its report (`"supports": {"progress": false}`), and then
//! what it cannot receive is not owed to it, and a scenario that needs it is
//! `not_applicable`: neither `clean` (nothing it tests was exercised) nor `untested` (the
//! client is not mis-wired; the scenario does not apply to it). It is kept apart from what
//! was lost: it stands only where `clean` or `untested` would have, so a loss the run
//! shows anyway (the call's result) is still reported beside it, and it is not a failure.
//!
//! What a scenario needs is read from its faults and workload by the caller (the grade
//! crate has the scenario): progress, when a fault is timed by the call's progress events;
//! notifications, when the workload sends notifications or a fault waits for the
//! standalone stream's events.

use serde::Serialize;

use crate::client_report::Supports;

/// What of the client a scenario's faults act on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Needs {
    /// A fault is timed by the call's progress events (a client without a progress handler
    /// sends no progress token, so they never come).
    pub progress: bool,
    /// The scenario is about server notifications: its workload sends them, or a fault
    /// waits for the standalone stream's events.
    pub notifications: bool,
}

/// Why the scenario does not apply to the client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotApplicable {
    /// What the scenario needs and the client declared it cannot do: `progress`,
    /// `notifications`.
    pub unsupported: Vec<&'static str>,
    /// Each in one sentence.
    pub reasons: Vec<String>,
}

impl NotApplicable {
    pub fn sentence(&self) -> String {
        format!(
            "the scenario does not apply to this client: {}",
            self.reasons.join("; ")
        )
    }
}

/// What the client can do, as its report declares it and as the report itself shows: a
/// declaration the report contradicts (progress values, or notifications, handed to the
/// application that declared no handler for them) does not stand, so a client cannot
/// declare its way out of a scenario it took part in. (A progress token on the wire is
/// no such proof: an SDK may send one whether or not the application listens.)
pub(crate) fn supports_shown(report: &crate::ClientReport) -> Supports {
    let declared = report.supports;
    Supports {
        progress: declared.progress || !report.progress.is_empty(),
        notifications: declared.notifications || !report.notifications.is_empty(),
    }
}

/// The run's `not_applicable`, when the scenario needs what the client declared it cannot
/// do.
pub fn not_applicable(needs: Needs, supports: Supports) -> Option<NotApplicable> {
    let mut unsupported = Vec::new();
    let mut reasons = Vec::new();
    if needs.progress && !supports.progress {
        unsupported.push("progress");
        reasons.push(
            "its faults are timed by the call's progress events, and the client declared no progress handler (`supports.progress: false`)"
                .to_string(),
        );
    }
    if needs.notifications && !supports.notifications {
        unsupported.push("notifications");
        reasons.push(
            "it is about server notifications, and the client declared no notification handler (`supports.notifications: false`)"
                .to_string(),
        );
    }
    (!unsupported.is_empty()).then_some(NotApplicable {
        unsupported,
        reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_is_needed_and_unsupported_counts() {
        let no_progress = Supports {
            progress: false,
            notifications: true,
        };
        let needs_progress = Needs {
            progress: true,
            notifications: false,
        };
        let found = not_applicable(needs_progress, no_progress).expect("not applicable");
        assert_eq!(found.unsupported, ["progress"]);
        assert_eq!(not_applicable(Needs::default(), no_progress), None);
        assert_eq!(not_applicable(needs_progress, Supports::default()), None);
    }
}
