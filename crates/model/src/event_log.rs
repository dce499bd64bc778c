//! The event log: what the server keeps of each stream so that `Last-Event-ID` can be
//! honoured, with its own TTL and capacity, independent of the session's.
//!
//! This is deliberately a separate structure from the session store: in the field the two
//! expire on different clocks (the 404-after-replay cascade is a log that outlives its
//! session; Behavior A is a session that outlives its log), and keeping them apart here is
//! what lets every combination be expressed.

use std::collections::{BTreeMap, VecDeque};

use crate::ids::{ConnId, EventRef, JobId, SessionKey, StreamId};
use crate::ledger::StreamKind;
use crate::route::ReplicaId;

#[derive(Debug, Clone, Copy)]
pub(crate) struct LoggedEvent {
    pub id: u64,
    pub at_ms: u64,
    pub event: EventRef,
}

#[derive(Debug)]
pub(crate) struct StreamLog {
    pub session: SessionKey,
    pub generation: u32,
    pub kind: StreamKind,
    pub attached: Option<ConnId>,
    /// The attached connection came by a resumption (for `resumed_stream_end`).
    pub attached_by_resume: bool,
    /// The stream answers `initialize` (under `all_answers_over_sse`), which rmcp's id
    /// spelling treats apart (see `Server::wire_event_id`).
    pub answers_initialize: bool,
    /// When the last connection went away (to prefer the stream a client is resuming).
    pub detached_ms: Option<u64>,
    /// Counter for `IdScheme::PerStream`.
    pub local_counter: u64,
    pub produced: u32,
    pub first_id: Option<u64>,
    pub last_id: Option<u64>,
    pub retained: VecDeque<LoggedEvent>,
    /// Jobs still writing here; a request stream completes when this reaches zero.
    pub open_jobs: Vec<JobId>,
    /// The final response was produced: once delivered, the stream ends.
    pub complete: bool,
    /// The replica of a fleet that opened the stream (0 for a single server): the one
    /// whose in-memory event store holds it.
    pub home: ReplicaId,
}

impl StreamLog {
    pub fn new(session: SessionKey, generation: u32, kind: StreamKind) -> Self {
        StreamLog {
            session,
            generation,
            kind,
            attached: None,
            attached_by_resume: false,
            answers_initialize: false,
            detached_ms: None,
            local_counter: 0,
            produced: 0,
            first_id: None,
            last_id: None,
            retained: VecDeque::new(),
            open_jobs: Vec::new(),
            complete: false,
            home: ReplicaId(0),
        }
    }
}

/// Where a `Last-Event-ID` led.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CursorMatch {
    /// The event is retained (or is the stream's last): replay from `index` in `retained`.
    Exact {
        stream: StreamId,
        index: usize,
    },
    /// The stream's numbering covers the cursor but its event was evicted.
    Stale {
        stream: StreamId,
    },
    Unknown,
}

#[derive(Debug, Default)]
pub(crate) struct EventLog {
    pub streams: BTreeMap<StreamId, StreamLog>,
    /// `(when it expires, stream, event)` for every event logged under a TTL, in the order
    /// produced, which is expiry order: one TTL for all, on a clock that never goes back.
    /// So expiry pops from the front, one entry per event, and never searches. An entry
    /// whose event left early (capacity, a restart) is stale; stale entries are dropped
    /// whenever they reach the front, so the front is always a live event's deadline.
    expiry: VecDeque<(u64, StreamId, EventRef)>,
    /// About how many entries of `expiry` are stale (counted as they go stale, discounted
    /// as they are dropped at the front; an estimate, which only decides when to compact). When they are most of the
    /// queue, it is compacted: a server forgetting a log per session (a dead session's,
    /// see `server/dead_logs.rs`) would otherwise hold one entry per event of every
    /// session of the last TTL.
    stale: usize,
    /// How many streams the log holds per session (sessions with none are absent), for
    /// the cap on streams per session.
    held: BTreeMap<SessionKey, u32>,
    /// Room for the events a driver expects scripted notifications to bring (see
    /// [`EventLog::reserve`]), given once, to the first standalone stream opened: they go
    /// to a standalone stream, and a long run's one otherwise regrew and copied its
    /// retained events a dozen times.
    standalone_room: usize,
}

impl EventLog {
    pub fn get(&self, stream: StreamId) -> Option<&StreamLog> {
        self.streams.get(&stream)
    }

    pub fn get_mut(&mut self, stream: StreamId) -> Option<&mut StreamLog> {
        self.streams.get_mut(&stream)
    }

    pub fn insert(&mut self, stream: StreamId, mut log: StreamLog) {
        if log.kind == StreamKind::Standalone && self.standalone_room > 0 {
            log.retained
                .reserve(std::mem::take(&mut self.standalone_room));
        }
        let session = log.session;
        if self.streams.insert(stream, log).is_none() {
            *self.held.entry(session).or_insert(0) += 1;
        }
    }

    /// Forgets a stream (its expiry entries become stale and are dropped as they surface).
    pub fn remove(&mut self, stream: StreamId) -> Option<StreamLog> {
        let log = self.streams.remove(&stream)?;
        if !self.expiry.is_empty() {
            self.stale += log.retained.len();
            self.compact_if_mostly_stale();
        }
        if let Some(n) = self.held.get_mut(&log.session) {
            *n -= 1;
            if *n == 0 {
                self.held.remove(&log.session);
            }
        }
        Some(log)
    }

    /// How many streams the log holds for `session`.
    pub fn streams_held(&self, session: SessionKey) -> u32 {
        self.held.get(&session).copied().unwrap_or(0)
    }

    /// Room for `events` TTL deadlines when the log has a TTL, and for as many retained
    /// events (at most `capacity` and the one over it) in the first standalone stream (see
    /// [`crate::Server::reserve_events`]). Changes nothing else.
    pub fn reserve(&mut self, events: usize, ttl: bool, capacity: Option<u32>) {
        if ttl {
            self.expiry.reserve(events);
        }
        self.standalone_room = capacity.map_or(events, |c| events.min(c as usize + 1));
    }

    /// Appends an event, evicting the oldest beyond `capacity`.
    #[cfg(test)]
    pub fn append(
        &mut self,
        stream: StreamId,
        logged: LoggedEvent,
        capacity: Option<u32>,
        ttl_ms: Option<u64>,
    ) {
        self.produce(stream, capacity, ttl_ms, |_| (logged, ()));
    }

    /// [`append`](Self::append) of the event `build` makes from the stream's log (which it
    /// may update: its numbering), with one lookup of the stream; `None`, and nothing
    /// built, when the log does not hold it. What `build` returns besides is handed back.
    pub fn produce<R>(
        &mut self,
        stream: StreamId,
        capacity: Option<u32>,
        ttl_ms: Option<u64>,
        build: impl FnOnce(&mut StreamLog) -> (LoggedEvent, R),
    ) -> Option<R> {
        let log = self.streams.get_mut(&stream)?;
        let (logged, made) = build(log);
        log.retained.push_back(logged);
        let mut evicted = 0;
        if let Some(cap) = capacity {
            while log.retained.len() > cap as usize {
                log.retained.pop_front();
                evicted += 1;
            }
        }
        if let Some(ttl) = ttl_ms {
            let due = logged.at_ms.saturating_add(ttl);
            debug_assert!(self.expiry.back().is_none_or(|&(last, _, _)| last <= due));
            self.expiry.push_back((due, stream, logged.event));
            if evicted > 0 {
                self.stale += evicted;
                self.drop_stale_front();
                self.compact_if_mostly_stale();
            }
        }
        Some(made)
    }

    /// The earliest time an event expires by TTL.
    #[inline]
    pub fn next_expiry(&self) -> Option<u64> {
        self.expiry.front().map(|&(t, _, _)| t)
    }

    /// The latest TTL deadline of a retained event among those `within` accepts, which
    /// must accept every deadline up to some bound and none past it (deadlines are queued
    /// in order, so the search starts from the back and stops at the first live one).
    pub fn last_expiry_within(&self, within: impl Fn(u64) -> bool) -> Option<u64> {
        self.expiry
            .iter()
            .rev()
            .skip_while(|&&(due, _, _)| !within(due))
            .find(|&&(_, stream, event)| {
                self.streams.get(&stream).is_some_and(|log| {
                    log.retained
                        .binary_search_by_key(&event, |e| e.event)
                        .is_ok()
                })
            })
            .map(|&(due, _, _)| due)
    }

    /// Drops every event that expired by `cutoff_ms` (produced at or before `cutoff - ttl`).
    /// Detached streams left empty are forgotten entirely, so their cursors become unknown.
    pub fn expire(&mut self, cutoff_ms: u64, ttl_ms: u64) {
        while let Some(&(due, stream, event)) = self.expiry.front() {
            if due > cutoff_ms {
                break;
            }
            self.expiry.pop_front();
            let Some(log) = self.streams.get_mut(&stream) else {
                self.drop_stale_front();
                continue;
            };
            // The front entry is live, so its event is the stream's oldest retained one.
            if log
                .retained
                .front()
                .is_some_and(|front| front.event == event)
            {
                debug_assert!(
                    log.retained
                        .front()
                        .is_some_and(|f| f.at_ms.saturating_add(ttl_ms) <= cutoff_ms)
                );
                log.retained.pop_front();
            }
            if log.retained.is_empty() && log.attached.is_none() {
                self.remove(stream);
                self.drop_stale_front();
                continue;
            }
            // Most often the next deadline is this stream's next event: checked on the
            // stream in hand rather than looked up again.
            let next_is_live = match self.expiry.front() {
                Some(&(_, next_stream, next_event)) if next_stream == stream => {
                    log.retained.front().is_some_and(|f| f.event == next_event)
                }
                Some(_) => false,
                None => true,
            };
            if !next_is_live {
                self.drop_stale_front();
            }
        }
    }

    /// Pops entries whose event is no longer retained, so the front is a live deadline.
    fn drop_stale_front(&mut self) {
        while let Some(&(_, stream, event)) = self.expiry.front() {
            let live = self
                .streams
                .get(&stream)
                .and_then(|log| log.retained.front())
                .is_some_and(|front| front.event == event);
            if live {
                break;
            }
            self.expiry.pop_front();
            self.stale = self.stale.saturating_sub(1);
        }
    }

    /// Drops every stale entry once they are likely most of the queue (so the work is
    /// paid for by the entries that went stale since the last time). The order of the
    /// live ones, and so every expiry, is unchanged.
    fn compact_if_mostly_stale(&mut self) {
        const AT_LEAST: usize = 1024;
        if self.stale < AT_LEAST || self.stale * 2 < self.expiry.len() {
            return;
        }
        let streams = &self.streams;
        self.expiry.retain(|&(_, stream, event)| {
            streams.get(&stream).is_some_and(|log| {
                log.retained
                    .binary_search_by_key(&event, |e| e.event)
                    .is_ok()
            })
        });
        self.stale = 0;
    }

    /// Every standalone stream the log holds, in stream order.
    pub fn standalone_streams(&self) -> impl Iterator<Item = (StreamId, &StreamLog)> {
        self.streams
            .iter()
            .filter(|(_, l)| l.kind == StreamKind::Standalone)
            .map(|(&s, l)| (s, l))
    }

    /// Forgets every stream of `session` (or of all sessions), e.g. on restart.
    pub fn clear_where(&mut self, mut doomed: impl FnMut(&StreamLog) -> bool) {
        let gone: Vec<StreamId> = self
            .streams
            .iter()
            .filter(|(_, l)| doomed(l))
            .map(|(&s, _)| s)
            .collect();
        for &s in &gone {
            self.remove(s);
        }
        if !gone.is_empty() {
            self.expiry.retain(|(_, s, _)| !gone.contains(s));
            self.drop_stale_front();
        }
    }

    /// Finds the stream a cursor belongs to among `session`'s streams. Streams of the
    /// session's current generation are searched first (the server cannot know which
    /// generation minted the cursor: that is Behavior B), then the most recently detached.
    ///
    /// `visible` says which logs the replica resolving the cursor can see (all of them for
    /// a single server).
    pub fn resolve(
        &self,
        session: SessionKey,
        current_generation: u32,
        cursor: u64,
        visible: impl Fn(&StreamLog) -> bool,
    ) -> CursorMatch {
        let mut candidates: Vec<(&StreamId, &StreamLog)> = self
            .streams
            .iter()
            .filter(|(_, l)| l.session == session && visible(l))
            .collect();
        candidates.sort_by_key(|(id, l)| {
            (
                l.generation != current_generation,
                std::cmp::Reverse(l.detached_ms.unwrap_or(u64::MAX)),
                std::cmp::Reverse(**id),
            )
        });
        for &(&stream, log) in &candidates {
            if let Some(index) = log.retained.iter().position(|e| e.id == cursor) {
                return CursorMatch::Exact {
                    stream,
                    index: index + 1,
                };
            }
            if log.last_id == Some(cursor) && log.retained.is_empty() {
                return CursorMatch::Exact { stream, index: 0 };
            }
        }
        for &(&stream, log) in &candidates {
            if let (Some(first), Some(last)) = (log.first_id, log.last_id)
                && first <= cursor
                && cursor < last
            {
                return CursorMatch::Stale { stream };
            }
        }
        CursorMatch::Unknown
    }

    /// The stream of a session other than `except` whose retained events hold `cursor`:
    /// a store shared by every session, looked up by event id alone. Only an exact match
    /// counts; lowest stream first.
    pub fn resolve_elsewhere(
        &self,
        except: SessionKey,
        cursor: u64,
        visible: impl Fn(&StreamLog) -> bool,
    ) -> CursorMatch {
        self.streams
            .iter()
            .filter(|(_, l)| l.session != except && visible(l))
            .find_map(|(&stream, log)| {
                let index = log.retained.iter().position(|e| e.id == cursor)?;
                Some(CursorMatch::Exact {
                    stream,
                    index: index + 1,
                })
            })
            .unwrap_or(CursorMatch::Unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(id: u64, at_ms: u64, event: u32) -> LoggedEvent {
        LoggedEvent {
            id,
            at_ms,
            event: EventRef(event),
        }
    }

    fn log_with(streams: &[u32]) -> EventLog {
        let mut log = EventLog::default();
        for &s in streams {
            log.insert(
                StreamId(s),
                StreamLog::new(SessionKey(0), 1, StreamKind::Standalone),
            );
        }
        log
    }

    /// Capacity evicts the oldest event before its TTL: the next expiry is the deadline of
    /// the oldest event still retained, not of the evicted one.
    #[test]
    fn next_expiry_skips_events_capacity_evicted() {
        let mut log = log_with(&[0]);
        for (i, at) in [0u64, 10, 20].into_iter().enumerate() {
            log.append(
                StreamId(0),
                logged(i as u64 + 1, at, i as u32),
                Some(2),
                Some(100),
            );
        }
        assert_eq!(log.next_expiry(), Some(110));
        log.expire(110, 100);
        assert_eq!(log.get(StreamId(0)).unwrap().retained.len(), 1);
        assert_eq!(log.next_expiry(), Some(120));
        log.expire(120, 100);
        assert!(
            log.get(StreamId(0)).is_none(),
            "a detached empty stream is forgotten"
        );
        assert_eq!(log.next_expiry(), None);
    }

    /// Events of several streams expire in production order, each from its own stream; an
    /// attached stream stays when emptied, and a cleared stream's deadlines go with it.
    #[test]
    fn expiry_interleaves_streams_and_forgets_cleared_ones() {
        let mut log = log_with(&[0, 1, 2]);
        log.get_mut(StreamId(1)).unwrap().attached = Some(ConnId(9));
        log.append(StreamId(2), logged(1, 0, 0), None, Some(50));
        log.append(StreamId(0), logged(1, 5, 1), None, Some(50));
        log.append(StreamId(1), logged(1, 6, 2), None, Some(50));
        log.append(StreamId(0), logged(2, 30, 3), None, Some(50));
        log.clear_where(|l| l.retained.front().is_some_and(|e| e.event == EventRef(0)));
        assert!(log.get(StreamId(2)).is_none());
        assert_eq!(log.next_expiry(), Some(55));
        log.expire(56, 50);
        assert_eq!(log.get(StreamId(0)).unwrap().retained.len(), 1);
        assert!(log.get(StreamId(1)).unwrap().retained.is_empty());
        assert!(log.get(StreamId(1)).is_some(), "attached streams stay");
        assert_eq!(log.next_expiry(), Some(80));
        log.expire(1_000, 50);
        assert!(log.get(StreamId(0)).is_none());
        assert_eq!(log.next_expiry(), None);
    }

    /// Forgetting most streams compacts the deadline queue (it does not keep one entry
    /// per forgotten event until its TTL), and the live deadlines keep their order.
    #[test]
    fn forgotten_streams_leave_no_deadlines_behind() {
        let streams: Vec<u32> = (0..4_000).collect();
        let mut log = log_with(&streams);
        for &s in &streams {
            log.append(StreamId(s), logged(1, u64::from(s), s), None, Some(1_000));
        }
        // Keep every tenth stream, the first among them.
        for &s in &streams {
            if s % 10 != 0 {
                log.remove(StreamId(s));
            }
        }
        assert!(
            log.expiry.len() < 2 * 400 + 1_024,
            "compacted: {} entries for 400 live events",
            log.expiry.len()
        );
        let mut expected: Vec<u64> = (0..4_000)
            .filter(|s| s % 10 == 0)
            .map(|s| s + 1_000)
            .collect();
        let mut seen = Vec::new();
        while let Some(due) = log.next_expiry() {
            seen.push(due);
            log.expire(due, 1_000);
        }
        expected.dedup();
        assert_eq!(seen, expected, "every live deadline, in order, once");
        assert!(log.streams.is_empty());
    }
}
