//! `--time-scale auto`: virtual time jumps to the next due server event as soon as nothing
//! can happen before it, so a client that waits an hour of TTL waits milliseconds.
//!
//! ## When the clock may jump
//!
//! Only when all of these hold:
//!
//! 1. the server has work due at some virtual time `t` (a job step, a TTL, a scripted
//!    notification or fault), and nothing is due earlier;
//! 2. no request is being handled (the engine is behind one lock: a request in the middle
//!    of being handled holds it);
//! 3. nothing is unsent: every frame the server produced has been handed to the socket;
//! 4. either a client is waiting on the server — a POST's SSE stream is open (that client
//!    has asked and awaits the answer), or a standalone GET stream is open while scripted
//!    notifications are still to come, or a request is held for the client's return
//!    (below) — or no TCP connection is open at all and nothing has happened on the wire
//!    for the grace period (`--auto-grace-ms`, default [`DEFAULT_GRACE`]).
//!
//! A client that is connected (an idle keep-alive connection counts) but waits on nothing
//! is between two requests: time stands still for it, so background work (a session's
//! idle TTL, say) cannot overtake its next request however slowly it sends it.
//!
//! Then the clock jumps straight to `t` and the work due at `t` runs, exactly as it would
//! have on a wall clock that happened to reach `t` at that moment.
//!
//! One more rule makes a real client's reconnect deterministic: after a scenario fault
//! that cuts the client off or sends it `away`, the clock does not pass the point where
//! the client comes back before its next request arrives, and a request that arrives early
//! waits for that point (`client_hold`).
//!
//! And under `grade` (call gates), time compression must not outrun the client's reading:
//! a jump that opens a call's gate or ends a job (the answer the client waits for) comes
//! only after [`SETTLE`] of wall time without an SSE event going out. A client reads each
//! stream on a task of its own; one that stops at its answer would otherwise drop what its
//! standalone stream was still handing over, events that on a real clock came seconds
//! earlier. What the client receives is unchanged; only the wall-clock gap grows.
//!
//! ## A pace (`grade --time-scale`)
//!
//! Compressed time passes a 20-minute job in a moment, so a client's own wall-clock timers
//! (a request timeout, a read timeout, a backoff) never meet the waits they meet in the
//! field. With a pace, a jump to `t` waits until the wall clock has caught up with it:
//! virtual time runs at most `pace` virtual milliseconds per wall millisecond, counted from
//! the first moment it moves ([`Pacer`]). Everything else stays as above: the clock still
//! stands still while no client waits on the server, and still jumps rather than ticks,
//! so what the client receives is the same bytes in the same order; only the wall-clock
//! gaps grow, to what they would be on a clock of that pace.
//!
//! ## Why a client cannot observe the jump
//!
//! A client learns the server's time only from what the server sends it. A jump happens
//! only when the client has everything the server produced and the server has nothing to
//! do until `t`; on a real clock the client would have received nothing between now and
//! `t` either. What it receives at `t` is the same bytes in the same order. The only
//! observable is the wall-clock gap, which the protocol gives no meaning to. (A client
//! that sleeps in wall time, say a reconnect backoff, is the one exception: time may jump
//! while it sleeps, as if the server's clock ran fast. The grace period bounds how often.)

use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::App;
use crate::core::AutoStep;

/// Real time a quiet server waits, with no client waiting on it, before time jumps.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(30);

/// A grace that never ends: time moves only while a client waits on the server, never
/// because the wall clock passed. The testkit's clock: whatever a client does in wall
/// time (sleep, back off, get descheduled under load), the server's time stands still.
pub const NO_GRACE: Duration = Duration::MAX;

/// Real time a call held at its gate waits for the client to open its standalone stream
/// (see `call_gates`) before time moves without it.
const LISTENER_GRACE: Duration = Duration::from_millis(500);

/// Real time a call held at its gate waits, at the point a cut-off client comes back at,
/// for that client to come back (SDKs reconnect after a back-off of about a second).
const RETURN_GRACE: Duration = Duration::from_secs(5);

/// Real time without an SSE event going out before a gate opens or a job's answer is
/// due: the client gets to digest a burst (thousands of notifications produced in a jump)
/// before its call is answered or goes on, as it would have on a real clock.
const SETTLE: Duration = Duration::from_millis(300);

/// How fast an auto clock may run: at most `pace` virtual milliseconds per wall
/// millisecond from the first moment it moves (see the module docs). Without a pace it
/// holds nothing back.
pub(crate) struct Pacer {
    pace: Option<f64>,
    /// The wall instant and virtual time of the first move.
    origin: Option<(Instant, u64)>,
}

impl Pacer {
    pub(crate) fn new(pace: Option<f64>) -> Pacer {
        Pacer {
            pace: pace.filter(|&p| crate::is_pace(p)),
            origin: None,
        }
    }

    /// The wall instant before which the clock, now at `now_ms`, may not move to
    /// `target_ms`; `None` when it may now.
    fn hold_until(&mut self, now_ms: u64, target_ms: u64) -> Option<Instant> {
        let pace = self.pace?;
        let (wall, virtual_ms) = *self.origin.get_or_insert((Instant::now(), now_ms));
        let ahead_ms = target_ms.saturating_sub(virtual_ms) as f64 / pace;
        let at = wall + Duration::from_secs_f64(ahead_ms / 1000.0);
        (at > Instant::now()).then_some(at)
    }
}

/// With call gates: true when [`SETTLE`] has passed since the last SSE event went out
/// (or none went out); otherwise waits out the rest of it and returns false, for the
/// ticker to decide again. `None` when the server stops.
async fn settle(app: &App, stop: &mut watch::Receiver<bool>) -> Option<bool> {
    match app.since_event_out() {
        Some(since) if since < SETTLE => {
            tokio::select! {
                _ = tokio::time::sleep(SETTLE - since) => Some(false),
                _ = stop.changed() => None,
            }
        }
        _ => Some(true),
    }
}

/// The ticker of an auto-advancing clock.
pub(crate) async fn auto_ticker(
    app: App,
    grace: Duration,
    mut pacer: Pacer,
    mut stop: watch::Receiver<bool>,
) {
    // A quiet period in progress: the activity count when it began and when it ends.
    // Wake-ups that are not client activity (control calls, the ticker's own jumps) do
    // not restart it.
    let mut quiet: Option<(u64, Instant)> = None;
    // A grace in progress (a client's return, a listener) and when it runs out: kept
    // across wake-ups, so that a periodic wake (the stall sweep's every few seconds) does
    // not restart it for ever.
    let mut grace_until: Option<(AutoStep, Instant)> = None;
    loop {
        let (now_ms, step) = {
            let mut state = app.lock();
            let now_ms = state.sync();
            let step = if state.steps_waiting() {
                None
            } else {
                Some(match state.auto_step(app.open_tcp()) {
                    AutoStep::Quiet(_) if grace == NO_GRACE => AutoStep::Nothing,
                    step => step,
                })
            };
            (now_ms, step)
        };
        let Some(step) = step else {
            // A turn's budget of job steps ran and more are due: requests first.
            app.let_waiters_in().await;
            continue;
        };
        tracing::trace!(?step, "auto clock");
        if !matches!(step, AutoStep::AwaitReturn(_) | AutoStep::AwaitListener) {
            grace_until = None;
        }
        if let AutoStep::Jump(to)
        | AutoStep::Release(to)
        | AutoStep::OpenGate(to)
        | AutoStep::Answer(to) = step
            && let Some(at) = pacer.hold_until(now_ms, to)
        {
            // Not before the wall clock has caught up with it; a request may come first.
            tokio::select! {
                _ = tokio::time::sleep_until(at.into()) => {}
                _ = app.inner.wake.notified() => {}
                _ = stop.changed() => return,
            }
            continue;
        }
        if step == AutoStep::Nothing && app.quiet_marker() {
            // Nothing moves time until a client acts: say so on every open stream.
            app.lock().mark_quiet();
        }
        match step {
            AutoStep::Jump(due) => {
                quiet = None;
                app.with_state(|s| s.jump_to(due));
                continue;
            }
            AutoStep::Release(until) => {
                quiet = None;
                app.with_state(|s| s.release_held(until));
                continue;
            }
            AutoStep::OpenGate(at) | AutoStep::Answer(at) => {
                quiet = None;
                // Let the client digest what it was just sent before its call goes on or
                // is answered: on a real clock it would have had all the time until then
                // (see the module docs; rmcp, under load, stopped at its answer before its
                // standalone stream's reader had handed over notifications sent seconds
                // of virtual time earlier).
                match settle(&app, &mut stop).await {
                    None => return,
                    Some(false) => continue,
                    Some(true) => {}
                }
                app.with_state(|s| match step {
                    AutoStep::OpenGate(_) => s.open_gate(at),
                    _ => s.jump_to(at),
                });
                continue;
            }
            AutoStep::AwaitReturn(until) => {
                quiet = None;
                // The client comes back after its own back-off, in wall time; one that has
                // not within the grace is not coming back (it has no reconnect logic).
                let mut deadline = grace_deadline(&mut grace_until, step, RETURN_GRACE);
                // Nor, with a pace, before the wall has caught up with the return point.
                if let Some(paced) = pacer.hold_until(now_ms, until) {
                    deadline = deadline.max(paced);
                }
                tokio::select! {
                    _ = tokio::time::sleep_until(deadline.into()) => {
                        app.with_state(|s| {
                            if s.auto_step(app.open_tcp()) == AutoStep::AwaitReturn(until) {
                                s.release_held(until);
                            }
                        });
                    }
                    _ = app.inner.wake.notified() => {}
                    _ = stop.changed() => return,
                }
                continue;
            }
            AutoStep::AwaitListener => {
                // The scenario's client listens on the standalone stream; an SDK opens it
                // right after initializing. A client that has not within the grace never
                // will: stop waiting for it.
                let deadline = grace_deadline(&mut grace_until, step, LISTENER_GRACE);
                tokio::select! {
                    _ = tokio::time::sleep_until(deadline.into()) => {
                        app.with_state(|s| s.waive_listener());
                    }
                    _ = app.inner.wake.notified() => {}
                    _ = stop.changed() => return,
                }
                continue;
            }
            AutoStep::Quiet(due) => {
                let activity = app.activity();
                let deadline = match quiet {
                    Some((seen, deadline)) if seen == activity => deadline,
                    _ => Instant::now() + grace,
                };
                quiet = Some((activity, deadline));
                tokio::select! {
                    _ = tokio::time::sleep_until(deadline.into()) => {
                        if app.activity() == activity {
                            quiet = None;
                            app.with_state(|s| {
                                if s.auto_step(app.open_tcp()) == AutoStep::Quiet(due) {
                                    s.jump_to(due);
                                }
                            });
                        }
                    }
                    _ = app.inner.wake.notified() => {}
                    _ = stop.changed() => return,
                }
            }
            AutoStep::Busy | AutoStep::Nothing => {
                // A quiet period survives a connection that comes and goes without a
                // request (a control call); only client activity restarts it.
                if step == AutoStep::Busy {
                    quiet = None;
                }
                tokio::select! {
                    _ = app.inner.wake.notified() => {}
                    _ = stop.changed() => return,
                }
            }
        }
    }
}

/// When the grace for `step` runs out: the deadline already running for the same step, or
/// `grace` from now for a new one.
fn grace_deadline(
    running: &mut Option<(AutoStep, Instant)>,
    step: AutoStep,
    grace: Duration,
) -> Instant {
    match *running {
        Some((same, deadline)) if same == step => deadline,
        _ => {
            let deadline = Instant::now() + grace;
            *running = Some((step, deadline));
            deadline
        }
    }
}

#[cfg(test)]
mod grace_tests {
    use super::*;

    #[test]
    fn a_pace_holds_a_move_until_the_wall_clock_catches_up() {
        assert_eq!(Pacer::new(None).hold_until(0, 3_600_000), None);
        let mut pacer = Pacer::new(Some(1.0));
        // The first move sets the origin: an hour ahead is an hour of wall time away.
        let at = pacer.hold_until(5_000, 3_605_000).expect("held");
        assert!(at > Instant::now() + Duration::from_secs(3_500));
        // A target at or before the origin's virtual time may go now.
        assert_eq!(pacer.hold_until(5_000, 5_000), None);
        // Pace 1000: a second of virtual time is a millisecond of wall time.
        let mut fast = Pacer::new(Some(1000.0));
        let at = fast.hold_until(0, 60_000).expect("held");
        assert!(at <= Instant::now() + Duration::from_millis(60));
        // Nonsense paces hold nothing back.
        assert_eq!(Pacer::new(Some(0.0)).hold_until(0, 1), None);
        assert_eq!(Pacer::new(Some(f64::NAN)).hold_until(0, 1), None);
    }

    /// The stall sweep wakes the ticker every 5 s, as long as `RETURN_GRACE`: a grace
    /// restarted on every wake-up never ran out, and a graded client waiting for its held
    /// call hung (about half the runs of replay_404_cascade).
    #[test]
    fn a_wake_up_does_not_restart_a_running_grace() {
        let mut running = None;
        let step = AutoStep::AwaitReturn(360_000);
        let first = grace_deadline(&mut running, step, RETURN_GRACE);
        std::thread::yield_now();
        assert_eq!(grace_deadline(&mut running, step, RETURN_GRACE), first);
        let other = AutoStep::AwaitReturn(420_000);
        assert!(grace_deadline(&mut running, other, RETURN_GRACE) >= first);
        assert_eq!(running.map(|(s, _)| s), Some(other));
    }
}
