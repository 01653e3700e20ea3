//! What the probe writes to and reads from: a file, a tape, a remote tape
//! or file over rmt, or a raw device, behind one trait, so that the sweep
//! and its timing never know which.
//!
//! A pass is `begin`, then blocks (`write_block` or `read_block`), a `sync`
//! at the quarter mark of a write, and `end`. `begin` opens and positions
//! (rewinds a tape, drops a file's cached pages) and is not timed; the
//! blocks, `sync` and `end` are. The invariant: after `cleanup`, which the
//! caller runs whatever happened (success, error, signal), a tape is
//! rewound, a file the probe created is gone, and nothing is left open.

use std::io;

use crate::probe::schema::TargetKind;

/// The direction of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    Write,
    Read,
}

pub trait ProbeTarget {
    /// The target as the user named it, for messages and the JSON.
    fn name(&self) -> &str;

    fn kind(&self) -> TargetKind;

    /// How the bytes reach the medium, in one line for the table's heading
    /// (for example "buffered: fsync after each write pass ...").
    fn method(&self) -> String;

    /// The alignment block buffers must have (O_DIRECT needs 4096).
    fn alignment(&self) -> usize {
        1
    }

    /// Opens and positions for a pass of `stream_bytes` in blocks of
    /// `block_bytes`, from the start. Not timed.
    fn begin(&mut self, pass: Pass, block_bytes: usize, stream_bytes: u64) -> io::Result<()>;

    /// Writes one block (one record on a tape); all of it or an error.
    fn write_block(&mut self, block: &[u8]) -> io::Result<()>;

    /// Makes everything written so far reach the medium: fdatasync for a
    /// buffered file, every reply taken for rmt.
    fn sync(&mut self) -> io::Result<()>;

    /// Reads the next block (one record on a tape) into `buf`, which is as
    /// long as the block expected. Returns the bytes read; 0 means the data
    /// ended (a filemark, or the end of the file).
    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize>;

    /// Ends the pass: the write is on the medium (fsync, filemark).
    fn end(&mut self) -> io::Result<()>;

    /// Leaves the target safe. Runs once, at the end, on error and on a
    /// signal alike. Returns what was done, for the last message.
    fn cleanup(&mut self) -> io::Result<String>;
}
