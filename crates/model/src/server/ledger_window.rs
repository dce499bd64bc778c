//! Bounding the ledger of a long-lived server, and handing a finished run's ledger over.
//!
//! A simulation keeps the whole ledger (it is the ground truth verdicts are checked
//! against); the live server would grow without bound, so it trims to a window, in
//! entries and in bytes, never dropping what a retained event, a live session or a running
//! job may still need. Dead sessions are trimmed by the same window, with the wire ids the
//! server remembers for them: a server that creates and deletes sessions all day keeps a
//! bounded memory of them.
//!
//! What is still needed is found by a scan (of the live sessions, the retained events, the
//! kept entries that name a session). When that scan holds a cut back (a long-retained
//! event log keeps its stream's session entry, and every later one, for its TTL), the
//! record is not tried again until it grew by half, in entries or in bytes: the scan is
//! then paid once per that many new entries, not on every request.

use crate::ledger::{Ledger, Payload};

use super::Server;
use super::ledger_bytes::{LedgerBytes, Record};

impl Server {
    /// Takes the whole ledger out, leaving an empty one: for a driver that is done with
    /// the server (a finished simulation, which would otherwise copy thousands of entries).
    /// The server must not be driven afterwards: its records refer into the ledger.
    pub fn take_ledger(&mut self) -> Ledger {
        std::mem::take(&mut self.ledger)
    }

    /// Bounds the ledger of a long-lived server to roughly `window` entries per record
    /// (sessions, events, sends, answers, resumptions, jobs, streams, messages), on top of
    /// what the event logs, the live sessions and the running jobs still need. Takes
    /// effect at [`Server::trim_ledger`].
    pub fn bound_ledger(&mut self, window: u32) {
        self.ledger_window = Some(window.max(1));
    }

    /// Bounds the ledger to roughly `bytes` as well (each of its eight records to an
    /// eighth), on top of what is still needed (see [`Server::bound_ledger`]).
    pub fn bound_ledger_bytes(&mut self, bytes: u64) {
        self.ledger_window_bytes = Some(bytes.max(1));
    }

    /// What the ledger's kept entries weigh, as of the last [`Server::trim_ledger`] (an
    /// estimate of heap use; only a server with a window weighs its ledger).
    pub fn ledger_bytes(&self) -> u64 {
        self.ledger_bytes.total()
    }

    /// Forgets ledger entries outside the window, never an event an event log still
    /// retains (it may be replayed) nor the job or message such an event refers to, nor a
    /// session that lives or that a kept entry names. The driver calls this when every
    /// output it was handed has been put on the wire: ids in outputs stay resolvable until
    /// then. Amortized: a record is cut only once it passed twice its window in entries,
    /// or its share of the byte window, and then to half of that.
    pub fn trim_ledger(&mut self) {
        if self.ledger_window.is_none() && self.ledger_window_bytes.is_none() {
            return;
        }
        self.ledger_bytes.catch_up(&self.ledger);
        let cuts = Record::ALL.map(|record| {
            if self.ledger_cut_held[record as usize].holds(record, &self.ledger, &self.ledger_bytes)
            {
                0
            } else {
                self.wanted_cut(record)
            }
        });
        let lens = Record::ALL.map(|record| record.len(&self.ledger));
        let [
            sessions,
            streams,
            events,
            sends,
            answers,
            resumptions,
            jobs,
            messages,
        ] = cuts;
        self.cut(Record::Answers, answers);
        self.cut(Record::Sends, sends);
        self.cut(Record::Resumptions, resumptions);
        // Records nothing refers to by index, bounded by entries alone: the server's own
        // cuts of slow readers (rare), a fleet's misroutes, 2026-07-28 committed effects;
        // and listens, list changes, tasks and handles, whose bases keep indexes valid.
        if let Some(w) = self.ledger_window.map(|w| w as usize) {
            drain_to_window(&mut self.ledger.cuts, w);
            drain_to_window(&mut self.ledger.misroutes, w);
            drain_to_window(&mut self.ledger.replica_events, w);
            drain_to_window(&mut self.ledger.effects, w);
            drain_to_window(&mut self.ledger.era_answers, w);
            drain_to_window(&mut self.ledger.era_changes, w);
            self.cut_listens(w);
            self.cut_tasks_and_handles(w);
        }
        if events + jobs + streams + messages > 0 {
            self.cut_referenced(events, jobs, streams, messages);
        }
        if sessions > 0 {
            self.cut_sessions(sessions);
        }
        for ((record, wanted), len) in Record::ALL.into_iter().zip(cuts).zip(lens) {
            let left = record.len(&self.ledger);
            self.ledger_cut_held[record as usize] = if wanted > 0 && left > len - wanted {
                HeldCut::until_grown(left, self.ledger_bytes.of(record))
            } else {
                HeldCut::default()
            };
        }
    }

    /// How many of the record's oldest entries the window wants gone.
    fn wanted_cut(&self, record: Record) -> usize {
        let len = record.len(&self.ledger);
        let by_entries = match self.ledger_window {
            Some(w) if len > 2 * w as usize => len - w as usize,
            _ => 0,
        };
        let share = self
            .ledger_window_bytes
            .map(|b| (b / Record::ALL.len() as u64).max(1));
        let by_bytes = match share {
            Some(share) if self.ledger_bytes.of(record) > share => {
                // Cut the oldest until what is left weighs half the share.
                let mut left = self.ledger_bytes.of(record);
                let mut cut = 0;
                while cut < len && left > share / 2 {
                    left = left.saturating_sub(record.weight(&self.ledger, cut));
                    cut += 1;
                }
                cut
            }
            _ => 0,
        };
        by_entries.max(by_bytes)
    }

    /// Drains the record's first `cut` entries (records nothing else refers to by index).
    fn cut(&mut self, record: Record, cut: usize) {
        if cut == 0 {
            return;
        }
        self.ledger_bytes.forget(&self.ledger, record, cut);
        match record {
            Record::Answers => drop(self.ledger.answers.drain(..cut)),
            Record::Sends => drop(self.ledger.sends.drain(..cut)),
            Record::Resumptions => drop(self.ledger.resumptions.drain(..cut)),
            _ => unreachable!("records with bases are cut by their own rules"),
        }
    }

    /// Cuts events, jobs, streams and messages (records whose ids are offsets from a
    /// base), each no further than what retained events and running jobs refer to.
    fn cut_referenced(&mut self, events: usize, jobs: usize, streams: usize, messages: usize) {
        // What retained events still need.
        let mut min_event = self.ledger.next_event().0;
        let mut min_job = self.ledger.jobs_end();
        let mut min_message = self.ledger.messages_end();
        for log in self.log.streams.values() {
            for logged in &log.retained {
                min_event = min_event.min(logged.event.0);
                match self.ledger.event(logged.event).payload {
                    Payload::Progress { job, .. } | Payload::ToolResult { job } => {
                        min_job = min_job.min(job.0)
                    }
                    Payload::Response { message } => min_message = min_message.min(message),
                    _ => {}
                }
            }
        }
        if let Some(job) = self.jobs.keys().next() {
            min_job = min_job.min(job.0);
        }
        let min_stream = self
            .log
            .streams
            .keys()
            .next()
            .map_or(self.ledger.streams_end(), |s| s.0);
        // The new base: `cut` entries further, but never past what is needed.
        let keep_from =
            |base: u32, cut: usize, needed: u32| (base + cut as u32).min(needed).max(base);
        let base = self.ledger.events_base;
        let new_base = keep_from(base, events, min_event);
        self.forget_front(Record::Events, (new_base - base) as usize);
        self.ledger.events.drain(..(new_base - base) as usize);
        self.ledger.events_base = new_base;
        let base = self.ledger.jobs_base;
        let new_base = keep_from(base, jobs, min_job);
        self.forget_front(Record::Jobs, (new_base - base) as usize);
        self.ledger.jobs.drain(..(new_base - base) as usize);
        self.ledger.jobs_base = new_base;
        let base = self.ledger.streams_base;
        let new_base = keep_from(base, streams, min_stream);
        self.forget_front(Record::Streams, (new_base - base) as usize);
        self.ledger.streams.drain(..(new_base - base) as usize);
        self.ledger.streams_base = new_base;
        let base = self.ledger.messages_base;
        let new_base = keep_from(base, messages, min_message);
        self.forget_front(Record::Messages, (new_base - base) as usize);
        self.ledger.messages.drain(..(new_base - base) as usize);
        self.ledger.messages_base = new_base;
    }

    /// Cuts up to `cut` of the oldest sessions: only dead ones that no kept stream, event
    /// or job names, and none past the first that is still needed. Their wire ids are
    /// forgotten too (a request naming one is then answered as for an id never minted,
    /// with the same dead-session status).
    fn cut_sessions(&mut self, cut: usize) {
        let base = self.ledger.sessions_base;
        let first_needed = self
            .sessions
            .keys()
            .map(|k| k.0)
            .chain(self.log.streams.values().map(|l| l.session.0))
            .chain(self.jobs.values().map(|j| j.session.0))
            .chain(self.ledger.streams.iter().map(|s| s.session.0))
            .chain(self.ledger.events.iter().map(|e| e.session.0))
            .chain(self.ledger.jobs.iter().map(|j| j.session.0))
            .chain(self.ledger.misroutes.iter().map(|m| m.session.0))
            .min()
            .unwrap_or(u32::MAX);
        let new_base = (base + cut as u32).min(first_needed).max(base);
        let cut = (new_base - base) as usize;
        if cut == 0 {
            return;
        }
        self.forget_front(Record::Sessions, cut);
        for entry in self.ledger.sessions.drain(..cut) {
            self.ever_minted.remove(&entry.wire_id);
        }
        self.ledger.sessions_base = new_base;
    }

    /// Cuts the 2026-07-28 listens and list changes past twice the window, back to the
    /// window. An open listen needs nothing of the ledger (its stream's state keeps its
    /// id and filter); a list change is kept while a retained event names it (a 2025
    /// session's `list_changed` is logged, so it may be replayed and rendered again).
    /// Held back, the cut of list changes is tried again once the record grew by half.
    fn cut_listens(&mut self, window: usize) {
        let listens = self.ledger.listens.len();
        if listens > 2 * window {
            self.ledger.listens.drain(..listens - window);
            self.ledger.listens_base += (listens - window) as u32;
        }
        let changes = self.ledger.list_changes.len();
        if changes <= 2 * window || changes < self.list_changes_cut_held {
            return;
        }
        let mut needed = self.ledger.list_changes_end();
        for log in self.log.streams.values() {
            for logged in &log.retained {
                if let Payload::ListChanged { change, .. }
                | Payload::SessionListChanged { change } =
                    self.ledger.event(logged.event).payload
                {
                    needed = needed.min(change);
                }
            }
        }
        let base = self.ledger.list_changes_base;
        let new_base = (base + (changes - window) as u32).min(needed).max(base);
        self.ledger.list_changes.drain(..(new_base - base) as usize);
        self.ledger.list_changes_base = new_base;
        let left = self.ledger.list_changes.len();
        self.list_changes_cut_held = if left > window {
            left + left / 2 + 1
        } else {
            0
        };
    }

    /// Cuts the 2026-07-28 task and handle entries past twice the window, back to the
    /// window, moving `tasks_base` and `handles_base` so that the indexes the stores keep
    /// still resolve. Nothing is held back: a task or handle record keeps what it needs
    /// to answer (its times, its request id, how it ended), so one that outlives its
    /// entry answers as before, and what happens to it afterwards is no longer recorded.
    /// The stores are bounded themselves ([`crate::Limits::max_tasks`],
    /// [`crate::Limits::max_handles`]), so a long-lived record cannot hold the cut back
    /// for ever either.
    fn cut_tasks_and_handles(&mut self, window: usize) {
        let tasks = self.ledger.tasks.len();
        if tasks > 2 * window {
            self.ledger.tasks.drain(..tasks - window);
            self.ledger.tasks_base += (tasks - window) as u32;
        }
        let handles = self.ledger.handles.len();
        if handles > 2 * window {
            self.ledger.handles.drain(..handles - window);
            self.ledger.handles_base += (handles - window) as u32;
        }
    }

    fn forget_front(&mut self, record: Record, cut: usize) {
        if cut > 0 {
            self.ledger_bytes.forget(&self.ledger, record, cut);
        }
    }
}

/// A record whose cut was held back: tried again once it has this many entries or weighs
/// this much (half as much again as when it was held). The default holds nothing.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct HeldCut {
    len: usize,
    bytes: u64,
}

impl HeldCut {
    fn until_grown(len: usize, bytes: u64) -> HeldCut {
        HeldCut {
            len: len.saturating_add(len / 2 + 1),
            bytes: bytes.saturating_add(bytes / 2 + 1),
        }
    }

    fn holds(&self, record: Record, ledger: &Ledger, weights: &LedgerBytes) -> bool {
        record.len(ledger) < self.len && weights.of(record) < self.bytes
    }
}

/// Amortized like the other records: once past twice the window, back to the window.
fn drain_to_window<T>(record: &mut Vec<T>, window: usize) {
    if record.len() > 2 * window {
        record.drain(..record.len() - window);
    }
}
