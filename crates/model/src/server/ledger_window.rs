//! Bounding the ledger of a long-lived server, and handing a finished run's ledger over.
//!
//! A simulation keeps the whole ledger (it is the ground truth verdicts are checked
//! against); the live server would grow without bound, so it trims to a window, never
//! dropping what a retained event may still need.

use crate::ledger::{Ledger, Payload};

use super::Server;

impl Server {
    /// Takes the whole ledger out, leaving an empty one: for a driver that is done with
    /// the server (a finished simulation, which would otherwise copy thousands of entries).
    /// The server must not be driven afterwards: its records refer into the ledger.
    pub fn take_ledger(&mut self) -> Ledger {
        std::mem::take(&mut self.ledger)
    }

    /// Bounds the ledger of a long-lived server to roughly `window` entries per record
    /// (events, sends, answers, resumptions, jobs, streams, messages), on top of what the
    /// event logs still retain. Sessions are not trimmed. Takes effect at
    /// [`Server::trim_ledger`].
    pub fn bound_ledger(&mut self, window: u32) {
        self.ledger_window = Some(window.max(1));
    }

    /// Forgets ledger entries outside the window, never an event an event log still
    /// retains (it may be replayed) nor the job or message such an event refers to. The
    /// driver calls this when every output it was handed has been put on the wire: ids in
    /// outputs stay resolvable until then. Amortized: works only once a record has grown to
    /// twice the window.
    pub fn trim_ledger(&mut self) {
        let Some(w) = self.ledger_window else {
            return;
        };
        let w = w as usize;
        if self.ledger.answers.len() > 2 * w {
            let cut = self.ledger.answers.len() - w;
            self.ledger.answers.drain(..cut);
        }
        if self.ledger.sends.len() > 2 * w {
            let cut = self.ledger.sends.len() - w;
            self.ledger.sends.drain(..cut);
        }
        if self.ledger.cuts.len() > 2 * w {
            let cut = self.ledger.cuts.len() - w;
            self.ledger.cuts.drain(..cut);
        }
        if self.ledger.resumptions.len() > 2 * w {
            let cut = self.ledger.resumptions.len() - w;
            self.ledger.resumptions.drain(..cut);
        }
        let grown = self.ledger.events.len() > 2 * w
            || self.ledger.jobs.len() > 2 * w
            || self.ledger.streams.len() > 2 * w
            || self.ledger.messages.len() > 2 * w;
        if !grown {
            return;
        }
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
        let keep_from = |end: u32, needed: u32| needed.min(end.saturating_sub(w as u32));
        let ledger = &mut self.ledger;
        let new_base = keep_from(ledger.next_event().0, min_event).max(ledger.events_base);
        ledger
            .events
            .drain(..(new_base - ledger.events_base) as usize);
        ledger.events_base = new_base;
        let new_base = keep_from(ledger.jobs_end(), min_job).max(ledger.jobs_base);
        ledger.jobs.drain(..(new_base - ledger.jobs_base) as usize);
        ledger.jobs_base = new_base;
        let new_base = keep_from(ledger.streams_end(), min_stream).max(ledger.streams_base);
        ledger
            .streams
            .drain(..(new_base - ledger.streams_base) as usize);
        ledger.streams_base = new_base;
        let new_base = keep_from(ledger.messages_end(), min_message).max(ledger.messages_base);
        ledger
            .messages
            .drain(..(new_base - ledger.messages_base) as usize);
        ledger.messages_base = new_base;
    }
}
