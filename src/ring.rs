//! The ring: a fixed set of equal-size blocks, allocated once at start, that
//! travel between a free queue and a full queue.
//!
//! Invariants kept here:
//! - exactly `blocks` blocks exist for the whole run; nothing is allocated
//!   per block in steady state;
//! - a block is owned by one stage at a time. The reader fills a block it
//!   owns uniquely, the writer drains it, and only then does it go back to
//!   the free queue (the fan-out to several outputs lends read-only clones
//!   and waits for all of them before returning the block);
//! - all blocks are carved from one page-aligned mapping, so a block size
//!   that is a multiple of 4096 gives blocks O_DIRECT can use as they are.

use std::io;
use std::ptr::NonNull;
use std::sync::Arc;

use crossbeam_channel::{bounded, Receiver, Sender};

/// The ring's memory: one anonymous mapping that every block is carved
/// from. Anonymous mappings are zero-filled by the kernel and cost no RAM
/// until touched, so an idle ring does not inflate the resident size.
struct Region {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the region is plain memory; which parts of it a thread may touch
// is decided by the `Block`s, each of which owns a disjoint range.
unsafe impl Send for Region {}
// SAFETY: as above; the region itself is never read or written through.
unsafe impl Sync for Region {}

impl Region {
    fn map(len: usize) -> io::Result<Region> {
        use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
        let nonzero = std::num::NonZeroUsize::new(len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty ring"))?;
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

    fn lock(&self) -> io::Result<()> {
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

/// One block of the ring: its own range of the region, and how many of its
/// bytes hold data. A Block is never cloned, so it is the only handle to
/// its range.
pub struct Block {
    region: Arc<Region>,
    offset: usize,
    capacity: usize,
    len: usize,
}

impl Block {
    fn start(&self) -> *mut u8 {
        debug_assert!(self.offset + self.capacity <= self.region.len);
        // SAFETY: offset is within the mapping (checked when carved).
        unsafe { self.region.ptr.as_ptr().add(self.offset) }
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

    /// Where the block starts in memory, for alignment checks.
    pub fn address(&self) -> usize {
        self.start() as usize
    }
}

/// Blocks travel as `Arc<Block>` so that several outputs can read one block
/// at once; the Arc itself is allocated once, at start, and recycled.
pub type BlockRef = Arc<Block>;

/// Why the ring could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum RingError {
    #[error("-m/--memory: cannot allocate {blocks} blocks of {block_bytes} bytes: {error}")]
    Allocate {
        blocks: usize,
        block_bytes: usize,
        error: io::Error,
    },
    #[error("-L/--lock: cannot lock {bytes} bytes in memory: {error} (raise 'ulimit -l', or run with CAP_IPC_LOCK)")]
    Lock { bytes: u64, error: io::Error },
}

/// The reader's end: take free blocks, hand over full ones.
pub struct ReaderEnd {
    pub free: Receiver<BlockRef>,
    pub full: Sender<BlockRef>,
}

/// The writer's end: take full blocks, give them back when drained.
pub struct WriterEnd {
    pub full: Receiver<BlockRef>,
    pub free: Sender<BlockRef>,
}

/// Allocates the ring and returns its two ends. All blocks start free.
pub fn allocate(
    blocks: usize,
    block_bytes: usize,
    lock: bool,
) -> Result<(ReaderEnd, WriterEnd), RingError> {
    let (free_tx, free_rx) = bounded(blocks);
    let (full_tx, full_rx) = bounded(blocks);
    let total = blocks
        .checked_mul(block_bytes)
        .ok_or_else(|| RingError::Allocate {
            blocks,
            block_bytes,
            error: io::Error::from(io::ErrorKind::OutOfMemory),
        })?;
    let region = Arc::new(Region::map(total).map_err(|error| RingError::Allocate {
        blocks,
        block_bytes,
        error,
    })?);
    if lock {
        region.lock().map_err(|error| RingError::Lock {
            bytes: total as u64,
            error,
        })?;
    }
    for i in 0..blocks {
        let block = Block {
            region: Arc::clone(&region),
            offset: i * block_bytes,
            capacity: block_bytes,
            len: 0,
        };
        free_tx
            .send(Arc::new(block))
            .expect("free queue sized to hold every block");
    }
    Ok((
        ReaderEnd {
            free: free_rx,
            full: full_tx,
        },
        WriterEnd {
            full: full_rx,
            free: free_tx,
        },
    ))
}

/// Mutable access to a block that has come back to the free queue.
/// Panics if a clone is still alive, which would be a bug in the fan-out.
pub fn unique(block: &mut BlockRef) -> &mut Block {
    Arc::get_mut(block).expect("a free block is never shared")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_exactly_the_requested_blocks_all_free() {
        let (reader, writer) = allocate(5, 8192, false).unwrap();
        assert_eq!(reader.free.len(), 5);
        assert_eq!(writer.full.len(), 0);
        let b = reader.free.recv().unwrap();
        assert_eq!(b.capacity(), 8192);
        assert_eq!(
            b.address() % 4096,
            0,
            "blocks of a page multiple stay aligned"
        );
    }

    #[test]
    fn block_length_tracks_filled_bytes() {
        let (reader, _writer) = allocate(2, 4096, false).unwrap();
        let mut b = reader.free.recv().unwrap();
        let blk = unique(&mut b);
        blk.buffer_mut()[..3].copy_from_slice(b"abc");
        blk.set_len(3);
        assert_eq!(b.data(), b"abc");
    }
}
