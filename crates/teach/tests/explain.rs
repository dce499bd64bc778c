//! `explain` is checked against the run, not against fixed prose: for every verdict the
//! run has, the explanation must name the verdict, its guard, and the evidence behind it
//! (ids, cursor, generations, times, statuses), and the trap must name the knobs that set it.

use std::path::PathBuf;

use faultline_sim::{ClientModel, Evidence, RunOutcome, Scenario, VerdictKind, vtime};
use faultline_teach::{explain, guard_for_verdict, guards_fired};

fn scenarios() -> Vec<(String, Scenario)> {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    let mut out = Vec::new();
    for dir in ["scenarios", "scenarios/field", "docs/scenarios"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        {
            let s = Scenario::load(&p).expect("scenario loads");
            out.push((p.display().to_string(), s));
        }
    }
    assert!(out.len() >= 3);
    out
}

fn check(name: &str, scenario: &Scenario, outcome: &RunOutcome, text: &str) {
    let ctx = format!("{name} ({}):\n{text}", outcome.client.name());
    for v in &outcome.verdicts {
        assert!(
            text.contains(v.kind.name()),
            "{ctx}\nmissing kind {}",
            v.kind
        );
        let guard = guard_for_verdict(v, &outcome.verdicts);
        // A detection is told by the guard that fired when the run's typed errors name
        // one (a 2026-07-28 client's `CallCutError`, `TaskLostError`).
        let fired: Vec<&str> = outcome
            .result
            .record
            .errors
            .iter()
            .flat_map(|e| guards_fired(&e.error.to_string()))
            .collect();
        assert!(
            text.contains(guard.name)
                || (v.kind == VerdictKind::Detected && fired.iter().any(|g| text.contains(g))),
            "{ctx}\nmissing guard {} (fired: {fired:?})",
            guard.name
        );
        match &v.evidence {
            Evidence::Gap {
                ids,
                skipped_as_seen,
                never_delivered,
                lost_results,
                ..
            } => {
                assert!(text.contains(&format!("ids {ids}")), "{ctx}");
                if !skipped_as_seen.0.is_empty() {
                    assert!(text.contains("discarded as already seen"), "{ctx}");
                }
                if !never_delivered.0.is_empty() {
                    assert!(text.contains("never reached it"), "{ctx}");
                }
                for call in lost_results {
                    assert!(text.contains(&format!("final result of {call}")), "{ctx}");
                }
            }
            Evidence::CursorReuse {
                cursor,
                minted_in_generation,
                honoured_in_generation,
                ..
            } => {
                assert!(text.contains(&format!("Last-Event-ID {cursor}, minted in generation {minted_in_generation}, was honoured in generation {honoured_in_generation}")), "{ctx}");
                assert!(
                    text.contains("`id_scheme: PerGeneration`")
                        || text.contains("`id_scheme: PerStream`")
                        || text.contains("`id_scheme: Constant`"),
                    "{ctx}"
                );
            }
            Evidence::Zombie(zombie) => {
                let (status, rejected_at_ms, session_died_at_ms) = (
                    &zombie.status,
                    &zombie.rejected_at_ms,
                    &zombie.session_died_at_ms,
                );
                assert!(text.contains(&format!("got {status}")), "{ctx}");
                assert!(text.contains(&vtime(*rejected_at_ms)), "{ctx}");
                if let Some(died) = session_died_at_ms {
                    assert!(text.contains(&format!("died at {}", vtime(*died))), "{ctx}");
                }
                if !scenario.server.get_validates_session {
                    assert!(text.contains("get_validates_session: false"), "{ctx}");
                }
            }
            Evidence::Requests(found) => {
                let requests = &found.requests;
                for r in requests {
                    assert!(text.contains(&vtime(r.at_ms)), "{ctx}");
                }
            }
            Evidence::ReconnectLoop(found) => {
                assert!(text.contains(&found.request()), "{ctx}");
                assert!(
                    text.contains(&format!("{} times in a row", found.attempts)),
                    "{ctx}"
                );
            }
            Evidence::RefusedWithoutRecovery(found) => {
                assert!(text.contains(&found.session), "{ctx}");
                assert!(
                    text.contains(&format!("{} requests", found.refused)),
                    "{ctx}"
                );
            }
            Evidence::SessionAbandoned(found) => {
                assert!(text.contains(&found.session), "{ctx}");
                assert!(text.contains(&found.replaced_by), "{ctx}");
                assert!(text.contains(&found.after_request), "{ctx}");
            }
            Evidence::Untested(untested) => {
                for reason in &untested.reasons {
                    assert!(text.contains(reason.as_str()), "{ctx}");
                }
            }
            Evidence::Hung { pending_calls, .. } => {
                for call in pending_calls {
                    assert!(text.contains(call.as_str()), "{ctx}");
                }
            }
            Evidence::Applied { events, .. } => {
                assert!(text.contains(&events[0].id.to_string()), "{ctx}");
            }
            Evidence::Detected { errors, .. } => {
                for e in errors {
                    assert!(text.contains(e.as_str()), "{ctx}");
                }
            }
            Evidence::DuplicateEffect {
                order,
                commits,
                cut_at_ms,
                ..
            } => {
                assert!(
                    text.contains(&format!("order {order} was placed {} times", commits.len())),
                    "{ctx}"
                );
                if let Some(cut) = cut_at_ms {
                    assert!(text.contains(&format!("cut at {}", vtime(*cut))), "{ctx}");
                }
            }
            Evidence::LostTask(task) => {
                assert!(text.contains(&format!("task {}", task.task_id)), "{ctx}");
                assert!(text.contains("got -32602"), "{ctx}");
            }
            Evidence::EraMismatch(m) => {
                assert!(text.contains(&m.server_era), "{ctx}");
                if m.sessionless {
                    assert!(text.contains("speaks sessionless 2025"), "{ctx}");
                } else {
                    assert!(text.contains("never probed again") || m.reprobed, "{ctx}");
                }
            }
            Evidence::Misrouted(found) => {
                let (held_by, requests) = (&found.held_by, &found.requests);
                assert!(text.contains(&format!("alive on r{held_by}")), "{ctx}");
                for r in requests {
                    let why = r.why.expect("a fleet's answer carries its route");
                    assert!(
                        text.contains(&format!("went to r{} by {}", r.answered_by, why.label())),
                        "{ctx}"
                    );
                }
            }
            Evidence::MissedChange(m) => {
                assert!(
                    text.contains(&format!(
                        "changed to version {} at {}",
                        m.changed_to,
                        vtime(m.changed_at_ms)
                    )),
                    "{ctx}"
                );
                assert!(text.contains(&vtime(m.used_at_ms)), "{ctx}");
            }
            Evidence::None => {}
            // A real client's evidence: never in a simulated run.
            Evidence::Values(_)
            | Evidence::RepeatedValues { .. }
            | Evidence::HandedAfterDeath(_)
            | Evidence::HandedForeign(_)
            | Evidence::NoReport { .. }
            | Evidence::NotApplicable(_)
            | Evidence::OutOfOrder(_)
            | Evidence::OtherEra { .. } => {
                panic!("{ctx}: a real client's evidence in a simulated run")
            }
        }
    }
    // What was really true: every session's death, from the ledger.
    for s in &outcome.result.ledger.sessions {
        if let Some((at, _)) = s.died {
            assert!(text.contains(&format!("died at {}", vtime(at))), "{ctx}");
        }
    }
    // The trap names the knobs that are not the well-behaved default.
    let knobs = &scenario.server;
    if knobs.event_log_ttl.is_some() {
        assert!(text.contains("`event_log_ttl`"), "{ctx}");
    }
    if knobs.restart_persistence == faultline_model::RestartPersistence::SessionIdsOnly {
        assert!(
            text.contains("restart_persistence: SessionIdsOnly"),
            "{ctx}"
        );
    }
    if knobs.unknown_cursor == faultline_model::UnknownCursor::FreshStream {
        assert!(text.contains("unknown_cursor: FreshStream"), "{ctx}");
    }
    let fleet = &scenario.fleet;
    if fleet.is_multi() {
        assert!(
            text.contains(&format!("{} replicas serve one address", fleet.replicas)),
            "{ctx}"
        );
        assert!(
            text.contains(&format!("`balancer: {:?}`", fleet.balancer)),
            "{ctx}"
        );
        assert!(
            text.contains(&format!("`session_store: {:?}`", fleet.session_store)),
            "{ctx}"
        );
    } else {
        assert!(!text.contains("replicas serve one address"), "{ctx}");
    }
}

/// A fleet's misroute is explained with the replicas involved.
#[test]
fn a_misrouted_session_is_explained_with_both_replicas() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    let path = root.join("scenarios/field/replicas_round_robin.ron");
    let scenario = Scenario::load(&path).expect("scenario loads");
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = faultline_sim::run(&scenario, scenario.seed, client);
        assert!(outcome.has(VerdictKind::MisroutedSession));
        let text = explain(&scenario, &outcome, None);
        check("replicas_round_robin", &scenario, &outcome, &text);
    }
}

#[test]
fn every_verdict_is_explained_with_its_evidence_and_guard() {
    for (name, scenario) in scenarios() {
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let outcome = faultline_sim::run(&scenario, scenario.seed, client);
            let text = explain(&scenario, &outcome, None);
            check(&name, &scenario, &outcome, &text);
        }
    }
}

#[test]
fn the_three_incidents_name_their_causes() {
    let all = scenarios();
    let get = |n: &str| {
        all.iter()
            .find(|(p, _)| p.ends_with(n))
            .map(|(_, s)| s.clone())
            .unwrap()
    };
    // Behavior A: the log forgot the cursor while the session lived; the fresh stream's ids
    // restarted; the contiguity check is the guard.
    let a = get("scenarios/behavior_a.ron");
    let out = faultline_sim::run(&a, a.seed, ClientModel::Naive);
    let text = explain(&a, &out, None);
    assert!(out.has(VerdictKind::SilentGap));
    assert!(text.contains("was unknown to the event log"), "{text}");
    assert!(text.contains("The ids restarted at 1"), "{text}");
    assert!(text.contains("contiguity check"), "{text}");
    // Behavior B: the replay was contiguous in the wrong numbering, so only capability
    // gating catches the gap, not the contiguity check.
    let b = get("scenarios/behavior_b.ron");
    let out = faultline_sim::run(&b, b.seed, ClientModel::Naive);
    let text = explain(&b, &out, None);
    assert!(text.contains("the stream looked contiguous"), "{text}");
    assert!(text.contains("made it generation 2"), "{text}");
    assert!(
        text.contains("silent_gap: caught by the guard \"monotonic-id capability gating\""),
        "{text}"
    );
    // The cascade: the client believed the 200; the session died at T+31m; the probe is
    // the guard.
    let c = get("scenarios/replay_404_cascade.ron");
    let out = faultline_sim::run(&c, c.seed, ClientModel::Naive);
    let text = explain(&c, &out, None);
    assert!(
        text.contains("A 200 on the GET looked like proof the session was alive"),
        "{text}"
    );
    assert!(
        text.contains("died at T+31m (its absolute TTL ran out)"),
        "{text}"
    );
    assert!(text.contains("liveness probe after replay"), "{text}");
    // And the guarded client's explanation names the guard that fired.
    let out = faultline_sim::run(&c, c.seed, ClientModel::Guarded);
    let text = explain(&c, &out, None);
    assert!(text.contains("it sent a liveness probe"), "{text}");
    assert!(text.contains("fired"), "{text}");
}

/// One instant, one story: the guarded client in Behavior A deletes its session at the very
/// instant the resumption is answered; the explanation must not call the session dead
/// before that answer after saying the client deleted it.
#[test]
fn a_session_deleted_at_the_resumption_instant_is_not_called_already_dead() {
    let all = scenarios();
    let (_, a) = all
        .iter()
        .find(|(p, _)| p.ends_with("scenarios/behavior_a.ron"))
        .unwrap();
    let out = faultline_sim::run(a, a.seed, ClientModel::Guarded);
    let text = explain(a, &out, None);
    assert!(
        text.contains("died at T+41m45s (the client deleted it)"),
        "{text}"
    );
    assert!(!text.contains("already dead"), "{text}");
    assert!(
        text.contains("the client deleted it right after, at the same instant"),
        "{text}"
    );
}

/// A 2026-07-28 run is told without sessions or cursors: the trap is the unresumable
/// request stream and `on_stream_cut`, the client saw its stream end before the response,
/// the ledger shows each commit of the order, and the guarded client's guard is named.
#[test]
fn a_cut_2026_call_is_told_as_a_call_not_a_session() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    let s =
        Scenario::load(&root.join("scenarios/field/reissue_duplicate_effect.ron")).expect("loads");
    let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    let text = explain(&s, &naive, Some(&guarded));
    check("reissue_duplicate_effect", &s, &naive, &text);
    for want in [
        "`on_stream_cut: StopAtOnce`",
        "ended (Reset) before the response",
        "each as a new request with a new id",
        "At T+3s order call-0 was committed by request 1 (job #0).",
        "At T+6s order call-0 was committed by request 2 (job #1).",
        "re-issued with a new request id at T+4s",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    for unwanted in [
        "Session  was created",
        "idempotency key{",
        "stayed healthy",
        "id_scheme",
    ] {
        assert!(!text.contains(unwanted), "{unwanted:?} in:\n{text}");
    }
    let text = explain(&s, &guarded, Some(&naive));
    assert!(
        text.contains("detected: no blind re-issue of a non-idempotent call fired"),
        "{text}"
    );
    assert!(!text.contains("tore the session down"), "{text}");
}

/// A 2026-07-28 run whose only cut stream is a listen is told as a dropped listen: the
/// trap is the listen that keeps no state, the client saw its listen end (not a call it
/// could not judge), and nothing speaks of a call's job at a cut.
#[test]
fn a_dropped_2026_listen_is_told_as_a_listen_not_a_call() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    for name in ["idle_proxy_cuts_listen", "listen_missed_change"] {
        let s = Scenario::load(&root.join(format!("scenarios/field/{name}.ron"))).expect("loads");
        let naive = faultline_sim::run(&s, s.seed, ClientModel::Naive);
        let text = explain(&s, &naive, None);
        check(name, &s, &naive, &text);
        for want in [
            "a new listen replays nothing",
            "its listen stream (POST subscriptions/listen sent at T+0s) ended (Reset)",
        ] {
            assert!(text.contains(want), "{name}: missing {want:?} in:\n{text}");
        }
        for unwanted in ["on_stream_cut", "whether the call had taken effect"] {
            assert!(!text.contains(unwanted), "{name}: {unwanted:?} in:\n{text}");
        }
    }
}

/// A task store that runs an interrupted task again after a restart places the order
/// twice on its own: the explanation says the server did it and no client re-issued the
/// call (not "the call was re-issued").
#[test]
fn a_duplicate_the_server_made_by_re_running_a_task_is_told_as_the_servers() {
    let scenario = Scenario::parse(
        r#"Scenario(name: "rerun", summary: "t", seed: 378,
            server: (task_persistence: Everything),
            client: (model: Guarded, era: Modern, use_tasks: true),
            workload: [CallTool(at: "5m", tool: PlaceOrder(steps: 18, interval: "12s843ms", commit_step: Some(6)), progress: true)],
            faults: [Restart(when: At("7m"))],
            horizon: Some("1d"))"#,
        "rerun.ron",
    )
    .expect("valid");
    for client in [ClientModel::Naive, ClientModel::Guarded] {
        let outcome = faultline_sim::run(&scenario, scenario.seed, client);
        assert!(outcome.has(VerdictKind::DuplicateEffect), "{client:?}");
        let text = explain(&scenario, &outcome, None);
        check("rerun", &scenario, &outcome, &text);
        assert!(text.contains("the server restarted at T+7m"), "{text}");
        assert!(text.contains("No client re-issued the call"), "{text}");
        assert!(
            !text.contains("was re-issued with a new request id"),
            "{text}"
        );
    }
}

/// A `clean` run whose call failed, and the application was told, does not say "no guard
/// had to fire": nothing produced was lost, but the call was not done, and the explanation
/// names it.
#[test]
fn a_clean_run_with_a_call_that_failed_out_loud_names_the_call() {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", ".."].iter().collect();
    let s = Scenario::load(
        &root.join("crates/sim/tests/misread_witnesses/task_failed_after_a_restart.ron"),
    )
    .expect("loads");
    let guarded = faultline_sim::run(&s, s.seed, ClientModel::Guarded);
    assert_eq!(
        guarded.kinds(),
        vec![VerdictKind::Clean],
        "{:?}",
        guarded.verdicts
    );
    let failed = guarded.result.record.calls_failed_loudly();
    assert!(!failed.is_empty(), "the witness's call must fail out loud");
    let text = explain(&s, &guarded, None);
    check("task_failed_after_a_restart", &s, &guarded, &text);
    assert!(
        !text.contains("so no guard had to fire"),
        "a failed call told as nothing to guard:\n{text}"
    );
    for (key, _) in failed {
        assert!(
            text.contains(&format!(
                "the application was told this call failed ({key})"
            )),
            "missing the failed call {key} in:\n{text}"
        );
    }
    // Every bundled clean run with no failed call keeps the plain sentence.
    let mut plain = 0;
    for (name, s) in scenarios() {
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let o = faultline_sim::run(&s, s.seed, client);
            if o.kinds() == vec![VerdictKind::Clean]
                && o.result.record.calls_failed_loudly().is_empty()
            {
                let text = explain(&s, &o, None);
                assert!(text.contains("so no guard had to fire"), "{name}:\n{text}");
                plain += 1;
            }
        }
    }
    assert!(
        plain > 0,
        "no bundled clean run to check the plain sentence on"
    );
}
