//! One judge: the same ledger judged by the modelled half (the client's record) and the
//! real half (the ledger and the client's report) must mean the same thing. Each test
//! hand-builds a ledger where the halves once disagreed (found by reading the rules' two
//! halves side by side) and checks both.
use std::collections::BTreeSet;

use faultline_model::*;
use faultline_verdicts::client_record::*;
use faultline_verdicts::untested::Exercise;
use faultline_verdicts::*;
use serde_json::json;

fn ans(
    conn: u64,
    at_ms: u64,
    method: HttpMethod,
    rpc: Option<&str>,
    session: Option<&str>,
    status: u16,
) -> AnswerEntry {
    AnswerEntry {
        conn: ConnId(conn),
        at_ms,
        method,
        rpc_method: rpc.map(str::to_string),
        session_sent: session.map(str::to_string),
        status,
        rpc_method_len: None,
        session_sent_len: None,
        route: None,
        list_version: None,
        list_ttl_ms: None,
        dead_session: false,
    }
}

fn sess(id: &str, created: u64, died: Option<(u64, DeathCause)>) -> SessionEntry {
    SessionEntry {
        wire_id: id.into(),
        created_ms: created,
        generations: vec![created],
        died,
        held_by: None,
        stateless: false,
    }
}

fn req(
    conn: u64,
    at: u64,
    http: &'static str,
    rpc: Option<&str>,
    session: Option<&str>,
    status: u16,
    (sent, answered): (u64, u64),
) -> RequestRecord {
    RequestRecord {
        at_ms: at,
        conn: ConnId(conn),
        task: Task::Main,
        http,
        rpc: rpc.map(str::to_string),
        session: session.map(str::to_string),
        last_event_id: None,
        status: Some(status),
        sent_seq: sent,
        answered_seq: Some(answered),
        // The one workload call's attempts, as the modelled clients mark them.
        call: (rpc == Some("tools/call")).then_some(0),
    }
}

fn exercise() -> Exercise {
    Exercise {
        calls_planned: 1,
        faults_planned: 1,
        faults_fired: 1,
        ..Exercise::default()
    }
}

fn context() -> ClientContext {
    ClientContext {
        call: CallSpec {
            tool: "long_job".into(),
            arguments: json!({}),
            progress: true,
        },
        followup_echo: 0,
        lists_tools: false,
        use_tasks: false,
    }
}

fn kinds(v: Vec<verdict::Verdict>) -> BTreeSet<String> {
    v.iter().map(|v| v.kind.name().to_string()).collect()
}

fn both(
    ledger: &Ledger,
    record: &ClientRecord,
    report: &ClientReport,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let ctx = context();
    let m = judge(&Observation::modelled(ledger, record), Words::Written);
    let r = judge(
        &Observation::real(ledger, exercise(), &ctx, Ok(report)),
        Words::Written,
    );
    for v in m.iter().chain(r.iter()) {
        eprintln!("  {}: {}", v.kind.name(), v.summary);
    }
    (kinds(m), kinds(r))
}

fn progress(id: u64, stream: u32, ordinal: u32, at: u64, step: u32) -> ProducedEvent {
    ProducedEvent {
        id,
        stream: StreamId(stream),
        ordinal,
        session: SessionKey(0),
        generation: 1,
        at_ms: at,
        payload: Payload::Progress {
            job: JobId(0),
            step,
            total: 3,
        },
    }
}

fn job(ended: Option<(u64, JobEnd)>) -> JobEntry {
    JobEntry {
        session: SessionKey(0),
        generation: 1,
        tool: "long_job".into(),
        request_id: json!(2),
        progress_token: Some(json!("call-0")),
        idempotency_key: Some("call-0".into()),
        steps: 3,
        started_ms: 500,
        ended,
    }
}

fn report(
    progress: Vec<f64>,
    notifications: Vec<u64>,
    result: Option<&str>,
    error: Option<&str>,
) -> ClientReport {
    ClientReport {
        progress,
        notifications,
        result: result.map(str::to_string),
        error: error.map(str::to_string),
        supports: Supports::default(),
        raw: json!({}),
    }
}

/// The job is killed by a restart after two progress steps; the client reports the two
/// steps and neither a result nor an error. The modelled client in that state is `hung`
/// (the application was told nothing); the real one was `clean`, "everything produced
/// reached the application". It is now a loss of the call's outcome.
#[test]
fn a_killed_job_reported_with_neither_result_nor_error_is_not_clean() {
    let ledger = Ledger {
        sessions: vec![sess("s", 0, Some((5_000, DeathCause::Restart)))],
        streams: vec![StreamEntry {
            session: SessionKey(0),
            generation: 1,
            kind: StreamKind::Request,
            opened_ms: 500,
            modern: false,
            closed_ms: None,
        }],
        events: vec![progress(1, 0, 1, 1_000, 1), progress(2, 0, 2, 2_000, 2)],
        sends: vec![
            SendEntry {
                event: EventRef(0),
                conn: ConnId(2),
                at_ms: 1_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(1),
                conn: ConnId(2),
                at_ms: 2_000,
                replay: false,
            },
        ],
        answers: vec![
            ans(1, 0, HttpMethod::Post, Some("initialize"), None, 200),
            ans(2, 500, HttpMethod::Post, Some("tools/call"), Some("s"), 200),
        ],
        jobs: vec![job(Some((5_000, JobEnd::Killed)))],
        restarts: vec![5_000],
        ..Ledger::default()
    };
    let mut record = ClientRecord {
        requests: vec![
            req(1, 0, "POST", Some("initialize"), None, 200, (1, 2)),
            req(2, 500, "POST", Some("tools/call"), Some("s"), 200, (3, 4)),
        ],
        ..ClientRecord::default()
    };
    record.applied = vec![
        AppliedRecord {
            event: EventRef(0),
            at_ms: 1_000,
            conn: ConnId(2),
        },
        AppliedRecord {
            event: EventRef(1),
            at_ms: 2_000,
            conn: ConnId(2),
        },
    ];
    record.sessions = vec![(0, "s".into())];
    record.calls = vec![CallRecord {
        key: "call-0".into(),
        asked_at_ms: Some(500),
        attempts: 1,
        completed_at_ms: None,
        failed_at_ms: None,
        result_dropped: false,
    }];
    record.quiet_at_ms = Some(6_000);
    record.exercise = exercise();
    let (m, r) = both(
        &ledger,
        &record,
        &report(vec![1.0, 2.0], vec![], None, None),
    );
    assert!(m.contains("hung") && !m.contains("clean"), "{m:?}");
    assert_eq!(r, BTreeSet::from(["silent_gap".to_string()]), "{r:?}");
    // Told of the failure, the real client lost nothing silently.
    let (_, told) = both(
        &ledger,
        &record,
        &report(vec![1.0, 2.0], vec![], None, Some("connection closed")),
    );
    assert_eq!(told, BTreeSet::from(["clean".to_string()]), "{told:?}");
}

/// Per-stream ids: the standalone stream's cursor 3 is resumed, and the server replays
/// what came right after that event; the call stream also sent an id 3, later. The real
/// half, which cannot tell which stream the client resumed, took the call stream's id 3
/// for the cursor and reported a `cursor_reuse` of a correct resumption.
#[test]
fn a_cursor_id_two_streams_share_is_no_reuse_when_one_explains_the_replay() {
    let note = |id: u64, ordinal: u32, at: u64| ProducedEvent {
        id,
        stream: StreamId(0),
        ordinal,
        session: SessionKey(0),
        generation: 1,
        at_ms: at,
        payload: Payload::Notification { seq: id - 1 },
    };
    let ledger = Ledger {
        sessions: vec![sess("s", 0, None)],
        streams: vec![
            StreamEntry {
                session: SessionKey(0),
                generation: 1,
                kind: StreamKind::Standalone,
                opened_ms: 100,
                modern: false,
                closed_ms: None,
            },
            StreamEntry {
                session: SessionKey(0),
                generation: 1,
                kind: StreamKind::Request,
                opened_ms: 4_500,
                modern: false,
                closed_ms: None,
            },
        ],
        events: vec![
            note(1, 1, 1_000),
            note(2, 2, 2_000),
            note(3, 3, 3_000),
            progress(1, 1, 1, 5_000, 1),
            progress(2, 1, 2, 6_000, 2),
            progress(3, 1, 3, 7_000, 3),
            ProducedEvent {
                id: 4,
                stream: StreamId(1),
                ordinal: 4,
                session: SessionKey(0),
                generation: 1,
                at_ms: 8_000,
                payload: Payload::ToolResult { job: JobId(0) },
            },
            note(4, 4, 12_000),
        ],
        sends: vec![
            SendEntry {
                event: EventRef(0),
                conn: ConnId(1),
                at_ms: 1_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(1),
                conn: ConnId(1),
                at_ms: 2_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(2),
                conn: ConnId(1),
                at_ms: 3_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(3),
                conn: ConnId(2),
                at_ms: 5_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(4),
                conn: ConnId(2),
                at_ms: 6_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(5),
                conn: ConnId(2),
                at_ms: 7_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(6),
                conn: ConnId(2),
                at_ms: 8_000,
                replay: false,
            },
            SendEntry {
                event: EventRef(7),
                conn: ConnId(3),
                at_ms: 12_500,
                replay: true,
            },
        ],
        answers: vec![
            ans(0, 0, HttpMethod::Post, Some("initialize"), None, 200),
            ans(1, 100, HttpMethod::Get, None, Some("s"), 200),
            ans(
                2,
                4_500,
                HttpMethod::Post,
                Some("tools/call"),
                Some("s"),
                200,
            ),
            ans(3, 12_500, HttpMethod::Get, None, Some("s"), 200),
        ],
        resumptions: vec![ResumeEntry {
            conn: ConnId(3),
            at_ms: 12_500,
            session_sent: Some("s".into()),
            cursor: "3".into(),
            resolution: CursorResolution::Honoured {
                stream: StreamId(0),
                generation: 1,
                replayed: 1,
            },
            attached_to: Some(StreamId(0)),
            session_sent_len: None,
            cursor_len: None,
            session_unchecked: false,
        }],
        jobs: vec![job(Some((8_000, JobEnd::Finished)))],
        ..Ledger::default()
    };
    let mut record = ClientRecord {
        requests: vec![
            req(0, 0, "POST", Some("initialize"), None, 200, (1, 2)),
            req(1, 100, "GET", None, Some("s"), 200, (3, 4)),
            req(2, 4_500, "POST", Some("tools/call"), Some("s"), 200, (5, 6)),
            req(3, 12_500, "GET", None, Some("s"), 200, (7, 8)),
        ],
        ..ClientRecord::default()
    };
    let conns = [1, 1, 1, 2, 2, 2, 2, 3];
    record.applied = (0..8)
        .map(|i| AppliedRecord {
            event: EventRef(i),
            at_ms: ledger.events[i as usize].at_ms,
            conn: ConnId(conns[i as usize]),
        })
        .collect();
    record.resumptions = vec![ResumeRecord {
        at_ms: 12_500,
        conn: ConnId(3),
        session: "s".into(),
        cursor: 3,
        cursor_event: Some(EventRef(2)),
    }];
    record.sessions = vec![(0, "s".into())];
    record.calls = vec![CallRecord {
        key: "call-0".into(),
        asked_at_ms: Some(500),
        attempts: 1,
        completed_at_ms: Some(8_000),
        failed_at_ms: None,
        result_dropped: false,
    }];
    record.exercise = exercise();
    let (m, r) = both(
        &ledger,
        &record,
        &report(vec![1.0, 2.0, 3.0], vec![0, 1, 2, 3], Some("done"), None),
    );
    assert_eq!(m, BTreeSet::from(["clean".to_string()]), "{m:?}");
    assert_eq!(r, BTreeSet::from(["clean".to_string()]), "{r:?}");
}

/// Three sessions, a then b then c; a stale task still names b after c's `initialize`.
/// The real half took only the first session for an old one, so it missed the collision
/// with the second the modelled half reports.
#[test]
fn a_collision_with_the_second_session_is_found_by_both_halves() {
    let ledger = Ledger {
        sessions: vec![
            sess("a", 0, Some((900, DeathCause::Restart))),
            sess("b", 1_000, Some((1_900, DeathCause::Restart))),
            sess("c", 2_000, None),
        ],
        answers: vec![
            ans(1, 0, HttpMethod::Post, Some("initialize"), None, 200),
            ans(2, 950, HttpMethod::Post, Some("tools/call"), Some("a"), 404),
            ans(3, 1_000, HttpMethod::Post, Some("initialize"), None, 200),
            ans(
                4,
                1_950,
                HttpMethod::Post,
                Some("tools/call"),
                Some("b"),
                404,
            ),
            ans(5, 2_000, HttpMethod::Post, Some("initialize"), None, 200),
            ans(
                6,
                2_000,
                HttpMethod::Post,
                Some("tools/call"),
                Some("c"),
                200,
            ),
            ans(7, 3_000, HttpMethod::Post, Some("ping"), Some("b"), 404),
        ],
        ..Ledger::default()
    };
    let mut record = ClientRecord::default();
    let mut stale = req(7, 3_000, "POST", Some("ping"), Some("b"), 404, (13, 14));
    stale.task = Task::Stale(0);
    record.requests = vec![
        req(1, 0, "POST", Some("initialize"), None, 200, (1, 2)),
        req(2, 950, "POST", Some("tools/call"), Some("a"), 404, (3, 4)),
        req(3, 1_000, "POST", Some("initialize"), None, 200, (5, 6)),
        req(4, 1_950, "POST", Some("tools/call"), Some("b"), 404, (7, 8)),
        req(5, 2_000, "POST", Some("initialize"), None, 200, (9, 10)),
        req(
            6,
            2_000,
            "POST",
            Some("tools/call"),
            Some("c"),
            200,
            (11, 12),
        ),
        stale,
    ];
    record.sessions = vec![(0, "a".into()), (1_000, "b".into()), (2_000, "c".into())];
    record.calls = vec![CallRecord {
        key: "call-0".into(),
        asked_at_ms: Some(500),
        attempts: 3,
        completed_at_ms: None,
        failed_at_ms: Some(2_500),
        result_dropped: false,
    }];
    record.exercise = exercise();
    let (m, r) = both(
        &ledger,
        &record,
        &report(vec![], vec![], None, Some("boom")),
    );
    assert!(m.contains("reinit_collision"), "{m:?}");
    assert!(r.contains("reinit_collision"), "{r:?}");
}

/// Two GETs sent together (two streams' resumptions, different cursors), both answered
/// 404. The real half matched them as one request repeated after its notice (a
/// `retry_amplification`); the modelled half, which knows both were sent before either
/// answer was read, does not. A resumption's cursor is now part of what it asks.
#[test]
fn two_streams_resumed_together_are_not_a_retry() {
    let ledger = Ledger {
        sessions: vec![sess("s", 0, Some((4_000, DeathCause::Restart)))],
        answers: vec![
            ans(1, 0, HttpMethod::Post, Some("initialize"), None, 200),
            ans(2, 100, HttpMethod::Post, Some("tools/call"), Some("s"), 200),
            ans(3, 5_000, HttpMethod::Get, None, Some("s"), 404),
            ans(4, 5_000, HttpMethod::Get, None, Some("s"), 404),
        ],
        resumptions: vec![
            ResumeEntry {
                conn: ConnId(3),
                at_ms: 5_000,
                session_sent: Some("s".into()),
                cursor: "3".into(),
                resolution: CursorResolution::SessionRejected { status: 404 },
                attached_to: None,
                session_sent_len: None,
                cursor_len: None,
                session_unchecked: false,
            },
            ResumeEntry {
                conn: ConnId(4),
                at_ms: 5_000,
                session_sent: Some("s".into()),
                cursor: "7".into(),
                resolution: CursorResolution::SessionRejected { status: 404 },
                attached_to: None,
                session_sent_len: None,
                cursor_len: None,
                session_unchecked: false,
            },
        ],
        ..Ledger::default()
    };
    let mut record = ClientRecord {
        requests: vec![
            req(1, 0, "POST", Some("initialize"), None, 200, (1, 2)),
            req(2, 100, "POST", Some("tools/call"), Some("s"), 200, (3, 4)),
            req(3, 5_000, "GET", None, Some("s"), 404, (5, 7)),
            req(4, 5_000, "GET", None, Some("s"), 404, (6, 8)),
        ],
        ..ClientRecord::default()
    };
    record.sessions = vec![(0, "s".into())];
    record.calls = vec![CallRecord {
        key: "call-0".into(),
        asked_at_ms: Some(100),
        attempts: 1,
        completed_at_ms: None,
        failed_at_ms: Some(5_000),
        result_dropped: false,
    }];
    record.errors = vec![ErrorRecord {
        at_ms: 5_000,
        error: faultline_verdicts::client_error::ClientError::Surfaced {
            message: "x".into(),
        },
        scope: ErrorScope::Call(0),
    }];
    record.exercise = exercise();
    let (m, r) = both(&ledger, &record, &report(vec![], vec![], None, Some("x")));
    assert!(!m.contains("retry_amplification"), "{m:?}");
    assert!(!r.contains("retry_amplification"), "{r:?}");
    // The same stream's GET sent again at the notice's instant is a retry in both.
    let mut again = ledger.clone();
    again.resumptions[1].cursor = "3".into();
    let (_, r) = both(&again, &record, &report(vec![], vec![], None, Some("x")));
    assert!(r.contains("retry_amplification"), "{r:?}");
}

/// A call sent twice is one call made: a run that planned two calls, whose client sent
/// the first twice and never the second, did not test the second. It was `clean` while
/// the judge counted `tools/call` answers (two answers, two calls planned).
#[test]
fn a_retried_call_is_one_call_and_the_other_planned_call_is_untested() {
    let ledger = Ledger {
        sessions: vec![sess("s", 0, None)],
        answers: vec![
            ans(1, 0, HttpMethod::Post, Some("initialize"), None, 200),
            ans(
                2,
                1_000,
                HttpMethod::Post,
                Some("tools/call"),
                Some("s"),
                200,
            ),
            ans(
                3,
                2_000,
                HttpMethod::Post,
                Some("tools/call"),
                Some("s"),
                200,
            ),
        ],
        ..Ledger::default()
    };
    let mut record = ClientRecord {
        requests: vec![
            req(1, 0, "POST", Some("initialize"), None, 200, (1, 2)),
            req(2, 1_000, "POST", Some("tools/call"), Some("s"), 200, (3, 4)),
            req(3, 2_000, "POST", Some("tools/call"), Some("s"), 200, (5, 6)),
        ],
        sessions: vec![(0, "s".into())],
        calls: vec![
            CallRecord {
                key: "call-0".into(),
                asked_at_ms: Some(1_000),
                attempts: 2,
                completed_at_ms: Some(2_000),
                failed_at_ms: None,
                result_dropped: false,
            },
            CallRecord {
                key: "call-1".into(),
                asked_at_ms: None,
                attempts: 0,
                completed_at_ms: None,
                failed_at_ms: None,
                result_dropped: false,
            },
        ],
        ..ClientRecord::default()
    };
    record.exercise = Exercise {
        calls_planned: 2,
        ..exercise()
    };
    let judged = judge(&Observation::modelled(&ledger, &record), Words::Written);
    assert_eq!(
        kinds(judged.clone()),
        BTreeSet::from(["untested".to_string()])
    );
    let verdict::Evidence::Untested(untested) = &judged[0].evidence else {
        panic!("untested's evidence: {judged:?}");
    };
    assert_eq!(untested.calls_made, 1, "{untested:?}");
    assert!(
        untested.reasons[0].starts_with("only 1 of the scenario's 2 planned calls"),
        "{:?}",
        untested.reasons
    );
}
