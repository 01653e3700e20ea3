//! A tape drive as a volume medium: every block is one write(2), so one
//! record of exactly the block size (the final block may be shorter, or
//! padded with `--pad`). Finishing a volume writes its filemark
//! explicitly, so that an error there is seen, then rewinds or ejects as
//! asked, then closes the device.

use std::io;

use super::volumes::{Medium, WriteMedium};
use crate::tape::{AtEnd, Drive, TapeOp};

pub struct TapeMedium {
    drive: Box<dyn Drive>,
}

impl TapeMedium {
    /// `drive` is open for writing with volume 1 loaded.
    pub fn new(drive: Box<dyn Drive>) -> TapeMedium {
        TapeMedium { drive }
    }
}

impl WriteMedium for TapeMedium {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.drive.write_record(data)
    }
}

impl Medium for TapeMedium {
    fn end_volume(&mut self, then: AtEnd) -> io::Result<()> {
        self.drive.op(TapeOp::WriteFilemarks(1))?;
        then.finish(self.drive.as_mut())
    }

    fn open_volume(&mut self, _n: u32) -> io::Result<()> {
        self.drive.reopen()?;
        let status = self.drive.status()?;
        if status.write_protected {
            return Err(io::Error::other("the tape is write-protected"));
        }
        Ok(())
    }

    fn volume_name(&self, _n: u32) -> String {
        self.drive.name().to_string()
    }

    fn needs_swap(&self) -> bool {
        true
    }

    fn whole_records(&self) -> bool {
        true
    }

    fn drive(&mut self) -> Option<&mut dyn Drive> {
        Some(self.drive.as_mut())
    }
}
