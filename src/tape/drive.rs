//! A tape drive as tapebuf uses it: one `write` is one record, one `read`
//! returns one record (0 bytes at a filemark), and a few positioning
//! operations. The trait lets the end-of-media and volume-change logic run
//! against the real device (`Device`, through mtio) and against the
//! emulated drive in `emulated/`, which is how it is tested here.
//!
//! The semantics are Linux st's in variable-block mode:
//! - a write past the early-warning point succeeds; the next one fails
//!   with ENOSPC, without writing anything;
//! - a read into a buffer smaller than the record fails with ENOMEM, and
//!   the tape is left after that record;
//! - closing after a write writes a filemark.
//!
//! SCSI commands (`Drive::scsi_command`) go through SG_IO on the tape
//! node, or where st refuses them on the drive's sg node (`sg_node.rs`);
//! the TapeAlert flags are read through them (`tape_alerts_by_scsi`).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::mtio;
use super::sg_io::{Data, ScsiError};
use super::sg_node::open_unblocked;
use super::tape_alert::TapeAlerts;

/// How often a real drive is asked whether it is ready.
pub const POLL_INTERVAL: Duration = Duration::from_secs(5);

/// Positioning and housekeeping operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeOp {
    /// Write this many filemarks.
    WriteFilemarks(u32),
    /// Space back over this many records.
    BackspaceRecords(u32),
    /// Space back over this many filemarks, stopping on the side of the
    /// last one nearer the beginning (MTBSF).
    BackspaceFiles(u32),
    /// Space forward over this many filemarks, stopping just after the
    /// last (MTFSF).
    ForwardFiles(u32),
    /// Space forward over this many records (MTFSR); a filemark met on
    /// the way stops it with an error, the tape left after the filemark.
    ForwardRecords(u32),
    /// Go to this logical block address (MTSEEK, SCSI LOCATE). Addresses
    /// count filemarks as blocks, as `Drive::position` reports them.
    SeekBlock(u32),
    Rewind,
    /// Rewind and eject (MTOFFL).
    Unload,
    /// Set the block size (MTSETBLK): 0 selects variable-block mode, where
    /// one write(2) is one record of its own size.
    SetBlockBytes(u32),
}

/// What the drive reports about itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriveStatus {
    pub online: bool,
    pub write_protected: bool,
    pub at_bot: bool,
    /// Past the early-warning point.
    pub at_eot: bool,
    /// 0 in variable-block mode.
    pub fixed_block_bytes: u64,
    /// The drive asks for a cleaning cartridge (GMT_CLN).
    pub needs_cleaning: bool,
    /// No cartridge in the drive (GMT_DR_OPEN).
    pub door_open: bool,
    /// At the end of the recorded data (GMT_EOD): a read there found
    /// blank tape, not a filemark.
    pub at_eod: bool,
    /// A cartridge no wait will make ready, and why ("is a cleaning
    /// cartridge"): asked of the drive itself (`sense.rs`) when it is not
    /// online.
    pub unusable: Option<&'static str>,
}

impl DriveStatus {
    /// A cartridge is in and the drive answers READY (GMT_ONLINE).
    pub fn ready(&self) -> bool {
        self.online && !self.door_open
    }
}

/// How a drive is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// A tape drive with a medium that can be changed.
pub trait Drive: Send {
    /// Writes `record` as one record with one write(2). Returns the bytes
    /// written: fewer than asked only at the end of the medium.
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize>;

    /// Reads the next record with one read(2). 0 means a filemark.
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize>;

    fn op(&mut self, op: TapeOp) -> io::Result<()>;

    fn status(&mut self) -> io::Result<DriveStatus>;

    /// Closes the device; after a write the drive writes a filemark. Errors
    /// that the device reports only at close are returned.
    fn close(&mut self) -> io::Result<()>;

    /// Opens the device again, after a volume change.
    fn reopen(&mut self) -> io::Result<()>;

    /// The device name, for messages and the change command.
    fn name(&self) -> &str;

    /// What is known about the largest transfer the drive, st and the
    /// controller take, one fact per line, for messages (sysfs on Linux).
    fn transfer_limits(&self) -> super::limits::TransferLimits {
        super::limits::TransferLimits::default()
    }

    /// With the device closed: opens it without waiting for a medium
    /// (O_NONBLOCK, read-only), reads its status and closes it again, as a
    /// volume change watches a drive that is still loading.
    fn status_unopened(&mut self) -> io::Result<DriveStatus> {
        Ok(DriveStatus {
            online: true,
            ..DriveStatus::default()
        })
    }

    /// With the device closed: ejects the cartridge in it (one refused for
    /// this volume), opening the device as `status_unopened` does.
    fn eject_unopened(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// The TapeAlert flags the drive raises now (reading clears them in
    /// the drive). A drive that cannot say gives none.
    fn tape_alerts(&mut self) -> io::Result<TapeAlerts> {
        Ok(TapeAlerts::default())
    }

    /// Sends one SCSI command to the drive (LOG SENSE, READ ATTRIBUTE,
    /// INQUIRY for its health): SG_IO on the tape node, or on its sg node
    /// where st refuses. A drive that cannot take SCSI commands refuses
    /// them with ENOTTY.
    fn scsi_command(
        &mut self,
        cdb: &[u8],
        data: Data<'_>,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        let _ = (cdb, data, timeout);
        Err(ScsiError::Ioctl(io::Error::from_raw_os_error(libc::ENOTTY)))
    }

    /// The serial number in the memory of the cartridge in the drive, as
    /// a health watch (`health::HealthWatch`) read it when the volume
    /// began; None when nobody read it or the cartridge has none.
    fn cartridge_serial(&self) -> Option<String> {
        None
    }

    /// The logical block address the tape is at (MTIOCPOS, SCSI READ
    /// POSITION): the number of records and filemarks before it since the
    /// beginning of the tape. A drive that cannot say refuses with
    /// Unsupported.
    fn position(&mut self) -> io::Result<u64> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    /// How often a volume change asks whether the drive is ready.
    fn ready_poll_interval(&self) -> Duration {
        POLL_INTERVAL
    }

    /// A cleaning cartridge has been through the drive: the cleaning
    /// requests seen so far are answered, and a wrapper that keeps them
    /// (`cleaning.rs`) forgets them.
    fn cleaned(&mut self) {}
}

/// A real tape device, driven through read(2), write(2) and mtio; SCSI
/// commands go through SG_IO on it, or on its sg node where st refuses
/// them (`sg_node.rs`).
pub struct Device {
    path: PathBuf,
    name: String,
    access: Access,
    file: Option<File>,
    sg: super::sg_node::SgFallback,
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
        use super::char_devices::{CharDevice, Verdict};
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

    fn transfer_limits(&self) -> super::limits::TransferLimits {
        super::limits::TransferLimits::of_device(&self.path)
    }

    /// A drive that is not online is also asked why (`sense.rs`): no
    /// medium counts as an open door, and a cleaning cartridge or one the
    /// drive cannot use is `unusable`.
    fn status_unopened(&mut self) -> io::Result<DriveStatus> {
        let probe = open_unblocked(&self.path)?;
        let saved = self.file.replace(probe);
        let status = self.status();
        let why = match (&status, &self.file) {
            (Ok(s), Some(probe)) if !s.online => super::sense::test_unit_ready(probe.as_fd()).ok(),
            _ => None,
        };
        // Dropping the probe closes it; nothing was written through it.
        self.file = saved;
        let mut status = status?;
        match why {
            Some(super::sense::Readiness::NoMedium) => status.door_open = true,
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

/// LOG SENSE for the TapeAlert page (0x2E, current cumulative values; up
/// to 2048 bytes, 64 flags of 5 bytes and a header) through
/// `scsi_command`, waiting up to 10 s. A drive that has no such page
/// (ILLEGAL REQUEST) raises none.
pub(crate) fn tape_alerts_by_scsi(drive: &mut dyn Drive) -> io::Result<TapeAlerts> {
    let cdb = [
        0x4d,
        0,
        0x40 | super::tape_alert::PAGE,
        0,
        0,
        0,
        0,
        0x08,
        0x00,
        0,
    ];
    let mut page = vec![0u8; 2048];
    match drive.scsi_command(&cdb, Data::In(&mut page), Duration::from_secs(10)) {
        Ok(got) => Ok(TapeAlerts::parse(&page[..got])),
        Err(e) if e.is_illegal_request() => Ok(TapeAlerts::default()),
        Err(e) => Err(e.into_io()),
    }
}
