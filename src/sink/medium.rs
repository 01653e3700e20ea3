//! The write face of a volume medium (`tape::Medium` is what the read and
//! write faces share): a [`WriteMedium`] is finished with its trailer, read
//! back and replaced one volume at a time; a [`Writable`] one is also
//! written one call at a time (a remote medium is written by the pipelined
//! rmt sink instead).

use std::io;
use std::path::Path;

use crate::manifest::Checker;
use crate::tape::AtEnd;
use crate::volume::{Medium, Trailer};

/// The write face of a medium, as the volume change and `--verify` see it.
pub trait WriteMedium: Medium {
    /// Finishes the volume in use (on a tape its filemark, then `trailer`
    /// as a tape file of its own; fsync with `-c` and close on a file),
    /// then does `then` to a tape.
    fn end_volume(&mut self, then: AtEnd, trailer: &Trailer) -> io::Result<()>;

    /// For `--verify`: finishes the volume like `end_volume`, trailer and
    /// all, but keeps it at hand to be read back (a tape stays loaded and
    /// open). The trailer goes on before the read-back, so that nothing
    /// is ever written where a read-back that failed part-way left the
    /// tape.
    fn end_for_read_back(&mut self, trailer: &Trailer) -> io::Result<()> {
        self.end_volume(AtEnd::Stay, trailer)
    }

    /// Reads volume `n`, just finished by `end_for_read_back`, from its
    /// start into `check`, stopping early once it failed (a tape is read
    /// to the data's filemark all the same); returns how it was read
    /// ("O_DIRECT").
    fn read_back(&mut self, _n: u32, _check: &mut Checker) -> io::Result<String> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this output cannot be read back",
        ))
    }

    /// After `read_back`: moves a tape past its trailer, does `then` and
    /// closes what was kept open.
    fn after_read_back(&mut self, _then: AtEnd) -> io::Result<()> {
        Ok(())
    }

    /// The drive's block address of the volume's first record, taken just
    /// before it was written; None when the drive could not say or the
    /// medium is no local tape.
    fn first_block(&self) -> Option<u64> {
        None
    }

    /// `--catalog`: asks for `file` to be written as a tape file of its own
    /// after this (the last) volume's trailer, before the tape is rewound
    /// or ejected. False when the medium has no place for one (it is no
    /// local tape).
    fn copy_after_trailer(&mut self, _file: &Path) -> bool {
        false
    }

    /// What the summary should say of the trailers so far, when one could
    /// not be kept as it should (a filesystem without user attributes, a
    /// name too long for a marker file); None when all went as meant.
    fn trailer_note(&self) -> Option<String> {
        None
    }

    /// What became of that copy once the volume ended: its bytes, or why
    /// it failed; None when it was not tried.
    fn copied(&mut self) -> Option<io::Result<u64>> {
        None
    }
}

/// A medium written one call at a time, as `VolumeSink` drives it.
pub trait Writable: WriteMedium {
    /// One write of up to `data.len()` bytes; returns how many were taken.
    /// `Ok(0)` or ENOSPC means the volume is full.
    fn write(&mut self, data: &[u8]) -> io::Result<usize>;

    /// As `write` of `buf[..len]`, where `buf` holds room after the data
    /// that the medium may fill (a tape's CRC, `room_after_record`).
    fn write_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        self.write(&buf[..len])
    }

    /// Bytes the medium appends to each record it writes, which
    /// `write_in` may put in the caller's room instead of copying.
    fn room_after_record(&self) -> usize {
        0
    }
}
