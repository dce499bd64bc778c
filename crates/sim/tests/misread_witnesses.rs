//! Runs the explorer reported that were misreadings of the ledger, not the client: each
//! witness, shrunk, judged by the rules as they now read.
//!
//! `session_abandoned`:
//! - A fleet's tenant (`Work::Tenant`: another client's session, admitted by the workload
//!   without HTTP) is not a session the modelled client started. The swarm adds tenants to
//!   fleets; before `session_abandoned` paired the client's own sessions, every fleet seed
//!   whose client met a failed GET before a tenant arrived was reported (seed 3433 was the
//!   smallest witness).
//! - Answers to requests sent together reach the client in an order the ledger does not
//!   keep: a client that started a new session on a misrouted 404 was said to have given
//!   up on the 400 the ledger wrote after it (seed 86097).
//!
//! `reconnect_loop`:
//! - A fleet with no replica up refuses a POST before any replica reads it, so the ledger
//!   has no JSON-RPC method for it; the guarded client's `initialize`, retried with
//!   back-off through two outages, was one run of refusals though it got a session between
//!   them (36 of 100,000 seeds; seed 37810 below).
//! - The ledger cannot tell a client's tasks apart: three stale tasks that each retried a
//!   call three times into a session that had expired (seed 256) or that a fleet misrouted
//!   (seed 73685), and gave up, were one run of twelve, "still at it when the run ended"
//!   though the run had gone quiet (821 of 100,000 naive seeds; 58 left, see
//!   `faultline_verdicts::reconnect_loop`). Those retries are `retry_amplification`'s and
//!   `misrouted_session`'s.
//!
//! Found by reading the 2026-07-28 and migration eras' findings the same way (`--era
//! mixed` and `--era migration`, 20,000 seeds each):
//! - `zombie_session`: a resumption answered 200 by a server that checked the session and
//!   found it alive, followed by the 404 of an ordinary expiry minutes later (mixed seed 177,
//!   55 of 20,000 mixed seeds).
//! - `quarantine_violation`: a fleet tenant's session, dead, whose events a store shared by
//!   stream replayed to the client (already `foreign_event`'s).
//! - `cursor_reuse`: a cursor honoured in another generation's numbering with nothing
//!   replayed after it; what it skipped is the `silent_gap` already reported.
//! - `era_mismatch`: the probe named was a re-probe sent at the failure's instant after
//!   it, not the probe the client misread; and a roll to the era the server already spoke
//!   was named as an era change.
//! - `refused_without_recovery`: a 2025 session's calls refused for their era after a roll
//!   to 2026-07-28 only, where a new session would be refused alike.
//! - `untested`: "the client never made the scenario's call" of a call the balancer
//!   refused itself, with no replica up.
//!
//! And by reading other seeds of each finding class than the smallest (the explorer keeps
//! one): a checked resumption whose session a fault set off by the replay killed at the
//! same instant (`zombie_session`); a cursor matched to its own event in a log a restart
//! kept, the replay right after it (`cursor_reuse`: the loss is the `silent_gap` of an id
//! skipped as seen); a client that had moved to a new session, or whose call a server
//! that stopped keeping sessions served under the dead id (`refused_without_recovery`);
//! a request stream a restart cut, which the ledger did not record (`duplicate_effect`
//! named no cut); work that finished after its task's record was purged ("had finished").
//!
//! And a `clean` that was not: a 2026-07-28 list kept past its `ttlMs` and called from
//! after a change no listen brought (made silently while the client listened); and a
//! `clean` over nothing, a shrunk scenario with no call, no fault and no event. And a
//! `detected` that called "re-issued and completed" a call the guarded client had told
//! the application it gave up on, whose result came afterwards; a `detected` whose cut
//! call hid the one re-issued; and a `clean` that did not say a call had failed.

use faultline_model::{CursorResolution, EraAnswerKind, HttpMethod, RouteWhy};
use faultline_sim::{ClientModel, Evidence, Scenario, VerdictKind, run};
use faultline_verdicts::era_mismatch::EraMismatch;

/// A witness of `misread_witnesses/`, each file the explorer's shrunk scenario with the
/// scenario's words put in place of the explorer's.
fn witness(name: &str) -> Scenario {
    Scenario::load(std::path::Path::new(&format!(
        "{}/tests/misread_witnesses/{name}.ron",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

#[test]
fn a_tenant_admitted_after_a_failed_get_is_no_abandonment() {
    let scenario = witness("tenant_after_a_failed_get");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence the old rule misread: the client's session, its GET refused, then a
    // session no request named.
    assert_eq!(ledger.sessions.len(), 2, "{:?}", ledger.sessions);
    let (client, tenant) = (&ledger.sessions[0], &ledger.sessions[1]);
    let named = |wire: &str| {
        ledger
            .answers
            .iter()
            .any(|a| a.session_sent.as_deref() == Some(wire))
    };
    assert!(named(&client.wire_id) && !named(&tenant.wire_id));
    let last_of_client = ledger
        .answers
        .iter()
        .rfind(|a| a.session_sent.as_deref() == Some(client.wire_id.as_str()))
        .unwrap();
    assert!(last_of_client.status >= 500 && last_of_client.at_ms < tenant.created_ms);
    assert!(client.died.is_none(), "the client's session was alive");
    assert!(
        !outcome.has(VerdictKind::SessionAbandoned),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_new_session_on_a_misrouted_404_is_not_an_abandonment_of_the_400_after_it() {
    let scenario = witness("misrouted_then_400");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    let (old, new) = (&ledger.sessions[0], &ledger.sessions[1]);
    // The evidence: at the instant the new session was made, a misrouted 404 and then a
    // 400 named the old one, which was alive.
    let last_two: Vec<(u16, bool)> = ledger
        .answers
        .iter()
        .filter(|a| a.at_ms == new.created_ms)
        .filter(|a| a.session_sent.as_deref() == Some(old.wire_id.as_str()))
        .map(|a| (a.status, ledger.misroutes.iter().any(|m| m.conn == a.conn)))
        .collect();
    assert_eq!(last_two, [(404, true), (400, false)]);
    assert!(old.died.is_none_or(|(at, _)| at > new.created_ms));
    assert!(outcome.has(VerdictKind::MisroutedSession));
    assert!(
        !outcome.has(VerdictKind::SessionAbandoned),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn retries_with_a_success_between_two_outages_are_no_reconnect_loop() {
    let scenario = witness("retries_through_two_outages");
    let outcome = run(&scenario, scenario.seed, ClientModel::Guarded);
    let ledger = &outcome.result.ledger;
    // The evidence: POSTs without a session refused 503 with no JSON-RPC method (no
    // replica up), 10 or more of them in all, and an `initialize` answered 200 between
    // the first and the last of them.
    let refused: Vec<u64> = ledger
        .answers
        .iter()
        .filter(|a| a.status == 503 && a.session_sent.is_none() && a.rpc_method.is_none())
        .map(|a| a.at_ms)
        .collect();
    assert!(refused.len() >= 10, "{refused:?}");
    let (first, last) = (refused[0], refused[refused.len() - 1]);
    assert!(ledger.answers.iter().any(|a| {
        a.rpc_method.as_deref() == Some("initialize")
            && a.status == 200
            && (first..last).contains(&a.at_ms)
    }));
    assert!(
        !outcome.has(VerdictKind::ReconnectLoop),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn bounded_retries_of_several_tasks_into_a_gone_session_are_no_reconnect_loop() {
    for (name, gone) in [
        ("stale_tasks_dead_session", VerdictKind::RetryAmplification),
        ("stale_tasks_misrouted", VerdictKind::MisroutedSession),
    ] {
        let scenario = witness(name);
        let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
        let ledger = &outcome.result.ledger;
        // The evidence: ten or more `POST tools/call` refused 404 in a row for one
        // session, from three tasks, and a run that went quiet rather than being cut.
        let refused = ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("tools/call") && a.status == 404)
            .count();
        assert!(refused >= 10, "{}: {refused}", scenario.name);
        assert!(outcome.result.record.horizon_cut_ms.is_none());
        assert!(
            outcome.has(gone),
            "{}: {:?}",
            scenario.name,
            outcome.verdicts
        );
        assert!(
            !outcome.has(VerdictKind::ReconnectLoop),
            "{}: {:?}",
            scenario.name,
            outcome.verdicts
        );
    }
}

#[test]
fn a_replay_a_checking_server_answered_for_a_live_session_is_no_zombie() {
    let scenario = witness("session_alive_at_the_replay");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence: a resumption answered by a server that checked the session, which
    // died after it, then a call answered 404.
    let resumed = &ledger.resumptions[0];
    assert!(matches!(
        resumed.resolution,
        CursorResolution::Honoured { .. }
    ));
    assert!(!resumed.session_unchecked);
    let (died, _) = ledger.sessions[0].died.expect("the session expired");
    assert!(died > resumed.at_ms, "{died} > {}", resumed.at_ms);
    assert!(
        ledger
            .answers
            .iter()
            .any(|a| a.status == 404 && a.at_ms > died)
    );
    assert!(outcome.has(VerdictKind::RetryAmplification));
    assert!(
        !outcome.has(VerdictKind::ZombieSession),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_dead_tenants_events_are_foreign_not_a_quarantine_violation() {
    let scenario = witness("tenant_events_after_its_death");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence: events of a session no request named, applied after it died.
    let own = faultline_verdicts::client_sessions(ledger);
    let after_death = outcome.result.record.applied.iter().any(|a| {
        let e = ledger.event(a.event);
        !own.contains(&e.session) && ledger.death(e.session).is_some_and(|(at, _)| at < a.at_ms)
    });
    assert!(after_death);
    assert!(outcome.has(VerdictKind::ForeignEvent));
    assert!(
        !outcome.has(VerdictKind::QuarantineViolation),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_cursor_honoured_elsewhere_with_nothing_replayed_is_a_gap_not_a_reuse() {
    let scenario = witness("cursor_reused_nothing_replayed");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence: a resumption honoured in generation 2, nothing replayed.
    assert!(ledger.resumptions.iter().any(|r| matches!(
        r.resolution,
        CursorResolution::Honoured {
            generation: 2,
            replayed: 0,
            ..
        }
    )));
    assert!(outcome.has(VerdictKind::SilentGap));
    assert!(
        !outcome.has(VerdictKind::CursorReuse),
        "{:?}",
        outcome.verdicts
    );
}

/// A witness's naive run and its one `era_mismatch`'s evidence.
fn era_mismatch(name: &str) -> (faultline_sim::RunOutcome, EraMismatch) {
    let scenario = witness(name);
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let found: Vec<&EraMismatch> = outcome
        .verdicts
        .iter()
        .filter_map(|v| match &v.evidence {
            Evidence::EraMismatch(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "{name}: {:?}", outcome.verdicts);
    let m = found[0].clone();
    (outcome, m)
}

#[test]
fn the_probe_named_is_the_one_misread_not_the_reprobe_after_the_failure() {
    let (outcome, m) = era_mismatch("reprobe_at_the_failure");
    let ledger = &outcome.result.ledger;
    // The evidence: two probes, the second at the first failure's instant, sent after it.
    let probes: Vec<(u64, u64)> = ledger
        .answers
        .iter()
        .filter(|a| a.rpc_method.as_deref() == Some("server/discover"))
        .map(|a| (a.conn.0, a.at_ms))
        .collect();
    let failed = &m.failed[0];
    assert_eq!(probes.len(), 2, "{probes:?}");
    assert!(probes[1].1 == failed.at_ms && probes[1].0 > failed.conn.0);
    assert_eq!(m.probe.as_ref().map(|p| p.conn.0), Some(probes[0].0));
    assert!(m.reprobed);
}

#[test]
fn a_roll_to_the_era_the_server_spoke_is_no_era_change() {
    let (outcome, m) = era_mismatch("roll_to_the_same_era");
    let ledger = &outcome.result.ledger;
    assert!(ledger.era_changes.iter().any(|c| c.from == c.to));
    assert!(m.era_changes.is_empty(), "{:?}", m.era_changes);
    // The timeline says so too, rather than "into another era (LegacyOnly to LegacyOnly)".
    let trace = serde_json::to_string(&outcome.result.trace).unwrap();
    assert!(
        trace.contains("server restart, redeployed in the same era (LegacyOnly)")
            && !trace.contains("into another era"),
        "{trace}"
    );
}

#[test]
fn calls_refused_for_their_era_are_not_a_session_refused() {
    let (outcome, _) = era_mismatch("era_refusals_after_a_roll");
    let ledger = &outcome.result.ledger;
    // The evidence: calls naming the client's (dead) session, refused for their era.
    let era_refused = ledger.answers.iter().filter(|a| {
        a.session_sent.is_some()
            && ledger
                .era_answers
                .iter()
                .any(|e| e.conn == a.conn && e.kind == EraAnswerKind::Refused)
    });
    assert!(era_refused.count() >= 2);
    assert!(
        !outcome.has(VerdictKind::RefusedWithoutRecovery),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_call_the_balancer_refused_was_made() {
    let scenario = witness("fleet_down_at_the_call");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    assert!(ledger.answers.iter().any(|a| a.method == HttpMethod::Post
        && a.status == 503
        && a.route.is_some_and(|r| r.why == RouteWhy::NoneHealthy)));
    let reasons: Vec<&String> = outcome
        .verdicts
        .iter()
        .filter_map(|v| match &v.evidence {
            Evidence::Untested(u) => Some(&u.reasons),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(
        reasons.iter().any(|r| r.contains("the balancer refused")),
        "{reasons:?}"
    );
    assert!(
        !reasons.iter().any(|r| r.contains("never made")),
        "{reasons:?}"
    );
}

#[test]
fn a_session_killed_after_a_checked_replay_at_its_instant_is_no_zombie() {
    let scenario = witness("session_died_at_the_replays_instant");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence: a checked resumption answered 200 at the instant the session died.
    let resumed = ledger
        .resumptions
        .iter()
        .find(|r| matches!(r.resolution, CursorResolution::Honoured { .. }))
        .expect("a replay");
    assert!(!resumed.session_unchecked);
    let (died, _) = ledger.sessions[0].died.expect("the session died");
    assert_eq!(died, resumed.at_ms);
    assert!(
        !outcome.has(VerdictKind::ZombieSession),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_replay_right_after_the_cursors_own_event_is_no_cursor_reuse() {
    let scenario = witness("resumed_after_the_cursors_own_event");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &outcome.result.ledger;
    // The evidence: the cursor's event (generation 1) and the first event replayed after
    // it (generation 2, numbered from 1 again) are neighbours on one stream.
    let replayed = ledger.sends.iter().find(|s| s.replay).expect("a replay");
    let first = ledger.event(replayed.event);
    let before = ledger
        .events
        .iter()
        .find(|e| e.stream == first.stream && e.ordinal + 1 == first.ordinal)
        .expect("the event before it");
    assert_eq!((before.generation, first.generation), (1, 2));
    assert!(outcome.has(VerdictKind::SilentGap));
    assert!(
        !outcome.has(VerdictKind::CursorReuse),
        "{:?}",
        outcome.verdicts
    );
}

#[test]
fn a_client_on_a_new_session_or_served_under_the_dead_id_recovered() {
    for name in [
        "stale_task_after_a_new_session",
        "dead_id_served_after_a_roll",
    ] {
        let scenario = witness(name);
        let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
        let ledger = &outcome.result.ledger;
        // The evidence: after the session died, some request succeeded (a POST, or one
        // naming another session).
        let dead = ledger
            .sessions
            .iter()
            .filter_map(|s| s.died.map(|(at, _)| (s.wire_id.as_str(), at)))
            .collect::<Vec<_>>();
        assert!(
            dead.iter()
                .any(|&(wire, at)| ledger.answers.iter().any(|a| {
                    a.at_ms >= at
                        && (200..300).contains(&a.status)
                        && (a.method == HttpMethod::Post || a.session_sent.as_deref() != Some(wire))
                })),
            "{name}"
        );
        assert!(
            !outcome.has(VerdictKind::RefusedWithoutRecovery),
            "{name}: {:?}",
            outcome.verdicts
        );
    }
}

#[test]
fn a_request_stream_a_restart_cut_is_named_as_cut() {
    let scenario = witness("restart_cut_the_request_stream");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let restart = outcome.result.ledger.restarts[0];
    let cut = outcome.verdicts.iter().find_map(|v| match &v.evidence {
        Evidence::DuplicateEffect { cut_at_ms, .. } => Some(*cut_at_ms),
        _ => None,
    });
    assert_eq!(cut, Some(Some(restart)), "{:?}", outcome.verdicts);
}

#[test]
fn work_that_finished_after_its_task_was_purged_is_said_to() {
    let scenario = witness("task_purged_before_its_work_finished");
    let outcome = run(&scenario, scenario.seed, ClientModel::Naive);
    let lost = outcome
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::LostTask)
        .expect("lost_task");
    assert!(
        lost.summary.contains("finished afterwards") && !lost.summary.contains("had finished"),
        "{}",
        lost.summary
    );
}

#[test]
fn a_list_kept_past_its_ttl_after_a_silent_change_is_no_clean() {
    let scenario = witness("list_kept_past_its_ttl");
    let naive = run(&scenario, scenario.seed, ClientModel::Naive);
    let ledger = &naive.result.ledger;
    // The evidence: a silent change, and a call after the held list's ttlMs ran out.
    let listed = ledger
        .answers
        .iter()
        .find(|a| a.list_ttl_ms.is_some())
        .expect("a 2026-07-28 list");
    let expired = listed.at_ms + listed.list_ttl_ms.unwrap();
    assert!(
        ledger
            .list_changes
            .iter()
            .any(|c| !c.notified && c.at_ms > expired)
    );
    assert!(naive.has(VerdictKind::MissedChange), "{:?}", naive.verdicts);
    // The guarded client lists again when the hint runs out: nothing missed.
    let guarded = run(&scenario, scenario.seed, ClientModel::Guarded);
    assert!(
        !guarded.has(VerdictKind::MissedChange),
        "{:?}",
        guarded.verdicts
    );
}

#[test]
fn a_run_with_nothing_planned_or_produced_is_untested() {
    let scenario = witness("planned_nothing");
    assert!(scenario.workload.is_empty() && scenario.faults.is_empty());
    let guarded = run(&scenario, scenario.seed, ClientModel::Guarded);
    // The evidence: the client made its session and listened; nothing was produced.
    let ledger = &guarded.result.ledger;
    assert!(!ledger.answers.is_empty());
    assert!(ledger.events.iter().all(|e| !e.payload.carries_data()));
    let kinds: Vec<VerdictKind> = guarded.verdicts.iter().map(|v| v.kind).collect();
    assert_eq!(kinds, [VerdictKind::Untested], "{:?}", guarded.verdicts);
    // `untested` replaces only `clean`: the naive client's misrouted request (the finding
    // the witness was shrunk for) still stands alone.
    let naive = run(&scenario, scenario.seed, ClientModel::Naive);
    let kinds: Vec<VerdictKind> = naive.verdicts.iter().map(|v| v.kind).collect();
    assert_eq!(
        kinds,
        [VerdictKind::MisroutedSession],
        "{:?}",
        naive.verdicts
    );
}

#[test]
fn a_result_after_the_client_gave_up_is_not_a_recovery() {
    let scenario = witness("result_after_giving_up");
    let outcome = run(&scenario, scenario.seed, ClientModel::Guarded);
    let record = &outcome.result.record;
    // The evidence: call-1's failure told to the application, then its completion.
    let told = record
        .errors
        .iter()
        .find(|e| e.scope == faultline_verdicts::client_record::ErrorScope::Call(1))
        .expect("call-1's failure was surfaced");
    let completed = record.calls[1].completed_at_ms.expect("a result came");
    assert!(told.at_ms < completed && record.calls[1].attempts > 1);
    let detected = outcome
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::Detected)
        .expect("detected");
    assert!(
        detected.summary.contains("re-issued and completed: none;")
            && detected
                .summary
                .contains("then its result arrived anyway: call-1 (at T+2m)"),
        "{}",
        detected.summary
    );
}

#[test]
fn a_clean_run_names_the_call_that_failed_loudly() {
    let scenario = witness("task_failed_after_a_restart");
    let outcome = run(&scenario, scenario.seed, ClientModel::Guarded);
    // The evidence: the call failed, the application was told, nothing was produced.
    let record = &outcome.result.record;
    assert!(record.calls[0].failed_at_ms.is_some() && record.calls[0].completed_at_ms.is_none());
    let kinds: Vec<VerdictKind> = outcome.verdicts.iter().map(|v| v.kind).collect();
    assert_eq!(kinds, [VerdictKind::Clean], "{:?}", outcome.verdicts);
    let said = &outcome.verdicts[0].summary;
    assert!(
        said.contains("the application was told these calls failed: call-0 (task ")
            && said.contains("ended failed"),
        "{said}"
    );
}

#[test]
fn a_call_cut_and_left_does_not_hide_the_call_re_issued() {
    let scenario = witness("cut_and_left_beside_re_issued");
    let outcome = run(&scenario, scenario.seed, ClientModel::Guarded);
    let record = &outcome.result.record;
    assert!(record.calls[0].attempts > 1 && record.calls[0].completed_at_ms.is_some());
    let detected = outcome
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::Detected)
        .expect("detected");
    assert!(
        detected.summary.ends_with(
            "cut and not re-issued, their outcome left to the application: call-1; re-issued and completed: call-0"
        ),
        "{}",
        detected.summary
    );
}
