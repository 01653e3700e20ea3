//! A zeroed byte buffer whose start is aligned to a given power of two, as
//! O_DIRECT needs (the buffer, the file offset and the length must all be
//! multiples of the device's logical block size; 4096 covers every disk).
//! The invariant: the pointer is valid for `len` bytes, aligned to
//! `align`, and owned by this value alone until it is dropped.

use std::alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The alignment the probe uses for O_DIRECT, the same as the ring's.
pub const DIRECT_ALIGN_BYTES: usize = crate::config::DIRECT_ALIGN_BYTES as usize;

pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    layout: Layout,
}

// SAFETY: the buffer is plain bytes owned by this value alone.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// `len` zero bytes starting at a multiple of `align` (a power of two).
    pub fn zeroed(len: usize, align: usize) -> AlignedBuf {
        let layout = Layout::from_size_align(len.max(1), align.max(1))
            .expect("a power-of-two alignment and a sane length");
        // SAFETY: the layout's size is at least 1.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout));
        AlignedBuf { ptr, len, layout }
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len initialised (zeroed) bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_starts_on_the_alignment_and_is_zeroed() {
        let mut b = AlignedBuf::zeroed(3 * DIRECT_ALIGN_BYTES, DIRECT_ALIGN_BYTES);
        assert_eq!(b.as_ptr() as usize % DIRECT_ALIGN_BYTES, 0);
        assert_eq!(b.len(), 3 * DIRECT_ALIGN_BYTES);
        assert!(b.iter().all(|&x| x == 0));
        b[5] = 7;
        assert_eq!(b[5], 7);
    }
}
