//! An ordered set that answers "what is the smallest element?" from a field.
//!
//! The server's due-work queues (job steps, session deadlines) are asked for their earliest
//! entry several times per simulated step, by [`Server::next_due`](crate::Server::next_due)
//! and by every driver, far more often than they change. A `BTreeSet::first` walks the
//! tree on each call; this keeps the minimum beside the tree, refreshed on the few
//! operations that can move it, so asking costs one load. Iteration order and contents
//! are the `BTreeSet`'s: nothing about determinism changes.

use std::collections::BTreeSet;

#[derive(Debug, Clone)]
pub(crate) struct MinSet<T: Ord + Copy> {
    set: BTreeSet<T>,
    /// Always `set.first()`.
    min: Option<T>,
}

impl<T: Ord + Copy> Default for MinSet<T> {
    fn default() -> Self {
        MinSet {
            set: BTreeSet::new(),
            min: None,
        }
    }
}

impl<T: Ord + Copy> MinSet<T> {
    /// The smallest element, without touching the tree.
    #[inline]
    pub fn first(&self) -> Option<T> {
        self.min
    }

    pub fn insert(&mut self, value: T) -> bool {
        if self.min.is_none_or(|m| value < m) {
            self.min = Some(value);
        }
        self.set.insert(value)
    }

    pub fn pop_first(&mut self) -> Option<T> {
        let first = self.set.pop_first();
        self.min = self.set.first().copied();
        first
    }

    pub fn remove(&mut self, value: &T) -> bool {
        let removed = self.set.remove(value);
        if removed && self.min.as_ref() == Some(value) {
            self.min = self.set.first().copied();
        }
        removed
    }

    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.set.retain(keep);
        self.min = self.set.first().copied();
    }

    pub fn clear(&mut self) {
        self.set.clear();
        self.min = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached minimum agrees with the tree's after every kind of change.
    #[test]
    fn first_is_the_trees_first_after_every_change() {
        let mut s = MinSet::default();
        let check = |s: &MinSet<(u64, u32)>| assert_eq!(s.first(), s.set.first().copied());
        check(&s);
        for (i, t) in [50u64, 10, 70, 10, 5, 90].into_iter().enumerate() {
            s.insert((t, i as u32));
            check(&s);
        }
        assert_eq!(s.first(), Some((5, 4)));
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
