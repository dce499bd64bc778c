//! Time: TTL deadlines, the sweeper's schedule, and running clock-driven work in order.
//!
//! The model never reads a clock; drivers ask [`Server::next_due`] when something is due and
//! call [`Server::advance`]. Session TTLs and the event-log TTL are checked separately here,
//! since they are separate knobs with separate consequences.

use crate::http::Output;
use crate::ids::SessionKey;
use crate::ledger::DeathCause;
use crate::session_store::Session;

use super::Server;

impl Server {
    /// When something expiring at `t` is really removed, given the sweeper's period.
    #[inline]
    fn swept_at(&self, t: u64) -> u64 {
        match self.knobs.gc_interval {
            None => t,
            Some(p) => t.div_ceil(p.ms()).saturating_mul(p.ms()),
        }
    }

    /// The next virtual time at which the server has work of its own to do.
    ///
    /// Every driver asks this once or more per step, so it is written as plain `Option`
    /// minima (an iterator chain over the three sources cost a fifth of a long run).
    pub fn next_due(&self) -> Option<u64> {
        let job = earliest(self.job_due.first().map(|(t, _)| t), self.keepalive_due());
        // `swept_at` never decreases, so the earlier deadline is also the earlier sweep.
        let deadline = earliest(self.log.next_expiry(), self.sessions.next_deadline());
        earliest(job, deadline.map(|t| self.swept_at(t)))
    }

    /// [`next_due`](Server::next_due) without the event log's TTL expiry: the next time the
    /// server has work a driver can see (an output, a ledger entry).
    ///
    /// Expiring logged events changes nothing but the log, and every entry point (a
    /// request, a disconnect, a notification, an operator action) first runs the work due
    /// before its instant, expiry included, in time order. So a driver that looks at the
    /// log only through those entry points may step on this instead and skip a step per
    /// expiring event: the expiry then runs, in its order, on the next
    /// [`advance`](Server::advance). (The simulator does; the live server steps on every
    /// deadline, so that its control API's views of the log are current.)
    ///
    /// Like [`next_due_this_turn`](Server::next_due_this_turn), job steps wait once the
    /// turn's step budget is spent.
    #[inline]
    pub fn next_visible_due(&self) -> Option<u64> {
        let job = match self.turn_steps_left {
            Some(0) => None,
            _ => self.job_due.first().map(|(t, _)| t),
        };
        let session = self.sessions.next_deadline().map(|t| self.swept_at(t));
        earliest(earliest(job, self.keepalive_due()), session)
    }

    /// The last instant at or before `horizon_ms` at which a pending event-log expiry would
    /// run, had the driver stepped on [`next_due`](Server::next_due): what such a driver
    /// would have reported as the time of its last step. `None` when no logged event
    /// expires by then.
    pub fn last_log_expiry_by(&self, horizon_ms: u64) -> Option<u64> {
        self.knobs.event_log_ttl?;
        self.log
            .last_expiry_within(|t| self.swept_at(t) <= horizon_ms)
            .map(|t| self.swept_at(t))
    }

    /// [`Server::next_due`] as this turn sees it: once the turn's job-step budget is
    /// spent (see [`crate::Limits::job_steps_per_turn`]), job steps wait for the next
    /// turn and only expiry is due. Drivers that loop "while something is due" within one
    /// turn ask this, so that they stop when the budget does.
    #[inline]
    pub fn next_due_this_turn(&self) -> Option<u64> {
        if self.turn_steps_left != Some(0) {
            return self.next_due();
        }
        let deadline = earliest(self.log.next_expiry(), self.sessions.next_deadline());
        earliest(deadline.map(|t| self.swept_at(t)), self.keepalive_due())
    }

    /// True when job steps are due at or before `now_ms` but this turn's budget is spent:
    /// the driver should come back for another turn soon.
    pub fn steps_waiting(&self, now_ms: u64) -> bool {
        self.turn_steps_left == Some(0) && self.job_due.first().is_some_and(|(t, _)| t <= now_ms)
    }

    /// Runs everything due at or before `now_ms`, in time order (job steps only as far as
    /// this turn's budget goes: a step that waited is produced when it runs, at that time).
    pub fn advance(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let now_ms = now_ms.max(self.now_ms);
        while let Some(due) = self.next_due_this_turn() {
            if due > now_ms {
                break;
            }
            self.now_ms = self.now_ms.max(due);
            self.run_due(due, now_ms, out);
        }
        self.now_ms = now_ms;
    }

    /// Runs the work due at `due`: event-log expiry, then session expiry, then job steps,
    /// then listen keep-alives. `until` is where the caller's advance stops.
    fn run_due(&mut self, due: u64, until: u64, out: &mut Vec<Output>) {
        // Expiry before job steps at the same instant: a TTL is a deadline, not a grace period.
        if let Some(ttl) = self.knobs.event_log_ttl
            && self.log.next_expiry().map(|t| self.swept_at(t)) == Some(due)
        {
            self.log
                .expire(self.log_expiry_cutoff(due, until), ttl.ms());
        }
        // Deadlines are ordered by raw time; a sweep at `due` removes those it has reached.
        while let Some(deadline) = self.sessions.next_deadline() {
            if self.swept_at(deadline) > due {
                break;
            }
            let Some((_, key)) = self.sessions.pop_deadline(deadline) else {
                break;
            };
            self.expire_session_if_due(key, due, out);
        }
        while let Some((t, job)) = self.job_due.first() {
            if t > due || self.turn_steps_left == Some(0) {
                break;
            }
            if let Some(left) = &mut self.turn_steps_left {
                let cost = self.jobs.get(&job).map_or(1, |j| j.turn_cost);
                *left = left.saturating_sub(cost);
            }
            self.job_due.pop_first();
            self.step_job(job, t, out);
        }
        if self.keepalive_due().is_some_and(|t| t <= due) {
            self.run_keepalives(due, out);
        }
    }

    /// How far one call may expire the event log from `due` on: through every sweep up to
    /// the next other work (a session deadline, a job step this turn) or `until`, whichever
    /// is first. Expiry touches nothing but the log, and at one instant it goes before the
    /// other work, so expiring the sweeps in between in one call does what a call per sweep
    /// did, in the same order (a long run's log otherwise took a call, and two `next_due`s,
    /// per expiring event).
    fn log_expiry_cutoff(&self, due: u64, until: u64) -> u64 {
        let job = match self.turn_steps_left {
            Some(0) => None,
            _ => self.job_due.first().map(|(t, _)| t),
        };
        let session = self.sessions.next_deadline().map(|t| self.swept_at(t));
        let other =
            earliest(earliest(job, self.keepalive_due()), session).map_or(until, |t| t.min(until));
        // The last sweep at or before `other` (`due` is a sweep, at or before it).
        let cutoff = match self.knobs.gc_interval {
            None => other,
            Some(p) => other / p.ms() * p.ms(),
        };
        cutoff.max(due)
    }

    /// The instant a live session's TTLs run out. A TTL that would run out past the end
    /// of `u64` time never does (checked, not wrapped: a wrapped sum would kill a session
    /// before it was created).
    pub(super) fn deadline_of(&self, session: &Session) -> Option<u64> {
        let idle = self.idle_deadline_of(session);
        let absolute = self
            .knobs
            .session_absolute_ttl
            .and_then(|t| session.created_ms.checked_add(t.ms()));
        match (idle, absolute) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Kills a session whose deadline popped, unless a request has moved it since; the
    /// cause is whichever TTL set the deadline.
    fn expire_session_if_due(&mut self, key: SessionKey, now: u64, out: &mut Vec<Output>) {
        let Some(session) = self.sessions.get(key) else {
            return;
        };
        let Some(deadline) = self.deadline_of(session) else {
            return;
        };
        if self.swept_at(deadline) > now {
            // Touched since this deadline was queued; queue the real one.
            self.sessions.push_deadline(key, deadline);
            return;
        }
        let idle = self.idle_deadline_of(session);
        let cause = if idle == Some(deadline) {
            DeathCause::IdleTtl
        } else {
            DeathCause::AbsoluteTtl
        };
        self.kill_session(key, now, cause, out);
    }
}

impl Server {
    /// When a session's idle TTL runs out: `session_idle_ttl` after its last request, or,
    /// for a session not used yet on a server that sets `unused_session_ttl_ms`, that
    /// long after its creation if sooner (see `session_room`).
    fn idle_deadline_of(&self, session: &Session) -> Option<u64> {
        let idle = self
            .knobs
            .session_idle_ttl
            .and_then(|t| session.last_touch_ms.checked_add(t.ms()));
        let unused = match self.limits.unused_session_ttl_ms {
            Some(ttl) if !session.used => session.created_ms.checked_add(ttl),
            _ => None,
        };
        earliest(idle, unused)
    }
}

/// The earlier of two optional instants.
#[inline]
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
