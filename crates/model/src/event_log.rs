//! The event log: what the server keeps of each stream so that `Last-Event-ID` can be
//! honoured, with its own TTL and capacity, independent of the session's.
//!
//! This is deliberately a separate structure from the session store: in the field the two
//! expire on different clocks (the 404-after-replay cascade is a log that outlives its
//! session; Behavior A is a session that outlives its log), and keeping them apart here is
//! what lets every combination be expressed.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::ids::{ConnId, EventRef, JobId, SessionKey, StreamId};
use crate::ledger::StreamKind;

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
}

impl StreamLog {
    pub fn new(session: SessionKey, generation: u32, kind: StreamKind) -> Self {
        StreamLog {
            session,
            generation,
            kind,
            attached: None,
            detached_ms: None,
            local_counter: 0,
            produced: 0,
            first_id: None,
            last_id: None,
            retained: VecDeque::new(),
            open_jobs: Vec::new(),
            complete: false,
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
    /// (time the stream's oldest retained event expires, stream).
    expiry: BTreeSet<(u64, StreamId)>,
}

impl EventLog {
    pub fn get(&self, stream: StreamId) -> Option<&StreamLog> {
        self.streams.get(&stream)
    }

    pub fn get_mut(&mut self, stream: StreamId) -> Option<&mut StreamLog> {
        self.streams.get_mut(&stream)
    }

    pub fn insert(&mut self, stream: StreamId, log: StreamLog) {
        self.streams.insert(stream, log);
    }

    /// Appends an event, evicting the oldest beyond `capacity`.
    pub fn append(
        &mut self,
        stream: StreamId,
        logged: LoggedEvent,
        capacity: Option<u32>,
        ttl_ms: Option<u64>,
    ) {
        let Some(log) = self.streams.get_mut(&stream) else {
            return;
        };
        let head_before = log.retained.front().map(|e| (e.event, e.at_ms));
        log.retained.push_back(logged);
        if let Some(cap) = capacity {
            while log.retained.len() > cap as usize {
                log.retained.pop_front();
            }
        }
        let head_after = log
            .retained
            .front()
            .map(|e| (e.event, e.at_ms.saturating_add(ttl_ms.unwrap_or(0))));
        if let Some(ttl) = ttl_ms {
            match head_before {
                None => {
                    self.expiry
                        .insert((logged.at_ms.saturating_add(ttl), stream));
                }
                // Capacity evicted the head: the stream's next expiry moved.
                Some((before, before_at)) => {
                    if let Some((after, after_due)) = head_after
                        && after != before
                    {
                        self.expiry.remove(&(before_at.saturating_add(ttl), stream));
                        self.expiry.insert((after_due, stream));
                    }
                }
            }
        }
    }

    /// The earliest time an event expires by TTL.
    pub fn next_expiry(&self) -> Option<u64> {
        self.expiry.first().map(|&(t, _)| t)
    }

    /// Drops every event that expired by `cutoff_ms` (produced at or before `cutoff - ttl`).
    /// Detached streams left empty are forgotten entirely, so their cursors become unknown.
    pub fn expire(&mut self, cutoff_ms: u64, ttl_ms: u64) {
        while let Some(&(due, stream)) = self.expiry.first() {
            if due > cutoff_ms {
                break;
            }
            self.expiry.pop_first();
            let Some(log) = self.streams.get_mut(&stream) else {
                continue;
            };
            while let Some(front) = log.retained.front() {
                if front.at_ms.saturating_add(ttl_ms) <= cutoff_ms {
                    log.retained.pop_front();
                } else {
                    break;
                }
            }
            if let Some(front) = log.retained.front() {
                self.expiry
                    .insert((front.at_ms.saturating_add(ttl_ms), stream));
            } else if log.attached.is_none() {
                self.streams.remove(&stream);
            }
        }
    }

    /// Forgets every stream of `session` (or of all sessions), e.g. on restart.
    pub fn clear_where(&mut self, mut doomed: impl FnMut(&StreamLog) -> bool) {
        let gone: Vec<StreamId> = self
            .streams
            .iter()
            .filter(|(_, l)| doomed(l))
            .map(|(&s, _)| s)
            .collect();
        for s in &gone {
            self.streams.remove(s);
        }
        if !gone.is_empty() {
            self.expiry.retain(|(_, s)| !gone.contains(s));
        }
    }

    /// Finds the stream a cursor belongs to among `session`'s streams. Streams of the
    /// session's current generation are searched first (the server cannot know which
    /// generation minted the cursor: that is Behavior B), then the most recently detached.
    pub fn resolve(
        &self,
        session: SessionKey,
        current_generation: u32,
        cursor: u64,
    ) -> CursorMatch {
        let mut candidates: Vec<(&StreamId, &StreamLog)> = self
            .streams
            .iter()
            .filter(|(_, l)| l.session == session)
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
}
