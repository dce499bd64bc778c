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

use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
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
    /// The last `server/discover` sent before the first failed request, if the client
    /// probed.
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
    let first_conn = failed[0].conn;
    // The probe the client went by: its last before the first failed request (a probe at
    // the failure's instant sent after it is the re-probe below, not the one misread).
    let probe = probes()
        .rfind(|a| a.at_ms <= from_ms && a.conn < first_conn)
        .map(|a| {
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
    let reprobed = probes().any(|a| a.at_ms >= from_ms && a.conn > first_conn);
    // The changes that bear on the failure: those before it, not counting a roll to the
    // era the server already spoke (a restart), nor, when the client probed, rolls that
    // brought the server back after the probe to the era it spoke then (it misread what
    // the server still speaks; no deploy moved it).
    let whole = |c: &&faultline_model::EraChange| c.replica.is_none();
    let era_at = |t: u64| {
        let changes = ledger.era_changes.iter().filter(whole);
        match changes.clone().rfind(|c| c.at_ms <= t) {
            Some(c) => Some(c.to),
            None => changes.clone().next().map(|c| c.from),
        }
    };
    let probed_at = probe.as_ref().map(|p| p.at_ms);
    let back_as_probed = ledger.era_changes.iter().all(|c| c.replica.is_none())
        && probed_at.is_some_and(|t| era_at(t) == era_at(from_ms));
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
            // A roll to the era the server already spoke is a restart, not a change.
            .filter(|c| c.at_ms <= from_ms && c.from != c.to)
            .filter(|c| !back_as_probed || probed_at.is_some_and(|t| c.at_ms <= t))
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

/// The `era_mismatch` verdicts of a run.
pub(crate) fn verdicts(ledger: &Ledger, words: Words, out: &mut Vec<Verdict>) {
    for m in era_mismatches(ledger) {
        let first = &m.failed[0];
        let summary = words.say(|| {
            if m.sessionless {
                format!(
                    "server speaks sessionless 2025; client required a session: initialize at {} was answered {} without Mcp-Session-Id (era {}) and the client sent nothing more",
                    vtime(first.at_ms),
                    first.status,
                    m.server_era,
                )
            } else {
                let probe = match &m.probe {
                    Some(p) => format!(
                        "its probe (server/discover at {}) was answered {}{}",
                        vtime(p.at_ms),
                        p.status,
                        p.rpc_error.map(|c| format!(" {c}")).unwrap_or_default()
                    ),
                    None => "it never probed".to_string(),
                };
                let changed = match m.era_changes.last() {
                    Some((at, from, to)) => {
                        format!(
                            "; the server had moved from {from} to {to} at {}",
                            vtime(*at)
                        )
                    }
                    None => String::new(),
                };
                format!(
                    "the client spoke {} to a server speaking {}: {probe}{changed}; {} request(s) failed for it from {} ({}), and the client {}",
                    era_words(m.client_era),
                    m.server_era,
                    m.failed.len(),
                    vtime(first.at_ms),
                    first.rpc_method.as_deref().unwrap_or("GET/DELETE"),
                    if m.reprobed {
                        "probed again without recovering"
                    } else {
                        "never probed again"
                    },
                )
            }
        });
        out.push(Verdict {
            kind: VerdictKind::EraMismatch,
            at_ms: first.at_ms,
            summary,
            evidence: Evidence::EraMismatch(m),
        });
    }
}

#[cfg(test)]
mod judged_tests {
    use faultline_model::Era;
    use faultline_model::{AnswerEntry, EraChange};

    use super::*;
    use faultline_model::{ConnId, EraAnswer, EraAnswerKind, RequestEra};

    fn answer(conn: u64, at_ms: u64, rpc: &str, status: u16) -> AnswerEntry {
        AnswerEntry {
            rpc_method: Some(rpc.into()),
            ..crate::test_answer::answer(conn, at_ms, status)
        }
    }

    fn refusal(
        conn: u64,
        at_ms: u64,
        rpc: &str,
        server_era: Era,
        request_era: RequestEra,
    ) -> EraAnswer {
        EraAnswer {
            at_ms,
            conn: ConnId(conn),
            rpc_method: Some(rpc.into()),
            status: 400,
            request_era,
            server_era,
            kind: EraAnswerKind::Refused,
            rpc_error: Some(-32000),
        }
    }

    /// rust-sdk#1040: the probe is refused 400 -32000, the client stays modern, its calls
    /// are refused too.
    fn misread_probe() -> Ledger {
        Ledger {
            answers: vec![
                answer(1, 0, DISCOVER, 400),
                answer(2, 0, "tools/call", 400),
                answer(3, 1_000, "tools/call", 400),
            ],
            era_answers: vec![
                refusal(1, 0, DISCOVER, Era::LegacyOnly, RequestEra::Modern),
                refusal(2, 0, "tools/call", Era::LegacyOnly, RequestEra::Modern),
                refusal(3, 1_000, "tools/call", Era::LegacyOnly, RequestEra::Modern),
            ],
            ..Ledger::default()
        }
    }

    #[test]
    fn work_refused_for_its_era_after_a_misread_probe_is_a_mismatch() {
        let found = era_mismatches(&misread_probe());
        assert_eq!(found.len(), 1);
        let m = &found[0];
        assert_eq!(m.client_era, RequestEra::Modern);
        assert_eq!(m.server_era, "LegacyOnly");
        assert!(!m.sessionless && !m.reprobed);
        let probe = m.probe.as_ref().expect("the probe");
        assert_eq!((probe.status, probe.rpc_error), (400, Some(-32000)));
        assert_eq!(m.failed.len(), 2, "the probe is not a failed request");
        let mut out = Vec::new();
        verdicts(&misread_probe(), Words::Written, &mut out);
        assert_eq!(out[0].kind, VerdictKind::EraMismatch);
        assert!(
            out[0].summary.contains("never probed again"),
            "{}",
            out[0].summary
        );
    }

    /// The probe the client misread is its last before the first failed request, not a
    /// re-probe sent at the failure's instant after it (which is `reprobed`).
    #[test]
    fn the_probe_named_is_the_one_before_the_failure() {
        let ledger = Ledger {
            answers: vec![
                answer(1, 60_000, DISCOVER, 400),
                answer(4, 780_000, "tools/call", 400),
                answer(5, 780_000, DISCOVER, 400),
            ],
            era_answers: vec![
                refusal(1, 60_000, DISCOVER, Era::LegacyOnly, RequestEra::Modern),
                refusal(
                    4,
                    780_000,
                    "tools/call",
                    Era::LegacyOnly,
                    RequestEra::Modern,
                ),
                refusal(5, 780_000, DISCOVER, Era::LegacyOnly, RequestEra::Modern),
            ],
            ..Ledger::default()
        };
        let found = era_mismatches(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].probe.as_ref().map(|p| p.conn), Some(ConnId(1)));
        assert!(found[0].reprobed);
    }

    /// Rolls that brought the server back, after the probe, to the era it spoke at the
    /// probe moved nothing the client misread: none is named. A roll that left the server
    /// in another era than at the probe is.
    #[test]
    fn rolls_back_to_the_probed_era_are_no_change() {
        let ledger = |changes: Vec<(u64, Era, Era)>| Ledger {
            answers: vec![
                answer(1, 60_000, DISCOVER, 400),
                answer(2, 960_000, "tools/call", 400),
            ],
            era_answers: vec![
                refusal(1, 60_000, DISCOVER, Era::LegacyOnly, RequestEra::Modern),
                refusal(
                    2,
                    960_000,
                    "tools/call",
                    Era::LegacyOnly,
                    RequestEra::Modern,
                ),
            ],
            era_changes: changes
                .into_iter()
                .map(|(at_ms, from, to)| EraChange {
                    at_ms,
                    from,
                    to,
                    replica: None,
                })
                .collect(),
            ..Ledger::default()
        };
        let there_and_back = ledger(vec![
            (480_000, Era::LegacyOnly, Era::ModernOnly),
            (780_000, Era::ModernOnly, Era::LegacyOnly),
        ]);
        assert!(era_mismatches(&there_and_back)[0].era_changes.is_empty());
        let moved = ledger(vec![(480_000, Era::DualStatefulLegacy, Era::LegacyOnly)]);
        assert_eq!(era_mismatches(&moved)[0].era_changes.len(), 1);
    }

    /// A roll to the era the server already spoke is a restart: no era change is named.
    #[test]
    fn a_roll_to_the_same_era_is_no_change() {
        let mut ledger = misread_probe();
        ledger.era_changes.push(EraChange {
            at_ms: 0,
            from: Era::LegacyOnly,
            to: Era::LegacyOnly,
            replica: None,
        });
        let found = era_mismatches(&ledger);
        assert_eq!(found.len(), 1);
        assert!(found[0].era_changes.is_empty());
    }

    #[test]
    fn a_refused_probe_followed_by_the_fallback_is_no_mismatch() {
        let ledger = Ledger {
            answers: vec![answer(1, 0, DISCOVER, 400), answer(2, 0, "initialize", 200)],
            era_answers: vec![refusal(1, 0, DISCOVER, Era::LegacyOnly, RequestEra::Modern)],
            ..Ledger::default()
        };
        assert!(era_mismatches(&ledger).is_empty());
    }

    #[test]
    fn a_client_that_probes_again_and_goes_on_recovered() {
        // Legacy work refused after a roll to ModernOnly, then a probe and a modern call.
        let mut ledger = Ledger {
            answers: vec![
                answer(4, 5_000, "tools/call", 400),
                answer(5, 5_000, DISCOVER, 200),
                answer(6, 5_000, "tools/call", 200),
            ],
            era_answers: vec![refusal(
                4,
                5_000,
                "tools/call",
                Era::ModernOnly,
                RequestEra::Legacy,
            )],
            era_changes: vec![EraChange {
                at_ms: 4_000,
                from: Era::LegacyOnly,
                to: Era::ModernOnly,
                replica: None,
            }],
            ..Ledger::default()
        };
        assert!(era_mismatches(&ledger).is_empty());
        // Without the successful call it stands, with the probe again and the roll named.
        ledger.answers.pop();
        let found = era_mismatches(&ledger);
        assert_eq!(found.len(), 1);
        assert!(found[0].reprobed);
        assert_eq!(
            found[0].era_changes,
            vec![(4_000, "LegacyOnly".to_string(), "ModernOnly".to_string())]
        );
        let mut out = Vec::new();
        verdicts(&ledger, Words::Written, &mut out);
        assert!(
            out[0]
                .summary
                .contains("moved from LegacyOnly to ModernOnly"),
            "{}",
            out[0].summary
        );
    }

    /// A roll to ModernOnly refuses a 2025 client's session plumbing (its DELETE and
    /// `initialize`) while no call is due: a probe answered 200 settles it, with no call to
    /// make in the new era. Had a call been refused, the probe alone would not do.
    #[test]
    fn refused_plumbing_then_an_answered_probe_is_no_mismatch() {
        let plumbing = |conn, rpc: &str| EraAnswer {
            rpc_method: (!rpc.is_empty()).then(|| rpc.to_string()),
            status: 405,
            ..refusal(conn, 60_000, rpc, Era::ModernOnly, RequestEra::Legacy)
        };
        let mut ledger = Ledger {
            answers: vec![
                answer(5, 60_000, "", 405),
                answer(6, 60_000, "initialize", 400),
                answer(7, 60_000, DISCOVER, 200),
            ],
            era_answers: vec![plumbing(5, ""), plumbing(6, "initialize")],
            ..Ledger::default()
        };
        assert!(era_mismatches(&ledger).is_empty());
        // A call refused earlier and then answered in the other era (conn 3) is no call
        // stranded: the probe still settles it.
        ledger.answers.insert(0, answer(3, 1_000, TOOLS_CALL, 200));
        ledger.answers.insert(0, answer(2, 1_000, TOOLS_CALL, 400));
        ledger.era_answers.insert(
            0,
            refusal(2, 1_000, TOOLS_CALL, Era::LegacyOnly, RequestEra::Modern),
        );
        assert!(era_mismatches(&ledger).is_empty());
        // A call refused with the plumbing and never answered is.
        ledger.era_answers.insert(1, plumbing(4, TOOLS_CALL));
        assert_eq!(era_mismatches(&ledger).len(), 1);
    }

    #[test]
    fn a_sessionless_initialize_with_nothing_after_it_is_a_mismatch() {
        let sessionless = EraAnswer {
            status: 200,
            kind: EraAnswerKind::Sessionless,
            rpc_error: None,
            ..refusal(
                1,
                0,
                "initialize",
                Era::DualStatelessLegacy,
                RequestEra::Legacy,
            )
        };
        let mut ledger = Ledger {
            answers: vec![answer(1, 0, "initialize", 200)],
            era_answers: vec![sessionless],
            ..Ledger::default()
        };
        let found = era_mismatches(&ledger);
        assert_eq!(found.len(), 1);
        assert!(found[0].sessionless);
        assert_eq!(found[0].server_era, "DualStatelessLegacy");
        let mut out = Vec::new();
        verdicts(&ledger, Words::Written, &mut out);
        assert!(
            out[0]
                .summary
                .starts_with("server speaks sessionless 2025; client required a session"),
            "{}",
            out[0].summary
        );
        // A client that went on without a session is fine.
        ledger
            .answers
            .push(answer(2, 0, "notifications/initialized", 202));
        assert!(era_mismatches(&ledger).is_empty());
    }
}
