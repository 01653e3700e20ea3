//! Linux's magnetic-tape ioctls (`<sys/mtio.h>`), which neither libc nor
//! nix define: the three structures (`mtop`, `mtget`, `mtpos`), the three
//! request numbers (MTIOCTOP, MTIOCGET, MTIOCPOS) and the few operation
//! codes tapebuf uses. This is the only module that talks mtio;
//! `tests/tape/mtio_abi.rs` compiles a C program against the system header and
//! checks every size and number here against it.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use libc::{c_int, c_long, c_short};

/// `struct mtop`: one tape operation and its repeat count.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MtOp {
    pub mt_op: c_short,
    pub mt_count: c_int,
}

/// `struct mtget`: the drive's status.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MtGet {
    pub mt_type: c_long,
    pub mt_resid: c_long,
    pub mt_dsreg: c_long,
    pub mt_gstat: c_long,
    pub mt_erreg: c_long,
    /// `__daddr_t`, an int on Linux.
    pub mt_fileno: c_int,
    pub mt_blkno: c_int,
}

/// Forward space over filemarks.
pub const MTFSF: c_short = 1;
/// Backward space over filemarks.
pub const MTBSF: c_short = 2;
/// Forward space over records.
pub const MTFSR: c_short = 3;
/// Backward space over records.
pub const MTBSR: c_short = 4;
/// Write filemarks.
pub const MTWEOF: c_short = 5;
/// Rewind.
pub const MTREW: c_short = 6;
/// Rewind and take the drive offline: eject.
pub const MTOFFL: c_short = 7;
/// Do nothing; refreshes the status.
pub const MTNOP: c_short = 8;
/// Space to the end of recorded data.
pub const MTEOM: c_short = 12;
/// Set the block size; 0 selects variable-block mode.
pub const MTSETBLK: c_short = 20;
/// Go to a logical block address (SCSI LOCATE).
pub const MTSEEK: c_short = 22;

/// `mt_gstat` bits (GMT_*).
pub const GMT_EOF: c_long = 0x8000_0000;
pub const GMT_BOT: c_long = 0x4000_0000;
pub const GMT_EOT: c_long = 0x2000_0000;
pub const GMT_EOD: c_long = 0x0800_0000;
pub const GMT_WR_PROT: c_long = 0x0400_0000;
pub const GMT_ONLINE: c_long = 0x0100_0000;
pub const GMT_DR_OPEN: c_long = 0x0004_0000;
/// The drive asks to be cleaned.
pub const GMT_CLN: c_long = 0x0000_8000;

/// The block size field of `mt_dsreg` (0 means variable-block mode).
pub const MT_ST_BLKSIZE_MASK: c_long = 0x00ff_ffff;

/// `MTIOCTOP`, `_IOW('m', 1, struct mtop)`.
pub const MTIOCTOP: libc::c_ulong =
    nix::request_code_write!(b'm', 1, std::mem::size_of::<MtOp>()) as libc::c_ulong;
/// `MTIOCGET`, `_IOR('m', 2, struct mtget)`.
pub const MTIOCGET: libc::c_ulong =
    nix::request_code_read!(b'm', 2, std::mem::size_of::<MtGet>()) as libc::c_ulong;

/// `struct mtpos`: the logical block address MTIOCPOS reports.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MtPos {
    pub mt_blkno: c_long,
}

/// `MTIOCPOS`, `_IOR('m', 3, struct mtpos)`.
pub const MTIOCPOS: libc::c_ulong =
    nix::request_code_read!(b'm', 3, std::mem::size_of::<MtPos>()) as libc::c_ulong;

/// Runs tape operation `op` `count` times.
pub fn op(fd: BorrowedFd<'_>, op: c_short, count: c_int) -> io::Result<()> {
    let arg = MtOp {
        mt_op: op,
        mt_count: count,
    };
    // SAFETY: MTIOCTOP reads one `struct mtop`, which `arg` is, laid out as
    // the C header says (checked by tests/tape/mtio_abi.rs); `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), MTIOCTOP as _, &arg as *const MtOp) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads the drive's status. Fails (ENOTTY, EINVAL) on anything that is not
/// a tape drive, which is how a tape is recognised.
pub fn status(fd: BorrowedFd<'_>) -> io::Result<MtGet> {
    let mut out = MtGet::default();
    // SAFETY: MTIOCGET writes one `struct mtget` into `out`, which has the
    // C layout (checked by tests/tape/mtio_abi.rs); `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), MTIOCGET as _, &mut out as *mut MtGet) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(out)
}

/// Reads the logical block address the tape is at (MTIOCPOS).
pub fn position(fd: BorrowedFd<'_>) -> io::Result<u64> {
    let mut out = MtPos::default();
    // SAFETY: MTIOCPOS writes one `struct mtpos` into `out`, which has the
    // C layout (checked by tests/tape/mtio_abi.rs); `fd` is open.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), MTIOCPOS as _, &mut out as *mut MtPos) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    u64::try_from(out.mt_blkno).map_err(|_| io::Error::other("a negative block address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fails_on_a_file_that_is_not_a_tape() {
        let f = tempfile::tempfile().unwrap();
        use std::os::fd::AsFd;
        assert!(status(f.as_fd()).is_err());
        let null = std::fs::File::open("/dev/null").unwrap();
        assert!(status(null.as_fd()).is_err());
    }
}
