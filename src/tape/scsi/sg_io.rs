//! One SCSI command through Linux's SG_IO ioctl, safely, and what its
//! sense data says in words. The st, ch and sg drivers all pass SG_IO to
//! the device, so one call serves the tape drive (TEST UNIT READY, INQUIRY,
//! LOG SENSE) and the changer (MODE SENSE, READ ELEMENT STATUS, MOVE
//! MEDIUM). A failure is one of three things a caller tells apart: the
//! ioctl itself refused (EPERM when the kernel's command filter wants
//! CAP_SYS_RAWIO, ENOTTY on a node that is no SCSI device), a CHECK
//! CONDITION with its sense decoded (fixed 70h/71h or descriptor 72h/73h
//! format), or another SCSI, host or driver status. The data buffer is
//! the caller's, so no reply is bigger than the caller allowed; the
//! count transferred never exceeds it, whatever the kernel's residue says.
//!
//! The sense words are one table for the whole crate: the sense keys, and
//! the additional sense codes a tape drive or a changer gives.

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

/// SG_IO, from <scsi/sg.h>.
const SG_IO: libc::c_ulong = 0x2285;
const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_TO_DEV: libc::c_int = -2;
const SG_DXFER_FROM_DEV: libc::c_int = -3;
/// The sense bytes kept: fixed format needs 18, descriptor rarely more.
const SENSE_BYTES: usize = 64;
/// The driver status bits that mean failure (DRIVER_SENSE, 0x08, only
/// says sense data came back).
const DRIVER_FAILED: u16 = 0x07;

/// Sense key 5: the device refused the command or a field of it.
pub const ILLEGAL_REQUEST: u8 = 0x05;

/// `struct sg_io_hdr` from <scsi/sg.h> (interface 'S').
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: u8,
    mx_sb_len: u8,
    iovec_count: u16,
    dxfer_len: u32,
    dxferp: *mut libc::c_void,
    cmdp: *mut u8,
    sbp: *mut u8,
    timeout: u32,
    flags: u32,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: u8,
    masked_status: u8,
    msg_status: u8,
    sb_len_wr: u8,
    host_status: u16,
    driver_status: u16,
    resid: libc::c_int,
    duration: u32,
    info: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SgIoHdr>() == 88);

/// The data phase of a command.
pub enum Data<'a> {
    None,
    /// From the device into this buffer.
    In(&'a mut [u8]),
    /// From this buffer to the device.
    Out(&'a [u8]),
}

/// A sense key and its additional sense code and qualifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sense {
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
}

impl Sense {
    /// Fixed-format sense bytes (70h) holding `key`, `asc` and `ascq`, as
    /// a drive returns them; for tests.
    #[cfg(test)]
    pub(crate) fn fixed_bytes(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
        let mut s = vec![0u8; 18];
        s[0] = 0x70;
        s[2] = key;
        s[7] = 10;
        s[12] = asc;
        s[13] = ascq;
        s
    }

    /// The sense in fixed (70h/71h: key in byte 2, ASC/ASCQ in 12-13) or
    /// descriptor (72h/73h: bytes 1-3) format; bytes missing from a short
    /// buffer read as zero. `None` for an empty buffer or another format.
    pub fn parse(bytes: &[u8]) -> Option<Sense> {
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        match at(0) & 0x7f {
            0x70 | 0x71 => Some(Sense {
                key: at(2) & 0x0f,
                asc: at(12),
                ascq: at(13),
            }),
            0x72 | 0x73 => Some(Sense {
                key: at(1) & 0x0f,
                asc: at(2),
                ascq: at(3),
            }),
            _ => None,
        }
    }

    /// The sense key in words: "not ready", "illegal request".
    pub fn key_words(self) -> &'static str {
        match self.key {
            0x0 => "no sense",
            0x1 => "recovered error",
            0x2 => "not ready",
            0x3 => "medium error",
            0x4 => "hardware error",
            0x5 => "illegal request",
            0x6 => "unit attention",
            0x7 => "data protect",
            0x8 => "blank check",
            0x9 => "vendor-specific sense",
            0xa => "copy aborted",
            0xb => "aborted command",
            0xd => "volume overflow",
            0xe => "miscompare",
            _ => "reserved sense key",
        }
    }

    /// The key and the additional sense in words, without numbers:
    /// "not ready: the import/export door is open".
    pub fn words(self) -> String {
        let key = self.key_words();
        match asc_words(self.asc, self.ascq) {
            Some(text) if text.starts_with(key) => text.to_string(),
            Some(text) => format!("{key}: {text}"),
            None => key.to_string(),
        }
    }
}

/// "not ready: the import/export door is open (sense 02/3A/02)".
impl fmt::Display for Sense {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (sense {:02X}/{:02X}/{:02X})",
            self.words(),
            self.key,
            self.asc,
            self.ascq
        )
    }
}

/// An additional sense code and qualifier in words, for those a tape
/// drive or a changer gives (SPC, SSC and SMC); `None` for others.
pub fn asc_words(asc: u8, ascq: u8) -> Option<&'static str> {
    Some(match (asc, ascq) {
        (0x00, 0x01) => "filemark detected",
        (0x00, 0x02) => "end of partition or medium detected",
        (0x00, 0x04) => "beginning of partition or medium detected",
        (0x00, 0x05) => "end of data detected",
        (0x04, 0x00) => "not ready, cause not reportable",
        (0x04, 0x01) => "not ready: becoming ready",
        (0x04, 0x02) => "not ready: an initializing command is required",
        (0x04, 0x03) => "not ready: manual intervention required",
        (0x04, 0x12) => "not ready: offline",
        (0x0c, 0x00) => "write error",
        (0x11, 0x00) => "unrecovered read error",
        (0x14, 0x00) => "recorded entity not found",
        (0x15, 0x01) => "mechanical positioning error",
        (0x20, 0x00) => "invalid command operation code",
        (0x21, 0x01) => "invalid element address",
        (0x24, 0x00) => "invalid field in the command",
        (0x25, 0x00) => "logical unit not supported",
        (0x26, 0x00) => "invalid field in the parameter list",
        (0x27, 0x00) => "write protected",
        (0x28, 0x00) => "the medium may have changed",
        (0x28, 0x01) => "an import/export element was accessed",
        (0x29, _) => "power on or reset occurred",
        (0x2a, 0x01) => "mode parameters changed",
        (0x30, 0x00) => "incompatible medium installed",
        (0x30, 0x01) => "cannot read the medium: unknown format",
        (0x30, 0x02) => "cannot read the medium: incompatible format",
        (0x30, 0x03) => "cleaning cartridge installed",
        (0x3a, 0x00) => "medium not present",
        (0x3a, 0x02) => "the import/export door is open",
        (0x3b, 0x0d) => "medium destination element full",
        (0x3b, 0x0e) => "medium source element empty",
        (0x3b, 0x11) => "medium magazine not accessible",
        (0x3b, 0x12) => "medium magazine removed",
        (0x3b, 0x13) => "medium magazine inserted",
        (0x44, 0x00) => "internal target failure",
        (0x50, 0x00) => "write append error",
        (0x52, 0x00) => "cartridge fault",
        (0x53, 0x00) => "media load or eject failed",
        (0x53, 0x01) => "unload tape failure",
        (0x53, 0x02) => "medium removal prevented",
        (0x5d, _) => "failure prediction threshold exceeded",
        (0x83, _) => "vendor-specific condition",
        _ => return None,
    })
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum ScsiError {
    /// The ioctl itself failed: EPERM when the kernel's filter refuses the
    /// command to a caller without CAP_SYS_RAWIO, ENOTTY when the node is
    /// no SCSI device, EINVAL for a command that cannot be sent.
    #[error("{0}")]
    Ioctl(io::Error),
    /// CHECK CONDITION, with the sense the device gave.
    #[error("{0}")]
    Check(Sense),
    /// Any other status: SCSI status (e.g. BUSY, RESERVATION CONFLICT, a
    /// CHECK CONDITION without sense), or a host or driver failure such as
    /// a timeout.
    #[error("SCSI status {status:#04x}, host status {host:#06x}, driver status {driver:#06x}")]
    Status { status: u8, host: u16, driver: u16 },
}

impl ScsiError {
    /// The sense, for a CHECK CONDITION.
    pub fn sense(&self) -> Option<Sense> {
        match self {
            ScsiError::Check(sense) => Some(*sense),
            _ => None,
        }
    }

    /// The device refused the command or a field of it.
    pub fn is_illegal_request(&self) -> bool {
        self.sense().is_some_and(|s| s.key == ILLEGAL_REQUEST)
    }

    /// The kernel refused to pass the command on (no CAP_SYS_RAWIO, or the
    /// node opened without the access the command needs).
    pub fn is_refused_by_kernel(&self) -> bool {
        matches!(self, ScsiError::Ioctl(e)
            if matches!(e.raw_os_error(), Some(libc::EPERM) | Some(libc::EACCES)))
    }

    /// As an io::Error: the ioctl's own, or one carrying this text.
    pub fn into_io(self) -> io::Error {
        match self {
            ScsiError::Ioctl(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }
}

/// Where SCSI commands go: a device node through SG_IO, a drive
/// (`tape::health::DriveCommands`), or in tests a device written in code.
pub trait Commands {
    /// Sends `cdb` with `data`, waiting up to `timeout`; the bytes moved.
    fn command(
        &mut self,
        cdb: &[u8],
        data: Data<'_>,
        timeout: Duration,
    ) -> Result<usize, ScsiError>;
}

impl Commands for BorrowedFd<'_> {
    fn command(
        &mut self,
        cdb: &[u8],
        data: Data<'_>,
        timeout: Duration,
    ) -> Result<usize, ScsiError> {
        command(*self, cdb, data, timeout)
    }
}

/// Sends the command `cdb` (6 to 16 bytes) to the device behind `fd` and
/// waits up to `timeout`; returns how many bytes of `data` moved.
pub fn command(
    fd: BorrowedFd<'_>,
    cdb: &[u8],
    data: Data<'_>,
    timeout: Duration,
) -> Result<usize, ScsiError> {
    let invalid = |what: &str| ScsiError::Ioctl(io::Error::new(io::ErrorKind::InvalidInput, what));
    if !(6..=16).contains(&cdb.len()) {
        return Err(invalid("a SCSI command is 6 to 16 bytes"));
    }
    let mut cdb_copy = [0u8; 16];
    cdb_copy[..cdb.len()].copy_from_slice(cdb);
    let (direction, pointer, length) = match data {
        Data::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
        Data::In(buf) => (SG_DXFER_FROM_DEV, buf.as_mut_ptr(), buf.len()),
        // The kernel only reads a TO_DEV buffer.
        Data::Out(buf) => (SG_DXFER_TO_DEV, buf.as_ptr().cast_mut(), buf.len()),
    };
    let dxfer_len = u32::try_from(length).map_err(|_| invalid("data buffer over 4 GiB"))?;
    let mut sense = [0u8; SENSE_BYTES];
    let mut hdr = SgIoHdr {
        interface_id: libc::c_int::from(b'S'),
        dxfer_direction: direction,
        cmd_len: cdb.len() as u8,
        mx_sb_len: SENSE_BYTES as u8,
        iovec_count: 0,
        dxfer_len,
        dxferp: pointer.cast(),
        cmdp: cdb_copy.as_mut_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX),
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: SG_IO reads the header and the `cmd_len` bytes of CDB it
    // points to, moves at most `dxfer_len` bytes to or from the data
    // buffer (borrowed, mutably for a read, for the call), and writes at
    // most `mx_sb_len` bytes of sense and the header's result fields; all
    // of it outlives the call.
    let done = unsafe { libc::ioctl(fd.as_raw_fd(), SG_IO as _, &mut hdr as *mut SgIoHdr) };
    if done < 0 {
        return Err(ScsiError::Ioctl(io::Error::last_os_error()));
    }
    let written = usize::from(hdr.sb_len_wr).min(SENSE_BYTES);
    outcome(&hdr, &sense[..written], length)
}

/// What the header's result fields say, for a buffer of `length` bytes.
fn outcome(hdr: &SgIoHdr, sense: &[u8], length: usize) -> Result<usize, ScsiError> {
    let good = hdr.status == 0 && hdr.host_status == 0 && hdr.driver_status & DRIVER_FAILED == 0;
    if good {
        let resid = usize::try_from(hdr.resid).unwrap_or(0);
        return Ok(length.saturating_sub(resid));
    }
    // CHECK CONDITION (status byte 02h) with sense that reads as sense.
    match Sense::parse(sense) {
        Some(s) if hdr.status & 0x7e == 0x02 && hdr.host_status == 0 => Err(ScsiError::Check(s)),
        _ => Err(ScsiError::Status {
            status: hdr.status,
            host: hdr.host_status,
            driver: hdr.driver_status,
        }),
    }
}

#[cfg(test)]
#[path = "sg_io_tests.rs"]
mod tests;
