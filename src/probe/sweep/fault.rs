//! What can go wrong in a sweep: a byte that reads back wrong, which is
//! recorded while the sweep goes on, and the errors that stop a sweep.
//!
//! The invariant: every message names the block size (as `-s` takes it),
//! the run and the byte offset, so a failure can be found again in the
//! stream.

use std::fmt;
use std::io;

use crate::base::size::size_flag;

/// A byte that read back wrong: the first of its pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub block_bytes: u64,
    pub run: u32,
    /// From the start of the stream.
    pub offset: u64,
    pub expected: u8,
    pub got: u8,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the read-back differs at byte offset {} (block size {}, run {}): wrote 0x{:02x}, read 0x{:02x}",
            self.offset,
            size_flag(self.block_bytes),
            self.run,
            self.expected,
            self.got
        )
    }
}

/// Why a sweep stopped.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A stop was asked for, by this signal.
    #[error("interrupted by signal {0}")]
    Interrupted(i32),
    #[error(
        "{doing} at byte offset {offset} (block size {size}, run {run}): {source}",
        size = size_flag(*.block_bytes)
    )]
    Io {
        doing: &'static str,
        offset: u64,
        block_bytes: u64,
        run: u32,
        source: io::Error,
    },
    #[error("the read-back ended at byte offset {offset} of {stream_bytes} (block size {size}, run {run}): the target gave back less than was written", size = size_flag(*.block_bytes))]
    Short {
        offset: u64,
        stream_bytes: u64,
        block_bytes: u64,
        run: u32,
    },
}
