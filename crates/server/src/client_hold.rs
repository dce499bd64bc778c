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
//! - a request at or after the point clears it;
//! - when the fault cut request streams only, a fresh standalone GET (no `Last-Event-ID`)
//!   that arrives before the point is not the client's return: a client opens that GET on
//!   its own task, so one sent before the cut can reach the server after it. It goes on at
//!   once, at the current time, and the point stays for the resumption (or the next POST)
//!   that is the return. Taken for the return, it let the clock run a cut call to its end,
//!   and past the log's TTL, before the real resumption arrived. At or after the point it
//!   is a return like any request (a client that listens instead of resuming).
//!
//! Whatever the client's wall-clock backoff, its return is handled at the same virtual
//! time, so the ledger does not depend on how fast the machine is.

use std::collections::VecDeque;

use tokio::sync::oneshot;

#[derive(Debug, Default)]
pub(crate) struct ClientHold {
    /// The virtual time the clock may not pass before the client's next request.
    until: Option<u64>,
    /// Whether a fresh standalone GET counts as the return (a fault behind `until` cut a
    /// standalone or listen stream, or no stream at all).
    fresh_listen_returns: bool,
    /// Requests waiting for the clock to reach `until`, in arrival order.
    held: VecDeque<oneshot::Sender<()>>,
    /// Released requests on their way to being handled: time must not move before they
    /// are (they are handled at the return point, not after whatever comes next).
    going: usize,
}

impl ClientHold {
    /// A fault at `at_ms` cut the client off or sent it away for `away_ms`;
    /// `fresh_listen_returns` when a fresh standalone GET is its return (see the module
    /// docs).
    pub fn client_cut_off(&mut self, at_ms: u64, away_ms: Option<u64>, fresh_listen_returns: bool) {
        let point = at_ms.saturating_add(away_ms.unwrap_or(0));
        self.fresh_listen_returns = match self.until {
            Some(_) => self.fresh_listen_returns || fresh_listen_returns,
            None => fresh_listen_returns,
        };
        self.until = Some(self.until.map_or(point, |u| u.max(point)));
    }

    /// A request arrived at virtual time `now` (`fresh_listen`: a GET without
    /// `Last-Event-ID`): `Some(receiver)` when it must wait (the receiver resolves when it
    /// may go on); `None` when it goes on at once.
    pub fn admit(&mut self, now: u64, fresh_listen: bool) -> Option<oneshot::Receiver<()>> {
        if fresh_listen && !self.fresh_listen_returns && self.until.is_some_and(|u| now < u) {
            // Not the return: it goes on now and leaves the point (and the held) alone.
            return None;
        }
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
        hold.client_cut_off(1_000, Some(5_000), true);
        assert_eq!(hold.until(), Some(6_000));
        let mut first = hold.admit(2_000, false).expect("held");
        let mut second = hold.admit(2_000, true).expect("held behind the first");
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
        assert!(hold.admit(6_000, false).is_none());
    }

    #[test]
    fn a_request_at_or_after_the_point_clears_it() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, None, true);
        assert!(hold.admit(1_000, false).is_none());
        assert_eq!(hold.until(), None);
    }

    #[test]
    fn a_fresh_listen_is_not_the_return_from_a_cut_of_request_streams() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, Some(5_000), false);
        assert!(hold.admit(2_000, true).is_none(), "goes on at once");
        assert_eq!(hold.until(), Some(6_000), "the point waits for the return");
        let mut resume = hold.admit(2_000, false).expect("the resumption is held");
        assert!(hold.admit(2_000, true).is_none(), "still not the return");
        hold.release();
        assert!(resume.try_recv().is_ok());
    }

    #[test]
    fn a_fresh_listen_returns_from_a_cut_of_its_own_stream() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, Some(5_000), false);
        hold.client_cut_off(1_500, Some(1_000), true);
        assert_eq!(hold.until(), Some(6_000));
        assert!(
            hold.admit(2_000, true).is_some(),
            "a listen was cut: its GET returns"
        );
        hold.release();
        hold.client_cut_off(9_000, Some(1_000), false);
        assert!(
            hold.admit(8_000, true).is_none(),
            "a new point starts afresh"
        );
        assert_eq!(hold.until(), Some(10_000));
    }

    #[test]
    fn a_fresh_listen_at_the_point_is_the_return() {
        let mut hold = ClientHold::default();
        hold.client_cut_off(1_000, None, false);
        assert!(hold.admit(1_000, true).is_none());
        assert_eq!(
            hold.until(),
            None,
            "a client that listens instead of resuming is back"
        );
    }
}
