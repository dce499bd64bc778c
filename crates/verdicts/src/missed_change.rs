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
//! change, at its first such use. A client that never listened relies on `ttlMs` alone and
//! is not judged here; a change made while its listen was open reached it (or was made
//! silently, which no client can hear).
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
    /// When the client's listen stream went down before the change, and when it listened
    /// again (`None`: never, within the run).
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
    for answer in &ledger.answers {
        if answer.rpc_method.as_deref() == Some("tools/list")
            && let Some(v) = answer.list_version
        {
            held = Some(v);
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
                Some(Channel::Listen) => !open_at(c.at_ms) || c.notified,
                Some(Channel::Get) => c.notified,
                None => false,
            };
            c.list == list && c.version > used && c.at_ms <= now && judged && !sent_by(i, now)
        });
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
            .filter(|_| !via_standalone_stream && open_at(at));
        let (down_from, down_to) = if published_elsewhere.is_some() {
            (at, Some(at))
        } else if via_standalone_stream {
            // Down since the restart or cut that last ended the GET stream, or, with none,
            // since it opened (a stream that carries nothing was never up).
            let ended = ledger
                .restarts
                .iter()
                .copied()
                .chain(ledger.cuts.iter().map(|c| c.at_ms))
                .filter(|&t| t <= at)
                .max();
            let opened = gets.iter().map(|&(t, _)| t).filter(|&t| t <= at).max();
            // Back with the first GET after the change that carries changes (a new stream
            // of a session, or a resumption); a sessionless one never is.
            let back = gets
                .iter()
                .filter(|&&(_, carries)| carries)
                .map(|&(t, _)| t)
                .chain(ledger.resumptions.iter().map(|r| r.at_ms))
                .filter(|&t| t >= at)
                .min();
            (ended.or(opened).unwrap_or(0), back)
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
        });
    }
    found
}
