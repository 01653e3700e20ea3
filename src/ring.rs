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
//! - every block's memory is page-aligned, so O_DIRECT can use it as is.

use std::io;
use std::ptr::NonNull;
use std::sync::Arc;

use crossbeam_channel::{bounded, Receiver, Sender};

/// One page-aligned buffer of `capacity` bytes, mapped anonymously.
/// Anonymous mappings are zero-filled by the kernel and cost no RAM until
/// touched, so an idle ring does not inflate the process's resident size.
struct Mapping {
    ptr: NonNull<u8>,
    capacity: usize,
}

// SAFETY: the mapping is plain memory owned by this value alone; moving it
// to another thread moves that ownership.
unsafe impl Send for Mapping {}
// SAFETY: shared access only ever reads (`&self` gives `&[u8]`).
unsafe impl Sync for Mapping {}

impl Mapping {
    fn new(capacity: usize) -> io::Result<Mapping> {
        use nix::sys::mman::{mmap_anonymous, MapFlags, ProtFlags};
        let len = std::num::NonZeroUsize::new(capacity)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty block"))?;
        // SAFETY: a fresh private anonymous mapping aliases nothing.
        let ptr = unsafe {
            mmap_anonymous(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_PRIVATE,
            )
        }
        .map_err(io::Error::from)?;
        Ok(Mapping {
            ptr: ptr.cast(),
            capacity,
        })
    }

    fn lock(&self) -> io::Result<()> {
        // SAFETY: the range is exactly this mapping.
        unsafe { nix::sys::mman::mlock(self.ptr.cast(), self.capacity) }.map_err(io::Error::from)
    }

    fn as_slice(&self) -> &[u8] {
        // SAFETY: the mapping is `capacity` readable, initialised (zeroed)
        // bytes that live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.capacity) }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` guarantees no other view exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.capacity) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `new` mapped; no slice outlives self.
        let _ = unsafe { nix::sys::mman::munmap(self.ptr.cast(), self.capacity) };
    }
}

/// One block of the ring: a buffer and how many of its bytes hold data.
pub struct Block {
    mem: Mapping,
    len: usize,
}

impl Block {
    /// The bytes that hold data.
    pub fn data(&self) -> &[u8] {
        &self.mem.as_slice()[..self.len]
    }

    /// The whole buffer, for a source to fill; call `set_len` afterwards.
    pub fn buffer_mut(&mut self) -> &mut [u8] {
        self.mem.as_mut_slice()
    }

    /// Records how many bytes of the buffer hold data.
    pub fn set_len(&mut self, len: usize) {
        assert!(len <= self.mem.capacity, "block length beyond capacity");
        self.len = len;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity(&self) -> usize {
        self.mem.capacity
    }
}

/// Blocks travel as `Arc<Block>` so that several outputs can read one block
/// at once; the Arc itself is allocated once, at start, and recycled.
pub type BlockRef = Arc<Block>;

/// Why the ring could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum RingError {
    #[error("cannot allocate {blocks} blocks of {block_bytes} bytes: {source}")]
    Allocate {
        blocks: usize,
        block_bytes: usize,
        source: io::Error,
    },
    #[error("cannot lock {bytes} bytes in memory: {source} (raise 'ulimit -l', or run with CAP_IPC_LOCK)")]
    Lock { bytes: u64, source: io::Error },
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
    for _ in 0..blocks {
        let mem = Mapping::new(block_bytes).map_err(|source| RingError::Allocate {
            blocks,
            block_bytes,
            source,
        })?;
        if lock {
            mem.lock().map_err(|source| RingError::Lock {
                bytes: blocks as u64 * block_bytes as u64,
                source,
            })?;
        }
        free_tx
            .send(Arc::new(Block { mem, len: 0 }))
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
        assert_eq!(b.as_ref().mem.ptr.as_ptr() as usize % 4096, 0);
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
