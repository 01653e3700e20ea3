//! Where bytes go. A sink takes whole blocks in order; `finish` flushes and
//! closes it: standard output, files, devices and FIFOs, tape drives,
//! files split into volumes, TCP receivers, and remote tapes and files
//! over rmt. `fanout` drives one or several sinks from the writer
//! thread.

mod file;
mod file_volumes;
mod open;
mod preflight;
mod rmt;
pub mod spec;
mod tape;
mod tcp;
mod volumes;

pub use file::{close_reporting, FdSink};
pub use file_volumes::FileMedium;
pub use open::{open_all, Opened, OutputSettings};
pub use preflight::Plan;
pub use rmt::RmtSink;
pub use tape::TapeMedium;
pub use tcp::TcpSink;
pub use volumes::{Medium, VolumeChangeFailed, VolumeSettings, VolumeSink, Volumes, WriteMedium};

use std::io;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::base::block::BlockRef;
pub use crate::base::open_error::OpenError;
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

    /// True for a tape drive, which gets the tape defaults.
    fn is_tape(&self) -> bool {
        false
    }
}

/// A failure from a sink whose writes are acknowledged late (rmt), whose
/// message already says what the medium holds; the count itself comes from
/// `Sink::acknowledged_bytes`.
#[derive(Debug, thiserror::Error)]
#[error("{why}")]
pub struct LateFailure {
    pub why: String,
}

impl LateFailure {
    /// The late failure inside `err`, if it is one.
    pub fn within(err: &io::Error) -> Option<&LateFailure> {
        err.get_ref().and_then(|e| e.downcast_ref::<LateFailure>())
    }
}

/// A write that failed after part of the block had gone out, as when a
/// disk fills in the middle of a block. Those bytes are on the medium, so
/// they count as committed: the count stays exact, not merely safe.
#[derive(Debug, thiserror::Error)]
#[error("{source}")]
pub struct PartialWrite {
    pub written_bytes: u64,
    pub source: io::Error,
}

impl PartialWrite {
    /// `err`, marked with the bytes of the block written before it.
    pub fn wrap(written_bytes: usize, err: io::Error) -> io::Error {
        if written_bytes == 0 {
            return err;
        }
        let kind = err.kind();
        let partial = PartialWrite {
            written_bytes: written_bytes as u64,
            source: err,
        };
        io::Error::new(kind, partial)
    }

    /// The bytes of the block written before `err`, and its cause.
    pub fn split(err: &io::Error) -> (u64, &io::Error) {
        match err.get_ref().and_then(|e| e.downcast_ref::<PartialWrite>()) {
            Some(p) => (p.written_bytes, &p.source),
            None => (0, err),
        }
    }
}

/// The message for a failed write, naming the output and the byte offset.
/// A closed pipe downstream is data loss, and says so in plain words.
pub fn describe_write_error(name: &str, offset: u64, err: &io::Error) -> String {
    if let Some(change) = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<VolumeChangeFailed>())
    {
        return format!("{name}: {change}");
    }
    if let Some(late) = LateFailure::within(err) {
        return format!("{name}: {late}");
    }
    if err.kind() == io::ErrorKind::BrokenPipe {
        format!("{name}: output closed after {offset} bytes")
    } else {
        format!("{name}: write failed at byte {offset}: {err}")
    }
}
