//! Where an auto-advancing clock must wait for the client: the "client returns" point of a
//! scenario fault, played against a real client.
//!
//! In simulation a fault that cuts the client off (a drop, a restart) or sends it `away`
//! is followed by the client coming back at a definite virtual time. A real client comes
//! back after its own backoff, in wall time, which an auto clock (jumping whenever it can)
//! would turn into a random amount of virtual time. So, on an auto clock, such a fault sets
//! a point the clock may not pass before the client's next request:
//!
//! - the point is the fault's time plus its `away` (or the fault's time itself);
//! - until a request arrives, time still runs through whatever is due before the point
//!   (the server does not stop working while its client is away), never past it;
//! - a request that arrives before the point waits (held) until the clock reaches it, and
//!   is then handled there, in arrival order;
//! - a request at or after the point clears it.
//!
//! Whatever the client's wall-clock backoff, its return is handled at the same virtual
//! time, so the ledger does not depend on how fast the machine is.

use std::collections::VecDeque;

use tokio::sync::oneshot;

#[derive(Debug, Default)]
pub(crate) struct ClientHold {
    /// The virtual time the clock may not pass before the client's next request.
    until: Option<u64>,
    /// Requests waiting for the clock to reach `until`, in arrival order.
    held: VecDeque<oneshot::Sender<()>>,
    /// Released requests on their way to being handled: time must not move before they
    /// are (they are handled at the return point, not after whatever comes next).
    going: usize,
}

impl ClientHold {
    /// A fault at `at_ms` cut the client off or sent it away for `away_ms`.
    pub fn client_cut_off(&mut self, at_ms: u64, away_ms: Option<u64>) {
        let point = at_ms.saturating_add(away_ms.unwrap_or(0));
        self.until = Some(self.until.map_or(point, |u| u.max(point)));
    }

    /// A request arrived at virtual time `now`: `Some(receiver)` when it must wait (the
    /// receiver resolves when it may go on); `None` when it goes on at once.
    pub fn admit(&mut self, now: u64) -> Option<oneshot::Receiver<()>> {
        match self.until {
            Some(until) if now < until => {}
            _ if !self.held.is_empty() => {}
            _ => {
                self.until = None;
                return None;
            }
        }
        let (tx, rx) = oneshot::channel();
        self.held.push_back(tx);
        Some(rx)
    }

    /// The point the clock may not pass, if any.
    pub fn until(&self) -> Option<u64> {
        self.until
    }

    /// True when a request is waiting for the clock.
    pub fn has_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// True while a released request has not been handled yet.
    pub fn going(&self) -> bool {
        self.going > 0
    }

    /// A released request was handled (or its client gave up on it).
    pub fn released_handled(&mut self) {
        self.going = self.going.saturating_sub(1);
    }

    /// The clock reached the point: lets the first held request go on. The others follow
    /// one by one, each after the one before it was handled ([`ClientHold::next`]).
    pub fn release(&mut self) {
        self.until = None;
        self.next();
    }

    /// A request was handled (held or not): the next held one, if any, may go on.
    pub fn next(&mut self) {
        if self.until.is_some() {
            return;
        }
        while let Some(tx) = self.held.pop_front() {
            if tx.send(()).is_ok() {
                self.going += 1;
                return;
            }
            // Its client gave up waiting: try the next one.
        }
    }

    /// Forget everything (a `/_chaos/reset`): held requests go on.
    pub fn clear(&mut self) {
        self.until = None;
        self.going = 0;
        for tx in self.held.drain(..) {
            let _ = tx.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_before_the_point_wait_and_go_on_in_order() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, Some(5_000));
        assert_eq!(hold.until(), Some(6_000));
        let mut first = hold.admit(2_000).expect("held");
        let mut second = hold.admit(2_000).expect("held behind the first");
        assert!(hold.has_held());
        hold.release();
        assert!(first.try_recv().is_ok());
        assert!(hold.going(), "time waits for the released request");
        assert!(second.try_recv().is_err(), "one at a time");
        hold.released_handled();
        hold.next();
        assert!(second.try_recv().is_ok());
        hold.released_handled();
        assert!(!hold.going());
        assert!(hold.admit(6_000).is_none());
    }

    #[test]
    fn a_request_at_or_after_the_point_clears_it() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, None);
        assert!(hold.admit(1_000).is_none());
        assert_eq!(hold.until(), None);
    }
}
