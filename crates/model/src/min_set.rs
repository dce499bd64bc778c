//! An ordered set that answers "what is the smallest element?" from a field.
//!
//! The server's due-work queues (job steps, session deadlines) are asked for their earliest
//! entry several times per simulated step, by [`Server::next_due`](crate::Server::next_due)
//! and by every driver, far more often than they change. They are small, and what goes in
//! is nearly always later than what is there (a deadline is now plus a TTL; a job's next
//! step is its last plus its interval). So the set is a sorted ring buffer: the minimum is
//! kept beside it in a field (one load), popping it is O(1), and an insertion lands at or
//! near the back.
//! A `BTreeSet` freed its node each time it emptied and allocated one on the next insert:
//! a job stepping alone did both on every step. Contents and order are a set's, whatever
//! the order of insertion: nothing about determinism changes.

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub(crate) struct MinSet<T: Ord + Copy> {
    /// Strictly increasing: no duplicates, the minimum first.
    sorted: VecDeque<T>,
    /// Always `sorted.front()` (asking the ring buffer costs a wrap-around computation,
    /// and this is asked several times per step).
    min: Option<T>,
}

impl<T: Ord + Copy> Default for MinSet<T> {
    fn default() -> Self {
        MinSet {
            sorted: VecDeque::new(),
            min: None,
        }
    }
}

impl<T: Ord + Copy> MinSet<T> {
    /// The smallest element.
    #[inline]
    pub fn first(&self) -> Option<T> {
        self.min
    }

    /// Adds `value`; false (and nothing changes) when it is already there.
    pub fn insert(&mut self, value: T) -> bool {
        // The common case first: later than everything held.
        if self.sorted.back().is_none_or(|&last| last < value) {
            self.sorted.push_back(value);
        } else {
            match self.sorted.binary_search(&value) {
                Ok(_) => return false,
                Err(at) => self.sorted.insert(at, value),
            }
        }
        self.min = self.sorted.front().copied();
        true
    }

    /// The elements, smallest first.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.sorted.iter().copied()
    }

    pub fn pop_first(&mut self) -> Option<T> {
        let first = self.sorted.pop_front();
        self.min = self.sorted.front().copied();
        first
    }

    /// Takes `value` out; false when it was not there. (O(n) shifts at worst: only a
    /// long-lived server removes, one deadline per dead session.)
    pub fn remove(&mut self, value: &T) -> bool {
        let Ok(at) = self.sorted.binary_search(value) else {
            return false;
        };
        self.sorted.remove(at);
        self.min = self.sorted.front().copied();
        true
    }

    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.sorted.retain(keep);
        self.min = self.sorted.front().copied();
    }

    pub fn clear(&mut self) {
        self.sorted.clear();
        self.min = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buffer stays strictly sorted, and its front is the minimum, after every kind of
    /// change, whatever the order of insertion; an element already held is not added twice.
    #[test]
    fn first_is_the_minimum_after_every_change() {
        let mut s = MinSet::default();
        let check = |s: &MinSet<(u64, u32)>| {
            assert!(
                s.sorted
                    .iter()
                    .zip(s.sorted.iter().skip(1))
                    .all(|(a, b)| a < b)
            );
            assert_eq!(s.first(), s.sorted.iter().min().copied());
            assert_eq!(s.first(), s.sorted.front().copied());
        };
        check(&s);
        for (i, t) in [50u64, 10, 70, 10, 5, 90].into_iter().enumerate() {
            s.insert((t, i as u32));
            check(&s);
        }
        assert_eq!(s.first(), Some((5, 4)));
        assert!(!s.insert((70, 2)), "already held");
        assert!(!s.insert((5, 4)), "already held");
        check(&s);
        assert_eq!(s.pop_first(), Some((5, 4)));
        check(&s);
        assert_eq!(s.first(), Some((10, 1)));
        s.retain(|&(t, _)| t != 10);
        check(&s);
        assert_eq!(s.first(), Some((50, 0)));
        assert!(s.remove(&(90, 5)), "a later element");
        check(&s);
        assert!(s.remove(&(50, 0)), "the minimum");
        check(&s);
        assert_eq!(s.first(), Some((70, 2)));
        assert!(!s.remove(&(50, 0)), "gone already");
        s.clear();
        check(&s);
        assert_eq!(s.pop_first(), None);
        assert_eq!(s.first(), None);
    }
}
