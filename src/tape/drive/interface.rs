//! What a tape drive is to tapebuf: the `Drive` trait, the operations
//! asked of it (`TapeOp`), what it reports (`DriveStatus`), how it is
//! opened (`Access`), and the TapeAlert flags read through its SCSI
//! commands (`tape_alerts_by_scsi`). The semantics every implementation
//! keeps are st's, in `drive/mod.rs`.

use std::io;
use std::time::Duration;

use crate::keys::tape_key::KeyPrint;
use crate::tape::drive::limits::TransferLimits;
use crate::tape::scsi::pages::protection::{Method, INFO_BYTES};
use crate::tape::scsi::pages::tape_alert::{TapeAlerts, PAGE};
use crate::tape::scsi::sense::Unusable;
use crate::tape::scsi::sg_io::{Data, ScsiError};
use crate::tape::scsi::spc;

/// How often a real drive is asked whether it is ready.
pub const READY_POLL: Duration = Duration::from_secs(5);

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
    pub unusable: Option<Unusable>,
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

/// What protected a drive's blocks, for the summary, the manifest and
/// `--summary-json`: its logical block protection (`tape::protection`)
/// and the key it encrypted or decrypted them with (`tape::encryption`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Protection {
    /// The method in force on the volume opened last.
    pub method: Option<Method>,
    /// Why none, when none: "--no-lbp", or what the drive said.
    pub why_none: Option<String>,
    /// The fingerprint of the key the volume opened last was written or
    /// read with; None when it was not encrypted, or with a key that
    /// names no tapebuf fingerprint.
    pub key: Option<KeyPrint>,
    /// Set when the drive encrypted or decrypted the volume opened last
    /// with a key that was in it before this run (another program's, or
    /// a run killed before it could clear its own): what that key is
    /// said to be: a key it names "…", or a key it does not name.
    pub key_left: Option<String>,
}

impl Protection {
    /// The bytes each record carries after its data: the CRC, when a
    /// method is in force.
    pub fn crc_bytes(&self) -> usize {
        match self.method {
            Some(_) => INFO_BYTES as usize,
            None => 0,
        }
    }
}

/// A tape drive with a medium that can be changed.
pub trait Drive: Send {
    /// Writes `record` as one record with one write(2). Returns the bytes
    /// written: fewer than asked only at the end of the medium.
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize>;

    /// Writes `buf[..len]` as one record, as `write_record`; `buf` may
    /// hold room after it, which a drive with logical block protection
    /// fills with the record's CRC instead of copying the record
    /// (`tape::protection`).
    fn write_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        self.write_record(&buf[..len])
    }

    /// Reads the next record with one read(2). 0 means a filemark.
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize>;

    /// Reads the next record, of at most `len` bytes, into `buf`, as
    /// `read_record`; `buf` may hold room after `len`, into which a drive
    /// with logical block protection reads the record's CRC instead of
    /// reading into a buffer of its own and copying (`tape::protection`).
    /// The bytes after the record's are left unspecified.
    fn read_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        self.read_record(&mut buf[..len])
    }

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
    fn transfer_limits(&self) -> TransferLimits {
        TransferLimits::default()
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
        READY_POLL
    }

    /// The logical block protection in force (`tape::protection`); none
    /// for a drive without the wrapper that sets it.
    fn protection(&self) -> Protection {
        Protection::default()
    }

    /// Turns the logical block protection off for the rest of the run,
    /// `why` being what the summary says: a record and its CRC are more
    /// than the controller takes in one request. A drive without it has
    /// nothing to turn off.
    fn drop_protection(&mut self, why: String) -> io::Result<()> {
        let _ = why;
        Ok(())
    }

    /// A cleaning cartridge has been through the drive: the cleaning
    /// requests seen so far are answered, and a wrapper that keeps them
    /// (`cleaning.rs`) forgets them.
    fn cleaned(&mut self) {}
}

/// LOG SENSE for the TapeAlert page (0x2E, current cumulative values; up
/// to 2048 bytes, 64 flags of 5 bytes and a header) through
/// `scsi_command`, waiting as long as any LOG SENSE may take. A drive that has no such page
/// (ILLEGAL REQUEST) raises none.
pub(crate) fn tape_alerts_by_scsi(drive: &mut dyn Drive) -> io::Result<TapeAlerts> {
    let cdb = spc::log_sense(PAGE, 2048);
    let mut page = vec![0u8; 2048];
    match drive.scsi_command(&cdb, Data::In(&mut page), spc::LOG_TIMEOUT) {
        Ok(got) => Ok(TapeAlerts::parse(&page[..got])),
        Err(e) if e.is_illegal_request() => Ok(TapeAlerts::default()),
        Err(e) => Err(e.into_io()),
    }
}
