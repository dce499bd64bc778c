//! The field client's habits (`client: (habits: (...))`), one by one: each test runs one
//! server with the naive preset and with the habit, and shows the difference the habit
//! makes on the wire or in the verdicts. Without the habit's code each test fails.

use faultline_sim::{ClientModel, RunOutcome, VerdictKind, run};

use crate::common::scenario;

fn naive(text: &str) -> RunOutcome {
    let s = scenario(text);
    run(&s, s.seed, ClientModel::Naive)
}

/// When requests matching `what` (`"GET"` or a JSON-RPC method) reached the server.
fn answered_at(o: &RunOutcome, what: &str) -> Vec<u64> {
    o.result
        .ledger
        .answers
        .iter()
        .filter(|a| {
            a.rpc_method.as_deref() == Some(what)
                || (what == "GET" && a.method == faultline_model::HttpMethod::Get)
        })
        .map(|a| a.at_ms)
        .collect()
}

/// The text of the bundled scenario at `path` (from the repository root).
fn bundled(path: &str) -> String {
    let file = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `text` with `habits` set on its client, run with the naive client.
fn naive_with(text: &str, habits: &str) -> RunOutcome {
    let changed = text.replace("client: (", &format!("client: (habits: ({habits}), "));
    assert_ne!(changed, text, "the scenario has a client block");
    naive(&changed)
}

/// A session that expires between two calls, answered `dead` when dead.
fn expiring(dead: &str, habits: &str) -> String {
    format!(
        r#"Scenario(
    name: "expiring",
    summary: "inline",
    seed: 1,
    server: (session_idle_ttl: "1m", dead_session_answer: {dead}),
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "a")),
        CallTool(at: "5m", tool: Echo(text: "b")),
        CallTool(at: "6m", tool: Echo(text: "c")),
    ],
)"#
    )
}

#[test]
fn reinit_never_keeps_the_dead_session_and_at_once_resends_in_a_new_one() {
    let preset = naive(&expiring("NotFound", ""));
    assert!(
        preset.result.ledger.sessions.len() >= 2,
        "after three retries"
    );
    assert!(
        answered_at(&preset, "initialize")[1] >= 307_000,
        "1 s, 2 s, 4 s"
    );
    let never = naive(&expiring("NotFound", "reinit: Never"));
    assert_eq!(never.result.ledger.sessions.len(), 1);
    assert!(never.has(VerdictKind::RefusedWithoutRecovery));
    let at_once = naive(&expiring("NotFound", "reinit: AtOnce"));
    let calls = &at_once.result.record.calls;
    assert!(
        calls.iter().all(|c| c.completed_at_ms.is_some()),
        "the refused call is sent again in the new session: {calls:?}"
    );
    assert_eq!(answered_at(&at_once, "initialize")[..2], [0, 300_000]);
}

#[test]
fn request_timeout_fails_a_call_not_answered_in_time() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "slow",
    summary: "inline",
    seed: 1,
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 20, interval: "10s"))],
)"#
        )
    };
    let preset = naive(&text(""));
    assert!(preset.result.record.calls[0].completed_at_ms.is_some());
    let timed = naive(&text(r#"request_timeout: After("60s")"#));
    assert_eq!(timed.result.record.calls[0].failed_at_ms, Some(60_000));
    assert!(timed.has(VerdictKind::SurfacedLoss));
}

#[test]
fn read_timeout_cuts_a_silent_stream_and_resumes_it() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "silent",
    summary: "inline",
    seed: 1,
    horizon: Some("10m"),
    client: (model: Naive, habits: ({habits})),
    workload: [Notify(from: "10s", every: "1s", count: 1)],
)"#
        )
    };
    assert_eq!(answered_at(&naive(&text("")), "GET"), vec![0]);
    let cut = naive(&text(r#"read_timeout: After("30s")"#));
    let gets = answered_at(&cut, "GET");
    assert_eq!(
        &gets[..2],
        &[0, 41_000],
        "cut at 40s (30s after the event), 1s later again"
    );
    assert!(cut.verdicts.iter().all(|v| !v.kind.is_loss()));
}

/// A cursor the server answers 400, a client that does not re-initialize on it.
fn refused_resume(habits: &str) -> String {
    format!(
        r#"Scenario(
    name: "refused",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    server: (event_log_capacity: 1),
    client: (model: Naive, standalone_stream: false, habits: (reinit: Never{habits})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 10, interval: "1s"))],
    faults: [Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Reset, stream: Call(0), away: "3s")],
)"#
    )
}

#[test]
fn backoff_grows_the_wait_between_reconnects() {
    let gaps = |o: &RunOutcome| {
        let at = answered_at(o, "GET");
        at.windows(2).map(|w| w[1] - w[0]).collect::<Vec<u64>>()
    };
    assert_eq!(gaps(&naive(&refused_resume(""))), vec![1_000; 4]);
    assert_eq!(
        gaps(&naive(&refused_resume(
            ", backoff: Growing(factor_percent: 200, max: \"5s\")"
        ))),
        vec![2_000, 4_000, 5_000, 5_000]
    );
}

#[test]
fn progress_clean_end_reconnects_for_ever_on_empty_answers() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "empty",
    summary: "inline",
    seed: 1,
    horizon: Some("2m"),
    server: (event_log_capacity: 1, unknown_cursor: Empty200),
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 10, interval: "1s"))],
    faults: [Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Reset, stream: Call(0), away: "3s")],
)"#
        )
    };
    assert!(!naive(&text("")).has(VerdictKind::ReconnectLoop));
    let forever = naive(&text("progress: CleanEnd"));
    assert!(forever.has(VerdictKind::ReconnectLoop));
    assert!(forever.has(VerdictKind::Hung));
}

#[test]
fn a_forgotten_cursor_or_no_resumption_leaves_the_call_waiting() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "cut_twice",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 5, interval: "10s"))],
    faults: [
        Drop(when: AfterEvent(n: 1, on: Call(0)), mode: Reset, stream: Call(0)),
        Drop(when: At("12s"), mode: Reset, stream: Call(0)),
    ],
)"#
        )
    };
    let preset = naive(&text(""));
    assert!(preset.result.record.calls[0].completed_at_ms.is_some());
    let forget = naive(&text("cursor_after_resumed_drop: Forget"));
    let without_cursor = forget
        .result
        .record
        .requests
        .iter()
        .filter(|r| r.http == "GET" && r.last_event_id.is_none())
        .count();
    assert!(
        without_cursor >= 1,
        "typescript-sdk#2499: a GET without Last-Event-ID"
    );
    assert!(forget.has(VerdictKind::Hung));
    let never = naive(&text("resumes: false"));
    assert!(answered_at(&never, "GET").is_empty());
    assert!(never.has(VerdictKind::Hung));
}

#[test]
fn a_fatal_get_failure_closes_the_client() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "get_refused",
    summary: "inline",
    seed: 1,
    server: (standalone_get: BadRequest400),
    client: (model: Naive, habits: ({habits})),
    workload: [CallTool(at: "1m", tool: Echo(text: "later"))],
)"#
        )
    };
    assert!(
        naive(&text("")).result.record.calls[0]
            .completed_at_ms
            .is_some()
    );
    let fatal = naive(&text("get_failure: Fatal"));
    assert!(fatal.result.record.calls[0].failed_at_ms.is_some());
    assert!(
        answered_at(&fatal, "tools/call").is_empty(),
        "nothing more is sent"
    );
}

#[test]
fn dedup_off_applies_what_the_naive_client_skips() {
    let text = bundled("scenarios/behavior_a.ron");
    assert!(!naive(&text).result.record.skipped.is_empty());
    let off = naive_with(&text, "dedup: Off");
    assert!(off.result.record.skipped.is_empty());
}

#[test]
fn an_ignored_list_changed_never_lists_again() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "list_changed",
    summary: "inline",
    seed: 1,
    client: (model: Naive, lists_tools: true, habits: ({habits})),
    workload: [
        CallTool(at: "10s", tool: Echo(text: "a")),
        CallTool(at: "1m", tool: Echo(text: "b")),
    ],
    faults: [ChangeList(at: "30s", notify: true)],
)"#
        )
    };
    assert_eq!(answered_at(&naive(&text("")), "tools/list").len(), 2);
    assert_eq!(
        answered_at(&naive(&text("list_changed: Ignored")), "tools/list").len(),
        1
    );
}

#[test]
fn a_rewound_cursor_replays_what_the_dropped_resumption_brought() {
    let text = bundled("scenarios/grade/drop_twice.ron");
    let with = |habits: &str| naive_with(&text, habits);
    let cursors = |o: &RunOutcome| -> Vec<u64> {
        o.result
            .ledger
            .resumptions
            .iter()
            .filter_map(|r| r.cursor.parse().ok())
            .collect()
    };
    let keep = with("dedup: Off");
    let rewind = with("dedup: Off, cursor_after_resumed_drop: Rewind");
    let (kept, rewound) = (cursors(&keep), cursors(&rewind));
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(rewound.len(), 2, "{rewound:?}");
    assert!(
        kept[1] > kept[0],
        "the second resumption from the last id: {kept:?}"
    );
    assert_eq!(
        rewound[1], rewound[0],
        "the reset resumption resumed again from the cursor it was opened with"
    );
    assert!(!keep.has(VerdictKind::Duplicate));
    assert!(
        rewind.has(VerdictKind::Duplicate),
        "no dedup: handed over twice"
    );
}

#[test]
fn kept_cookies_keep_the_client_on_its_replica() {
    let text = bundled("scenarios/field/sticky_cookie_dropped.ron");
    assert!(naive(&text).has(VerdictKind::MisroutedSession));
    let kept = naive_with(&text, "cookies: Kept");
    assert!(
        !kept.has(VerdictKind::MisroutedSession),
        "{:?}",
        kept.kinds()
    );
    assert!(kept.has(VerdictKind::Clean));
}

#[test]
fn an_sdk_client_speaks_2025_whatever_the_scenario_client_would_probe() {
    let text = bundled("scenarios/field/rolling_era_rollback.ron");
    let probing = naive(&text);
    assert!(probing.has(VerdictKind::EraMismatch));
    assert!(!answered_at(&probing, "server/discover").is_empty());
    let ts = naive_with(&text, "like: TypeScript1");
    assert!(
        answered_at(&ts, "server/discover").is_empty(),
        "it never probes"
    );
    assert!(!answered_at(&ts, "initialize").is_empty());
    assert!(!ts.has(VerdictKind::EraMismatch), "{:?}", ts.kinds());
}

#[test]
fn a_fatal_read_timeout_closes_the_client() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "silent",
    summary: "inline",
    seed: 1,
    horizon: Some("10m"),
    client: (model: Naive, habits: ({habits})),
    workload: [
        Notify(from: "10s", every: "1s", count: 1),
        CallTool(at: "2m", tool: Echo(text: "later")),
    ],
)"#
        )
    };
    let reconnects = naive(&text(r#"read_timeout: After("30s")"#));
    assert!(reconnects.result.record.calls[0].completed_at_ms.is_some());
    let fatal = naive(&text(
        r#"read_timeout: After("30s"), read_timeout_ends: Client"#,
    ));
    assert_eq!(answered_at(&fatal, "GET"), vec![0], "never reconnected");
    assert!(
        answered_at(&fatal, "tools/call").is_empty(),
        "nothing more is sent"
    );
    let call = &fatal.result.record.calls[0];
    assert!(call.failed_at_ms.is_some(), "{call:?}");
    // Closing, the transport ends its session as it would at the application's exit.
    let deletes = |o: &RunOutcome| {
        o.result
            .ledger
            .answers
            .iter()
            .any(|a| a.method == faultline_model::HttpMethod::Delete)
    };
    assert!(!deletes(&fatal), "on_close: Abandon, the naive preset's");
    let deleting = naive(&text(
        r#"read_timeout: After("30s"), read_timeout_ends: Client, on_close: DeleteSession"#,
    ));
    assert!(
        deletes(&deleting),
        "the session is deleted as the client closes"
    );
    assert_eq!(
        deleting.result.ledger.sessions[0].died.map(|(_, why)| why),
        Some(faultline_model::DeathCause::Deleted)
    );
}

#[test]
fn a_call_that_waits_without_an_id_is_neither_resumed_nor_failed() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "no_ids",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    server: (priming_events: false),
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 5, interval: "10s"))],
    faults: [Drop(when: At("5s"), mode: Reset, stream: Call(0))],
)"#
        )
    };
    let fails = naive(&text(""));
    assert!(fails.result.record.calls[0].failed_at_ms.is_some());
    let waits = naive(&text("call_stream_without_id: Wait"));
    let call = &waits.result.record.calls[0];
    assert!(
        call.failed_at_ms.is_none() && call.completed_at_ms.is_none(),
        "{call:?}"
    );
    assert!(
        answered_at(&waits, "GET").is_empty(),
        "no resumption without an id"
    );
    assert!(waits.has(VerdictKind::Hung));
    let times_out = naive(&text(
        r#"call_stream_without_id: Wait, request_timeout: After("60s")"#,
    ));
    assert_eq!(
        times_out.result.record.calls[0].failed_at_ms,
        Some(60_000),
        "until its request timeout"
    );
}

/// A client that closed itself makes no more calls: the run is not `clean` for the calls
/// it never made (fastmcp#937: "after 5 mins of inactivity ... it becomes unusable").
#[test]
fn a_run_whose_later_call_was_never_made_is_untested_not_clean() {
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "quiet",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    client: (model: Naive, habits: ({habits})),
    workload: [
        CallTool(at: "0s", tool: Echo(text: "before the quiet")),
        CallTool(at: "6m", tool: Echo(text: "after five quiet minutes")),
    ],
)"#
        )
    };
    let reconnects = naive(&text(r#"read_timeout: After("300s")"#));
    assert!(
        reconnects.has(VerdictKind::Clean),
        "{:?}",
        reconnects.kinds()
    );
    let closed = naive(&text(
        r#"read_timeout: After("300s"), read_timeout_ends: Client"#,
    ));
    assert_eq!(answered_at(&closed, "tools/call"), vec![0]);
    assert!(closed.has(VerdictKind::Untested), "{:?}", closed.kinds());
    assert!(!closed.has(VerdictKind::Clean));
    // Each error is traced when it is raised: the read timeout at 5m, the call it
    // fails at 6m with the reason the client closed.
    let errors: Vec<(u64, String)> = closed
        .result
        .trace
        .iter()
        .filter_map(|e| match &e.what {
            faultline_sim::TraceWhat::ClientError { error } => Some((e.at_ms, error.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0].0, 300_000, "{errors:?}");
    assert_eq!(errors[1].0, 360_000, "{errors:?}");
    assert!(
        errors[1].1.contains("the client closed: a read timeout"),
        "{errors:?}"
    );
}

#[test]
fn a_result_checked_against_a_listed_schema_fails_when_the_list_does() {
    let text = bundled("scenarios/field/replicas_round_robin.ron");
    let with = |habits: &str| naive_with(&text, habits);
    let as_is = with("reconnect: GiveUpAfter(0)");
    assert!(as_is.result.record.calls[0].completed_at_ms.is_some());
    assert!(answered_at(&as_is, "tools/list").is_empty());
    let checked = with("reconnect: GiveUpAfter(0), result_check: ListsToolsFirst");
    // The result came on the call's stream; the list sent before handing it over met a
    // replica without the session, and the call failed with its result in hand.
    let listed = answered_at(&checked, "tools/list");
    assert_eq!(listed.len(), 1, "{listed:?}");
    let call = &checked.result.record.calls[0];
    assert!(
        call.completed_at_ms.is_none() && call.failed_at_ms == Some(listed[0]),
        "{call:?}"
    );
    assert!(
        checked.has(VerdictKind::SurfacedLoss),
        "{:?}",
        checked.kinds()
    );
    // On a single server the list answers and the result is handed over.
    let single = text
        .replace(
            "fleet: (replicas: 3, balancer: RoundRobin, session_store: PerReplica),",
            "",
        )
        .replace(
            "client: (",
            "client: (habits: (result_check: ListsToolsFirst), ",
        );
    let single = naive(&single);
    assert_eq!(answered_at(&single, "tools/list").len(), 1);
    assert!(single.result.record.calls[0].completed_at_ms.is_some());
}

/// One call at the start, a minute of job, then notifications on the standalone stream
/// for the next ten minutes: what an application that exits when its call is done never
/// hears.
fn done_then_notified(habits: &str) -> String {
    format!(
        r#"Scenario(
    name: "done",
    summary: "inline",
    seed: 1,
    horizon: Some("30m"),
    client: (model: Naive, habits: ({habits})),
    workload: [
        CallTool(at: "0s", tool: LongJob(steps: 2, interval: "30s")),
        Notify(from: "2m", every: "1m", count: 10),
    ],
)"#
    )
}

#[test]
fn an_application_that_exits_when_done_closes_and_deletes_its_session_as_its_transport_does() {
    let stays = naive(&done_then_notified(""));
    let done_at = stays.result.record.calls[0].completed_at_ms.expect("done");
    assert_eq!(stays.result.record.left_at_ms, None);
    assert_eq!(
        stays.result.record.applied.len(),
        stays.result.ledger.events.len(),
        "the client that stays hears every notification"
    );
    assert!(stays.has(VerdictKind::Clean));

    let deletes = naive(&done_then_notified(
        "when_done: Exit, on_close: DeleteSession",
    ));
    let ledger = &deletes.result.ledger;
    let record = &deletes.result.record;
    assert_eq!(record.left_at_ms, Some(done_at));
    let deleted: Vec<u64> = ledger
        .answers
        .iter()
        .filter(|a| a.method == faultline_model::HttpMethod::Delete)
        .map(|a| a.at_ms)
        .collect();
    assert_eq!(deleted, vec![done_at], "one DELETE, as the call is done");
    assert_eq!(
        ledger.sessions[0].died,
        Some((done_at, faultline_model::DeathCause::Deleted))
    );
    assert!(
        !ledger.events.iter().any(|e| e.at_ms > done_at),
        "a deleted session is sent no notification"
    );
    assert_eq!(
        answered_at(&deletes, "GET"),
        answered_at(&stays, "GET")[..1]
    );
    assert!(deletes.has(VerdictKind::Clean));

    let abandons = naive(&done_then_notified("when_done: Exit, on_close: Abandon"));
    let ledger = &abandons.result.ledger;
    assert!(
        !ledger
            .answers
            .iter()
            .any(|a| a.method == faultline_model::HttpMethod::Delete),
        "the session is left to its TTL"
    );
    assert_eq!(ledger.sessions[0].died, None);
    let after: Vec<_> = ledger.events.iter().filter(|e| e.at_ms > done_at).collect();
    assert_eq!(
        after.len(),
        10,
        "the server goes on producing for the session"
    );
    assert!(
        abandons.has(VerdictKind::Clean),
        "nothing produced after the client left is owed to it: {:?}",
        abandons.verdicts
    );
}

#[test]
fn a_call_failed_then_the_session_deleted_ends_the_work_the_client_gave_up_on() {
    // call_cut_before_an_id: the call's stream is cut before any id, the Python SDK fails
    // the call at once. Staying, the client gives up on a result the server goes on to
    // produce; exiting, its DELETE ends the job before it has one.
    let text = bundled("scenarios/grade/call_cut_before_an_id.ron");
    let stays = naive_with(&text, "like: Python2");
    assert!(stays.has(VerdictKind::SurfacedLoss), "{:?}", stays.verdicts);
    let exits = naive_with(&text, "like: Python2, when_done: Exit");
    let job = &exits.result.ledger.jobs[0];
    assert_eq!(
        job.ended.map(|(_, how)| how),
        Some(faultline_model::JobEnd::Killed)
    );
    assert!(
        !exits.has(VerdictKind::SurfacedLoss),
        "{:?}",
        exits.verdicts
    );
    assert!(exits.has(VerdictKind::Clean), "{:?}", exits.verdicts);
}

#[test]
fn a_json_result_dropped_because_its_list_failed_is_lost_loudly() {
    // The call's answer is the result itself (JSON, not an event); the list sent before
    // handing it over meets the replica without the session. Nothing in the ledger's
    // events shows the loss: the client's record says it failed the call with the result
    // in hand.
    let text = |habits: &str| {
        format!(
            r#"Scenario(
    name: "dropped",
    summary: "inline",
    seed: 196,
    horizon: Some("10m"),
    server: (dead_session_answer: BadRequest),
    fleet: (replicas: 2, balancer: RoundRobin, session_store: PerReplica),
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [CallTool(at: "0s", tool: Echo(text: "one"))],
)"#
        )
    };
    let as_is = naive(&text(""));
    assert!(as_is.result.ledger.events.is_empty(), "a JSON answer");
    assert!(!as_is.result.record.calls[0].result_dropped);
    assert!(!as_is.has(VerdictKind::SurfacedLoss), "{:?}", as_is.kinds());
    let checked = naive(&text("result_check: ListsToolsFirst"));
    let call = &checked.result.record.calls[0];
    assert!(
        call.result_dropped && call.failed_at_ms.is_some(),
        "{call:?}"
    );
    let lost = checked
        .verdicts
        .iter()
        .find(|v| v.kind == VerdictKind::SurfacedLoss)
        .unwrap_or_else(|| panic!("{:?}", checked.kinds()));
    assert!(
        lost.summary.starts_with("call-0 lost the result"),
        "{}",
        lost.summary
    );
}

/// rmcp 3.11 drops a JSON-RPC error whose id is null (a refusal as servers write it) and
/// its call waits for ever; a 404 naming the session and a 401 are read by their status
/// first, and a request timeout still ends the wait.
#[test]
fn an_error_naming_no_request_is_dropped_and_the_call_waits() {
    let fails = naive(&expiring("BadRequest", "reinit: AtOnce"));
    let calls = &fails.result.record.calls;
    assert!(calls[1].failed_at_ms.is_some(), "{calls:?}");
    assert!(!fails.has(VerdictKind::Hung));

    let dropped = naive(&expiring(
        "BadRequest",
        "reinit: AtOnce, idless_error: Dropped",
    ));
    let calls = &dropped.result.record.calls;
    assert!(calls[0].completed_at_ms.is_some());
    for call in &calls[1..] {
        assert!(
            call.failed_at_ms.is_none() && call.completed_at_ms.is_none(),
            "refused 400 with `id: null`, neither answered nor failed: {call:?}"
        );
    }
    assert_eq!(answered_at(&dropped, "tools/call").len(), 3);
    assert!(
        dropped.result.record.errors.is_empty(),
        "no error is raised"
    );
    assert!(dropped.has(VerdictKind::Hung));

    let not_found = naive(&expiring(
        "NotFound",
        "reinit: AtOnce, idless_error: Dropped",
    ));
    let calls = &not_found.result.record.calls;
    assert!(
        calls.iter().all(|c| c.completed_at_ms.is_some()),
        "a 404 naming the session still re-initializes: {calls:?}"
    );
    let unauthorized = naive(&expiring("Unauthorized401", "idless_error: Dropped"));
    assert!(unauthorized.result.record.calls[1].failed_at_ms.is_some());

    let times_out = naive(&expiring(
        "BadRequest",
        r#"idless_error: Dropped, request_timeout: After("60s")"#,
    ));
    assert_eq!(
        times_out.result.record.calls[1].failed_at_ms,
        Some(360_000),
        "asked at 5m, failed at its 60 s timeout"
    );
}

/// An application that awaits each call makes the next only once the last has ended: a
/// call that never ends holds every later one back, and one whose time comes during a
/// long call goes when that call is done.
#[test]
fn calls_one_at_a_time_wait_for_the_last_to_end() {
    let at_their_times = naive(&expiring("BadRequest", "idless_error: Dropped"));
    assert_eq!(answered_at(&at_their_times, "tools/call").len(), 3);
    let in_turn = naive(&expiring(
        "BadRequest",
        "idless_error: Dropped, calls: OneAtATime",
    ));
    assert_eq!(
        answered_at(&in_turn, "tools/call"),
        [0, 300_000],
        "the third call waits behind the second, which never ends"
    );
    assert_eq!(in_turn.result.record.calls[2].asked_at_ms, None);

    let during_a_job = |habits: &str| {
        naive(&format!(
            r#"Scenario(
    name: "during a job",
    summary: "inline",
    seed: 1,
    client: (model: Naive, standalone_stream: false, habits: ({habits})),
    workload: [
        CallTool(at: "0s", tool: LongJob(steps: 3, interval: "1m")),
        CallTool(at: "30s", tool: Echo(text: "meanwhile")),
    ],
)"#
        ))
    };
    let echo_at = |o: &RunOutcome| {
        o.result
            .ledger
            .answers
            .iter()
            .filter(|a| a.rpc_method.as_deref() == Some("tools/call"))
            .map(|a| a.at_ms)
            .nth(1)
    };
    assert_eq!(echo_at(&during_a_job("")), Some(30_000));
    let in_turn = during_a_job("calls: OneAtATime");
    let job_done = in_turn.result.record.calls[0].completed_at_ms;
    assert!(job_done.is_some_and(|t| t >= 120_000), "{job_done:?}");
    assert_eq!(
        echo_at(&in_turn),
        job_done,
        "the echo goes once the job is done"
    );
    assert!(in_turn.result.record.calls[1].completed_at_ms.is_some());
}

/// A read timeout shorter than the gaps between a job's progress events cuts the call's
/// stream again and again. Counting only failures that brought nothing, the client resumes
/// for as long as events come; counting every failure until a clean end (the Python SDK),
/// it gives the call up after the limit's failures in a row: progress 1 handed over twice
/// (the resumption replays it from the rewound cursor), then the failure.
#[test]
fn progress_clean_end_only_gives_up_on_failures_in_a_row_whatever_they_brought() {
    let text = |progress: &str| {
        format!(
            r#"Scenario(
    name: "slow progress",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    server: (event_log_ttl: Some("10m"), retry: Some("1s"), priming_events: true),
    client: (model: Naive, standalone_stream: false, habits: (like: Python2, read_timeout: After("30s"), progress: {progress})),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 5, interval: "1m"))],
)"#
        )
    };
    let each_event_counts = naive(&text("CleanEnd"));
    let call = &each_event_counts.result.record.calls[0];
    assert!(call.completed_at_ms.is_some(), "{call:?}");
    assert!(answered_at(&each_event_counts, "GET").len() >= 5);

    let in_a_row = naive(&text("CleanEndOnly"));
    let call = &in_a_row.result.record.calls[0];
    assert!(
        call.failed_at_ms.is_some() && call.completed_at_ms.is_none(),
        "{call:?}"
    );
    assert_eq!(
        answered_at(&in_a_row, "GET"),
        [31_000, 91_000],
        "two reconnects"
    );
    let errors = &in_a_row.result.record.errors;
    assert!(
        format!("{errors:?}").contains("gave up resuming after 2 reconnects in a row"),
        "{errors:?}"
    );
    assert!(in_a_row.has(VerdictKind::Duplicate));
}

/// A standalone stream given up after its GETs were refused: a client that raises it tells
/// the application (surfaced_loss); the SDKs only log it (`Logged`), and the notifications
/// lost from then on are a silent gap while the calls go on working.
#[test]
fn standalone_errors_logged_leaves_the_application_unaware_of_a_stream_given_up() {
    let text = bundled("scenarios/field/csharp_1713_get_reconnect_400.ron");
    let logged = naive(&text);
    assert!(
        logged.result.record.errors.is_empty(),
        "{:?}",
        logged.result.record.errors
    );
    assert!(logged.has(VerdictKind::SilentGap) && !logged.has(VerdictKind::SurfacedLoss));
    assert!(
        logged
            .result
            .record
            .calls
            .iter()
            .all(|c| c.completed_at_ms.is_some()),
        "the calls go on working"
    );
    let raised = naive(&text.replace(
        "habits: (like: TypeScript1)",
        "habits: (like: TypeScript1, standalone_errors: Raised)",
    ));
    assert!(!raised.result.record.errors.is_empty());
    assert!(raised.has(VerdictKind::SurfacedLoss) && !raised.has(VerdictKind::SilentGap));
    assert_eq!(
        answered_at(&raised, "GET"),
        answered_at(&logged, "GET"),
        "the same GETs, refused the same way"
    );
}
