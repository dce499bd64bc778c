//! `missed_change`: the client called a tool from a tools list that had changed while its
//! listen stream was down. On 2026-07-28 a list change reaches only the listen streams
//! open when it is published, and a new listen replays nothing
//! (<https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>),
//! so a client that does not listen again, or listens again but does not list again, keeps
//! working from the old list with no error anywhere
//! (<https://github.com/nicobailon/pi-mcp-adapter/issues/468>).
//!
//! From the ledger alone: the version a call used is the version of the last `tools/list`
//! answered before it; the version current then comes from `list_changes`. A call that
//! used an older version, where some change in between happened while the client had
//! listened before but had no listen stream open, is a missed change: one verdict per
//! change, at its first such use. A change made while its listen was open reached it (or
//! was made silently, which no listen can hear), and a client that never listened has no
//! channel: for both, the list's `ttlMs` (2026-07-28's cache hint) is the way to know, so a
//! call from a list kept past its `ttlMs`, after a change no channel brought, is a missed
//! change too (the guarded client lists again when the hint runs out).
//!
//! A 2025 client's change channel is its standalone GET stream, where a session's
//! `list_changed` is sent (and logged, for a resumption to replay). A sessionless server's
//! GET stream belongs to no session and carries nothing: a client that opened one believed
//! it had a channel, so a change made while only such a stream was open is missed as well
//! (<https://github.com/akutishevsky/nutrition-mcp/pull/31>: "connected, no tools" after a
//! deploy, fixed by answering GET with 405). A 2025 change the server never published is
//! not judged: it reaches no 2025 client, on any stream.
//!
//! Only calls answered 2xx are judged: a call refused (for its era, its session) ran
//! nothing, from any list.
//!
//! On a fleet whose replicas each have their own event bus (the TypeScript SDK's
//! in-memory `InMemoryServerEventBus`), a change published by one replica reaches only
//! the listens held there: a published change that never reached the client's open
//! listen stream is missed as well, and its evidence names the publishing replica.

use crate::spell::vtime;
use crate::verdict::{Evidence, Verdict, VerdictKind};
use crate::words::Words;
use faultline_model::{ConnId, Ledger, ListName, Payload, StreamKind};
use serde::Serialize;

/// One missed change and the call that used the list it made stale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissedChange {
    pub list: ListName,
    /// The version of the list the client held (its last `tools/list` before the call).
    pub version_used: u32,
    /// The version current when it called.
    pub version_current: u32,
    /// When the missed change was made, and the version it made.
    pub changed_at_ms: u64,
    pub changed_to: u32,
    /// When the client's listen stream went down before the change (a 2025 GET stream:
    /// since when it was down or carried nothing, as far as the ledger shows), and when it
    /// listened again (`None`: never, within the run).
    pub listen_down_from_ms: u64,
    pub listen_down_to_ms: Option<u64>,
    /// The call that used the stale list: its connection and when it was answered.
    pub used_by_conn: ConnId,
    pub used_at_ms: u64,
    /// The channel was a 2025 standalone GET stream, not a 2026-07-28 listen stream.
    /// Written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub via_standalone_stream: bool,
    /// The change was published by this replica alone and never reached the client's
    /// listen stream, open on another (then the "down" window is the change's instant).
    /// Written only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_elsewhere: Option<faultline_model::ReplicaId>,
    /// The list the client called from had run out (a 2026-07-28 list's `ttlMs`) before the
    /// call, and the change was one no channel brought it (made silently while it
    /// listened, or while it never listened): the cache hint was the client's way to know.
    /// Written only when set; the "down" window is then the change's instant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired_list: Option<ExpiredList>,
}

/// A tools list the client kept past its `ttlMs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExpiredList {
    pub listed_at_ms: u64,
    pub ttl_ms: u64,
}

impl ExpiredList {
    pub fn expired_at_ms(&self) -> u64 {
        self.listed_at_ms.saturating_add(self.ttl_ms)
    }
}

/// A client's change channel: a 2026-07-28 listen stream or a 2025 standalone GET stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    Listen,
    Get,
}

/// Every change of the tools list some call missed, in the order of the changes.
pub fn missed_changes(ledger: &Ledger) -> Vec<MissedChange> {
    let list = ListName::Tools;
    // (opened, closed) of each listen stream that asked for tools changes.
    let windows: Vec<(u64, Option<u64>)> = ledger
        .listens
        .iter()
        .filter(|l| l.filter.wants(list))
        .filter_map(|l| {
            let i = l.stream.0.checked_sub(ledger.streams_base)? as usize;
            let stream = ledger.streams.get(i)?;
            (stream.kind == StreamKind::Listen).then_some((l.opened_ms, stream.closed_ms))
        })
        .collect();
    let open_at = |t: u64| {
        windows
            .iter()
            .any(|&(from, to)| from <= t && to.is_none_or(|to| t < to))
    };
    // Whether a listen was open when `change` was made: the times tell, except when a
    // listen opened or closed at the change's very instant (a restart or a roll that closes
    // the listens, shrunk onto the same minute as the change), where the ledger's word on
    // the change does.
    let open_for = |change: &faultline_model::ListChange| {
        let t = change.at_ms;
        if windows.iter().any(|&(from, to)| from == t || to == Some(t)) {
            change.listening
        } else {
            open_at(t)
        }
    };
    // 2025: when standalone GET streams opened (the client's change channel, as it
    // believes), and when a GET resumed one.
    // A session's GET stream carries its changes; a sessionless server's carries nothing.
    let gets: Vec<(u64, bool)> = ledger
        .streams
        .iter()
        .filter(|s| s.kind == StreamKind::Standalone)
        .map(|s| {
            let stateless = s
                .session
                .0
                .checked_sub(ledger.sessions_base)
                .and_then(|i| ledger.sessions.get(i as usize))
                .is_some_and(|e| e.stateless);
            (s.opened_ms, !stateless)
        })
        .collect();
    // A change reached the client when its `list_changed` was sent to it by `by` (2025:
    // live, or replayed on a resumption; 2026-07-28: on a listen stream).
    let sent_by = |change: usize, by: u64| {
        let change = ledger.list_changes_base + change as u32;
        ledger.sends.iter().any(|send| {
            send.at_ms <= by
                && send
                    .event
                    .0
                    .checked_sub(ledger.events_base)
                    .and_then(|i| ledger.events.get(i as usize))
                    .is_some_and(|e| match e.payload {
                        Payload::SessionListChanged { change: c }
                        | Payload::ListChanged { change: c, .. } => c == change,
                        _ => false,
                    })
        })
    };
    let version_at = |t: u64| {
        ledger
            .list_changes
            .iter()
            .filter(|c| c.list == list && c.at_ms <= t)
            .map(|c| c.version)
            .max()
            .unwrap_or(1)
    };
    // The change channel the client had last opened at `t`: a listen (opened at its
    // acknowledgement) or a 2025 GET stream.
    let channel_at = |t: u64| {
        let listen = windows
            .iter()
            .map(|&(from, _)| from)
            .filter(|&f| f <= t)
            .max();
        let get = gets.iter().map(|&(from, _)| from).filter(|&f| f <= t).max();
        match (listen, get) {
            (Some(l), Some(g)) if g > l => Some(Channel::Get),
            (Some(_), _) => Some(Channel::Listen),
            (None, Some(_)) => Some(Channel::Get),
            (None, None) => None,
        }
    };
    let mut found: Vec<MissedChange> = Vec::new();
    let mut held: Option<u32> = None;
    // The held list's cache hint, when it came with one: when it was listed, its `ttlMs`.
    let mut held_hint: Option<ExpiredList> = None;
    for answer in &ledger.answers {
        if answer.rpc_method.as_deref() == Some("tools/list")
            && let Some(v) = answer.list_version
        {
            held = Some(v);
            held_hint = answer.list_ttl_ms.map(|ttl_ms| ExpiredList {
                listed_at_ms: answer.at_ms,
                ttl_ms,
            });
            continue;
        }
        // A call refused or failed ran nothing, from any list.
        if answer.rpc_method.as_deref() != Some("tools/call")
            || !(200..300).contains(&answer.status)
        {
            continue;
        }
        let Some(used) = held else { continue };
        let now = answer.at_ms;
        let current = version_at(now);
        if used >= current {
            continue;
        }
        // The first change since the held version that never reached the client, after
        // it had a change channel: not sent to it before the call, and made while no
        // listen was open or published while one was (a per-replica bus). The channel is the one the client opened last (a client
        // that found its era by probing may have moved from one to the other). Through a
        // GET stream only a published change counts: a 2025 change reaches a client only as
        // a `list_changed`, so one the server never published reaches no 2025 client,
        // whatever it does.
        let missed = ledger.list_changes.iter().enumerate().find(|&(i, c)| {
            let judged = match channel_at(c.at_ms) {
                Some(Channel::Listen) => !open_for(c) || c.notified,
                Some(Channel::Get) => c.notified,
                None => false,
            };
            c.list == list && c.version > used && c.at_ms <= now && judged && !sent_by(i, now)
        });
        // Else a change no channel brought, from a list kept past its `ttlMs` (what a client
        // that honours the hint lists again on: the guarded one does).
        let expired = held_hint.filter(|hint| hint.expired_at_ms() <= now);
        let (missed, expired_list) = match missed {
            Some(found) => (Some(found), None),
            None => match expired {
                Some(hint) => (
                    ledger.list_changes.iter().enumerate().find(|&(i, c)| {
                        c.list == list && c.version > used && c.at_ms <= now && !sent_by(i, now)
                    }),
                    Some(hint),
                ),
                None => (None, None),
            },
        };
        let Some((_, change)) = missed else { continue };
        if found
            .iter()
            .any(|m| m.changed_to == change.version && m.list == list)
        {
            continue;
        }
        let at = change.at_ms;
        let via_standalone_stream = channel_at(at) == Some(Channel::Get);
        let published_elsewhere = change
            .published_on
            .filter(|_| !via_standalone_stream && open_for(change));
        let (down_from, down_to) = if published_elsewhere.is_some() || expired_list.is_some() {
            (at, Some(at))
        } else if via_standalone_stream {
            // Down since the restart or cut that last ended the GET stream, or, with none,
            // since it opened (a stream that carries nothing was never up); and carrying
            // nothing at least since the last event a standalone stream carried to the
            // client (a fault's drop leaves no mark in the ledger: the stream was up, or
            // idle, until then, so "down or carried nothing" starts there at the earliest).
            let carried = ledger
                .sends
                .iter()
                .filter(|send| send.at_ms <= at)
                .filter(|send| {
                    send.event
                        .0
                        .checked_sub(ledger.events_base)
                        .and_then(|i| ledger.events.get(i as usize))
                        .and_then(|e| e.stream.0.checked_sub(ledger.streams_base))
                        .and_then(|i| ledger.streams.get(i as usize))
                        .is_some_and(|s| s.kind == StreamKind::Standalone)
                })
                .map(|send| send.at_ms)
                .max();
            let ended = ledger
                .restarts
                .iter()
                .copied()
                .chain(ledger.cuts.iter().map(|c| c.at_ms))
                .filter(|&t| t <= at)
                .max();
            let opened = gets.iter().map(|&(t, _)| t).filter(|&t| t < at).max();
            // Back with the first GET after the change that carries changes (a new stream
            // of a session, or a resumption); a sessionless one never is.
            let back = gets
                .iter()
                .filter(|&&(_, carries)| carries)
                .map(|&(t, _)| t)
                .chain(ledger.resumptions.iter().map(|r| r.at_ms))
                .filter(|&t| t >= at)
                .min();
            (ended.max(opened).max(carried).unwrap_or(0), back)
        } else {
            let closed = windows
                .iter()
                .filter_map(|&(_, to)| to)
                .filter(|&to| to <= at)
                .max();
            let back = windows
                .iter()
                .map(|&(from, _)| from)
                .filter(|&from| from > at)
                .min();
            (closed.unwrap_or(0), back)
        };
        found.push(MissedChange {
            list,
            version_used: used,
            version_current: current,
            changed_at_ms: at,
            changed_to: change.version,
            listen_down_from_ms: down_from,
            listen_down_to_ms: down_to,
            used_by_conn: answer.conn,
            used_at_ms: now,
            via_standalone_stream,
            published_elsewhere,
            expired_list,
        });
    }
    found
}

/// The `missed_change` verdicts of a run, each at the call that used the stale list.
pub(crate) fn verdicts(ledger: &Ledger, words: Words, out: &mut Vec<Verdict>) {
    for m in missed_changes(ledger) {
        let summary = words.say(|| {
            let relisten = match m.listen_down_to_ms {
                Some(t) => format!("until {}", vtime(t)),
                None => "for the rest of the run".to_string(),
            };
            // Why list_changed never reached the client: another replica's bus, or a channel
            // that was down.
            let why = match (m.expired_list, m.published_elsewhere) {
                (Some(hint), _) => format!(
                    ", which no channel brought the client (made silently while it listened, or with no listen open), but the list it held, listed at {} with ttlMs {}, had run out at {} and it did not list again",
                    vtime(hint.listed_at_ms),
                    hint.ttl_ms,
                    vtime(hint.expired_at_ms())
                ),
                (None, Some(r)) => format!(
                    ", published by replica {r} alone, while the client's listen stream was open on another replica: a per-replica bus never carried list_changed to it"
                ),
                (None, None) => {
                    let channel = if m.via_standalone_stream {
                        "change channel (its GET stream) was down or carried nothing"
                    } else {
                        "listen stream was down"
                    };
                    format!(
                        " while the client's {channel} (from {} {relisten}), so list_changed never reached it",
                        vtime(m.listen_down_from_ms)
                    )
                }
            };
            format!(
                    "the {list} list changed to version {to} at {at}{why}; at {used} it called a tool (conn {conn}) from version {v}, with version {cur} current",
                    list = m.list.word(),
                    to = m.changed_to,
                    at = vtime(m.changed_at_ms),
                    used = vtime(m.used_at_ms),
                    conn = m.used_by_conn.0,
                    v = m.version_used,
                    cur = m.version_current,
                )
        });
        out.push(Verdict {
            kind: VerdictKind::MissedChange,
            at_ms: m.used_at_ms,
            summary,
            evidence: Evidence::MissedChange(m),
        });
    }
}

#[cfg(test)]
mod judged_tests {
    use faultline_model::{
        AnswerEntry, ListChange, ListenEntry, ListenFilter, SessionKey, StreamEntry, StreamId,
    };
    use serde_json::json;

    use super::*;
    use faultline_model::{ConnId, ListName, Payload, StreamKind};

    fn answer(conn: u64, at_ms: u64, rpc: &str, list_version: Option<u32>) -> AnswerEntry {
        AnswerEntry {
            rpc_method: Some(rpc.into()),
            list_version,
            ..crate::test_answer::answer(conn, at_ms, 200)
        }
    }

    fn listen_stream(opened_ms: u64, closed_ms: Option<u64>) -> StreamEntry {
        StreamEntry {
            session: SessionKey(0),
            generation: 1,
            kind: StreamKind::Listen,
            opened_ms,
            modern: true,
            closed_ms,
        }
    }

    fn listen(stream: u32, opened_ms: u64) -> ListenEntry {
        ListenEntry {
            stream: StreamId(stream),
            request_id: json!(stream),
            filter: ListenFilter {
                tools: true,
                ..ListenFilter::default()
            },
            opened_ms,
            keepalives: 0,
        }
    }

    fn change(at_ms: u64, version: u32) -> ListChange {
        ListChange {
            at_ms,
            list: ListName::Tools,
            version,
            notified: true,
            published_on: None,
            listening: false,
        }
    }

    /// Listened at 0, listed at 0, the listen dropped at 10 s, the list changed at 20 s,
    /// a call at 30 s: a missed change, with the window it was missed in.
    fn dropped_then_changed() -> Ledger {
        Ledger {
            streams: vec![listen_stream(0, Some(10_000))],
            listens: vec![listen(0, 0)],
            list_changes: vec![change(20_000, 2)],
            answers: vec![
                answer(1, 0, "subscriptions/listen", None),
                answer(2, 0, "tools/list", Some(1)),
                answer(3, 30_000, "tools/call", None),
                answer(4, 40_000, "tools/call", None),
            ],
            ..Ledger::default()
        }
    }

    /// A client that never listened, holding a list with `ttl_ms` listed at 0: the list
    /// changed silently at 20 s and the client called at 30 s from the old list.
    fn kept_past_ttl(ttl_ms: Option<u64>) -> Vec<MissedChange> {
        let mut list = answer(1, 0, "tools/list", Some(1));
        list.list_ttl_ms = ttl_ms;
        let mut change = change(20_000, 2);
        change.notified = false;
        missed_changes(&Ledger {
            list_changes: vec![change],
            answers: vec![list, answer(2, 30_000, "tools/call", None)],
            ..Ledger::default()
        })
    }

    /// A list kept past its `ttlMs` (10 s: run out at 10 s) and called from after a change
    /// nothing announced is a missed change; within its `ttlMs` (60 s), or with no cache
    /// hint (a 2025 list), the client had no way to know, and it is not.
    #[test]
    fn a_list_kept_past_its_ttl_misses_a_change_nothing_announced() {
        let found = kept_past_ttl(Some(10_000));
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].expired_list,
            Some(ExpiredList {
                listed_at_ms: 0,
                ttl_ms: 10_000
            })
        );
        assert_eq!((found[0].changed_to, found[0].used_at_ms), (2, 30_000));
        assert!(kept_past_ttl(Some(60_000)).is_empty());
        assert!(kept_past_ttl(None).is_empty());
    }

    /// A silent change at the instant the listen closed: the times cannot say which came
    /// first, the change's `listening` does. Made while the listen was still open, no
    /// client could hear it (not judged); made after, the client that listens again lists
    /// again (missed).
    #[test]
    fn a_change_at_the_instant_the_listen_closed_is_read_by_its_listening() {
        let tie = |listening: bool| {
            let mut ledger = dropped_then_changed();
            ledger.streams[0].closed_ms = Some(20_000);
            ledger.list_changes[0].notified = false;
            ledger.list_changes[0].listening = listening;
            missed_changes(&ledger)
        };
        assert!(tie(true).is_empty());
        assert_eq!(tie(false).len(), 1);
    }

    #[test]
    fn a_call_from_a_list_changed_while_the_listen_was_down_is_a_missed_change() {
        let found = missed_changes(&dropped_then_changed());
        assert_eq!(
            found,
            vec![MissedChange {
                list: ListName::Tools,
                version_used: 1,
                version_current: 2,
                changed_at_ms: 20_000,
                changed_to: 2,
                listen_down_from_ms: 10_000,
                listen_down_to_ms: None,
                used_by_conn: ConnId(3),
                used_at_ms: 30_000,
                via_standalone_stream: false,
                published_elsewhere: None,
                expired_list: None,
            }],
            "one verdict per change, at its first use"
        );
    }

    #[test]
    fn listing_again_after_listening_again_misses_nothing() {
        let mut ledger = dropped_then_changed();
        ledger.streams.push(listen_stream(25_000, None));
        ledger.listens.push(listen(1, 25_000));
        ledger
            .answers
            .insert(2, answer(5, 25_000, "tools/list", Some(2)));
        assert!(missed_changes(&ledger).is_empty());
    }

    /// `dropped_then_changed` with the listen still open at the change and its
    /// `list_changed` sent on it then.
    fn open_and_heard() -> Ledger {
        let mut open = dropped_then_changed();
        open.streams[0].closed_ms = Some(25_000);
        open.events.push(faultline_model::ProducedEvent {
            id: 2,
            stream: StreamId(0),
            ordinal: 2,
            session: SessionKey(0),
            generation: 1,
            at_ms: 20_000,
            payload: Payload::ListChanged {
                listen: 0,
                change: 0,
            },
        });
        open.sends.push(faultline_model::SendEntry {
            event: faultline_model::EventRef(0),
            conn: ConnId(1),
            at_ms: 20_000,
            replay: false,
        });
        open
    }

    #[test]
    fn a_change_while_listening_or_without_ever_listening_is_not_a_missed_change() {
        // The listen was open at the change: list_changed reached the client.
        assert!(missed_changes(&open_and_heard()).is_empty());
        // Or the change was silent: no client could hear it.
        let mut silent = open_and_heard();
        silent.sends.clear();
        silent.list_changes[0].notified = false;
        assert!(missed_changes(&silent).is_empty());
        // The client never listened: it relies on ttlMs alone.
        let mut never = dropped_then_changed();
        never.listens.clear();
        never.streams.clear();
        assert!(missed_changes(&never).is_empty());
        assert!(missed_changes(&Ledger::default()).is_empty());
    }

    /// A per-replica bus: the change was published by r1 while the client listened on r0,
    /// and never reached it. Missed, naming the publisher.
    #[test]
    fn a_published_change_that_never_reached_an_open_listen_is_missed() {
        let mut elsewhere = open_and_heard();
        elsewhere.sends.clear();
        elsewhere.events.clear();
        elsewhere.list_changes[0].published_on = Some(faultline_model::ReplicaId(1));
        let found = missed_changes(&elsewhere);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].published_elsewhere,
            Some(faultline_model::ReplicaId(1))
        );
        assert_eq!(
            (found[0].listen_down_from_ms, found[0].listen_down_to_ms),
            (20_000, Some(20_000)),
            "the listen never went down"
        );
        let mut out = Vec::new();
        verdicts(&elsewhere, Words::Written, &mut out);
        assert!(
            out[0].summary.contains("published by replica r1 alone"),
            "{}",
            out[0].summary
        );
    }

    /// A 2025 client: a GET stream of session 0 opened at 0, the tools listed at 0, the
    /// list changed at 20 s, a call at 30 s; `sent`: the change's `list_changed` was sent
    /// on the GET stream at 20 s; `stateless`: the session is a sessionless server's scope.
    fn legacy(sent: bool, stateless: bool) -> Ledger {
        let mut ledger = Ledger {
            sessions: vec![faultline_model::SessionEntry {
                wire_id: String::new(),
                created_ms: 0,
                generations: vec![0],
                died: None,
                held_by: None,
                stateless,
            }],
            streams: vec![StreamEntry {
                kind: StreamKind::Standalone,
                modern: false,
                closed_ms: None,
                ..listen_stream(0, None)
            }],
            list_changes: vec![change(20_000, 2)],
            answers: vec![
                answer(1, 0, "tools/list", Some(1)),
                answer(2, 30_000, "tools/call", None),
            ],
            ..Ledger::default()
        };
        if sent {
            carried(
                &mut ledger,
                20_000,
                faultline_model::Payload::SessionListChanged { change: 0 },
            );
        }
        ledger
    }

    /// The GET stream (stream 0, on conn 3) carries `payload` to the client at `at_ms`.
    fn carried(ledger: &mut Ledger, at_ms: u64, payload: faultline_model::Payload) {
        ledger.events.push(faultline_model::ProducedEvent {
            id: 1,
            stream: StreamId(0),
            ordinal: 1,
            session: SessionKey(0),
            generation: 1,
            at_ms,
            payload,
        });
        ledger.sends.push(faultline_model::SendEntry {
            event: faultline_model::EventRef(ledger.events.len() as u32 - 1),
            conn: ConnId(3),
            at_ms,
            replay: false,
        });
    }

    #[test]
    fn a_2025_change_sent_on_the_get_stream_before_the_call_is_not_missed() {
        assert!(missed_changes(&legacy(true, false)).is_empty());
    }

    #[test]
    fn a_2025_change_never_sent_is_missed_through_the_get_stream() {
        for stateless in [false, true] {
            let found = missed_changes(&legacy(false, stateless));
            assert_eq!(found.len(), 1, "stateless: {stateless}");
            assert!(found[0].via_standalone_stream);
            assert_eq!(
                (
                    found[0].version_used,
                    found[0].changed_to,
                    found[0].used_at_ms
                ),
                (1, 2, 30_000)
            );
            // No restart: down since the stream opened, and never back.
            assert_eq!(found[0].listen_down_from_ms, 0);
            assert_eq!(found[0].listen_down_to_ms, None);
        }
    }

    /// A GET stream that carried an event at 10 s was not down from its opening: the
    /// window of "down or carried nothing" starts at its last event (a fault's drop leaves
    /// no mark in the ledger to start it later).
    #[test]
    fn a_get_stream_that_carried_events_was_up_until_its_last() {
        let mut ledger = legacy(false, false);
        carried(
            &mut ledger,
            10_000,
            faultline_model::Payload::Notification { seq: 0 },
        );
        let found = missed_changes(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].listen_down_from_ms, 10_000);
    }

    /// A 2025 change the server never published reaches no 2025 client, on any stream.
    #[test]
    fn an_unpublished_2025_change_is_not_judged() {
        for stateless in [false, true] {
            let mut silent = legacy(false, stateless);
            silent.list_changes[0].notified = false;
            assert!(missed_changes(&silent).is_empty(), "stateless: {stateless}");
        }
        // On 2026-07-28 a silent change while the listen was down still is: the client
        // that listens again lists again.
        let mut silent = dropped_then_changed();
        silent.list_changes[0].notified = false;
        assert_eq!(missed_changes(&silent).len(), 1);
    }

    /// A client that probed its way from 2026-07-28 to 2025: it listened, its listen
    /// dropped, then it opened a session's GET stream. Its channel is the GET stream from
    /// then on, so a change the server never published is not judged, and a published one
    /// that never reached it is, through the GET stream.
    #[test]
    fn the_channel_opened_last_decides() {
        let mut moved = dropped_then_changed();
        moved.sessions.push(faultline_model::SessionEntry {
            wire_id: "s".into(),
            created_ms: 15_000,
            generations: vec![15_000],
            died: None,
            held_by: None,
            stateless: false,
        });
        moved.streams.push(StreamEntry {
            kind: StreamKind::Standalone,
            modern: false,
            closed_ms: None,
            ..listen_stream(15_000, None)
        });
        moved
            .answers
            .insert(2, answer(5, 15_000, "tools/list", Some(1)));
        let found = missed_changes(&moved);
        assert_eq!(found.len(), 1);
        assert!(found[0].via_standalone_stream);
        moved.list_changes[0].notified = false;
        assert!(missed_changes(&moved).is_empty());
    }

    /// A call refused (here for its era) ran nothing: only the answered call after it used
    /// the stale list.
    #[test]
    fn a_refused_call_used_no_list() {
        let mut ledger = dropped_then_changed();
        ledger.answers[2].status = 400;
        let found = missed_changes(&ledger);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].used_by_conn, ConnId(4));
        ledger.answers[3].status = 404;
        assert!(missed_changes(&ledger).is_empty());
    }

    #[test]
    fn a_2025_client_that_never_opened_a_get_stream_is_not_judged() {
        let mut never = legacy(false, false);
        never.streams.clear();
        assert!(missed_changes(&never).is_empty());
    }
}
