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
//!   that is a multiple of 4096 gives blocks O_DIRECT can use as they are;
//!   or, for the zero-copy ring (`zero_copy.rs`), each block is a kernel
//!   pipe of its own.

use std::io;
use std::sync::Arc;

use crossbeam_channel::{bounded, Receiver, Sender};

use crate::base::block::{Block, BlockRef, Region};
use crate::base::kernel_pipe::KernelPipe;

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
    #[error("--zero-copy=on: {0}")]
    ZeroCopy(String),
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
/// Each block has `room` bytes after it that no source fills, for an
/// output that appends to a block in place (`Block::with_room_mut`).
pub fn allocate(
    blocks: usize,
    block_bytes: usize,
    room: usize,
    lock: bool,
) -> Result<(ReaderEnd, WriterEnd), RingError> {
    let stride = block_bytes + room;
    let total = blocks
        .checked_mul(stride)
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
    Ok(ends((0..blocks).map(|i| {
        Block::carve_with_room(&region, i * stride, block_bytes, room)
    })))
}

/// The zero-copy ring: one block of `block_bytes` in each pipe, all free.
pub fn in_pipes(pipes: Vec<KernelPipe>, block_bytes: usize) -> (ReaderEnd, WriterEnd) {
    ends(pipes.into_iter().map(|p| Block::in_pipe(p, block_bytes)))
}

/// The two ends of a ring of these blocks, all of them free.
fn ends(blocks: impl ExactSizeIterator<Item = Block>) -> (ReaderEnd, WriterEnd) {
    let count = blocks.len();
    let (free_tx, free_rx) = bounded(count);
    let (full_tx, full_rx) = bounded(count);
    for block in blocks {
        free_tx
            .send(Arc::new(block))
            .expect("free queue sized to hold every block");
    }
    (
        ReaderEnd {
            free: free_rx,
            full: full_tx,
        },
        WriterEnd {
            full: full_rx,
            free: free_tx,
        },
    )
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
        let (reader, writer) = allocate(5, 8192, 0, false).unwrap();
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
        let (reader, _writer) = allocate(2, 4096, 0, false).unwrap();
        let mut b = reader.free.recv().unwrap();
        let blk = unique(&mut b);
        blk.buffer_mut()[..3].copy_from_slice(b"abc");
        blk.set_len(3);
        assert_eq!(b.data(), b"abc");
    }
}
