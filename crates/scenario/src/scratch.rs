//! Scratch buffers taken from a field for a while (`std::mem::take`, so that `&mut self`
//! stays free while they are filled) and put back.
//!
//! Putting one back with a plain assignment drops what the field held meanwhile: the empty
//! `Vec` that `take` left, which owns no memory, but whose drop still calls the element
//! type's drop loop over nothing. The engine and the world do this every turn of their
//! loops (a call per simulated step), so [`put_back`] skips that drop when there is
//! nothing to drop.

/// Puts `buf` back into `slot`. What `slot` held is dropped unless it owns no memory (the
/// placeholder `take` left); a buffer a nested user left there is dropped as usual.
#[inline]
pub fn put_back<T>(slot: &mut Vec<T>, buf: Vec<T>) {
    let placeholder = std::mem::replace(slot, buf);
    if placeholder.capacity() == 0 {
        // No allocation and no elements: forgetting it frees nothing and drops nothing.
        std::mem::forget(placeholder);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// A buffer left in the slot by a nested user is still dropped (its elements too); the
    /// empty placeholder is not needed for anything.
    #[test]
    fn what_the_slot_held_is_dropped_unless_it_owns_nothing() {
        let marker = Rc::new(());
        let mut slot = vec![Rc::clone(&marker)];
        let taken = std::mem::take(&mut slot);
        slot.push(Rc::clone(&marker));
        assert_eq!(Rc::strong_count(&marker), 3);
        put_back(&mut slot, taken);
        assert_eq!(
            Rc::strong_count(&marker),
            2,
            "the nested buffer was dropped"
        );
        let taken = std::mem::take(&mut slot);
        put_back(&mut slot, taken);
        assert_eq!(slot.len(), 1);
        assert_eq!(Rc::strong_count(&marker), 2);
    }
}
