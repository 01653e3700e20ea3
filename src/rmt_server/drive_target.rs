//! A [`crate::tape::Drive`] behind the server's [`Target`] trait, so that
//! [`super::serve`] can serve tapebuf's emulated tape drive in-process:
//! tests of a client's end-of-media handling then run against a server
//! whose drive fails with ENOSPC exactly where a real one would.
//!
//! W is one `write_record`, R one `read_record`; I maps the Linux codes
//! 1 (MTFSF), 2 (MTBSF), 3 (MTFSR), 4 (MTBSR), 5 (MTWEOF), 6 (MTREW) and
//! 7 (MTOFFL) to [`TapeOp`]s and 8 (MTNOP) to nothing, and fails every
//! other with ENOTTY, as a driver without that operation would; L fails with ESPIPE, as on a tape; S
//! builds a `struct mtget` from the drive's status.
//!
//! Invariant: the drive is owned by exactly one place at a time, the
//! opener's slot or the open target, and always returns to the slot when
//! the target is closed or dropped, so one drive serves every O of a
//! session and stays with the test afterwards.

use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::flags::OpenFlags;
use super::target::{mtget_bytes, Opener, Target};
use crate::base::sync::lock;
use crate::tape::drive::mtio::{self, MtGet};
use crate::tape::{Drive, TapeOp};

/// `mt_type` for a SCSI-2 drive, what Linux st reports.
const MT_ISSCSI2: libc::c_long = 0x72;

/// Where the drive waits between opens.
type Slot = Arc<Mutex<Option<Parked>>>;

struct Parked {
    drive: Box<dyn Drive>,
    /// True while the device is open (as a drive is when first given).
    open: bool,
}

/// A drive as an open target.
pub struct DriveTarget {
    drive: Option<Box<dyn Drive>>,
    home: Option<Slot>,
}

impl DriveTarget {
    /// Serves `drive`, which must be open. On close it is closed and
    /// dropped; use [`DriveOpener`] to keep it across opens.
    pub fn new(drive: Box<dyn Drive>) -> DriveTarget {
        DriveTarget {
            drive: Some(drive),
            home: None,
        }
    }

    fn drive(&mut self) -> io::Result<&mut Box<dyn Drive>> {
        self.drive
            .as_mut()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))
    }

    fn park(&mut self, open: bool) {
        if let (Some(drive), Some(home)) = (self.drive.take(), self.home.as_ref()) {
            *lock(home) = Some(Parked { drive, open });
        }
    }
}

impl Target for DriveTarget {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.drive()?.write_record(data)
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.drive()?.read_record(buf)
    }

    fn seek(&mut self, _whence: i32, _offset: i64) -> io::Result<u64> {
        Err(io::Error::from_raw_os_error(libc::ESPIPE))
    }

    fn ioctl(&mut self, op: i32, count: i32) -> io::Result<()> {
        let count = u32::try_from(count).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let op = match libc::c_short::try_from(op) {
            Ok(mtio::MTBSR) => TapeOp::BackspaceRecords(count),
            Ok(mtio::MTBSF) => TapeOp::BackspaceFiles(count),
            Ok(mtio::MTFSR) => TapeOp::ForwardRecords(count),
            Ok(mtio::MTFSF) => TapeOp::ForwardFiles(count),
            Ok(mtio::MTWEOF) => TapeOp::WriteFilemarks(count),
            Ok(mtio::MTREW) => TapeOp::Rewind,
            Ok(mtio::MTOFFL) => TapeOp::Unload,
            Ok(mtio::MTNOP) => return self.drive().map(|_| ()),
            _ => return Err(io::Error::from_raw_os_error(libc::ENOTTY)),
        };
        self.drive()?.op(op)
    }

    fn status(&mut self) -> io::Result<Vec<u8>> {
        let s = self.drive()?.status()?;
        let flag = |on: bool, bit: libc::c_long| if on { bit } else { 0 };
        let mt = MtGet {
            mt_type: MT_ISSCSI2,
            mt_dsreg: (s.fixed_block_bytes as libc::c_long) & mtio::MT_ST_BLKSIZE_MASK,
            mt_gstat: flag(s.online, mtio::GMT_ONLINE)
                | flag(s.write_protected, mtio::GMT_WR_PROT)
                | flag(s.at_bot, mtio::GMT_BOT)
                | flag(s.at_eot, mtio::GMT_EOT),
            // The drive trait does not track its position.
            mt_fileno: -1,
            mt_blkno: -1,
            ..MtGet::default()
        };
        Ok(mtget_bytes(&mt))
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        let result = self.drive()?.close();
        self.park(false);
        result
    }
}

impl Drop for DriveTarget {
    /// A target dropped without close leaves its drive open, in the slot.
    fn drop(&mut self) {
        self.park(true);
    }
}

/// Hands out one drive for every O request, whatever the (admitted) path:
/// the first open gets it as given, later ones reopen it, as a real
/// device is opened again for the next volume.
pub struct DriveOpener {
    slot: Slot,
}

impl DriveOpener {
    /// Serves `drive`, which must be open (as `Emulated::new` returns it).
    pub fn new(drive: Box<dyn Drive>) -> DriveOpener {
        DriveOpener {
            slot: Arc::new(Mutex::new(Some(Parked { drive, open: true }))),
        }
    }

    /// The drive back, once no target holds it.
    pub fn into_drive(self) -> Option<Box<dyn Drive>> {
        let parked = lock(&self.slot).take();
        parked.map(|p| p.drive)
    }
}

impl Opener for DriveOpener {
    fn open(&mut self, _path: &Path, _flags: OpenFlags) -> io::Result<Box<dyn Target>> {
        let mut slot = lock(&self.slot);
        let Some(mut parked) = slot.take() else {
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        };
        if !parked.open {
            if let Err(e) = parked.drive.reopen() {
                *slot = Some(parked);
                return Err(e);
            }
        }
        Ok(Box::new(DriveTarget {
            drive: Some(parked.drive),
            home: Some(Arc::clone(&self.slot)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::emulated::{Cartridge, Emulated};

    #[test]
    fn records_filemarks_and_end_of_medium_reach_the_drive() {
        let (drive, shelf) = Emulated::new("emu", vec![Cartridge::blank(100, 30)]);
        let mut opener = DriveOpener::new(Box::new(drive));
        let mut t = opener
            .open(Path::new("/dev/nst0"), OpenFlags::WRITE_NEW)
            .unwrap();
        assert_eq!(t.write(&[1; 40]).unwrap(), 40);
        assert_eq!(t.write(&[2; 40]).unwrap(), 40);
        let e = t.write(&[3; 10]).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        t.ioctl(5, 1).unwrap();
        // MTEOM: not an operation of the drive trait.
        assert_eq!(
            t.ioctl(12, 1).unwrap_err().raw_os_error(),
            Some(libc::ENOTTY)
        );
        assert_eq!(t.seek(0, 0).unwrap_err().raw_os_error(), Some(libc::ESPIPE));
        t.ioctl(8, 1).unwrap();
        t.close().unwrap();
        let lib = shelf.lock().unwrap();
        assert_eq!(lib.slots[0].record_sizes(), vec![40, 40]);
        assert_eq!(lib.slots[0].filemarks(), 1);
    }

    #[test]
    fn forward_records_reach_the_drive_and_stop_after_a_filemark() {
        let cart = Cartridge::with_records(vec![vec![1; 10], vec![2; 10], vec![3; 10]]);
        let (drive, shelf) = Emulated::new("emu", vec![cart]);
        let mut opener = DriveOpener::new(Box::new(drive));
        let mut t = opener
            .open(Path::new("/dev/nst0"), OpenFlags::READ)
            .unwrap();
        t.ioctl(i32::from(mtio::MTFSR), 2).unwrap();
        let mut buf = [0u8; 10];
        assert_eq!(t.read(&mut buf).unwrap(), 10);
        assert_eq!(buf[0], 3, "the third record");
        t.ioctl(6, 1).unwrap();
        // Over the filemark after the three records: EIO, as st.
        assert_eq!(t.ioctl(3, 5).unwrap_err().raw_os_error(), Some(libc::EIO));
        assert_eq!(
            t.ioctl(3, -1).unwrap_err().raw_os_error(),
            Some(libc::EINVAL)
        );
        t.close().unwrap();
        let log = shelf.lock().unwrap().log.clone();
        assert!(log.contains(&"forward records 2".to_string()), "{log:?}");
        assert!(
            log.contains(&"forward records 5: filemark".to_string()),
            "{log:?}"
        );
    }

    #[test]
    fn every_open_gets_the_same_drive_back() {
        let cart = Cartridge::with_records(vec![vec![7; 100]]);
        let (drive, shelf) = Emulated::new("emu", vec![cart]);
        let mut opener = DriveOpener::new(Box::new(drive));
        let mut t = opener
            .open(Path::new("/dev/nst0"), OpenFlags::READ)
            .unwrap();
        assert_eq!(
            opener
                .open(Path::new("/dev/nst0"), OpenFlags::READ)
                .err()
                .unwrap()
                .raw_os_error(),
            Some(libc::EBUSY)
        );
        let mut buf = [0u8; 200];
        assert_eq!(t.read(&mut buf).unwrap(), 100);
        t.ioctl(6, 1).unwrap();
        t.close().unwrap();
        let mut t = opener
            .open(Path::new("/dev/nst0"), OpenFlags::READ)
            .unwrap();
        assert_eq!(t.read(&mut buf).unwrap(), 100);
        let status = t.status().unwrap();
        assert_eq!(status.len(), std::mem::size_of::<MtGet>());
        drop(t);
        assert!(opener.into_drive().is_some());
        let log = shelf.lock().unwrap().log.clone();
        assert_eq!(log, vec!["open 0", "rewind", "close", "open 0"]);
    }
}
