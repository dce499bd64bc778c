//! What a bounded store remembers of a record whose room it gave away.
//!
//! A long-lived server bounds its task and handle stores ([`crate::Limits::max_tasks`],
//! [`crate::Limits::max_handles`]): a new record takes the room of a gone, expired or
//! evicted one. The client holding that id may still name it, and the ledger must then
//! say that someone asked for what was lost (the `lost_task` verdict reads those misses),
//! and the client deserves to hear why it is gone. So the store keeps a tombstone (the
//! id, the index of its ledger entry and how it went) instead of the record. A tombstone
//! answers the next request naming its id and then goes: one clear answer, then the id is
//! unknown. Tombstones are bounded too, by the same number: past it the oldest is
//! forgotten (its loss is still in its ledger entry, if the window kept it).

use std::collections::BTreeMap;

/// What a bounded store holds: its records (gone ones included) and its tombstones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub records: usize,
    pub tombstones: usize,
}

/// Ids whose records gave their room away, oldest first.
#[derive(Debug)]
pub(super) struct Tombstones<L> {
    by_id: BTreeMap<String, Tombstone<L>>,
    /// Burial order (a count that only grows) to id: the oldest is first.
    order: BTreeMap<u64, String>,
    buried: u64,
}

/// A record that gave its room away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tombstone<L> {
    /// The index of its ledger entry (counting across trims).
    pub entry: u32,
    pub loss: L,
    seq: u64,
}

impl<L: Copy> Tombstones<L> {
    pub fn new() -> Self {
        Tombstones {
            by_id: BTreeMap::new(),
            order: BTreeMap::new(),
            buried: 0,
        }
    }

    /// Remembers that `id`'s record (ledger entry `entry`) went by `loss`, keeping at most
    /// `cap` tombstones (the oldest go first).
    pub fn bury(&mut self, id: String, entry: u32, loss: L, cap: usize) {
        let seq = self.buried;
        self.buried += 1;
        if let Some(old) = self
            .by_id
            .insert(id.clone(), Tombstone { entry, loss, seq })
        {
            self.order.remove(&old.seq);
        }
        self.order.insert(seq, id);
        while self.by_id.len() > cap.max(1) {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.by_id.remove(&oldest);
        }
    }

    /// The tombstone of `id`, removed: it answers once.
    pub fn take(&mut self, id: &str) -> Option<Tombstone<L>> {
        let stone = self.by_id.remove(id)?;
        self.order.remove(&stone.seq);
        Some(stone)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tombstone_answers_once_and_the_oldest_go_past_the_cap() {
        let mut t = Tombstones::new();
        for i in 0..5u32 {
            t.bury(format!("id-{i}"), i, 'x', 3);
        }
        assert_eq!(t.len(), 3);
        assert!(t.take("id-0").is_none(), "the oldest were forgotten");
        let stone = t.take("id-4").expect("kept");
        assert_eq!((stone.entry, stone.loss), (4, 'x'));
        assert!(t.take("id-4").is_none(), "answered once");
        assert_eq!(t.len(), 2);
    }
}
