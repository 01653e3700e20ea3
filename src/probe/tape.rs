//! The probe's tape target: a local drive (`/dev/nst0`) or any other
//! [`Drive`], such as the emulated one the tests use.
//!
//! A write pass writes one record per block from the beginning of the tape
//! and ends by closing the device, which writes the filemark. A read pass
//! opens the drive for reading, rewinds, and reads the records back one by
//! one; it ends by rewinding, so the next run starts at the beginning
//! again. The invariant: the tape is at its beginning between passes, and
//! `cleanup` rewinds it whatever happened (after a write, st and the
//! emulated drive write the filemark before rewinding). A drive left in
//! fixed-block mode is put in variable-block mode after every open, and
//! said so, since the probe writes one record per block of every size.

use std::io;
use std::path::{Path, PathBuf};

use super::schema::TargetKind;
use super::target::{Pass, ProbeTarget};
use crate::base::console::say;
use crate::tape::drive::block_mode::ensure_variable;
use crate::tape::{Access, Device, Drive, TapeOp};

pub struct TapeTarget {
    label: String,
    /// For a real device, which is opened again for each direction (st
    /// opens a device read-only or write-only); None for a drive that
    /// opens itself again with `reopen`.
    path: Option<PathBuf>,
    drive: Box<dyn Drive>,
    /// How the drive is open now, if it is.
    open: Option<Access>,
}

impl TapeTarget {
    /// `path` if it is a tape drive, opened and rewound; None if it is not
    /// a tape. An empty drive is said at once (`tape::first_load`), and a
    /// cartridge still loading is waited for.
    pub fn local(path: &Path, label: &str) -> io::Result<Option<TapeTarget>> {
        let policy = crate::volume::ChangePolicy::default();
        let Some(device) =
            crate::volume::first_load::open_tape(path, Access::Write, &policy, false)?
        else {
            return Ok(None);
        };
        let mut target = TapeTarget {
            label: label.to_string(),
            path: Some(path.to_path_buf()),
            drive: Box::new(device),
            open: Some(Access::Write),
        };
        variable_mode(target.drive.as_mut())?;
        target.drive.op(TapeOp::Rewind)?;
        Ok(Some(target))
    }

    /// An open drive that `reopen` opens again (the emulated drive), rewound.
    pub fn with_drive(label: &str, mut drive: Box<dyn Drive>) -> io::Result<TapeTarget> {
        variable_mode(drive.as_mut())?;
        drive.op(TapeOp::Rewind)?;
        Ok(TapeTarget {
            label: label.to_string(),
            path: None,
            drive,
            open: Some(Access::Write),
        })
    }

    fn open_for(&mut self, access: Access) -> io::Result<()> {
        if self.open == Some(access) {
            return Ok(());
        }
        match &self.path {
            Some(path) => {
                if self.open.is_some() {
                    self.drive.close()?;
                    self.open = None;
                }
                let device = Device::open_if_tape(path, access)?.ok_or_else(|| {
                    io::Error::other(format!("{} is no longer a tape drive", path.display()))
                })?;
                self.drive = Box::new(device);
            }
            None => self.drive.reopen()?,
        }
        self.open = Some(access);
        variable_mode(self.drive.as_mut())
    }
}

/// Puts a drive left in fixed-block mode in variable-block mode, saying so.
fn variable_mode(drive: &mut dyn Drive) -> io::Result<()> {
    if let Some(line) = ensure_variable(drive)? {
        say(&line);
    }
    Ok(())
}

impl ProbeTarget for TapeTarget {
    fn name(&self) -> &str {
        &self.label
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Tape
    }

    fn method(&self) -> String {
        "tape: one record per block from the beginning, a filemark, rewind, read back \
         record by record, rewind"
            .into()
    }

    fn begin(&mut self, pass: Pass, _block_bytes: usize, _stream_bytes: u64) -> io::Result<()> {
        match pass {
            Pass::Write => self.open_for(Access::Write),
            Pass::Read => {
                self.open_for(Access::Read)?;
                self.drive.op(TapeOp::Rewind)
            }
        }
    }

    fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        let n = self.drive.write_record(block)?;
        if n != block.len() {
            return Err(io::Error::other(format!(
                "the drive took {n} of a {}-byte record: the end of the medium? (try a smaller --size)",
                block.len()
            )));
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.drive.read_record(buf)
    }

    fn end(&mut self) -> io::Result<()> {
        match self.open {
            // Closing after writing writes the filemark.
            Some(Access::Write) => {
                let closed = self.drive.close();
                self.open = None;
                closed
            }
            _ => self.drive.op(TapeOp::Rewind),
        }
    }

    fn cleanup(&mut self) -> io::Result<String> {
        if self.open.is_none() {
            self.open_for(Access::Read)?;
        }
        // After a write, the rewind writes the filemark first.
        self.drive.op(TapeOp::Rewind)?;
        self.drive.close()?;
        self.open = None;
        Ok(format!("rewound {}", self.label))
    }
}
