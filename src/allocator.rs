//! The binary's allocator: mimalloc, asked the cheap way whenever the cheap way is enough.
//!
//! A simulated run allocates small, short-lived objects (requests, JSON-RPC messages,
//! client records) and frees them at once, hundreds of times per explored seed; with
//! glibc's allocator malloc and free were a third of the explorer's instructions. mimalloc
//! serves that pattern from thread-local free lists.
//!
//! The `mimalloc` crate's own `GlobalAlloc` asks for every block through
//! `mi_malloc_aligned`, which first checks the alignment and then that the free block at
//! hand happens to be aligned: about twice the instructions of `mi_malloc` on the hot path.
//! Nearly every Rust allocation asks for the alignment of a word or less, and every block
//! mimalloc hands out is a whole number of words from a word-aligned start (see mimalloc's
//! `types.h`: block sizes are counted in words), so those go to `mi_malloc` and friends;
//! anything wider still goes through the aligned calls. Nothing in faultline depends on
//! where memory comes from: this changes no output.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every mimalloc block has: a word.
const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc, with the plain calls for word-aligned layouts.
pub struct Allocator;

impl Allocator {
    #[inline]
    fn plain(align: usize) -> bool {
        align <= WORD
    }
}

// SAFETY: every call hands mimalloc's own result back, and blocks allocated by any of
// these calls are freed and resized by mimalloc, which tracks them whichever call made
// them. A plain call is made only for an alignment every mimalloc block has.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::plain(layout.align()) {
            unsafe { mi::mi_malloc(layout.size()) as *mut u8 }
        } else {
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::plain(layout.align()) {
            unsafe { mi::mi_zalloc(layout.size()) as *mut u8 }
        } else {
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::plain(layout.align()) {
            unsafe { mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8 }
        } else {
            unsafe {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout gets a block of its alignment, its bytes kept through a resize, from
    /// the plain calls and the aligned ones alike.
    #[test]
    fn blocks_have_their_alignment_and_keep_their_bytes_through_a_resize() {
        let a = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [align, align * 3, 24, 40, 1000, 70_000] {
                let Ok(layout) = Layout::from_size_align(size.max(align), align) else {
                    continue;
                };
                unsafe {
                    for zeroed in [false, true] {
                        let p = if zeroed {
                            a.alloc_zeroed(layout)
                        } else {
                            a.alloc(layout)
                        };
                        assert!(!p.is_null(), "{layout:?}");
                        assert_eq!(p as usize % align, 0, "{layout:?} zeroed {zeroed}");
                        if zeroed {
                            assert!((0..layout.size()).all(|i| *p.add(i) == 0), "{layout:?}");
                        }
                        for i in 0..layout.size() {
                            *p.add(i) = (i % 251) as u8;
                        }
                        let grown = a.realloc(p, layout, layout.size() * 2 + align);
                        assert!(!grown.is_null(), "{layout:?}");
                        assert_eq!(grown as usize % align, 0, "{layout:?} grown");
                        assert!(
                            (0..layout.size()).all(|i| *grown.add(i) == (i % 251) as u8),
                            "{layout:?} lost bytes in a resize"
                        );
                        let grown_layout =
                            Layout::from_size_align(layout.size() * 2 + align, align).unwrap();
                        a.dealloc(grown, grown_layout);
                    }
                }
            }
        }
    }
}
