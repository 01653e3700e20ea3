//! Where bytes come from. A source fills whole blocks: it joins the short
//! reads that pipes and sockets give, so that a block is short only at the
//! end of the input. Today: standard input and files; tcp, tape and rmt
//! sources plug in behind the same trait.

mod file;

pub use file::FdSource;

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::config::{Config, InputSpec};

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
}

/// Opens the configured input.
pub fn open(config: &Config) -> anyhow::Result<Box<dyn Source>> {
    match &config.input {
        InputSpec::Stdin => Ok(Box::new(FdSource::stdin(config.block_bytes)?)),
        InputSpec::File(path) => Ok(Box::new(FdSource::open(path)?)),
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
