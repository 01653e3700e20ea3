//! The real tape device: a character device driven through read(2),
//! write(2) and the mtio ioctls (`mtio.rs`), opened read-write where
//! permissions allow so that `--verify` can read back through the same
//! open. SCSI commands go through SG_IO on the tape node, or where st
//! refuses them, on the drive's sg node (`sg_node.rs`); a drive that is
//! not online is asked why (`sense.rs`).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::interface::{tape_alerts_by_scsi, Access, Drive, DriveStatus, TapeOp};
use crate::tape::drive::limits::TransferLimits;
use crate::tape::drive::mtio;
use crate::tape::scsi::pages::tape_alert::TapeAlerts;
use crate::tape::scsi::sense::{self, Readiness};
use crate::tape::scsi::sg_io::{Data, ScsiError};
use crate::tape::scsi::sg_node::{open_unblocked, SgFallback};

/// A real tape device, driven through read(2), write(2) and mtio; SCSI
/// commands go through SG_IO on it, or on its sg node where st refuses
/// them (`sg_node.rs`).
pub struct Device {
    path: PathBuf,
    name: String,
    access: Access,
    file: Option<File>,
    sg: SgFallback,
}

impl Device {
    /// Opens `path` if it is a tape drive: a character device on which
    /// MTIOCGET succeeds. Returns `Ok(None)` for anything else, so that the
    /// caller can treat it as a plain file.
    pub fn open_if_tape(path: &Path, access: Access) -> io::Result<Option<Device>> {
        let is_char = std::fs::metadata(path)
            .map(|m| m.file_type().is_char_device())
            .unwrap_or(false);
        if !is_char {
            return Ok(None);
        }
        let file = open(path, access)?;
        if mtio::status(file.as_fd()).is_err() {
            return Ok(None);
        }
        Ok(Some(Device {
            path: path.to_path_buf(),
            name: path.display().to_string(),
            access,
            file: Some(file),
            sg: Default::default(),
        }))
    }

    /// The tape drive at `path`, asked without waiting: None when `path`
    /// is not a tape drive; else the device, closed, with its status
    /// (for `first_load`), or open already when its driver is not one
    /// known to wait in open (then without a status).
    pub fn probe(path: &Path, access: Access) -> io::Result<Option<(Device, Option<DriveStatus>)>> {
        use crate::tape::drive::char_devices::{CharDevice, Verdict};
        let known_tape =
            CharDevice::at_path(path).is_some_and(|d| matches!(d.verdict(), Verdict::Tape { .. }));
        if !known_tape {
            return Ok(Device::open_if_tape(path, access)?.map(|d| (d, None)));
        }
        let mut device = Device {
            path: path.to_path_buf(),
            name: path.display().to_string(),
            access,
            file: None,
            sg: Default::default(),
        };
        match device.status_unopened() {
            Ok(status) => Ok(Some((device, Some(status)))),
            Err(e) if e.raw_os_error() == Some(libc::ENOTTY) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn file(&mut self) -> io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the device is closed"))
    }
}

/// Opens the device; for writing, read-write where permissions allow, since
/// `--verify` reads each volume back through the same open and st fails a
/// read on a write-only open with EBADF (seen in the tape lab).
fn open(path: &Path, access: Access) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.custom_flags(libc::O_CLOEXEC);
    match access {
        Access::Read => options.read(true).open(path),
        Access::Write => match options.read(true).write(true).open(path) {
            Err(e) if e.raw_os_error() == Some(libc::EACCES) => {
                options.read(false).write(true).open(path)
            }
            other => other,
        },
    }
}

impl Drive for Device {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        loop {
            match self.file()?.write(record) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.file()?.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    fn op(&mut self, op: TapeOp) -> io::Result<()> {
        let (code, count) = match op {
            TapeOp::WriteFilemarks(n) => (mtio::MTWEOF, n),
            TapeOp::BackspaceRecords(n) => (mtio::MTBSR, n),
            TapeOp::BackspaceFiles(n) => (mtio::MTBSF, n),
            TapeOp::ForwardFiles(n) => (mtio::MTFSF, n),
            TapeOp::ForwardRecords(n) => (mtio::MTFSR, n),
            TapeOp::SeekBlock(n) => (mtio::MTSEEK, n),
            TapeOp::Rewind => (mtio::MTREW, 1),
            TapeOp::Unload => (mtio::MTOFFL, 1),
            TapeOp::SetBlockBytes(n) => (mtio::MTSETBLK, n),
        };
        let count = i32::try_from(count).map_err(|_| io::Error::other("count too large"))?;
        mtio::op(self.file()?.as_fd(), code, count)
    }

    fn status(&mut self) -> io::Result<DriveStatus> {
        let s = mtio::status(self.file()?.as_fd())?;
        Ok(DriveStatus {
            online: s.mt_gstat & mtio::GMT_ONLINE != 0,
            write_protected: s.mt_gstat & mtio::GMT_WR_PROT != 0,
            at_bot: s.mt_gstat & mtio::GMT_BOT != 0,
            at_eot: s.mt_gstat & mtio::GMT_EOT != 0,
            fixed_block_bytes: (s.mt_dsreg & mtio::MT_ST_BLKSIZE_MASK) as u64,
            door_open: s.mt_gstat & mtio::GMT_DR_OPEN != 0,
            needs_cleaning: s.mt_gstat & mtio::GMT_CLN != 0,
            at_eod: s.mt_gstat & mtio::GMT_EOD != 0,
            unusable: None,
        })
    }

    fn close(&mut self) -> io::Result<()> {
        match self.file.take() {
            Some(file) => crate::base::close::close_reporting(file),
            None => Ok(()),
        }
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.close()?;
        self.file = Some(open(&self.path, self.access)?);
        Ok(())
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn transfer_limits(&self) -> TransferLimits {
        TransferLimits::of_device(&self.path)
    }

    /// A drive that is not online is also asked why (`sense.rs`): no
    /// medium counts as an open door, and a cleaning cartridge or one the
    /// drive cannot use is `unusable`.
    fn status_unopened(&mut self) -> io::Result<DriveStatus> {
        let probe = open_unblocked(&self.path)?;
        let saved = self.file.replace(probe);
        let status = self.status();
        let why = match (&status, &self.file) {
            (Ok(s), Some(probe)) if !s.online => sense::test_unit_ready(probe.as_fd()).ok(),
            _ => None,
        };
        // Dropping the probe closes it; nothing was written through it.
        self.file = saved;
        let mut status = status?;
        match why {
            Some(Readiness::NoMedium) => status.door_open = true,
            Some(r) => status.unusable = r.unusable(),
            None => {}
        }
        Ok(status)
    }

    fn eject_unopened(&mut self) -> io::Result<()> {
        let probe = open_unblocked(&self.path)?;
        let saved = self.file.replace(probe);
        let ejected = self.op(TapeOp::Unload);
        self.file = saved;
        ejected
    }

    fn position(&mut self) -> io::Result<u64> {
        mtio::position(self.file()?.as_fd())
    }

    fn tape_alerts(&mut self) -> io::Result<TapeAlerts> {
        tape_alerts_by_scsi(self)
    }

    /// See `SgFallback::command`: the tape node, open or opened without
    /// waiting, or where st refuses, the drive's sg node.
    fn scsi_command(
        &mut self,
        cdb: &[u8],
        data: Data,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        let Device { path, file, sg, .. } = self;
        sg.command(path, file.as_ref(), cdb, data, timeout)
    }
}
