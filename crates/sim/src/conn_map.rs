//! `ConnMap`: what the modelled client keeps per connection of its own.
//!
//! The client numbers its connections 1, 2, 3, … ([`ClientIo::conn`](crate::client::ClientIo)),
//! so a map keyed by them is a `Vec` indexed by the number. It was a `BTreeMap`: a tree
//! walk for the insertion, lookups and removal of every request, a lookup or two per
//! event, and removing a connection's purpose (about 150 bytes) shifted its leaf's
//! neighbours along: 3-4 % of an explored seed's instructions.
//!
//! Iteration is in connection order, as the `BTreeMap`'s was: the client's decisions, and
//! so the ledger, depend on that order. A connection's slot stays allocated after it is
//! removed (a run's connections are already in its ledger, so this adds a constant per
//! connection, not a new dimension); iteration skips the empty prefix.

use std::ops::Index;

use faultline_model::ConnId;

#[derive(Debug, Clone)]
pub(crate) struct ConnMap<V> {
    slots: Vec<Option<V>>,
    /// Every slot below this index is empty: iteration starts here.
    first: usize,
    len: usize,
}

impl<V> Default for ConnMap<V> {
    fn default() -> Self {
        ConnMap {
            slots: Vec::new(),
            first: 0,
            len: 0,
        }
    }
}

#[inline]
fn slot(conn: ConnId) -> usize {
    usize::try_from(conn.0).expect("a connection number fits in memory")
}

impl<V> ConnMap<V> {
    /// Puts `value` at `conn`, returning what was there.
    pub(crate) fn insert(&mut self, conn: ConnId, value: V) -> Option<V> {
        let i = slot(conn);
        if i >= self.slots.len() {
            // The usual case: the client's newest connection, one past the last slot
            // (pushed in place, not written over a `None` and swapped out).
            self.slots.resize_with(i, || None);
            self.slots.push(Some(value));
            self.len += 1;
            self.first = self.first.min(i);
            return None;
        }
        let old = self.slots[i].replace(value);
        if old.is_none() {
            self.len += 1;
            self.first = self.first.min(i);
        }
        old
    }

    #[inline]
    pub(crate) fn get(&self, conn: &ConnId) -> Option<&V> {
        self.slots.get(slot(*conn)).and_then(Option::as_ref)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, conn: &ConnId) -> Option<&mut V> {
        self.slots.get_mut(slot(*conn)).and_then(Option::as_mut)
    }

    pub(crate) fn remove(&mut self, conn: &ConnId) -> Option<V> {
        let i = slot(*conn);
        let old = self.slots.get_mut(i)?.take();
        if old.is_some() {
            self.len -= 1;
            if self.len == 0 {
                self.first = self.slots.len();
            } else if i == self.first {
                while self.slots[self.first].is_none() {
                    self.first += 1;
                }
            }
        }
        old
    }

    /// The live entries, in connection order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ConnId, &V)> {
        let first = self.first.min(self.slots.len());
        self.slots[first..]
            .iter()
            .enumerate()
            .filter_map(move |(k, v)| Some((ConnId((first + k) as u64), v.as_ref()?)))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = ConnId> {
        self.iter().map(|(k, _)| k)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

impl<V> Index<&ConnId> for ConnMap<V> {
    type Output = V;

    fn index(&self, conn: &ConnId) -> &V {
        self.get(conn).expect("a connection in the map")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any sequence of insertions and removals leaves the map answering every lookup,
        /// and iterating in the same order, as a `BTreeMap` given the same sequence.
        #[test]
        fn agrees_with_a_btree_map(ops in prop::collection::vec((any::<bool>(), 0u64..40, any::<u32>()), 0..200)) {
            let mut map = ConnMap::default();
            let mut model = BTreeMap::new();
            for (insert, conn, value) in ops {
                let conn = ConnId(conn);
                if insert {
                    prop_assert_eq!(map.insert(conn, value), model.insert(conn, value));
                } else {
                    prop_assert_eq!(map.remove(&conn), model.remove(&conn));
                }
                prop_assert_eq!(map.get(&conn), model.get(&conn));
                let got: Vec<(ConnId, u32)> = map.iter().map(|(k, v)| (k, *v)).collect();
                let want: Vec<(ConnId, u32)> = model.iter().map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(got, want);
            }
            for conn in 0..41 {
                prop_assert_eq!(map.get(&ConnId(conn)), model.get(&ConnId(conn)));
            }
        }
    }

    #[test]
    fn get_mut_changes_the_entry_and_index_reads_it() {
        let mut map = ConnMap::default();
        map.insert(ConnId(3), 1);
        *map.get_mut(&ConnId(3)).unwrap() += 1;
        assert_eq!(map[&ConnId(3)], 2);
        assert_eq!(map.get_mut(&ConnId(9)), None);
        assert_eq!(map.keys().collect::<Vec<_>>(), vec![ConnId(3)]);
        assert_eq!(map.values().copied().collect::<Vec<_>>(), vec![2]);
    }
}
