//! Why a drive is not ready, in the drive's own words.
//!
//! MTIOCGET only says "not online", the same for a cartridge still
//! loading, a cleaning cartridge and a cartridge the drive cannot use, and
//! those want different answers: wait, or refuse at once. So a drive that
//! is not online is asked TEST UNIT READY through SG_IO on the st device
//! itself (st hands SG_IO to the drive), and the additional sense code of
//! its answer decides: 3A/xx no medium, 04/xx becoming ready, 30/03 a
//! cleaning cartridge, 30/xx a medium the drive cannot read or write. The
//! real driver and mhvtl answered so in the tape lab (tests/tapelab).

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// SG_IO, from <scsi/sg.h>.
const SG_IO: libc::c_ulong = 0x2285;
/// No data moves.
const SG_DXFER_NONE: libc::c_int = -1;
/// How long the drive may take to answer, in milliseconds.
const TIMEOUT_MS: u32 = 10_000;

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

/// What TEST UNIT READY said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    NoMedium,
    BecomingReady,
    CleaningCartridge,
    /// A medium the drive cannot use (30/xx other than 30/03).
    Incompatible,
    /// Any other sense: (key, ASC, ASCQ).
    Other(u8, u8, u8),
}

impl Readiness {
    /// Why a cartridge cannot be used at all, for a message: "is a
    /// cleaning cartridge"; None when waiting may help.
    pub fn unusable(self) -> Option<&'static str> {
        match self {
            Readiness::CleaningCartridge => Some("is a cleaning cartridge"),
            Readiness::Incompatible => Some("is a cartridge this drive cannot read or write"),
            _ => None,
        }
    }
}

/// Sends TEST UNIT READY to the drive behind `fd` (an st device, opened
/// with O_NONBLOCK) and reads its sense data.
pub fn test_unit_ready(fd: BorrowedFd<'_>) -> io::Result<Readiness> {
    let mut cdb = [0u8; 6];
    let mut sense = [0u8; 32];
    let mut hdr = SgIoHdr {
        interface_id: libc::c_int::from(b'S'),
        dxfer_direction: SG_DXFER_NONE,
        cmd_len: cdb.len() as u8,
        mx_sb_len: sense.len() as u8,
        iovec_count: 0,
        dxfer_len: 0,
        dxferp: std::ptr::null_mut(),
        cmdp: cdb.as_mut_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: TIMEOUT_MS,
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
    // SAFETY: SG_IO reads the header and the 6-byte CDB it points to, and
    // writes at most `mx_sb_len` bytes of sense and the header's result
    // fields; all of it lives on this stack frame for the call.
    let done = unsafe { libc::ioctl(fd.as_raw_fd(), SG_IO as _, &mut hdr as *mut SgIoHdr) };
    if done < 0 {
        return Err(io::Error::last_os_error());
    }
    if hdr.status == 0 && hdr.host_status == 0 {
        return Ok(Readiness::Ready);
    }
    let written = usize::from(hdr.sb_len_wr).min(sense.len());
    Ok(parse(&sense[..written]))
}

/// Reads fixed (70h/71h) or descriptor (72h/73h) sense data.
pub fn parse(sense: &[u8]) -> Readiness {
    let at = |i: usize| sense.get(i).copied().unwrap_or(0);
    let (key, asc, ascq) = match at(0) & 0x7f {
        0x72 | 0x73 => (at(1) & 0x0f, at(2), at(3)),
        _ => (at(2) & 0x0f, at(12), at(13)),
    };
    match (asc, ascq) {
        (0x3a, _) => Readiness::NoMedium,
        (0x04, _) => Readiness::BecomingReady,
        (0x30, 0x03) => Readiness::CleaningCartridge,
        (0x30, _) => Readiness::Incompatible,
        _ => Readiness::Other(key, asc, ascq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
        let mut s = vec![0u8; 18];
        s[0] = 0x70;
        s[2] = key;
        s[7] = 10;
        s[12] = asc;
        s[13] = ascq;
        s
    }

    #[test]
    fn sense_codes_say_what_the_drive_is_doing() {
        assert_eq!(parse(&fixed(2, 0x3a, 0)), Readiness::NoMedium);
        assert_eq!(parse(&fixed(2, 0x04, 0x01)), Readiness::BecomingReady);
        assert_eq!(parse(&fixed(2, 0x30, 0x03)), Readiness::CleaningCartridge);
        assert_eq!(parse(&fixed(2, 0x30, 0x00)), Readiness::Incompatible);
        assert_eq!(parse(&fixed(6, 0x28, 0)), Readiness::Other(6, 0x28, 0));
        assert_eq!(
            parse(&[0x72, 0x02, 0x30, 0x03]),
            Readiness::CleaningCartridge
        );
    }

    #[test]
    fn only_cleaning_and_incompatible_cartridges_are_unusable() {
        assert!(Readiness::CleaningCartridge
            .unusable()
            .unwrap()
            .contains("cleaning"));
        assert!(Readiness::Incompatible.unusable().is_some());
        assert_eq!(Readiness::BecomingReady.unusable(), None);
        assert_eq!(Readiness::NoMedium.unusable(), None);
    }

    #[test]
    fn the_header_has_the_kernels_size() {
        // sizeof(struct sg_io_hdr) on 64-bit Linux.
        assert_eq!(std::mem::size_of::<SgIoHdr>(), 88);
    }
}
