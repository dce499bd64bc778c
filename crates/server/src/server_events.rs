//! What happened, for a person watching a live server: one [`ServerEvent`] per fault that
//! fired (scripted, or a control-API action) and per session death, stamped with the
//! virtual time it happened at. `faultline serve` prints them on stderr, one line each,
//! like toxiproxy's log, so that a user sees why a client just lost its stream.
//!
//! The server never waits for whoever reads them (a terminal can stall; a pipe nobody
//! drains fills up): events go through a bounded queue with `try_send`, and what does not
//! fit is counted instead of queued, then reported as [`Notice::Lost`]. The crate itself
//! writes nothing to stderr: the binary decides where the lines go.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use faultline_model::{DeathCause, DurationMs};

/// Something a person watching the server wants to know about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// A scripted fault (`fault: Some(index in the scenario's faults)`) or a control-API
    /// action (`fault: None`) fired.
    FaultFired {
        at_ms: u64,
        fault: Option<usize>,
        /// What it did, in the engine's words (`drop (reset) of conn 3 [Call(0)]`).
        note: String,
        /// The sessions of the connections it cut, in connection order.
        sessions: Vec<String>,
    },
    /// The session store let a session go.
    SessionDied {
        at_ms: u64,
        session: String,
        cause: DeathCause,
    },
}

impl ServerEvent {
    /// The virtual time it happened at.
    pub fn at_ms(&self) -> u64 {
        match self {
            ServerEvent::FaultFired { at_ms, .. } | ServerEvent::SessionDied { at_ms, .. } => {
                *at_ms
            }
        }
    }
}

/// One line: `T+41m fault #0: drop (reset) of conn 2 [Call(0)]; session 5e26…` or
/// `T+30m session 5e26… died: absolute TTL`. Times are virtual, spelled as in `run`'s
/// timeline; session ids are whole, to paste into `/_chaos/streams/drop`.
impl fmt::Display for ServerEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerEvent::FaultFired {
                at_ms,
                fault,
                note,
                sessions,
            } => {
                write!(f, "T+{} ", DurationMs(*at_ms))?;
                match fault {
                    Some(index) => write!(f, "fault #{index}: {note}")?,
                    None => write!(f, "control API: {note}")?,
                }
                match sessions.as_slice() {
                    [] => Ok(()),
                    [one] => write!(f, "; session {one}"),
                    many => write!(f, "; sessions {}", many.join(", ")),
                }
            }
            ServerEvent::SessionDied {
                at_ms,
                session,
                cause,
            } => {
                let why = match cause {
                    DeathCause::IdleTtl => "idle TTL",
                    DeathCause::AbsoluteTtl => "absolute TTL",
                    DeathCause::Deleted => "deleted by the client (DELETE)",
                    DeathCause::Restart => "lost in a restart (restart_persistence: Nothing)",
                    DeathCause::ReplicaDown => {
                        "lost with its replica (restart_persistence: Nothing)"
                    }
                    DeathCause::ReplicaRemoved => "lost with its replica (scaled away)",
                };
                write!(f, "T+{} session {session} died: {why}", DurationMs(*at_ms))
            }
        }
    }
}

/// The server's end: never blocks.
#[derive(Debug, Clone)]
pub struct EventSink {
    tx: SyncSender<ServerEvent>,
    lost: Arc<AtomicU64>,
}

impl EventSink {
    /// Queues `event`, or counts it as lost when the queue is full. A reader that has gone
    /// away is not an error: nobody is watching.
    pub(crate) fn send(&self, event: ServerEvent) {
        match self.tx.try_send(event) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => {
                self.lost.fetch_add(1, Ordering::AcqRel);
            }
        }
    }
}

/// What the reader gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Event(ServerEvent),
    /// This many events were dropped because the queue was full (the reader was slow).
    Lost(u64),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Event(event) => event.fmt(f),
            Notice::Lost(n) => write!(
                f,
                "({n} more fault/session lines not shown: they came faster than they were read)"
            ),
        }
    }
}

/// The reader's end: a blocking iterator that ends when the server is gone.
#[derive(Debug)]
pub struct EventFeed {
    rx: Receiver<ServerEvent>,
    lost: Arc<AtomicU64>,
}

impl Iterator for EventFeed {
    type Item = Notice;

    fn next(&mut self) -> Option<Notice> {
        let lost = self.lost.swap(0, Ordering::AcqRel);
        if lost > 0 {
            return Some(Notice::Lost(lost));
        }
        match self.rx.recv() {
            Ok(event) => Some(Notice::Event(event)),
            // Every sink is gone: report what was lost last, then end.
            Err(_) => match self.lost.swap(0, Ordering::AcqRel) {
                0 => None,
                lost => Some(Notice::Lost(lost)),
            },
        }
    }
}

/// A queue of at most `capacity` events between the server and one reader (give the sink
/// to [`crate::serve_blocking`]).
pub fn event_channel(capacity: usize) -> (EventSink, EventFeed) {
    let (tx, rx) = sync_channel(capacity);
    let lost = Arc::new(AtomicU64::new(0));
    (
        EventSink {
            tx,
            lost: lost.clone(),
        },
        EventFeed { rx, lost },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn died(at_ms: u64) -> ServerEvent {
        ServerEvent::SessionDied {
            at_ms,
            session: "5e26b79a".into(),
            cause: DeathCause::IdleTtl,
        }
    }

    #[test]
    fn a_full_queue_counts_what_it_drops_instead_of_blocking() {
        let (sink, feed) = event_channel(2);
        for at in 0..5 {
            sink.send(died(at));
        }
        drop(sink);
        let notices: Vec<Notice> = feed.collect();
        assert_eq!(
            notices,
            vec![
                Notice::Lost(3),
                Notice::Event(died(0)),
                Notice::Event(died(1))
            ]
        );
    }

    #[test]
    fn losses_after_the_last_read_are_reported_when_the_server_goes() {
        let (sink, mut feed) = event_channel(1);
        sink.send(died(1));
        assert_eq!(feed.next(), Some(Notice::Event(died(1))));
        sink.send(died(2));
        sink.send(died(3));
        drop(sink);
        assert_eq!(feed.next(), Some(Notice::Lost(1)));
        assert_eq!(feed.next(), Some(Notice::Event(died(2))));
        assert_eq!(feed.next(), None);
    }

    #[test]
    fn lines_name_the_virtual_time_the_fault_and_the_sessions() {
        let fault = ServerEvent::FaultFired {
            at_ms: 41 * 60_000,
            fault: Some(0),
            note: "drop (reset) of conn 2 [Call(0)]".into(),
            sessions: vec!["5e26b79a0c1d4e2f".into()],
        };
        assert_eq!(
            fault.to_string(),
            "T+41m fault #0: drop (reset) of conn 2 [Call(0)]; session 5e26b79a0c1d4e2f"
        );
        let operator = ServerEvent::FaultFired {
            at_ms: 723_000,
            fault: None,
            note: "operator drop (close) of conn -".into(),
            sessions: vec![],
        };
        assert_eq!(
            operator.to_string(),
            "T+12m3s control API: operator drop (close) of conn -"
        );
        assert_eq!(
            died(30 * 60_000).to_string(),
            "T+30m session 5e26b79a died: idle TTL"
        );
    }
}
