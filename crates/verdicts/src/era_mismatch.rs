//! `era_mismatch`: the client and the server never settled on a protocol era they both
//! speak, and the client's work failed for it. Two shapes are met in the field:
//!
//! - **Wrong era.** The client sent its work in an era the server did not speak at the
//!   time: a client that probed with `server/discover`, misread a legacy server's 400
//!   -32000 and stayed on 2026-07-28
//!   (<https://github.com/modelcontextprotocol/rust-sdk/issues/1040>), or one that cached
//!   the era it found and never probed again after a deploy changed it (`RollEra`). The
//!   versioning page says which probe answers mean "fall back" and that a failing cached
//!   era is probed again
//!   (<https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning>).
//! - **Sessionless 2025.** The server speaks 2025 without sessions (an `initialize`
//!   answered with no `Mcp-Session-Id`, as the TypeScript SDK's stateless legacy path does)
//!   and the client, requiring a session, went no further
//!   (<https://github.com/baruchiro/paperless-mcp/issues/154>).
//!
//! From the ledger alone (`era_answers`, `era_changes`, `answers`): a run of era refusals
//! of requests other than `server/discover` (the probe) after which no request other than
//! a probe or a notification was answered 2xx is a wrong-era mismatch (a client that probed
//! again and went on in the right era recovered; when no tool call was among the refusals,
//! a probe answered 2xx is enough); sessionless `initialize` answers after which no
//! request other than `initialize` arrived are a sessionless mismatch.

use faultline_model::{ConnId, EraAnswer, EraAnswerKind, Ledger, RequestEra};
use serde::Serialize;

/// The probe method, which only 2026-07-28 defines.
pub const DISCOVER: &str = "server/discover";

/// The client's work: a failed call is not made good by a probe alone.
pub const TOOLS_CALL: &str = "tools/call";

/// One request in an `era_mismatch`'s evidence and its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EraRequest {
    pub at_ms: u64,
    pub conn: ConnId,
    pub rpc_method: Option<String>,
    pub status: u16,
    /// The JSON-RPC error code, when the era refusal set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<i64>,
}

/// A client and server that never met in one era.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EraMismatch {
    /// The era the failed requests spoke.
    pub client_era: RequestEra,
    /// The eras the server spoke when they failed (`era` knob names).
    pub server_era: String,
    /// Whether the server answered 2025 without a session (the strict-gateway shape).
    pub sessionless: bool,
    /// The last `server/discover` answered before the first failure, if the client probed.
    pub probe: Option<EraRequest>,
    /// The requests that failed for the era, in order.
    pub failed: Vec<EraRequest>,
    /// Whether the client probed again after the first failure.
    pub reprobed: bool,
    /// Restarts that switched the server's era before the first failure (`RollEra`, or a
    /// `RollingDeploy` with `to_era`, whose `to` names the replica): (when, from, to).
    pub era_changes: Vec<(u64, String, String)>,
}

fn request_of(answer: &EraAnswer) -> EraRequest {
    EraRequest {
        at_ms: answer.at_ms,
        conn: answer.conn,
        rpc_method: answer.rpc_method.clone(),
        status: answer.status,
        rpc_error: answer.rpc_error,
    }
}

/// Every era mismatch of a run, wrong-era ones first.
pub fn era_mismatches(ledger: &Ledger) -> Vec<EraMismatch> {
    let mut found = Vec::new();
    let refused: Vec<&EraAnswer> = ledger
        .era_answers
        .iter()
        .filter(|a| a.kind == EraAnswerKind::Refused && !(200..300).contains(&a.status))
        .collect();
    let work: Vec<&EraAnswer> = refused
        .iter()
        .copied()
        .filter(|a| a.rpc_method.as_deref() != Some(DISCOVER))
        .collect();
    if let (Some(first), Some(last)) = (work.first(), work.last()) {
        // Answered 2xx after `after`: work (`probes` false) or a probe too.
        let answered_after = |after: &EraAnswer, probes: bool| {
            ledger.answers.iter().any(|a| {
                a.at_ms >= after.at_ms
                    && a.conn > after.conn
                    && (200..300).contains(&a.status)
                    && match a.rpc_method.as_deref() {
                        Some(DISCOVER) => probes,
                        Some(m) => !m.starts_with("notifications/"),
                        None => true,
                    }
            })
        };
        // When every failed tool call was followed by work answered in some era (only a
        // session's plumbing failed last: `initialize`, its GET stream, its DELETE, a list
        // or a listen), a probe answered 2xx after the last failure is recovery enough:
        // the client found the era the server speaks, and may have had no more work to send
        // in it. A call that failed for good needs an answer of its own.
        let call_stranded = work
            .iter()
            .any(|a| a.rpc_method.as_deref() == Some(TOOLS_CALL) && !answered_after(a, false));
        let recovered = answered_after(last, !call_stranded);
        if !recovered {
            found.push(mismatch(ledger, &work, first.at_ms, false));
        }
    }
    let sessionless: Vec<&EraAnswer> = ledger
        .era_answers
        .iter()
        .filter(|a| a.kind == EraAnswerKind::Sessionless)
        .collect();
    if let Some(first) = sessionless.first() {
        let went_on = ledger.answers.iter().any(|a| {
            a.at_ms >= first.at_ms
                && a.conn != first.conn
                && a.rpc_method.as_deref() != Some("initialize")
        });
        if !went_on {
            found.push(mismatch(ledger, &sessionless, first.at_ms, true));
        }
    }
    found
}

fn mismatch(
    ledger: &Ledger,
    failed: &[&EraAnswer],
    from_ms: u64,
    sessionless: bool,
) -> EraMismatch {
    let probes = || {
        ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some(DISCOVER))
    };
    let probe = probes().rfind(|a| a.at_ms <= from_ms).map(|a| {
        // The code is known when the probe was itself refused for its era.
        let rpc_error = ledger
            .era_answers
            .iter()
            .find(|e| e.conn == a.conn && e.rpc_method.as_deref() == Some(DISCOVER))
            .and_then(|e| e.rpc_error);
        EraRequest {
            at_ms: a.at_ms,
            conn: a.conn,
            rpc_method: a.rpc_method.clone(),
            status: a.status,
            rpc_error,
        }
    });
    let first_conn = failed[0].conn;
    let reprobed = probes().any(|a| a.at_ms >= from_ms && a.conn > first_conn);
    let mut eras: Vec<String> = Vec::new();
    for a in failed {
        let era = format!("{:?}", a.server_era);
        if !eras.contains(&era) {
            eras.push(era);
        }
    }
    EraMismatch {
        client_era: failed[0].request_era,
        server_era: eras.join(", "),
        sessionless,
        probe,
        failed: failed.iter().map(|a| request_of(a)).collect(),
        reprobed,
        era_changes: ledger
            .era_changes
            .iter()
            .filter(|c| c.at_ms <= from_ms)
            .map(|c| {
                // A rolling deploy moves one replica at a time: name it.
                let to = match c.replica {
                    Some(r) => format!("{:?} (replica {r})", c.to),
                    None => format!("{:?}", c.to),
                };
                (c.at_ms, format!("{:?}", c.from), to)
            })
            .collect(),
    }
}

pub fn era_words(era: RequestEra) -> &'static str {
    match era {
        RequestEra::Modern => "2026-07-28",
        RequestEra::Legacy => "2025",
    }
}
