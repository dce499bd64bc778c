//! Each knob, on its own, changes what the server does: one test per behaviour, written so
//! that it fails if the knob is ignored.

use faultline_model::{
    ConnId, CursorResolution, DeadSessionAnswer, DeathCause, DurationMs, EndMode, HttpRequest,
    IdScheme, Output, Payload, PositiveDurationMs, ResponseBody, RestartPersistence, Server,
    ServerKnobs, UnknownCursor,
};
use serde_json::json;

const MIN: u64 = 60_000;

fn d(ms: u64) -> Option<PositiveDurationMs> {
    PositiveDurationMs::new(ms)
}

/// A tiny driver: one connection id per request, outputs collected per call.
struct Harness {
    server: Server,
    next: u64,
}

impl Harness {
    fn new(knobs: ServerKnobs) -> Self {
        Harness {
            server: Server::new(knobs, 1),
            next: 0,
        }
    }

    fn send(&mut self, request: HttpRequest, now: u64) -> (ConnId, Vec<Output>) {
        self.next += 1;
        let conn = ConnId(self.next);
        let mut out = Vec::new();
        self.server.handle(conn, request, now, &mut out);
        (conn, out)
    }

    fn initialize(&mut self, version: &str, now: u64) -> String {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let (_, out) = self.send(HttpRequest::post(None, body), now);
        match &out[0] {
            Output::Respond { response, .. } => response.session_id.clone().expect("session id"),
            other => panic!("{other:?}"),
        }
    }

    fn post(
        &mut self,
        session: &str,
        method: &str,
        params: serde_json::Value,
        now: u64,
    ) -> (ConnId, Vec<Output>) {
        let body =
            json!({"jsonrpc": "2.0", "id": self.next + 100, "method": method, "params": params});
        self.send(HttpRequest::post(Some(session.to_string()), body), now)
    }

    fn long_job(
        &mut self,
        session: &str,
        steps: u32,
        interval_ms: u64,
        now: u64,
    ) -> (ConnId, Vec<Output>) {
        self.post(
            session,
            "tools/call",
            json!({"name": "long_job", "arguments": {"steps": steps, "interval_ms": interval_ms}, "_meta": {"progressToken": "p"}}),
            now,
        )
    }

    fn get(&mut self, session: &str, cursor: Option<u64>, now: u64) -> (ConnId, Vec<Output>) {
        self.send(
            HttpRequest::get(Some(session.to_string()), cursor.map(|c| c.to_string())),
            now,
        )
    }

    fn advance(&mut self, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        self.server.advance(now, &mut out);
        out
    }

    fn drop_conn(&mut self, conn: ConnId, now: u64) {
        let mut out = Vec::new();
        self.server
            .drop_connection(conn, EndMode::Reset, now, &mut out);
    }
}

fn status(out: &[Output]) -> u16 {
    out.iter()
        .find_map(|o| match o {
            Output::Respond { response, .. } => Some(response.status),
            _ => None,
        })
        .expect("a response")
}

fn ids(out: &[Output]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event { id, .. } => *id,
            _ => None,
        })
        .collect()
}

fn knobs() -> ServerKnobs {
    ServerKnobs::default()
}

#[test]
fn idle_ttl_is_extended_by_requests_and_kills_an_idle_session() {
    let mut h = Harness::new(ServerKnobs {
        session_idle_ttl: d(30 * MIN),
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    assert_eq!(status(&h.post(&s, "ping", json!({}), 29 * MIN).1), 200);
    assert_eq!(
        status(&h.post(&s, "ping", json!({}), 58 * MIN).1),
        200,
        "the ping at 29m extended it"
    );
    assert_eq!(status(&h.post(&s, "ping", json!({}), 88 * MIN + 1).1), 404);
    let key = h.server.session_key(&s).unwrap();
    assert_eq!(
        h.server.ledger().death(key),
        Some((88 * MIN, DeathCause::IdleTtl))
    );
}

#[test]
fn absolute_ttl_is_not_extended_by_activity() {
    let mut h = Harness::new(ServerKnobs {
        session_absolute_ttl: d(30 * MIN),
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    assert_eq!(status(&h.post(&s, "ping", json!({}), 29 * MIN).1), 200);
    assert_eq!(status(&h.post(&s, "ping", json!({}), 30 * MIN).1), 404);
}

#[test]
fn dead_session_answer_is_configurable() {
    let mut h = Harness::new(ServerKnobs {
        dead_session_answer: DeadSessionAnswer::Gone,
        ..knobs()
    });
    assert_eq!(status(&h.post("nope", "ping", json!({}), 0).1), 410);
}

#[test]
fn event_log_ttl_forgets_a_detached_stream_so_its_cursor_becomes_unknown() {
    let k = ServerKnobs {
        event_log_ttl: d(MIN),
        unknown_cursor: UnknownCursor::BadRequest,
        ..knobs()
    };
    let mut h = Harness::new(k.clone());
    let s = h.initialize("2025-06-18", 0);
    let (conn, _) = h.long_job(&s, 3, 1_000, 0);
    h.advance(1_000);
    h.drop_conn(conn, 1_000);
    // Within the TTL: the cursor is honoured and the rest is replayed.
    let (_, out) = h.get(&s, Some(1), 30_000);
    assert_eq!(status(&out), 200);
    assert_eq!(
        ids(&out),
        vec![2, 3, 4],
        "progress 2, 3 and the result, produced while away, are replayed"
    );

    let mut h = Harness::new(k);
    let s = h.initialize("2025-06-18", 0);
    let (conn, _) = h.long_job(&s, 3, 1_000, 0);
    h.advance(1_000);
    h.drop_conn(conn, 1_000);
    assert_eq!(
        status(&h.get(&s, Some(1), 10 * MIN).1),
        400,
        "the log forgot the stream"
    );
}

#[test]
fn capacity_evicts_the_oldest_and_replay_remaining_replays_with_a_gap() {
    let mut h = Harness::new(ServerKnobs {
        event_log_capacity: Some(2),
        unknown_cursor: UnknownCursor::ReplayRemaining,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    let (conn, _) = h.long_job(&s, 10, 1_000, 0);
    h.advance(1_000);
    h.drop_conn(conn, 1_000);
    h.advance(6_000);
    let (c, out) = h.get(&s, Some(1), 6_000);
    assert_eq!(status(&out), 200);
    assert_eq!(
        ids(&out),
        vec![5, 6],
        "only the last two were kept: 2..=4 are silently gone"
    );
    let entry = h
        .server
        .ledger()
        .resumptions
        .iter()
        .find(|r| r.conn == c)
        .unwrap();
    assert!(matches!(
        entry.resolution,
        CursorResolution::Stale {
            answer: UnknownCursor::ReplayRemaining,
            replayed: 2,
            ..
        }
    ));
}

#[test]
fn per_stream_ids_restart_on_every_stream_and_session_monotonic_ids_do_not() {
    for (scheme, expected_second) in [
        (IdScheme::PerStream, vec![1, 2]),
        (IdScheme::SessionMonotonic, vec![3, 4]),
    ] {
        let mut h = Harness::new(ServerKnobs {
            id_scheme: scheme,
            ..knobs()
        });
        let s = h.initialize("2025-06-18", 0);
        h.long_job(&s, 1, 0, 0); // progress 1 + result: two events
        let (_, out) = h.long_job(&s, 1, 0, 0);
        assert_eq!(ids(&out), expected_second, "{scheme:?}");
    }
}

#[test]
fn a_restart_renumbers_per_generation_but_not_session_monotonic() {
    for (scheme, first_after) in [
        (IdScheme::PerGeneration, 1),
        (IdScheme::SessionMonotonic, 3),
    ] {
        let mut h = Harness::new(ServerKnobs {
            id_scheme: scheme,
            restart_persistence: RestartPersistence::SessionIdsOnly,
            ..knobs()
        });
        let s = h.initialize("2025-06-18", 0);
        h.long_job(&s, 1, 0, 0);
        let mut out = Vec::new();
        h.server.restart(MIN, &mut out);
        let (_, out) = h.long_job(&s, 1, 0, MIN);
        assert_eq!(ids(&out)[0], first_after, "{scheme:?}");
        let key = h.server.session_key(&s).unwrap();
        assert_eq!(h.server.ledger().session(key).generations, vec![0, MIN]);
    }
}

#[test]
fn restart_persistence_decides_what_survives() {
    let mut out = Vec::new();
    // Nothing: the session is gone.
    let mut h = Harness::new(ServerKnobs {
        restart_persistence: RestartPersistence::Nothing,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    h.server.restart(MIN, &mut out);
    assert_eq!(status(&h.post(&s, "ping", json!({}), MIN).1), 404);
    // Everything: the log survives, so a cursor from before the restart resumes.
    let mut h = Harness::new(ServerKnobs {
        restart_persistence: RestartPersistence::Everything,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    h.long_job(&s, 2, 0, 0);
    h.server.restart(MIN, &mut out);
    let (_, got) = h.get(&s, Some(1), MIN);
    assert_eq!(ids(&got), vec![2, 3]);
    // Session ids only: alive, but the log is empty.
    let mut h = Harness::new(ServerKnobs {
        restart_persistence: RestartPersistence::SessionIdsOnly,
        unknown_cursor: UnknownCursor::NotFound,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    h.long_job(&s, 2, 0, 0);
    h.server.restart(MIN, &mut out);
    assert_eq!(status(&h.post(&s, "ping", json!({}), MIN).1), 200);
    assert_eq!(status(&h.get(&s, Some(1), MIN).1), 404);
}

#[test]
fn every_unknown_cursor_answer() {
    let cases = [
        (UnknownCursor::FreshStream, 200, false),
        (UnknownCursor::BadRequest, 400, false),
        (UnknownCursor::NotFound, 404, false),
        (UnknownCursor::Empty200, 200, true),
        (UnknownCursor::ReplayRemaining, 200, false),
    ];
    for (answer, code, ends_at_once) in cases {
        let mut h = Harness::new(ServerKnobs {
            unknown_cursor: answer,
            ..knobs()
        });
        let s = h.initialize("2025-06-18", 0);
        let (_, out) = h.get(&s, Some(999), 0);
        assert_eq!(status(&out), code, "{answer:?}");
        let ended = out.iter().any(|o| {
            matches!(
                o,
                Output::End {
                    how: EndMode::Close,
                    ..
                }
            )
        });
        assert_eq!(ended, ends_at_once, "{answer:?}");
    }
    // Garbage is an unknown cursor, never a panic.
    let mut h = Harness::new(ServerKnobs {
        unknown_cursor: UnknownCursor::BadRequest,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    let huge = "9".repeat(10_000);
    let (_, out) = h.send(HttpRequest::get(Some(s), Some(huge)), 0);
    assert_eq!(status(&out), 400);
}

#[test]
fn get_validation_decides_whether_a_dead_session_can_still_replay() {
    for (validates, code) in [(true, 404), (false, 200)] {
        let mut h = Harness::new(ServerKnobs {
            session_absolute_ttl: d(30 * MIN),
            event_log_ttl: d(60 * MIN),
            get_validates_session: validates,
            ..knobs()
        });
        let s = h.initialize("2025-06-18", 0);
        let (conn, _) = h.long_job(&s, 3, 1_000, 0);
        h.advance(1_000);
        h.drop_conn(conn, 1_000);
        h.advance(31 * MIN);
        assert_eq!(
            status(&h.post(&s, "ping", json!({}), 31 * MIN).1),
            404,
            "the session is dead"
        );
        let (_, out) = h.get(&s, Some(1), 31 * MIN);
        assert_eq!(status(&out), code, "get_validates_session: {validates}");
    }
}

#[test]
fn the_capability_is_advertised_only_when_asked() {
    for advertise in [true, false] {
        let mut h = Harness::new(ServerKnobs {
            advertise_monotonic_ids: advertise,
            ..knobs()
        });
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}});
        let (_, out) = h.send(HttpRequest::post(None, body), 0);
        let Output::Respond { response, .. } = &out[0] else {
            panic!()
        };
        let Some(v) = response.body.json() else {
            panic!()
        };
        let flag =
            v.pointer("/result/capabilities/experimental/resumption/sessionMonotonicEventIds");
        assert_eq!(flag.is_some(), advertise);
    }
}

#[test]
fn priming_events_carry_retry_for_2025_11_25_only() {
    let k = ServerKnobs {
        priming_events: true,
        retry: d(1_500),
        ..knobs()
    };
    let mut h = Harness::new(k.clone());
    let s = h.initialize("2025-11-25", 0);
    let (_, out) = h.long_job(&s, 1, 0, 0);
    let first = out.iter().find_map(|o| match o {
        Output::Event {
            event, retry_ms, ..
        } => Some((*event, *retry_ms)),
        _ => None,
    });
    let (event, retry) = first.unwrap();
    assert_eq!(h.server.ledger().event(event).payload, Payload::Priming);
    assert_eq!(retry, Some(1_500));
    assert_eq!(h.server.event_message(event), None, "empty data");

    let mut h = Harness::new(k);
    let s = h.initialize("2025-06-18", 0);
    let (_, out) = h.long_job(&s, 1, 0, 0);
    assert_eq!(ids(&out), vec![1, 2], "no priming event before 2025-11-25");
}

#[test]
fn a_periodic_sweeper_removes_expired_things_only_when_it_runs() {
    let mut h = Harness::new(ServerKnobs {
        session_idle_ttl: d(MIN),
        gc_interval: d(10 * MIN),
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    // Past the TTL but before the sweep at 10m: still alive (and the ping extends it).
    assert_eq!(status(&h.post(&s, "ping", json!({}), 5 * MIN).1), 200);
    // Touched at 5m, due at 6m, removed by the sweep at 10m.
    assert_eq!(status(&h.post(&s, "ping", json!({}), 11 * MIN).1), 404);
    let key = h.server.session_key(&s).unwrap();
    assert_eq!(
        h.server.ledger().death(key),
        Some((10 * MIN, DeathCause::IdleTtl))
    );
}

#[test]
fn json_responses_off_answers_over_sse() {
    let mut h = Harness::new(ServerKnobs {
        json_responses: false,
        ..knobs()
    });
    let s = h.initialize("2025-06-18", 0);
    let (_, out) = h.post(&s, "ping", json!({}), 0);
    assert!(
        matches!(&out[0], Output::Respond { response, .. } if matches!(response.body, ResponseBody::Sse(_)))
    );
    assert_eq!(ids(&out), vec![1]);
    assert!(matches!(
        out.last(),
        Some(Output::End {
            how: EndMode::Close,
            ..
        })
    ));
}

#[test]
fn the_session_cap_answers_503() {
    let mut h = Harness::new(ServerKnobs {
        max_sessions: 1,
        ..knobs()
    });
    h.initialize("2025-06-18", 0);
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}});
    assert_eq!(status(&h.send(HttpRequest::post(None, body), 0).1), 503);
}

#[test]
fn durations_print_as_written() {
    assert_eq!(DurationMs(31 * MIN).to_string(), "31m");
}

/// The timeline's restart note names the task store's persistence beside the restart's
/// when they differ and the server serves 2026-07-28 (where tasks live), so "Everything"
/// is not read as the tasks too; a 2025-only server has no tasks to name.
#[test]
fn a_restart_note_names_what_the_task_store_keeps() {
    let mut k = knobs();
    assert_eq!(k.restart_keeps(), "persistence: Everything");
    k.task_persistence = faultline_model::TaskPersistence::Nothing;
    assert_eq!(k.restart_keeps(), "persistence: Everything; tasks: Nothing");
    k.era = faultline_model::Era::LegacyOnly;
    assert_eq!(k.restart_keeps(), "persistence: Everything");
}
