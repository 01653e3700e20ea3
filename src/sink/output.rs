//! What every output is: the [`Sink`] trait the writer drives.

use std::io;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::base::block::BlockRef;
use crate::base::kernel_pipe::KernelPipe;
use crate::manifest::Ledger;
use crate::tape::VolumeLog;

/// A consumer of blocks.
pub trait Sink: Send {
    /// Writes one block completely, or fails.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()>;

    /// Writes one block of the ring, which the sink may keep (a clone of
    /// the reference) after it returns, up to `keeps_blocks` of them; the
    /// writer frees a block only once nothing else holds it. Used when the
    /// sink is the only output. By default, the same as `write_block`.
    fn write_shared(&mut self, block: &BlockRef) -> io::Result<()> {
        self.write_block(block.data())
    }

    /// The most ring blocks `write_shared` may keep. The ring gets this
    /// many blocks beyond `-m`, so the watermarks are not disturbed and
    /// the reader and the writer can never wait on each other for them.
    fn keeps_blocks(&self) -> usize {
        0
    }

    /// For a sink whose writes are acknowledged late (rmt): the bytes
    /// acknowledged so far, which are what it has committed. The writer
    /// counts these instead of the blocks merely handed over, so status
    /// lines and the watchdog never overclaim. None: a block is committed
    /// when `write_block` returns.
    fn acknowledged_bytes(&self) -> Option<u64> {
        None
    }

    /// Flushes (fsync with `--sync`) and closes. Called once, at the end,
    /// when the input ended and every block read was handed over.
    fn finish(&mut self) -> io::Result<()>;

    /// Closes instead of `finish` when the run stopped before the end of
    /// its input (a signal, the watchdog, an input failure), so the stream
    /// is short. A sink whose receiver would take a clean close for a
    /// complete stream (a TCP receiver) must tell it otherwise. By
    /// default the same as `finish`: what was written is kept, and the
    /// run's summary and exit status say the stream is short.
    fn finish_early(&mut self) -> io::Result<()> {
        self.finish()
    }

    /// The name used in messages: a path, `stdout`, a host.
    fn name(&self) -> &str;

    /// Gives the sink the run's stop signal, so that a long wait inside it
    /// (a volume change) ends when the run is stopped.
    fn attach_stop(&mut self, _stop: &Receiver<()>) {}

    /// The bytes on each volume, for a sink that spans volumes.
    fn volumes(&self) -> Option<Arc<VolumeLog>> {
        None
    }

    /// The manifest this sink records (`--manifest`), if it records one.
    fn ledger(&self) -> Option<Arc<Ledger>> {
        None
    }

    /// True for a tape drive, which gets the tape defaults.
    fn is_tape(&self) -> bool {
        false
    }

    /// Why this output cannot take the zero-copy ring's blocks by
    /// splice(2), or None when it can: a plain pipe, socket or regular
    /// file that needs nothing but the bytes. The reason is a clause in
    /// plain words that names the output or the flag ("--manifest hashes
    /// every byte"), for the summary to give after "because".
    fn splice_refusal(&self) -> Option<String> {
        Some(format!("tapebuf writes {} itself", self.name()))
    }

    /// Moves exactly `len` bytes out of `pipe` by splice(2), as
    /// `write_block` writes a block: completely, or fails with the bytes
    /// written before the failure (`PartialWrite`). Called only when
    /// `splice_refusal` said None.
    fn write_pipe(&mut self, _pipe: &KernelPipe, _len: usize) -> io::Result<()> {
        Err(io::Error::other("this output cannot splice"))
    }
}
