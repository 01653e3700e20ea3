//! A remote tape or file as a volume medium: it changes volumes like a
//! local tape (the same name each time, a medium swapped in between, each
//! volume in its own session), and `--verify` reads a volume back through
//! the session that wrote it before that session is closed.

use std::io;

use super::medium::WriteMedium;
use crate::manifest::Checker;
use crate::rmt::flavor::RemoteOp;
use crate::rmt::remote::RemoteFile;
use crate::tape::AtEnd;
use crate::volume::{Medium, MediumKind, Trailer};

/// A remote file changes volumes like a local tape: the same name each
/// time, with a medium swapped in between.
impl Medium for RemoteFile {
    fn kind(&self) -> MediumKind {
        MediumKind::Remote {
            device: self.is_device(),
        }
    }

    fn open_volume(&mut self, _n: u32) -> io::Result<()> {
        self.reopen().map_err(io::Error::from)
    }

    fn volume_name(&self, _n: u32) -> String {
        self.name.to_string()
    }
}

impl WriteMedium for RemoteFile {
    /// A device gets its filemark and then the trailer (see
    /// `tape::trailer`); a file gets neither.
    fn end_volume(&mut self, then: AtEnd, trailer: &Trailer) -> io::Result<()> {
        if self.is_device() {
            self.end_data().map_err(io::Error::from)?;
            put_trailer(self, trailer)?;
        }
        self.close(then).map_err(io::Error::from)
    }

    /// The filemark now, and the session kept open to read back.
    fn end_for_read_back(&mut self, trailer: &Trailer) -> io::Result<()> {
        self.end_data().map_err(io::Error::from)?;
        if self.is_device() {
            put_trailer(self, trailer)?;
        }
        Ok(())
    }

    fn read_back(&mut self, _n: u32, check: &mut Checker) -> io::Result<String> {
        let device = self.is_device();
        let largest = check.expected().records.iter().map(|r| r.bytes).max();
        let record_bytes = usize::try_from(largest.unwrap_or(1)).unwrap_or(usize::MAX);
        let records = check.expected().record_count();
        // A device is read to the data's filemark also after a
        // difference, so that it is left where a good read-back leaves it.
        let method = self.read_from_start(record_bytes, records, |piece| match device {
            true => {
                if !check.failed() {
                    check.record(piece);
                }
                true
            }
            false => {
                check.data(piece);
                !check.failed()
            }
        })?;
        Ok(method.to_string())
    }

    /// A device is moved past its trailer's tape file again.
    fn after_read_back(&mut self, then: AtEnd) -> io::Result<()> {
        if self.is_device() {
            self.op(RemoteOp::ForwardFiles, 1)
                .map_err(io::Error::from)?;
        }
        self.close(then).map_err(io::Error::from)
    }
}

fn put_trailer(file: &mut RemoteFile, trailer: &Trailer) -> io::Result<()> {
    file.write_trailer(&trailer.encode())
        .map_err(|e| trailer.not_written(io::Error::from(e)))
}
