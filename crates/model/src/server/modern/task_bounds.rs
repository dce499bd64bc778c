//! The bound on a long-lived server's task store ([`crate::Limits::max_tasks`]).
//!
//! Any client can create tasks, so a store that kept every id ever minted would grow the
//! server's memory without bound. With a bound, a new task takes, in this order:
//!
//! 1. the room of a record already gone (purged, expired and purged, lost in a restart):
//!    it answers nothing but "Task not found" any more;
//! 2. the room of a task past its TTL and purge delay, which is purged now (as a
//!    `tasks/get` would have found it);
//! 3. the room of the oldest finished task (by creation), which is evicted: its result is
//!    given up, and its ledger entry says so ([`TaskLoss::Evicted`]).
//!
//! The oldest of each kind goes first. A record whose room is taken leaves a tombstone
//! ([`super::tombstones`]), so the next request for its id is recorded as a miss and, for
//! an evicted task, told why. When every task held is still working, none can be given
//! up without losing work a client waits for: the `tools/call` that would create one more
//! is refused with 429 ([`ModernRejection::TaskStoreFull`]), before anything starts.

use crate::ledger::TaskLoss;

use super::super::Server;
use super::errors::ModernRejection;
use super::tombstones::Held;

/// Which record gives its room, and how it goes.
struct Room {
    task_id: String,
    /// `None`: it was gone already.
    goes: Option<(u64, TaskLoss)>,
}

impl Server {
    /// What the 2026-07-28 task store holds now.
    pub fn tasks_held(&self) -> Held {
        Held {
            records: self.modern.tasks.by_id.len(),
            tombstones: self.modern.tasks.tombstones.len(),
        }
    }

    /// Makes room for one more task under `max_tasks` (nothing to do without a bound or
    /// below it), or says that every task held is still working.
    pub(super) fn make_task_room(&mut self) -> Result<(), ModernRejection> {
        let Some(max) = self.limits.max_tasks else {
            return Ok(());
        };
        let max = max.max(1);
        while self.modern.tasks.by_id.len() >= max as usize {
            let room = self
                .task_room()
                .ok_or(ModernRejection::TaskStoreFull { max_tasks: max })?;
            let mut r = self
                .modern
                .tasks
                .by_id
                .remove(&room.task_id)
                .expect("a held task");
            if let Some((at, how)) = room.goes {
                Self::lose_task(&mut self.ledger, &mut r, at, how);
            }
            let loss = r.lost.expect("gone by now");
            self.modern
                .tasks
                .tombstones
                .bury(room.task_id, r.entry, loss, max as usize);
        }
        Ok(())
    }

    /// The record whose room a new task takes (see the module docs), if any.
    fn task_room(&self) -> Option<Room> {
        let now = self.now_ms;
        let purge_delay = self.knobs.task_purge_delay.map_or(0, |d| d.ms());
        // The oldest (lowest entry) of each kind.
        let mut gone: Option<(u32, &str)> = None;
        let mut expired: Option<(u32, &str, u64)> = None;
        let mut finished: Option<(u32, &str)> = None;
        for (id, r) in &self.modern.tasks.by_id {
            if r.lost.is_some() {
                if gone.is_none_or(|(e, _)| r.entry < e) {
                    gone = Some((r.entry, id));
                }
            } else if let Some(at) = r.purge_at(purge_delay).filter(|&t| t <= now) {
                if expired.is_none_or(|(e, _, _)| r.entry < e) {
                    expired = Some((r.entry, id, at));
                }
            } else if r.ended.is_some() && finished.is_none_or(|(e, _)| r.entry < e) {
                finished = Some((r.entry, id));
            }
        }
        if let Some((_, id)) = gone {
            return Some(Room {
                task_id: id.to_string(),
                goes: None,
            });
        }
        if let Some((_, id, at)) = expired {
            return Some(Room {
                task_id: id.to_string(),
                goes: Some((at, TaskLoss::Expired)),
            });
        }
        finished.map(|(_, id)| Room {
            task_id: id.to_string(),
            goes: Some((now, TaskLoss::Evicted)),
        })
    }
}
