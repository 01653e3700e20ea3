//! Filling whole blocks from a stream: short reads from pipes and sockets
//! are joined, so only the last block of a stream is ever short; and the
//! summary's note on the record sizes a tape or remote tape gave.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::input::{End, Filled};

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

/// The summary's note on the record sizes read (`what` of `largest` bytes,
/// or of `smallest` to `largest`), None when nothing was read.
pub fn records_note(what: &str, smallest: usize, largest: usize) -> Option<String> {
    match (smallest, largest) {
        (_, 0) => None,
        (s, l) if s == l => Some(format!("{what} of {l} bytes")),
        (s, l) => Some(format!("{what} of {s} to {l} bytes")),
    }
}
