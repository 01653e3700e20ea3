//! What every input is: the [`Source`] trait the reader drives, and what
//! one fill produced.

use std::io;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::base::kernel_pipe::KernelPipe;
use crate::net::facts::LinkFacts;
use crate::volume::VolumeLog;

/// A producer of blocks.
pub trait Source: Send {
    /// Fills `buf` completely, or up to the end of input or an error.
    /// Adds every byte to `arrived` as soon as it is read, so observers see
    /// a slow trickle even while a large block is still filling.
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled;

    /// As `fill` of `buf[..len]`, where `buf` holds room after `len` that
    /// the source may scribble on but never counts as data
    /// (`room_after_block`): a tape with logical block protection reads
    /// each record's CRC there instead of copying the record.
    fn fill_in(&mut self, buf: &mut [u8], len: usize, arrived: &AtomicU64) -> Filled {
        self.fill(&mut buf[..len], arrived)
    }

    /// The bytes after each block that `fill_in` would use: the ring
    /// leaves them when it can.
    fn room_after_block(&self) -> usize {
        0
    }

    /// The name used in messages: a path, `stdin`, a host.
    fn name(&self) -> &str;

    /// The total input size, when it is known in advance.
    fn size_hint(&self) -> Option<u64> {
        None
    }

    /// Gives the source the run's stop signal, so that a long wait inside
    /// it (a volume change) ends when the run is stopped.
    fn attach_stop(&mut self, _stop: &Receiver<()>) {}

    /// The bytes on each volume, for a source that spans volumes.
    fn volumes(&self) -> Option<Arc<VolumeLog>> {
        None
    }

    /// True for a tape drive.
    fn is_tape(&self) -> bool {
        false
    }

    /// The message for a read that failed `at` bytes into the stream.
    fn failure_line(&self, at: u64, e: &io::Error) -> String {
        format!("{}: read failed at byte {at}: {e}", self.name())
    }

    /// What was learnt while reading (a tape's record size), for the summary.
    fn note(&self) -> Option<String> {
        None
    }

    /// What the summary says of a network input once its sender is in:
    /// the peer and how private the stream is.
    fn link(&self) -> Option<LinkFacts> {
        None
    }

    /// Why this input cannot fill the zero-copy ring's pipes with
    /// splice(2), or None when it can: a plain pipe, socket or regular
    /// file whose bytes tapebuf need not see. The reason is a clause in
    /// plain words that names the input ("-i /dev/nst0 is a tape drive,
    /// read a record at a time"), for the summary to give after "because".
    fn splice_refusal(&self) -> Option<String> {
        Some(format!("tapebuf reads {} itself", self.name()))
    }

    /// Fills `pipe` with up to `want` bytes by splice(2), as `fill` fills
    /// a buffer, except that a fill may end short of `want` when the
    /// pipe's slots are all taken. Called only when `splice_refusal` said
    /// None.
    fn fill_pipe(&mut self, _pipe: &KernelPipe, _want: usize, _arrived: &AtomicU64) -> Filled {
        Filled {
            bytes: 0,
            end: End::Failed(io::Error::other("this input cannot splice")),
        }
    }
}

/// What one `fill` produced: some bytes, and whether more may follow.
#[derive(Debug)]
pub struct Filled {
    pub bytes: usize,
    pub end: End,
}

/// How a fill ended.
#[derive(Debug)]
pub enum End {
    /// The buffer is full; more input may follow.
    More,
    /// The input has ended after these bytes.
    Eof,
    /// Reading failed after these bytes.
    Failed(io::Error),
}
