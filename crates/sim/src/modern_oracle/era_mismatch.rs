//! The simulator's side of `era_mismatch`: its verdicts, sentences and evidence from the
//! ledger-only rule in [`faultline_verdicts::era_mismatch`], which `grade` reads too.

pub use faultline_verdicts::era_mismatch::*;

use faultline_model::Ledger;

use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_verdicts::spell::vtime;

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
mod tests {
    use faultline_model::Era;
    use faultline_model::{AnswerEntry, EraChange, HttpMethod};

    use super::*;
    use faultline_model::{ConnId, EraAnswer, EraAnswerKind, RequestEra};

    fn answer(conn: u64, at_ms: u64, rpc: &str, status: u16) -> AnswerEntry {
        AnswerEntry {
            conn: ConnId(conn),
            at_ms,
            method: HttpMethod::Post,
            rpc_method: Some(rpc.into()),
            session_sent: None,
            status,
            rpc_method_len: None,
            session_sent_len: None,
            route: None,
            list_version: None,
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
