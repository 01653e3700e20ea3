//! A tape drive as a volume medium: `TapeMedium` is
//! `tape::LocalTape<Writing>`, the write face of the local tape (which
//! opens the drive and each volume the same way for reading and
//! writing). Every block is one write(2), so one
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
//!
//! The drive's position is taken just before each volume's first record
//! (MTIOCPOS, for the manifest's `first_block`; None when it cannot say).
//! With `--catalog`, the last volume gets the catalog as one more tape
//! file after its trailer (records of `COPY_RECORD_BYTES`, then a
//! filemark), written after a `--verify` read-back, which spaces back over
//! the data and trailer only.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::medium::{Writable, WriteMedium};
use crate::base::read_full::read_full;
use crate::manifest::Checker;
use crate::tape::drive::limits::{is_refused_size, refused_error};
use crate::tape::protection::refused_with_crc;
use crate::tape::{Access, AtEnd, Drive, TapeOp};
use crate::volume::{LocalTape, TapeFace, Trailer};

/// A local tape drive, written.
pub type TapeMedium = LocalTape<Writing>;

/// What writing keeps beside the drive.
#[derive(Default)]
pub struct Writing {
    /// The volume's first write failed (not for its end): nothing of this
    /// run is on it, so no filemark or trailer is written there either,
    /// which at the beginning of the tape would erase what it held.
    refused_first: bool,
    /// The drive was asked its position before the volume's first record.
    asked_position: bool,
    /// What it said.
    first_block: Option<u64>,
    /// `--catalog`: the file to write after the last trailer.
    copy: Option<PathBuf>,
    /// What became of it.
    copied: Option<io::Result<u64>>,
}

/// The records a catalog copy is written in.
const COPY_RECORD_BYTES: usize = 64 << 10;

impl TapeFace for Writing {
    const ACCESS: Access = Access::Write;

    fn new_volume(&mut self) {
        self.refused_first = false;
        self.asked_position = false;
        self.first_block = None;
    }
}

impl LocalTape<Writing> {
    /// `drive` is open for writing with volume 1 loaded.
    pub fn new(drive: Box<dyn Drive>) -> TapeMedium {
        LocalTape::with_face(drive, Writing::default())
    }
}

impl Writable for LocalTape<Writing> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_with(data.len(), &mut |drive| drive.write_record(data))
    }

    fn write_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        self.write_with(len, &mut |drive| drive.write_record_in(buf, len))
    }

    fn room_after_record(&self) -> usize {
        self.drive.protection().crc_bytes()
    }
}

impl LocalTape<Writing> {
    /// One record of `len` bytes, written by `write`, with the errors
    /// said as the volume logic needs them. A first record refused for
    /// its size with its CRC, which would fit without, is written without
    /// logical block protection, for the rest of the run.
    fn write_with(
        &mut self,
        len: usize,
        write: &mut dyn FnMut(&mut dyn Drive) -> io::Result<usize>,
    ) -> io::Result<usize> {
        self.check_mode()?;
        if self.records == 0 && !self.face.asked_position {
            self.face.asked_position = true;
            self.face.first_block = self.drive.position().ok();
        }
        let mut written = write(self.drive.as_mut());
        let refused = matches!(&written, Err(e) if self.records == 0 && is_refused_size(e));
        if refused && self.drive.protection().method.is_some() {
            let why = refused_with_crc(len, &self.drive.transfer_limits());
            self.drive.drop_protection(why)?;
            written = write(self.drive.as_mut());
        }
        if let Err(e) = &written {
            self.face.refused_first |= self.records == 0 && !benign(e);
        }
        match written {
            Ok(n) => {
                self.records += 1;
                Ok(n)
            }
            Err(e) if self.records == 0 && is_refused_size(&e) => Err(refused_error(
                &self.drive.transfer_limits(),
                "record",
                len,
                &e,
            )),
            Err(e) if benign(&e) => Err(e),
            // mhvtl answered an overwrite of a WORM cartridge so, through
            // the real st driver, and st says nothing more.
            Err(e) if self.records == 0 && e.raw_os_error() == Some(libc::EIO) => Err(io::Error::new(
                e.kind(),
                format!(
                    "{e}: the drive refused the volume's first record; a WORM cartridge that already holds data, a write-protected one or a medium this drive cannot write would do that{}",
                    self.crc_clause()
                ),
            )),
            Err(e) if self.records == 0 => Err(e),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!(
                    "{e}; st may report a failed write one write late, so the record before this one may not be on tape either{}",
                    self.crc_clause()
                ),
            )),
        }
    }

    /// With logical block protection on, what else a refused write may
    /// mean: the drive found the block's CRC wrong.
    fn crc_clause(&self) -> String {
        match self.drive.protection().method {
            Some(m) => format!(
                "; with logical block protection on, the drive also refuses a block whose {} does not match its data (damaged between tapebuf and the drive)",
                m.name()
            ),
            None => String::new(),
        }
    }
}

impl LocalTape<Writing> {
    /// Writes the volume's trailer as a tape file of its own, after the
    /// data's filemark. Past the early warning st refuses the first write
    /// with ENOSPC and lets the next one through "to enable writing a
    /// trailer" (its documentation's words), so one ENOSPC is tried again.
    fn put_trailer(&mut self, trailer: &Trailer) -> io::Result<()> {
        let record = trailer.encode();
        let failed = |e: io::Error| trailer.not_written(e);
        self.check_mode().map_err(failed)?;
        let written = match self.drive.write_record(&record) {
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => self.drive.write_record(&record),
            other => other,
        }
        .map_err(failed)?;
        if written != record.len() {
            return Err(failed(io::Error::other(format!(
                "the drive took {written} of its {} bytes",
                record.len()
            ))));
        }
        self.drive.op(TapeOp::WriteFilemarks(1)).map_err(failed)
    }

    /// Writes the catalog copy asked for, if any, where the tape stands
    /// (after the last trailer), and keeps what became of it.
    fn put_copy(&mut self) {
        if let Some(path) = self.face.copy.take() {
            let copied = self.write_file(&path);
            if copied.is_err() {
                // Ends what part of it went on, so the tape file is whole
                // as a file (a reader refuses the cut catalog in it).
                let _ = self.drive.op(TapeOp::WriteFilemarks(1));
            }
            self.face.copied = Some(copied);
        }
    }

    fn write_file(&mut self, path: &Path) -> io::Result<u64> {
        let limit = self.drive.transfer_limits().max_bytes;
        let record = limit.map_or(COPY_RECORD_BYTES, |m| COPY_RECORD_BYTES.min(m as usize));
        let mut file = File::open(path)?;
        let mut buf = vec![0u8; record.max(512)];
        let mut total = 0u64;
        loop {
            let n = read_full(&mut file, &mut buf)?;
            if n == 0 {
                break;
            }
            let written = self.drive.write_record(&buf[..n])?;
            if written != n {
                return Err(io::Error::other(format!(
                    "the drive took {written} of a record's {n} bytes"
                )));
            }
            total += n as u64;
        }
        self.drive.op(TapeOp::WriteFilemarks(1))?;
        Ok(total)
    }
}

/// Errors the volume logic acts on, which must keep their errno.
fn benign(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted || e.raw_os_error() == Some(libc::ENOSPC)
}

impl WriteMedium for LocalTape<Writing> {
    fn end_volume(&mut self, then: AtEnd, trailer: &Trailer) -> io::Result<()> {
        if !self.face.refused_first {
            self.drive.op(TapeOp::WriteFilemarks(1))?;
            self.put_trailer(trailer)?;
            self.put_copy();
        }
        then.finish(self.drive.as_mut())
    }

    fn end_for_read_back(&mut self, trailer: &Trailer) -> io::Result<()> {
        self.drive.op(TapeOp::WriteFilemarks(1))?;
        self.put_trailer(trailer)
    }

    fn read_back(&mut self, _n: u32, check: &mut Checker) -> io::Result<String> {
        super::read_back::read_back_tape(self.drive.as_mut(), 2, check)
    }

    /// The read-back stopped at the data's filemark: past the trailer's
    /// tape file again, where the next backup may be appended.
    fn after_read_back(&mut self, then: AtEnd) -> io::Result<()> {
        self.drive.op(TapeOp::ForwardFiles(1))?;
        self.put_copy();
        then.finish(self.drive.as_mut())
    }

    fn first_block(&self) -> Option<u64> {
        self.face.first_block
    }

    fn copy_after_trailer(&mut self, file: &Path) -> bool {
        self.face.copy = Some(file.to_path_buf());
        true
    }

    fn copied(&mut self) -> Option<io::Result<u64>> {
        self.face.copied.take()
    }
}
