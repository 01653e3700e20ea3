//! A tape drive as an input.
//!
//! A tape is read one record per read(2), and the record size is found
//! from the tape, not assumed: records are packed into the ring's block
//! while the space left can hold the largest record seen so far, and the
//! block goes out early otherwise. A record larger than the whole block
//! fails with ENOMEM on Linux; then the reader spaces back, measures the
//! record with a larger buffer, and says which `-s` to use. A filemark
//! ends the volume.

use std::io;

use super::volumes::{Got, ReadMedium};
use crate::tape::{AtEnd, Drive, TapeOp};

/// The largest record the size probe looks for.
const MAX_PROBED_RECORD_BYTES: usize = 256 << 20;

pub struct TapeReader {
    drive: Box<dyn Drive>,
    smallest: usize,
    largest: usize,
}

impl TapeReader {
    pub fn new(drive: Box<dyn Drive>) -> TapeReader {
        TapeReader {
            drive,
            smallest: usize::MAX,
            largest: 0,
        }
    }

    /// The error for a record larger than the block, with its real size if
    /// the drive lets us space back and measure it.
    fn too_large(&mut self, block_bytes: usize) -> io::Error {
        let mut size = None;
        let mut probe = block_bytes.saturating_mul(2);
        while probe <= MAX_PROBED_RECORD_BYTES && size.is_none() {
            if self.drive.op(TapeOp::BackspaceRecords(1)).is_err() {
                break;
            }
            let mut buf = vec![0u8; probe];
            match self.drive.read_record(&mut buf) {
                Ok(n) => size = Some(n),
                Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => probe *= 2,
                Err(_) => break,
            }
        }
        let why = match size {
            Some(n) => format!(
                "a tape record of {n} bytes is larger than the {block_bytes}-byte block; run again with -s {}",
                suggest(n)
            ),
            None => format!(
                "a tape record is larger than the {block_bytes}-byte block; run again with a larger -s/--block-size"
            ),
        };
        io::Error::other(why)
    }
}

/// A `-s` value at least `n` bytes: `n` itself in k or M when it divides.
fn suggest(n: usize) -> String {
    let n = n as u64;
    if n % (1 << 20) == 0 {
        format!("{}M", n >> 20)
    } else if n % 1024 == 0 {
        format!("{}k", n >> 10)
    } else {
        n.to_string()
    }
}

impl ReadMedium for TapeReader {
    fn read(&mut self, buf: &mut [u8], fresh: bool) -> io::Result<Got> {
        if !fresh && buf.len() < self.largest {
            return Ok(Got::BlockDone);
        }
        match self.drive.read_record(buf) {
            Ok(0) => Ok(Got::EndOfVolume),
            Ok(n) => {
                self.smallest = self.smallest.min(n);
                self.largest = self.largest.max(n);
                Ok(Got::Bytes(n))
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) && !fresh => {
                // A record larger than those before, but not than a block:
                // put it back and read it into the next block.
                self.drive.op(TapeOp::BackspaceRecords(1))?;
                self.largest = self.largest.max(buf.len() + 1);
                Ok(Got::BlockDone)
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => Err(self.too_large(buf.len())),
            Err(e) => Err(e),
        }
    }

    fn end_volume(&mut self, then: AtEnd) -> io::Result<()> {
        then.finish(self.drive.as_mut())
    }

    fn open_volume(&mut self, _n: u32) -> io::Result<()> {
        self.drive.reopen()
    }

    fn volume_exists(&self, _n: u32) -> bool {
        true
    }

    fn volume_name(&self, _n: u32) -> String {
        self.drive.name().to_string()
    }

    fn needs_swap(&self) -> bool {
        true
    }

    fn is_tape(&self) -> bool {
        true
    }

    fn drive(&mut self) -> Option<&mut dyn Drive> {
        Some(self.drive.as_mut())
    }

    fn note(&self) -> Option<String> {
        super::records_note("tape records", self.smallest, self.largest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_block_size_is_the_record_size_in_friendly_units() {
        assert_eq!(suggest(1 << 20), "1M");
        assert_eq!(suggest(10240), "10k");
        assert_eq!(suggest(1000), "1000");
    }
}
