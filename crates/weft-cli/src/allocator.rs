//! The command-line tool's global allocator: mimalloc, without transparent
//! huge pages (see `docs/hlo-text.md`, "What a parse costs").
//!
//! The `mimalloc` crate's wrapper sends every request through mimalloc's
//! aligned entry points, which cost about 30 instructions more than plain
//! `mi_malloc` on each of the tens of thousands of allocations of a parse
//! (about 1% of it). mimalloc aligns every block to at least a word, so a
//! request for that alignment or less takes the plain entry points; only a
//! larger alignment takes the aligned ones.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every mimalloc block has.
const WORD_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc as the global allocator.
pub struct MiMalloc;

// SAFETY: every method hands the request to mimalloc, which returns blocks of
// at least the requested size with at least the requested alignment: the plain
// entry points align to a word, and larger alignments go to the aligned ones.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: `layout` has a non-zero size (the `GlobalAlloc` contract).
        unsafe { allocate(layout, mi::mi_malloc, mi::mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe { allocate(layout, mi::mi_zalloc, mi::mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the `GlobalAlloc` contract).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`, and
        // `new_size` is non-zero (the `GlobalAlloc` contract).
        unsafe {
            if layout.align() <= WORD_ALIGN {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

/// A block for `layout` from `plain` when a word's alignment is enough, from
/// `aligned` otherwise.
///
/// # Safety
/// `layout` must have a non-zero size.
#[inline]
unsafe fn allocate(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    // SAFETY: both are mimalloc entry points, given a non-zero size.
    unsafe {
        if layout.align() <= WORD_ALIGN {
            plain(layout.size()).cast()
        } else {
            aligned(layout.size(), layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    use super::MiMalloc;

    #[test]
    fn every_alignment_is_honoured_through_alloc_and_realloc() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 24, 40, 100, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: `layout` has a non-zero size; each block is freed once
                // with the layout it has.
                unsafe {
                    let block = MiMalloc.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "size {size} align {align}");
                    block.write_bytes(0xAB, size);
                    let grown = MiMalloc.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                    assert_eq!(*grown.add(size - 1), 0xAB, "realloc keeps the bytes");
                    MiMalloc.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                    let zeroed = MiMalloc.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0);
                    assert!((0..size).all(|i| *zeroed.add(i) == 0));
                    MiMalloc.dealloc(zeroed, layout);
                }
            }
        }
    }
}
