//! `other_era`: the client spoke the other protocol era than the one the scenario tests.
//!
//! The grading server speaks 2025-11-25 and 2026-07-28, choosing per request, and each
//! era's faults break only what that era uses: a 2026-07-28 client opens no session or
//! `Last-Event-ID` for a 2025 fault to break, a 2025 client no request stream, listen or
//! task for a 2026-07-28 one. Graded on the other era's set, such a client comes out
//! `clean` on scenarios that tested nothing of it (the Vercel AI SDK negotiated 2026-07-28
//! and scored 17 `clean` on the 2025 set). So the era it spoke is read from the ledger,
//! and where it is not the scenario's, the run says plainly that the scenario did not
//! apply, in place of every verdict (kept in the evidence): nothing it says vouches for
//! the client, and `grade` exits 1 on it, naming the `--era` to grade it with.
//!
//! The era a client spoke, from the ledger alone: 2025-11-25 when an `initialize` was
//! answered 200 (2026-07-28 removed `initialize`; a client that probes and falls back
//! initializes), else 2026-07-28 when a `server/discover` was answered 200 or a
//! `tools/call` reached the server without one; nothing when the client made no request.

use faultline_model::{Ledger, RequestEra};
use serde::Serialize;

use crate::VerdictKind;

/// The era the client spoke in this run (see the module doc), if it spoke.
pub fn spoken_era(ledger: &Ledger) -> Option<RequestEra> {
    let answered = |method: &str| {
        ledger
            .answers
            .iter()
            .any(|a| a.rpc_method.as_deref() == Some(method) && a.status == 200)
    };
    if answered("initialize") {
        return Some(RequestEra::Legacy);
    }
    let called = ledger
        .answers
        .iter()
        .any(|a| a.rpc_method.as_deref() == Some("tools/call"));
    (answered("server/discover") || called).then_some(RequestEra::Modern)
}

/// The evidence: the two eras, and what the judge found otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherEra {
    /// The protocol version of the era the client spoke.
    pub client_era: &'static str,
    /// The protocol version of the era the scenario's faults break.
    pub scenario_era: &'static str,
    /// The `--era` of `faultline grade` whose set fits the client.
    pub grade_with: &'static str,
    /// The verdicts the run would have had, had the scenario applied.
    pub judged_otherwise: Vec<VerdictKind>,
}

impl OtherEra {
    pub fn sentence(&self) -> String {
        format!(
            "the client spoke {} and this scenario tests {}: it did not apply, and its verdicts ({}) vouch for nothing; grade the client with --era {}",
            self.client_era,
            self.scenario_era,
            self.judged_otherwise
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", "),
            self.grade_with
        )
    }
}

/// The run's `other_era`, when the client spoke an era and it is not `scenario_era`.
pub fn other_era(
    ledger: &Ledger,
    scenario_era: Option<RequestEra>,
    judged_otherwise: Vec<VerdictKind>,
) -> Option<OtherEra> {
    let scenario_era = scenario_era?;
    let client_era = spoken_era(ledger)?;
    (client_era != scenario_era).then(|| OtherEra {
        client_era: version(client_era),
        scenario_era: version(scenario_era),
        grade_with: match client_era {
            RequestEra::Legacy => "legacy",
            RequestEra::Modern => "modern",
        },
        judged_otherwise,
    })
}

fn version(era: RequestEra) -> &'static str {
    match era {
        RequestEra::Legacy => "2025-11-25",
        RequestEra::Modern => "2026-07-28",
    }
}
