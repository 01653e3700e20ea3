//! A tape drive as a volume medium, the write face of `tape::LocalTape`
//! (which opens the drive and each volume the same way for reading and
//! writing): every block is one write(2), so one
//! record of exactly the block size (the final block may be shorter, or
//! padded with `--pad`). Finishing a volume writes its filemark
//! explicitly, so that an error there is seen, then rewinds or ejects as
//! asked, then closes the device.
//!
//! Before the first write of every volume the drive is put in
//! variable-block mode if it was left in fixed-block mode (`LocalTape`,
//! with `tape::block_mode`), and said so; a write-protected cartridge is
//! refused when the volume is opened. A first write refused for its size
//! (EBUSY, EINVAL, EOVERFLOW) names the likely cause and the `-s` to try.
//! Later failures say that st writes behind: an error may belong to the
//! write before, so the last record counted may not be on tape. What the
//! volume-change messages call safe is already exact: it counts a volume
//! only once its filemark was written, and writing a filemark makes st
//! flush its buffer and report any write still pending.

use std::io;

use super::medium::{Writable, WriteMedium};
use crate::manifest::Checker;
use crate::tape::block_mode::Notify;
use crate::tape::limits::{is_refused_size, refused_error};
use crate::tape::{Access, AtEnd, Drive, LocalTape, Medium, MediumKind, TapeOp, Trailer};

pub struct TapeMedium {
    tape: LocalTape,
    /// The volume's first write failed (not for its end): nothing of this
    /// run is on it, so no filemark or trailer is written there either,
    /// which at the beginning of the tape would erase what it held.
    refused_first: bool,
}

impl TapeMedium {
    /// `drive` is open for writing with volume 1 loaded.
    pub fn new(drive: Box<dyn Drive>) -> TapeMedium {
        TapeMedium::on(LocalTape::new(drive, Access::Write))
    }

    /// Writes `tape`, open for writing with volume 1 loaded.
    pub fn on(tape: LocalTape) -> TapeMedium {
        TapeMedium {
            tape,
            refused_first: false,
        }
    }

    /// Sends the medium's notices (a block-mode switch) to `notify`
    /// instead of stderr.
    pub fn with_notify(mut self, notify: Notify) -> TapeMedium {
        self.tape = self.tape.with_notify(notify);
        self
    }
}

impl Writable for TapeMedium {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.tape.check_mode()?;
        let written = self.tape.drive.write_record(data);
        if let Err(e) = &written {
            self.refused_first |= self.tape.records == 0 && !benign(e);
        }
        match written {
            Ok(n) => {
                self.tape.records += 1;
                Ok(n)
            }
            Err(e) if self.tape.records == 0 && is_refused_size(&e) => Err(refused_error(
                &self.tape.drive.transfer_limits(),
                "record",
                data.len(),
                &e,
            )),
            Err(e) if benign(&e) => Err(e),
            // mhvtl answered an overwrite of a WORM cartridge so, through
            // the real st driver, and st says nothing more.
            Err(e) if self.tape.records == 0 && e.raw_os_error() == Some(libc::EIO) => Err(io::Error::new(
                e.kind(),
                format!(
                    "{e}: the drive refused the volume's first record; a WORM cartridge that already holds data, a write-protected one or a medium this drive cannot write would do that"
                ),
            )),
            Err(e) if self.tape.records == 0 => Err(e),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!(
                    "{e}; st may report a failed write one write late, so the record before this one may not be on tape either"
                ),
            )),
        }
    }
}

impl TapeMedium {
    /// Writes the volume's trailer as a tape file of its own, after the
    /// data's filemark. Past the early warning st refuses the first write
    /// with ENOSPC and lets the next one through "to enable writing a
    /// trailer" (its documentation's words), so one ENOSPC is tried again.
    fn put_trailer(&mut self, trailer: &Trailer) -> io::Result<()> {
        let record = trailer.encode();
        let failed = |e: io::Error| trailer.not_written(e);
        self.tape.check_mode().map_err(failed)?;
        let written = match self.tape.drive.write_record(&record) {
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
                self.tape.drive.write_record(&record)
            }
            other => other,
        }
        .map_err(failed)?;
        if written != record.len() {
            return Err(failed(io::Error::other(format!(
                "the drive took {written} of its {} bytes",
                record.len()
            ))));
        }
        self.tape
            .drive
            .op(TapeOp::WriteFilemarks(1))
            .map_err(failed)
    }
}

/// Errors the volume logic acts on, which must keep their errno.
fn benign(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted || e.raw_os_error() == Some(libc::ENOSPC)
}

impl WriteMedium for TapeMedium {
    fn end_volume(&mut self, then: AtEnd, trailer: &Trailer) -> io::Result<()> {
        if !self.refused_first {
            self.tape.drive.op(TapeOp::WriteFilemarks(1))?;
            self.put_trailer(trailer)?;
        }
        then.finish(self.tape.drive.as_mut())
    }

    fn end_for_read_back(&mut self, trailer: &Trailer) -> io::Result<()> {
        self.tape.drive.op(TapeOp::WriteFilemarks(1))?;
        self.put_trailer(trailer)
    }

    fn read_back(&mut self, _n: u32, check: &mut Checker) -> io::Result<String> {
        super::read_back::read_back_tape(self.tape.drive.as_mut(), 2, check)
    }

    /// The read-back stopped at the data's filemark: past the trailer's
    /// tape file again, where the next backup may be appended.
    fn after_read_back(&mut self, then: AtEnd) -> io::Result<()> {
        self.tape.drive.op(TapeOp::ForwardFiles(1))?;
        then.finish(self.tape.drive.as_mut())
    }
}

impl Medium for TapeMedium {
    fn kind(&self) -> MediumKind {
        self.tape.kind()
    }

    fn open_volume(&mut self, n: u32) -> io::Result<()> {
        self.refused_first = false;
        self.tape.open_volume(n)
    }

    fn volume_name(&self, n: u32) -> String {
        self.tape.volume_name(n)
    }

    fn drive(&mut self) -> Option<&mut dyn Drive> {
        self.tape.drive()
    }
}
