//! Where a real client's calls meet the scenario's schedule: the k-th `tools/call` waits
//! until virtual time reaches the scenario's time for call k.
//!
//! In simulation the modelled client makes call k at its armed `at` (the cascade's echo at
//! T+33m). A real client under `faultline grade` makes its calls as soon as it can and
//! never sleeps in virtual time: the harness owns the clock. So, on an auto clock with
//! gates, a call that arrives before its time is held; holding it counts as the client
//! waiting on the server, so the clock runs everything due before the gate, then moves to
//! the gate and lets the call go on. Whatever the client's speed, the call is handled at
//! the same virtual time, after the same events.
//!
//! Which workload call a request is, the engine's call tracker says (the one definition of
//! "call k", shared with the stream selectors): a retry of call 0 is call 0 and goes on,
//! it does not take call 1's gate; a batch is the call of its first `tools/call`. A
//! `tools/call` that is no workload call (a conformance tool) is not held.

use tokio::sync::oneshot;

#[derive(Debug, Default)]
pub(crate) struct CallGates {
    /// The virtual time of each call, in order.
    at_ms: Vec<u64>,
    /// `tools/call` requests seen so far.
    seen: usize,
    /// Held calls: (gate, arrival order, the way to let them go on). Kept sorted.
    held: Vec<(u64, usize, oneshot::Sender<()>)>,
    /// Calls let go that have not been handled yet: time waits for them.
    going: usize,
}

impl CallGates {
    pub fn new(at_ms: Vec<u64>) -> CallGates {
        CallGates {
            at_ms,
            ..CallGates::default()
        }
    }

    /// A `tools/call` arrived at virtual time `now`, making workload call `call` (`None`:
    /// none): `Some(receiver)` when it must wait for its gate.
    pub fn admit(&mut self, now: u64, call: Option<usize>) -> Option<oneshot::Receiver<()>> {
        self.seen += 1;
        let k = call?;
        let gate = *self.at_ms.get(k)?;
        if gate <= now {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        let at = self
            .held
            .partition_point(|&(g, order, _)| (g, order) < (gate, k));
        self.held.insert(at, (gate, k, tx));
        Some(rx)
    }

    /// The client has made its first call (or there are no gates). Until then time does
    /// not move: the application acts first, and everything the scenario schedules is
    /// timed against its calls.
    pub fn started(&self) -> bool {
        self.at_ms.is_empty() || self.seen > 0
    }

    /// The earliest gate a held call waits for.
    pub fn earliest(&self) -> Option<u64> {
        self.held.first().map(|&(gate, _, _)| gate)
    }

    /// Lets go every held call whose gate is at or before `now`, in gate order.
    pub fn open(&mut self, now: u64) {
        let due = self.held.partition_point(|&(gate, _, _)| gate <= now);
        for (_, _, tx) in self.held.drain(..due) {
            if tx.send(()).is_ok() {
                self.going += 1;
            }
        }
    }

    /// A call that was let go has been handled.
    pub fn handled(&mut self) {
        self.going = self.going.saturating_sub(1);
    }

    /// True while a call let go at its gate has not been handled yet.
    pub fn going(&self) -> bool {
        self.going > 0
    }

    /// Forget the held calls (they go on) and start counting again (`/_chaos/reset`).
    pub fn clear(&mut self) {
        self.seen = 0;
        self.open(u64::MAX);
        self.going = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kth_call_waits_for_the_kth_gate_and_later_calls_go_on() {
        let mut gates = CallGates::new(vec![0, 5_000]);
        assert!(!gates.started());
        assert!(gates.admit(0, Some(0)).is_none(), "call 0 is due at once");
        assert!(gates.started());
        assert!(
            gates.admit(500, Some(0)).is_none(),
            "a retry of call 0 goes on: it does not take call 1's gate"
        );
        let mut second = gates.admit(1_000, Some(1)).expect("call 1 waits for T+5s");
        assert_eq!(gates.earliest(), Some(5_000));
        gates.open(4_999);
        assert!(second.try_recv().is_err());
        gates.open(5_000);
        assert!(second.try_recv().is_ok());
        assert!(gates.going(), "time waits until the call is handled");
        gates.handled();
        assert!(!gates.going());
        assert_eq!(gates.earliest(), None);
        assert!(
            gates.admit(1_000, Some(2)).is_none(),
            "no gate for a third call"
        );
        assert!(
            gates.admit(1_000, None).is_none(),
            "no gate for no workload call"
        );
    }
}
