//! 2026-07-28 listen streams over time: keep-alive comments (`listen_keepalive`) every
//! interval of quiet and never without the knob, how long each listen has been quiet (what
//! an idle proxy reads), a middlebox's reset recorded with its reason, and the three ways
//! the server ends a listen (reset, `complete` result, `notifications/cancelled`).
//! <https://github.com/modelcontextprotocol/go-sdk/pull/1232>

use crate::modern_common::*;
use faultline_model::{
    ConnId, CutReason, EndMode, ListName, ListenEnd, Output, Payload, PositiveDurationMs, Server,
    ServerKnobs,
};
use serde_json::json;

fn keepalive(ms: u64) -> ServerKnobs {
    ServerKnobs {
        listen_keepalive: PositiveDurationMs::new(ms),
        ..ServerKnobs::default()
    }
}

/// Opens a listen stream for tools changes on `conn` at `now`.
fn open(server: &mut Server, conn: u64, id: u64, now: u64) -> Vec<Output> {
    let request = modern_post(
        id,
        "subscriptions/listen",
        with_meta(json!({"notifications": {"toolsListChanged": true}})),
    );
    let mut out = Vec::new();
    server.handle(ConnId(conn), request, now, &mut out);
    out
}

/// Steps the server through its due work up to `until`, one due instant at a time;
/// returns each output with the time it came out.
fn run_until(server: &mut Server, until: u64) -> Vec<(u64, Output)> {
    let mut timed = Vec::new();
    while let Some(due) = server.next_due().filter(|&d| d <= until) {
        let mut out = Vec::new();
        server.advance(due, &mut out);
        timed.extend(out.into_iter().map(|o| (due, o)));
    }
    let mut out = Vec::new();
    server.advance(until, &mut out);
    timed.extend(out.into_iter().map(|o| (until, o)));
    timed
}

/// When a keep-alive went to `conn`.
fn comments(timed: &[(u64, Output)], conn: u64) -> Vec<u64> {
    timed
        .iter()
        .filter_map(|(t, o)| match o {
            Output::Comment { conn: c } if c.0 == conn => Some(*t),
            _ => None,
        })
        .collect()
}

#[test]
fn without_the_knob_a_quiet_listen_gets_no_comment_and_nothing_is_due() {
    let mut server = server(ServerKnobs::default());
    open(&mut server, 1, 7, 0);
    assert_eq!(server.next_due(), None, "no keep-alive is due");
    let timed = run_until(&mut server, 3_600_000);
    assert!(
        !timed
            .iter()
            .any(|(_, o)| matches!(o, Output::Comment { .. })),
        "{timed:?}"
    );
    assert_eq!(server.ledger().listens[0].keepalives, 0);
    let ledger = serde_json::to_string(&server.ledger().listens[0]).expect("json");
    assert!(
        !ledger.contains("keepalives"),
        "not written when 0: {ledger}"
    );
}

#[test]
fn a_quiet_listen_gets_a_comment_every_interval_since_its_last_bytes() {
    let mut server = server(keepalive(15_000));
    open(&mut server, 1, 7, 0);
    assert_eq!(
        server.next_due(),
        Some(15_000),
        "15 s after the acknowledgement"
    );
    let timed = run_until(&mut server, 60_000);
    assert_eq!(comments(&timed, 1), vec![15_000, 30_000, 45_000, 60_000]);
    assert_eq!(server.ledger().listens[0].keepalives, 4);
    assert_eq!(server.quietest_listen(), Some(60_000), "a comment is bytes");
}

#[test]
fn an_event_on_the_listen_moves_the_next_comment_on() {
    let mut server = server(keepalive(15_000));
    open(&mut server, 1, 7, 0);
    let mut out = Vec::new();
    server.change_list(ListName::Tools, true, 10_000, &mut out);
    assert!(
        out.iter()
            .any(|o| matches!(o, Output::Event { conn, .. } if conn.0 == 1)),
        "list_changed sent: {out:?}"
    );
    assert_eq!(
        server.next_due(),
        Some(25_000),
        "15 s after the list_changed"
    );
    let timed = run_until(&mut server, 50_000);
    assert_eq!(comments(&timed, 1), vec![25_000, 40_000]);
}

#[test]
fn each_listen_keeps_its_own_schedule_and_a_closed_one_gets_no_more() {
    let mut server = server(keepalive(10_000));
    open(&mut server, 1, 7, 0);
    open(&mut server, 2, 8, 4_000);
    let mut timed = run_until(&mut server, 20_000);
    assert_eq!(comments(&timed, 1), vec![10_000, 20_000]);
    assert_eq!(comments(&timed, 2), vec![14_000]);
    let mut out = Vec::new();
    server.disconnect(ConnId(2), 21_000, &mut out);
    timed = run_until(&mut server, 60_000);
    assert_eq!(comments(&timed, 1), vec![30_000, 40_000, 50_000, 60_000]);
    assert!(comments(&timed, 2).is_empty(), "closed at 21 s: {timed:?}");
    assert_eq!(server.ledger().listens[1].keepalives, 1);
}

#[test]
fn a_restart_ends_every_listen_and_its_keep_alives() {
    let mut server = server(keepalive(10_000));
    open(&mut server, 1, 7, 0);
    let mut out = Vec::new();
    server.restart(5_000, &mut out);
    assert_eq!(server.next_due(), None);
    assert_eq!(server.quietest_listen(), None);
}

#[test]
fn a_request_stream_gets_no_comment() {
    let mut server = server(keepalive(1_000));
    let call = modern_post(
        3,
        "tools/call",
        with_meta(json!({"name": "long_job", "arguments": {"steps": 3, "interval_ms": 5_000}})),
    );
    let mut out = Vec::new();
    server.handle(ConnId(1), call, 0, &mut out);
    let timed = run_until(&mut server, 20_000);
    assert!(comments(&timed, 1).is_empty(), "{timed:?}");
}

/// What an idle proxy reads and does: the quietest listen, the listens quiet since a time,
/// and a reset recorded in `cuts` with its reason.
#[test]
fn a_middlebox_reset_of_an_idle_listen_is_recorded_with_its_reason() {
    let mut server = server(ServerKnobs::default());
    open(&mut server, 1, 7, 0);
    open(&mut server, 2, 8, 30_000);
    assert_eq!(server.quietest_listen(), Some(0));
    assert_eq!(server.idle_listens(0), vec![(ConnId(1), 0)]);
    assert_eq!(
        server.idle_listens(30_000),
        vec![(ConnId(1), 0), (ConnId(2), 30_000)]
    );
    let reason = CutReason::IdleProxy {
        idle_ms: 60_000,
        last_bytes_ms: 0,
    };
    let mut out = Vec::new();
    server.reset_connection(ConnId(1), reason, 60_000, &mut out);
    assert_eq!(
        out,
        vec![Output::End {
            conn: ConnId(1),
            how: EndMode::Reset
        }]
    );
    let cut = &server.ledger().cuts[0];
    assert_eq!(
        (cut.conn, cut.at_ms, cut.reason),
        (ConnId(1), 60_000, reason)
    );
    let stream = server.ledger().listens[0].stream;
    assert_eq!(cut.stream, Some(stream));
    assert_eq!(server.ledger().stream(stream).closed_ms, Some(60_000));
    assert_eq!(
        server.quietest_listen(),
        Some(30_000),
        "only conn 2 is left"
    );
    let json = serde_json::to_value(cut).expect("json");
    assert_eq!(json["reason"], "idle_proxy");
    assert_eq!(json["idle_ms"], 60_000);
    // A connection already gone is left alone (and not recorded twice).
    server.reset_connection(ConnId(1), reason, 61_000, &mut out);
    assert_eq!(server.ledger().cuts.len(), 1);
}

/// The three ends of `DropListen`: a reset sends nothing; `Complete` sends the listen's
/// `complete` result, `Cancelled` sends `notifications/cancelled` naming the listen, each
/// followed by a clean end; every way, the listen is closed and gets nothing more.
#[test]
fn the_server_ends_a_listen_by_reset_by_its_result_or_by_a_cancellation() {
    for how in [ListenEnd::Reset, ListenEnd::Complete, ListenEnd::Cancelled] {
        let mut server = server(keepalive(10_000));
        open(&mut server, 1, 7, 0);
        let mut out = Vec::new();
        let ended = server.end_listens(how, 5_000, &mut out);
        assert_eq!(ended, vec![ConnId(1)], "{how:?}");
        let end = match how {
            ListenEnd::Reset => EndMode::Reset,
            _ => EndMode::Close,
        };
        assert_eq!(
            out.last(),
            Some(&Output::End {
                conn: ConnId(1),
                how: end
            }),
            "{how:?}: {out:?}"
        );
        let messages: Vec<_> = out
            .iter()
            .filter_map(|o| match o {
                Output::Event { event, id, .. } => {
                    assert_eq!(*id, None, "no id on a listen stream");
                    let produced = server.ledger().event(*event);
                    assert_eq!(
                        produced.payload,
                        Payload::ListenEnded {
                            listen: 0,
                            end: how
                        }
                    );
                    server.event_message(*event)
                }
                _ => None,
            })
            .collect();
        match how {
            ListenEnd::Reset => assert!(messages.is_empty(), "{messages:?}"),
            ListenEnd::Complete => {
                assert_eq!(messages.len(), 1);
                assert_eq!(messages[0]["id"], 7);
                assert_eq!(messages[0]["result"]["resultType"], "complete");
            }
            ListenEnd::Cancelled => {
                assert_eq!(messages.len(), 1);
                assert_eq!(messages[0]["method"], "notifications/cancelled");
                assert_eq!(messages[0]["params"]["requestId"], 7);
                assert_eq!(
                    messages[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                    7
                );
            }
        }
        let stream = server.ledger().listens[0].stream;
        assert_eq!(server.ledger().stream(stream).closed_ms, Some(5_000));
        assert_eq!(
            server.next_due(),
            None,
            "{how:?}: no keep-alive after the end"
        );
        let mut later = Vec::new();
        server.change_list(ListName::Tools, true, 6_000, &mut later);
        assert!(later.is_empty(), "{how:?}: nothing sent after the end");
    }
}

#[test]
fn the_knob_is_written_only_when_set() {
    let default = serde_json::to_value(ServerKnobs::default()).expect("json");
    assert!(default.get("listen_keepalive").is_none());
    let set = serde_json::to_value(keepalive(15_000)).expect("json");
    assert_eq!(set["listen_keepalive"], "15s");
}
