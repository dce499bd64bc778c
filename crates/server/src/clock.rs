//! The live server's virtual clock: `virtual_ms = offset + wall_elapsed * time_scale`.
//!
//! The model only ever sees virtual milliseconds. A time scale of 1.0 is real time; 60.0
//! runs a minute of TTL per wall second; 0.0 freezes the clock so that only
//! `POST /_chaos/clock/advance` moves it (what the tests use: no sleeps, no races).
//! Jumps add to the offset; the clock never runs backwards.

use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct VirtualClock {
    base: Instant,
    offset_ms: u64,
    scale: f64,
    last_ms: u64,
}

/// Far enough ahead that the ticker re-checks now and then even when nothing is due.
const MAX_SLEEP: Duration = Duration::from_secs(3_600);

impl VirtualClock {
    pub fn new(scale: f64) -> Self {
        VirtualClock {
            base: Instant::now(),
            offset_ms: 0,
            scale,
            last_ms: 0,
        }
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Virtual time now (monotonic).
    pub fn now_ms(&mut self) -> u64 {
        let elapsed = self.scaled(self.base.elapsed());
        let v = self.offset_ms.saturating_add(elapsed);
        self.last_ms = self.last_ms.max(v);
        self.last_ms
    }

    fn scaled(&self, wall: Duration) -> u64 {
        if self.scale == 0.0 {
            return 0;
        }
        let v = wall.as_secs_f64() * 1_000.0 * self.scale;
        if v >= u64::MAX as f64 {
            u64::MAX
        } else {
            v as u64
        }
    }

    /// Jumps virtual time forward by `ms`.
    pub fn jump(&mut self, ms: u64) {
        self.offset_ms = self.offset_ms.saturating_add(ms);
    }

    /// Back to virtual time 0 (for `/_chaos/reset`).
    pub fn reset(&mut self) {
        self.base = Instant::now();
        self.offset_ms = 0;
        self.last_ms = 0;
    }

    /// The wall-clock instant at which virtual time reaches `due_ms`, or `None` when the
    /// clock is frozen (only jumps move it). Rounded up by a millisecond so that the
    /// ticker never wakes a hair early and spins; the model still runs the work at its
    /// exact virtual time.
    pub fn wall_deadline(&self, due_ms: u64) -> Option<Instant> {
        if self.scale == 0.0 {
            return None;
        }
        let ahead_virtual = due_ms.saturating_sub(self.offset_ms) as f64;
        let wall_secs = ahead_virtual / self.scale / 1_000.0;
        let since_base = Duration::from_secs_f64(wall_secs.min(MAX_SLEEP.as_secs_f64() * 24.0))
            + Duration::from_millis(1);
        let at = self.base + since_base;
        Some(at.min(Instant::now() + MAX_SLEEP))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_clock_moves_only_by_jumps() {
        let mut c = VirtualClock::new(0.0);
        assert_eq!(c.now_ms(), 0);
        c.jump(1_500);
        assert_eq!(c.now_ms(), 1_500);
        assert!(c.wall_deadline(2_000).is_none());
        c.reset();
        assert_eq!(c.now_ms(), 0);
    }

    #[test]
    fn scaled_clock_is_monotonic_and_deadlines_are_in_the_future() {
        let mut c = VirtualClock::new(1_000.0);
        let a = c.now_ms();
        let b = c.now_ms();
        assert!(b >= a);
        let d = c.wall_deadline(b + 60_000).expect("running clock");
        assert!(d > Instant::now());
        assert!(d < Instant::now() + Duration::from_secs(1));
    }
}
