//! A tape drive as an input: `TapeReader` is `tape::LocalTape<Reading>`,
//! the read face of the local tape, which opens the drive and each volume
//! the same way for reading and writing; `Reading` keeps only what a
//! reader learns (record sizes, the read cap).
//!
//! A tape is read one record per read(2), and the record size is found
//! from the tape, not assumed: records are packed into the ring's block
//! while the space left can hold the largest record seen so far, and the
//! block goes out early otherwise. A record larger than the whole block
//! fails with ENOMEM on Linux; then the reader spaces back, measures the
//! record with a larger buffer, and says which `-s` to use. A filemark
//! ends the volume.
//!
//! Before the first read of every volume the drive is put in variable-block
//! mode if it was left in fixed-block mode (`tape::LocalTape`, with
//! `tape::block_mode`). st
//! refuses a read whose byte count is over the controller's or the
//! drive's limit (EBUSY, EINVAL, EOVERFLOW) however small the record is,
//! so a large `-s` could fail on a tape of small records. When the first
//! read of a volume is refused that way, the reader asks for less, down to
//! the largest size the limits found in sysfs allow and then by halves,
//! says so once, and reads at most that much per read(2) from then on.
//! Only a record larger than every size the drive accepts is an error.

use std::io;

use crate::base::console::message;
use crate::base::errors::plain;
use crate::base::size::size_flag;
use crate::tape::drive::limits::{is_refused_size, refused_error};
use crate::tape::protection::refused_with_crc;

use super::volumes::{Got, ReadMedium};
use crate::tape::{Access, AtEnd, Drive, TapeOp};
use crate::volume::trailer::TRAILER_READ_BYTES;
use crate::volume::{LocalTape, TapeFace, Trailer};

/// The smallest read count tried after a refusal.
const MIN_READ_BYTES: usize = 4096;

/// The largest record the size probe looks for.
const MAX_PROBED_RECORD_BYTES: usize = 256 << 20;

/// A local tape drive, read.
pub type TapeReader = LocalTape<Reading>;

/// What reading keeps beside the drive.
pub struct Reading {
    smallest: usize,
    largest: usize,
    /// The most one read(2) may ask for, once the drive refused more.
    read_cap: Option<usize>,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            smallest: usize::MAX,
            largest: 0,
            read_cap: None,
        }
    }
}

impl TapeFace for Reading {
    const ACCESS: Access = Access::Read;
}

impl LocalTape<Reading> {
    /// `drive` is open for reading with volume 1 loaded.
    pub fn new(drive: Box<dyn Drive>) -> TapeReader {
        LocalTape::with_face(drive, Reading::default())
    }

    /// One read(2) of at most `len` and `read_cap` bytes into `buf`, which
    /// may hold room after `len`; at the first read of a volume, a read
    /// refused for its size is tried again with less.
    fn read_capped(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        let mut want = len.min(self.face.read_cap.unwrap_or(usize::MAX));
        let mut first_refusal: Option<(usize, io::Error)> = None;
        let result = loop {
            match self.drive.read_record_in(buf, want) {
                // With its CRC the record is more than the controller
                // takes: read without logical block protection.
                Err(e)
                    if self.records == 0
                        && is_refused_size(&e)
                        && self.drive.protection().method.is_some() =>
                {
                    let why = refused_with_crc(want, &self.drive.transfer_limits());
                    self.drive.drop_protection(why)?;
                }
                Err(e) if self.records == 0 && is_refused_size(&e) => {
                    let limits = self.drive.transfer_limits();
                    let (asked, why) = first_refusal.get_or_insert((want, e));
                    let next = limits.suggest_bytes(want as u64) as usize;
                    if want <= MIN_READ_BYTES || next < MIN_READ_BYTES {
                        return Err(refused_error(&limits, "read", *asked, why));
                    }
                    want = next;
                }
                other => break other,
            }
        };
        if let Some((asked, why)) = first_refusal {
            self.face.read_cap = Some(want);
            if result.is_ok() {
                self.mode.say(&message!(
                    "{}: the drive or its controller refused a read of {} ({}); reading at most {} per read from now on",
                    self.drive.name(),
                    size_flag(asked as u64),
                    plain(&why),
                    size_flag(want as u64)
                ));
            }
        }
        if result.is_ok() {
            self.records += 1;
        }
        result
    }

    /// The error for a record larger than the most the drive lets us read.
    fn larger_than_cap(&self, cap: usize) -> io::Error {
        let limits = self.drive.transfer_limits();
        let known = if limits.facts.is_empty() {
            String::new()
        } else {
            format!(" ({})", limits.facts.join(", "))
        };
        io::Error::other(format!(
            "a tape record is larger than {}, the largest read the drive or its controller accepted{known}: this controller cannot read it; try another host adapter, or the tape on another system",
            size_flag(cap as u64)
        ))
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
                size_flag(n as u64)
            ),
            None => format!(
                "a tape record is larger than the {block_bytes}-byte block; run again with a larger -s/--block-size"
            ),
        };
        io::Error::other(why)
    }

    /// True when the read cap, not the space in the block, limited a read
    /// into `space` bytes.
    fn capped(&self, space: usize) -> bool {
        self.face.read_cap.is_some_and(|cap| cap < space)
    }
}

impl ReadMedium for LocalTape<Reading> {
    fn read(&mut self, buf: &mut [u8], fresh: bool) -> io::Result<Got> {
        let len = buf.len();
        self.read_in(buf, len, fresh)
    }

    fn read_in(&mut self, buf: &mut [u8], len: usize, fresh: bool) -> io::Result<Got> {
        self.check_mode()?;
        if !fresh && len < self.face.largest {
            return Ok(Got::BlockDone);
        }
        match self.read_capped(buf, len) {
            Ok(0) => Ok(Got::EndOfVolume),
            Ok(n) => {
                self.face.smallest = self.face.smallest.min(n);
                self.face.largest = self.face.largest.max(n);
                Ok(Got::Bytes(n))
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) && self.capped(len) => {
                Err(self.larger_than_cap(self.face.read_cap.unwrap_or(0)))
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) && !fresh => {
                // A record larger than those before, but not than a block:
                // put it back and read it into the next block.
                self.drive.op(TapeOp::BackspaceRecords(1))?;
                self.face.largest = self.face.largest.max(len + 1);
                Ok(Got::BlockDone)
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => Err(self.too_large(len)),
            Err(e) => Err(e),
        }
    }

    fn room_after_record(&self) -> usize {
        self.drive.protection().crc_bytes()
    }

    fn end_volume(&mut self, then: AtEnd) -> io::Result<()> {
        then.finish(self.drive.as_mut())
    }

    /// Reads the record after the data's filemark. A trailer is taken,
    /// with its own filemark; anything else is put back: a second
    /// filemark (spaced back over), blank tape (nothing moved), or a
    /// record of a backup written after this one (spaced back over).
    fn read_trailer(&mut self) -> io::Result<Option<Trailer>> {
        let size = TRAILER_READ_BYTES.min(self.face.read_cap.unwrap_or(usize::MAX));
        let mut buf = vec![0u8; size];
        let n = match self.drive.read_record(&mut buf) {
            Ok(0) => {
                if !self.drive.status()?.at_eod {
                    self.drive.op(TapeOp::BackspaceFiles(1))?;
                }
                return Ok(None);
            }
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
                self.drive.op(TapeOp::BackspaceRecords(1))?;
                return Ok(None);
            }
            // Blank tape: the recorded data ends at the filemark.
            Err(_) => return Ok(None),
        };
        let trailer = match Trailer::parse(&buf[..n]) {
            Ok(Some(t)) => t,
            Ok(None) => {
                self.drive.op(TapeOp::BackspaceRecords(1))?;
                return Ok(None);
            }
            Err(why) => return Err(io::Error::other(why)),
        };
        // Past the trailer's filemark, where the next backup begins.
        match self.drive.read_record(&mut buf) {
            Ok(0) => {}
            Ok(_) => self.drive.op(TapeOp::BackspaceRecords(1))?,
            Err(e) if e.raw_os_error() == Some(libc::ENOMEM) => {
                self.drive.op(TapeOp::BackspaceRecords(1))?
            }
            Err(_) => {}
        }
        Ok(Some(trailer))
    }

    fn volume_exists(&self, _n: u32) -> bool {
        true
    }

    fn note(&self) -> Option<String> {
        super::records_note("tape records", self.face.smallest, self.face.largest)
    }
}
