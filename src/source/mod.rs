//! Where bytes come from. A source fills whole blocks: it joins the short
//! reads that pipes and sockets give, so that a block is short only at the
//! end of the input, or where a tape's next record would not fit. Today:
//! standard input, files, tape drives, input volumes, a TCP sender, and
//! remote tapes and files over rmt.

mod file;
mod file_volumes;
mod open;
mod rmt;
pub mod spec;
mod tape;
mod tcp;
mod volumes;

pub use file::FdSource;
pub use file_volumes::FileVolumesIn;
pub use open::{open, InputSettings};
pub use rmt::{Overrun, RmtReader};
pub use tape::TapeReader;
pub use tcp::TcpSource;
pub use volumes::{Got, ReadMedium, ReadVolumes, VolumeSource};

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crossbeam_channel::Receiver;

use crate::tape::VolumeLog;

/// A producer of blocks.
pub trait Source: Send {
    /// Fills `buf` completely, or up to the end of input or an error.
    /// Adds every byte to `arrived` as soon as it is read, so observers see
    /// a slow trickle even while a large block is still filling.
    fn fill(&mut self, buf: &mut [u8], arrived: &AtomicU64) -> Filled;

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

    /// What was learnt while reading (a tape's record size), for the summary.
    fn note(&self) -> Option<String> {
        None
    }
}

/// The summary's note on the record sizes read (`what` of `largest` bytes,
/// or of `smallest` to `largest`), None when nothing was read.
pub fn records_note(what: &str, smallest: usize, largest: usize) -> Option<String> {
    match (smallest, largest) {
        (_, 0) => None,
        (s, l) if s == l => Some(format!("{what} of {l} bytes")),
        (s, l) => Some(format!("{what} of {s} to {l} bytes")),
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

/// Reads into `buf` until it is full, the input ends or a read fails,
/// retrying interrupted calls. Short reads from pipes and sockets are
/// joined, so only the last block of a stream is ever short.
pub fn fill_from(reader: &mut impl io::Read, buf: &mut [u8], arrived: &AtomicU64) -> Filled {
    let mut bytes = 0;
    while bytes < buf.len() {
        match reader.read(&mut buf[bytes..]) {
            Ok(0) => {
                return Filled {
                    bytes,
                    end: End::Eof,
                }
            }
            Ok(n) => {
                bytes += n;
                arrived.fetch_add(n as u64, Relaxed);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Filled {
                    bytes,
                    end: End::Failed(e),
                }
            }
        }
    }
    Filled {
        bytes,
        end: End::More,
    }
}
