//! Blocks: ranges of one page-aligned, zero-filled memory mapping, each the
//! only handle to its range, or kernel pipes of their own (the zero-copy
//! ring). The ring carves its blocks from one region or makes one pipe per
//! block; sinks that keep a block until a peer acknowledges it hold a
//! [`BlockRef`]; the probe takes a block of its own for O_DIRECT. A
//! [`Tap`] reads every block of the stream, in order, without writing it
//! anywhere (the `--hash` digests); what it computes is its own business.
//!
//! Invariants kept here: a region is unmapped only when no block of it is
//! left; a block's range lies inside its region; blocks never overlap, so a
//! `&mut Block` is the only view of its bytes. A pipe block's bytes are in
//! the kernel: only splice and tee reach them, and asking for them as a
//! slice is a bug (the ring only makes pipe blocks for endpoints that
//! splice).

use std::io;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::base::kernel_pipe::KernelPipe;

/// The alignment O_DIRECT needs of a buffer, a file offset and a length
/// (the logical block size; 4096 covers every disk). Blocks of a multiple
/// of it are aligned to it, since a region starts on a page.
pub const DIRECT_ALIGN_BYTES: u64 = 4096;

/// Where every region starts: on a page, which is at least this aligned.
pub const PAGE_BYTES: usize = 4096;

/// The ring's memory: one anonymous mapping that every block is carved
/// from. Anonymous mappings are zero-filled by the kernel and cost no RAM
/// until touched, so an idle ring does not inflate the resident size.
pub struct Region {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the region is plain memory; which parts of it a thread may touch
// is decided by the `Block`s, each of which owns a disjoint range.
unsafe impl Send for Region {}
// SAFETY: as above; the region itself is never read or written through.
unsafe impl Sync for Region {}

impl Region {
    /// Maps `len` bytes of zeroed, page-aligned memory.
    pub fn map(len: usize) -> io::Result<Region> {
        use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
        let nonzero = std::num::NonZeroUsize::new(len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty region"))?;
        // SAFETY: a fresh private anonymous mapping aliases nothing.
        let ptr = unsafe {
            mmap_anonymous(
                None,
                nonzero,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_PRIVATE,
            )
        }
        .map_err(io::Error::from)?;
        Ok(Region {
            ptr: ptr.cast(),
            len,
        })
    }

    /// Locks the whole region in RAM (mlock).
    pub fn lock(&self) -> io::Result<()> {
        // SAFETY: the range is exactly this mapping.
        unsafe { nix::sys::mman::mlock(self.ptr.cast(), self.len) }.map_err(io::Error::from)
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: every Block holds an Arc of the region, so when it drops
        // no slice into it can remain; this unmaps exactly what was mapped.
        let _ = unsafe { nix::sys::mman::munmap(self.ptr.cast(), self.len) };
    }
}

/// Where a block's bytes live.
enum Store {
    /// A range of a mapped region, at this offset.
    Memory { region: Arc<Region>, offset: usize },
    /// A kernel pipe of its own.
    Pipe(KernelPipe),
}

/// One block: its own range of the region (or its own pipe), and how many
/// of its bytes hold data. A Block is never cloned, so it is the only
/// handle to its range.
pub struct Block {
    store: Store,
    capacity: usize,
    len: usize,
    /// Bytes of the region after the capacity that belong to this block
    /// too, which no source fills: room for what an output appends to a
    /// block in place (a tape's logical block protection CRC).
    room: usize,
}

impl Block {
    /// The block of `capacity` bytes at `offset` in `region`, empty.
    pub fn carve(region: &Arc<Region>, offset: usize, capacity: usize) -> Block {
        Block::carve_with_room(region, offset, capacity, 0)
    }

    /// As `carve`, with `room` bytes more after the capacity (`room`).
    pub fn carve_with_room(
        region: &Arc<Region>,
        offset: usize,
        capacity: usize,
        room: usize,
    ) -> Block {
        assert!(
            offset
                .checked_add(capacity + room)
                .is_some_and(|end| end <= region.len),
            "a block lies inside its region"
        );
        Block {
            store: Store::Memory {
                region: Arc::clone(region),
                offset,
            },
            capacity,
            len: 0,
            room,
        }
    }

    /// A block held in a kernel pipe of `capacity` bytes, empty.
    pub fn in_pipe(pipe: KernelPipe, capacity: usize) -> Block {
        assert!(capacity <= pipe.bytes(), "a pipe block fits its pipe");
        Block {
            store: Store::Pipe(pipe),
            capacity,
            len: 0,
            room: 0,
        }
    }

    /// The pipe that holds this block's bytes, for a block of the
    /// zero-copy ring.
    pub fn kernel_pipe(&self) -> Option<&KernelPipe> {
        match &self.store {
            Store::Pipe(pipe) => Some(pipe),
            Store::Memory { .. } => None,
        }
    }

    /// A region of its own, `len` zero bytes that hold data: a page-aligned
    /// buffer for O_DIRECT outside the ring (the probe's).
    pub fn alone(len: usize) -> io::Result<Block> {
        let region = Arc::new(Region::map(len.max(1))?);
        let mut block = Block::carve(&region, 0, len);
        block.set_len(len);
        Ok(block)
    }

    fn start(&self) -> *mut u8 {
        let Store::Memory { region, offset } = &self.store else {
            panic!("a pipe block's bytes are in the kernel; only splice reaches them")
        };
        debug_assert!(offset + self.capacity <= region.len);
        // SAFETY: offset is within the mapping (checked when carved).
        unsafe { region.ptr.as_ptr().add(*offset) }
    }

    /// The bytes that hold data.
    pub fn data(&self) -> &[u8] {
        // SAFETY: this block's range is initialised memory (zero-filled at
        // mapping) that only this Block reaches; `&self` forbids writers.
        unsafe { std::slice::from_raw_parts(self.start(), self.len) }
    }

    /// The whole buffer, for a source to fill; call `set_len` afterwards.
    pub fn buffer_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` guarantees no other view exists.
        unsafe { std::slice::from_raw_parts_mut(self.start(), self.capacity) }
    }

    /// The data and every byte after it that the block owns, the room
    /// included, for an output that appends to the data in place; None
    /// for a block without room or in a pipe.
    pub fn with_room_mut(&mut self) -> Option<&mut [u8]> {
        if self.room == 0 || self.kernel_pipe().is_some() {
            return None;
        }
        // SAFETY: the capacity and the room were carved inside the
        // mapping for this block alone, and `&mut self` excludes any
        // other view.
        Some(unsafe { std::slice::from_raw_parts_mut(self.start(), self.capacity + self.room) })
    }

    /// Records how many bytes of the buffer hold data.
    pub fn set_len(&mut self, len: usize) {
        assert!(len <= self.capacity, "block length beyond capacity");
        self.len = len;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Where the block starts in memory, for alignment checks; 0 for a
    /// pipe block.
    pub fn address(&self) -> usize {
        match self.store {
            Store::Memory { .. } => self.start() as usize,
            Store::Pipe(_) => 0,
        }
    }
}

/// Blocks travel as `Arc<Block>` so that several outputs can read one block
/// at once; the Arc itself is allocated once, at start, and recycled.
pub type BlockRef = Arc<Block>;

/// A reader of the whole stream.
pub trait Tap: Send {
    /// Takes the next block of the stream.
    fn update(&mut self, data: &[u8]);
    /// The stream has ended (not called when the run is stopped).
    fn finish(&mut self);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_of_its_own_starts_on_a_page_and_is_zeroed() {
        let len = 3 * DIRECT_ALIGN_BYTES as usize;
        let mut b = Block::alone(len).unwrap();
        assert_eq!(b.address() % PAGE_BYTES, 0);
        assert_eq!(b.data().len(), len);
        assert!(b.data().iter().all(|&x| x == 0));
        b.buffer_mut()[5] = 7;
        assert_eq!(b.data()[5], 7);
    }
}
