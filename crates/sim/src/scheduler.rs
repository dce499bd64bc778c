//! The client side's scheduler: a priority queue of actions on virtual time. (Every
//! random choice is made up front, by `faultline_scenario::arm`.)
//!
//! Time jumps straight to the next due action (no fixed tick), so an hour of TTL costs
//! nothing. Simultaneous actions run in the order they were scheduled (a sequence number
//! breaks ties), which makes the run a pure function of scenario and seed.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<A> {
    at_ms: u64,
    seq: u64,
    action: A,
}

impl<A> PartialEq for Entry<A> {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ms, self.seq) == (other.at_ms, other.seq)
    }
}

impl<A> Eq for Entry<A> {}

impl<A> PartialOrd for Entry<A> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<A> Ord for Entry<A> {
    /// Reversed: `BinaryHeap` is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_ms, other.seq).cmp(&(self.at_ms, self.seq))
    }
}

pub struct Scheduler<A> {
    queue: BinaryHeap<Entry<A>>,
    next_seq: u64,
}

impl<A> Scheduler<A> {
    pub fn new() -> Self {
        Scheduler {
            queue: BinaryHeap::new(),
            next_seq: 0,
        }
    }

    pub fn schedule(&mut self, at_ms: u64, action: A) {
        self.next_seq += 1;
        self.queue.push(Entry {
            at_ms,
            seq: self.next_seq,
            action,
        });
    }

    pub fn peek_time(&self) -> Option<u64> {
        self.queue.peek().map(|e| e.at_ms)
    }

    pub fn pop(&mut self) -> Option<(u64, A)> {
        self.queue.pop().map(|e| (e.at_ms, e.action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_schedule_order() {
        let mut s = Scheduler::new();
        s.schedule(50, "c");
        s.schedule(10, "a");
        s.schedule(50, "d");
        s.schedule(10, "b");
        let order: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(order, vec![(10, "a"), (10, "b"), (50, "c"), (50, "d")]);
    }
}
