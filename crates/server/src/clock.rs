//! The live server's virtual clock: `virtual_ms = offset + wall_elapsed * time_scale`.
//!
//! The model only ever sees virtual milliseconds. A time scale of 1.0 is real time; 60.0
//! runs a minute of TTL per wall second; 0.0 freezes the clock so that only
//! `POST /_chaos/clock/advance` moves it (what the tests use: no sleeps, no races).
//! Jumps add to the offset; the clock never runs backwards, and never past
//! [`MAX_VIRTUAL_MS`]: a wrapped or saturated `u64` time would put every deadline the
//! model computes at the end of time, so the range is bounded well before it, and the
//! control API and `--time-scale` refuse what would leave it.

use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct VirtualClock {
    base: Instant,
    offset_ms: u64,
    scale: f64,
    last_ms: u64,
}

/// The end of virtual time: 100 years (of 365.25 days) in milliseconds. Far beyond any
/// TTL worth testing, and far from `u64::MAX`, so that `now + ttl` never overflows for a
/// TTL written in a scenario.
pub const MAX_VIRTUAL_MS: u64 = 36_525 * 24 * 3_600 * 1_000;

/// The fastest clock: a million virtual ms per wall ms (about 11.6 virtual days per wall
/// second). Faster is refused.
pub const MAX_TIME_SCALE: f64 = 1_000_000.0;

/// Whether `pace` is a pace an auto clock can keep (`--time-scale` with grading): a
/// positive, finite number of virtual ms per wall ms, at most [`MAX_TIME_SCALE`]. The
/// command line refuses anything else; the library ignores it (a clock as fast as the
/// client lets it).
pub fn is_pace(pace: f64) -> bool {
    pace.is_finite() && pace > 0.0 && pace <= MAX_TIME_SCALE
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
        let v = self.offset_ms.saturating_add(elapsed).min(MAX_VIRTUAL_MS);
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
        self.offset_ms = self.offset_ms.saturating_add(ms).min(MAX_VIRTUAL_MS);
    }

    /// The most [`VirtualClock::jump`] may add now without passing [`MAX_VIRTUAL_MS`].
    pub fn room_ms(&mut self) -> u64 {
        MAX_VIRTUAL_MS - self.now_ms()
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
    fn a_pace_is_positive_finite_and_at_most_the_fastest_clock() {
        for good in [0.001, 1.0, 10.0, MAX_TIME_SCALE] {
            assert!(is_pace(good), "{good}");
        }
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, MAX_TIME_SCALE * 2.0] {
            assert!(!is_pace(bad), "{bad}");
        }
    }

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
    fn the_clock_stops_at_the_end_of_virtual_time() {
        let mut c = VirtualClock::new(0.0);
        c.jump(u64::MAX);
        assert_eq!(c.now_ms(), MAX_VIRTUAL_MS);
        assert_eq!(c.room_ms(), 0);
        let mut fast = VirtualClock::new(MAX_TIME_SCALE);
        fast.jump(MAX_VIRTUAL_MS - 1);
        std::thread::yield_now();
        assert!(fast.now_ms() <= MAX_VIRTUAL_MS);
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
