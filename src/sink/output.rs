//! What every output is: the [`Sink`] trait the writer drives, and the
//! [`SinkTraits`] that describe an opened sink in one value: the medium it
//! writes (whose kind says whether it is a tape), the ring blocks it may
//! keep, its volumes and manifest, and whether it can take the zero-copy
//! ring's blocks.

use std::io;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::base::block::{Block, BlockRef};
use crate::base::kernel_pipe::KernelPipe;
use crate::manifest::Ledger;
use crate::net::facts::LinkFacts;
use crate::volume::{MediumKind, VolumeLog};

/// A consumer of blocks.
pub trait Sink: Send {
    /// Writes one block completely, or fails.
    fn write_block(&mut self, data: &[u8]) -> io::Result<()>;

    /// Writes one block of the ring, which the sink may keep (a clone of
    /// the reference) after it returns, up to `SinkTraits::keeps_blocks` of them; the
    /// writer frees a block only once nothing else holds it. Used when the
    /// sink is the only output. By default, the same as `write_block`.
    fn write_shared(&mut self, block: &BlockRef) -> io::Result<()> {
        self.write_block(block.data())
    }

    /// Writes a block of the ring that no one else holds, with room after
    /// its data (`SinkTraits::room_after_block`) that the sink may fill.
    /// By default, the same as `write_block`.
    fn write_in_place(&mut self, block: &mut Block) -> io::Result<()> {
        self.write_block(block.data())
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

    /// What this sink is, for the engine and the run to ask once it is
    /// open. By default a plain stream that keeps no block and that
    /// tapebuf writes itself.
    fn traits(&self) -> SinkTraits {
        SinkTraits::stream(Some(format!("tapebuf writes {} itself", self.name())))
    }

    /// Moves exactly `len` bytes out of `pipe` by splice(2), as
    /// `write_block` writes a block: completely, or fails with the bytes
    /// written before the failure (`PartialWrite`). Called only when
    /// `SinkTraits::splice_refusal` said None.
    fn write_pipe(&mut self, _pipe: &KernelPipe, _len: usize) -> io::Result<()> {
        Err(io::Error::other("this output cannot splice"))
    }
}

/// What an opened sink is, asked once: its medium, the blocks it keeps,
/// what it records, and whether it can splice.
#[derive(Clone, Default)]
pub struct SinkTraits {
    /// The medium of an output that spans volumes; None for a stream
    /// (standard output, a pipe, a plain file or device, a TCP peer).
    pub medium: Option<MediumKind>,
    /// The most ring blocks `write_shared` may keep. The ring gets this
    /// many blocks beyond `-m`, so the watermarks are not disturbed and
    /// the reader and the writer can never wait on each other for them.
    pub keeps_blocks: usize,
    /// The bytes on each volume, for a sink that spans volumes.
    pub volumes: Option<Arc<VolumeLog>>,
    /// The manifest this sink records (`--manifest`), if it records one.
    pub ledger: Option<Arc<Ledger>>,
    /// Why this output cannot take the zero-copy ring's blocks by
    /// splice(2), or None when it can: a plain pipe, socket or regular
    /// file that needs nothing but the bytes. The reason is a clause in
    /// plain words that names the output or the flag ("--manifest hashes
    /// every byte"), for the summary to give after "because".
    pub splice_refusal: Option<String>,
    /// What the summary says of a network output: the peer and how
    /// private the stream is.
    pub link: Option<LinkFacts>,
    /// Bytes this output appends to each block it writes (a tape's
    /// logical block protection CRC): as its lone output, the ring leaves
    /// that much room after each block, and `write_in_place` fills it
    /// instead of copying the block.
    pub room_after_block: usize,
}

impl SinkTraits {
    /// A stream: no medium, no block kept, nothing recorded.
    pub fn stream(splice_refusal: Option<String>) -> SinkTraits {
        SinkTraits {
            splice_refusal,
            ..SinkTraits::default()
        }
    }

    /// True for a tape drive, here or over rmt, which gets the tape
    /// defaults.
    pub fn is_tape(&self) -> bool {
        self.medium.is_some_and(MediumKind::is_tape)
    }
}
