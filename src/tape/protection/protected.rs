//! A drive with logical block protection: the wrapper that appends each
//! block's CRC on writing and checks and strips it on reading, and that
//! turns the drive's protection on at every volume and off again when
//! the device is closed, so that no other program meets a drive left
//! checking CRCs it does not send.
//!
//! Writing: st sends one SCSI WRITE per write(2), so the CRC must follow
//! the block in the same buffer. `write_record_in` takes a buffer with
//! room after the block (the ring's blocks have it when a tape is
//! written) and writes the CRC there, copying nothing; `write_record`,
//! for a record without room (a trailer, a piece of a block split across
//! volumes), copies it into a buffer of its own first.
//!
//! Reading: each read(2) returns the record and its CRC, so it asks for
//! four bytes more than the caller wants, that a record the caller's
//! buffer holds still fits with its CRC. `read_record_in` takes a buffer
//! with that room after it (the ring's blocks have it when a tape is
//! read) and reads into it, copying nothing; `read_record`, for a buffer
//! without room, reads into a buffer of this wrapper and copies the data
//! out once its CRC matched. Either way a block that fails passes on
//! nothing (`BlockCheckFailed`): its bytes are never counted as read.

use std::io;

use super::crc::crc;
use super::setup::{self, Offer, SetupError};
use crate::tape::drive::limits::TransferLimits;
use crate::tape::drive::{pass_on, Drive, Protection};
use crate::tape::scsi::pages::protection::{Method, INFO_BYTES};

/// The bytes a protected block carries after its data.
pub const CRC_BYTES: usize = INFO_BYTES as usize;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wanted {
    /// On wherever the drive offers it (the default).
    #[default]
    WhereOffered,
    /// Off (`--no-lbp`), and turned off if another program left it on.
    Off,
}

/// Why protection was dropped when a `len`-byte record was refused for
/// its size with its CRC: what the summary says.
pub fn refused_with_crc(len: usize, limits: &TransferLimits) -> String {
    use crate::base::size::size_flag;
    let (most, keeps) = match limits.max_bytes {
        Some(max) if max as usize > CRC_BYTES + 4096 => {
            let size = (max as usize - CRC_BYTES) / 4096 * 4096;
            (
                format!("the {} ", size_flag(max)),
                format!("; -s {} or less keeps it", size_flag(size as u64)),
            )
        }
        _ => (String::new(), String::new()),
    };
    format!(
        "a {len}-byte record and its {CRC_BYTES}-byte CRC are more than {most}the drive or its controller takes in one request{keeps}"
    )
}

/// A block read whose CRC does not match its data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the block's {} does not match its {bytes} bytes (the tape says {stored:02x?}, the data gives {computed:02x?}); nothing of it was passed on", method.name())]
pub struct BlockCheckFailed {
    pub method: Method,
    pub bytes: usize,
    pub stored: [u8; 4],
    pub computed: [u8; 4],
}

/// The failed check in `e`, if that is what it is.
pub fn block_check(e: &io::Error) -> Option<&BlockCheckFailed> {
    e.get_ref()?.downcast_ref::<BlockCheckFailed>()
}

/// A drive whose blocks carry a CRC the drive checks.
pub struct Protected {
    drive: Box<dyn Drive>,
    wanted: Wanted,
    /// What the summary says: the protection of the volume opened last,
    /// kept after the device is closed.
    state: Protection,
    /// The method the drive has on now, which every read and write uses.
    in_drive: Option<Method>,
    scratch: Vec<u8>,
}

impl Protected {
    /// Wraps the open `drive` and sets its protection as `wanted`.
    pub fn new(drive: Box<dyn Drive>, wanted: Wanted) -> io::Result<Protected> {
        let mut p = Protected {
            drive,
            wanted,
            state: Protection::default(),
            in_drive: None,
            scratch: Vec::new(),
        };
        p.negotiate()?;
        Ok(p)
    }

    /// Wraps `drive` with `method` taken as on, asking the drive nothing:
    /// for benchmarks and tests with a drive that answers no SCSI.
    #[cfg(any(test, feature = "test-support"))]
    pub fn assuming(drive: Box<dyn Drive>, method: Method) -> Protected {
        Protected {
            drive,
            wanted: Wanted::WhereOffered,
            state: Protection {
                method: Some(method),
                why_none: None,
                ..Protection::default()
            },
            in_drive: Some(method),
            scratch: Vec::new(),
        }
    }

    /// Sets the drive's protection for the volume now in it.
    fn negotiate(&mut self) -> io::Result<()> {
        let failed = |e: SetupError| {
            io::Error::other(format!(
                "logical block protection: {e}; --no-lbp writes and reads without it"
            ))
        };
        match self.wanted {
            Wanted::Off => {
                // Turned off where another program left it on; a drive
                // without the page, or whose commands do not reach it, has
                // nothing to turn off that tapebuf could.
                if setup::offer(self.drive.as_mut()).best().is_some() {
                    setup::set(self.drive.as_mut(), None).map_err(failed)?;
                }
                let why = self
                    .state
                    .why_none
                    .take()
                    .unwrap_or_else(|| "--no-lbp".into());
                self.state = Protection {
                    method: None,
                    why_none: Some(why),
                    ..Protection::default()
                };
            }
            Wanted::WhereOffered => {
                let Offer { methods, why_none } = setup::offer(self.drive.as_mut());
                self.state = Protection {
                    method: methods.last().copied(),
                    why_none,
                    ..Protection::default()
                };
                let Some(m) = self.state.method else {
                    return Ok(());
                };
                match setup::set(self.drive.as_mut(), Some(m)) {
                    Ok(()) => self.in_drive = Some(m),
                    // The kernel, not the drive, said no (a user without
                    // CAP_SYS_RAWIO): the drive is as it was, and written
                    // without, as a drive that does not offer it.
                    Err(SetupError::Select(e)) if e.is_refused_by_kernel() => {
                        self.state = Protection {
                            method: None,
                            why_none: Some(format!(
                                "the kernel would not pass its MODE SELECT ({e})"
                            )),
                            ..Protection::default()
                        };
                    }
                    Err(e) => return Err(failed(e)),
                }
            }
        }
        Ok(())
    }

    /// Turns the drive's protection off, if it was turned on.
    fn turn_off(&mut self) -> io::Result<()> {
        if self.in_drive.take().is_none() {
            return Ok(());
        }
        setup::set(self.drive.as_mut(), None).map_err(|e| {
            io::Error::other(format!(
                "turning its logical block protection off again: {e}; other programs reading this drive get 4 bytes more per block until it is turned off (tapebuf drive DEV --no-lbp)"
            ))
        })
    }

    /// Checks a record read with its CRC at its end: the data's length,
    /// or why nothing of it may be passed on.
    fn checked(method: Method, record: &[u8]) -> io::Result<usize> {
        let n = record.len();
        if n == 0 {
            return Ok(0);
        }
        if n < CRC_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a record of {n} bytes is too short to carry its {}",
                    method.name()
                ),
            ));
        }
        let (data, stored) = record.split_at(n - CRC_BYTES);
        let computed = crc(method, data);
        if computed != stored {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                BlockCheckFailed {
                    method,
                    bytes: data.len(),
                    stored: stored.try_into().unwrap_or_default(),
                    computed,
                },
            ));
        }
        Ok(data.len())
    }

    /// Writes `buf[..len]` and its CRC, which goes in `buf[len..len + 4]`.
    fn write_protected(&mut self, method: Method, buf: &mut [u8], len: usize) -> io::Result<usize> {
        let tail = crc(method, &buf[..len]);
        buf[len..len + CRC_BYTES].copy_from_slice(&tail);
        let written = self.drive.write_record(&buf[..len + CRC_BYTES])?;
        Ok(written.saturating_sub(CRC_BYTES).min(len))
    }
}

impl Drive for Protected {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        let Some(method) = self.in_drive else {
            return self.drive.write_record(record);
        };
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        buf.extend_from_slice(record);
        buf.resize(record.len() + CRC_BYTES, 0);
        let written = self.write_protected(method, &mut buf, record.len());
        self.scratch = buf;
        written
    }

    fn write_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        match self.in_drive {
            Some(method) if buf.len() >= len + CRC_BYTES => self.write_protected(method, buf, len),
            Some(_) => self.write_record(&buf[..len]),
            None => self.drive.write_record(&buf[..len]),
        }
    }

    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(method) = self.in_drive else {
            return self.drive.read_record(buf);
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.resize(buf.len() + CRC_BYTES, 0);
        let result = self.drive.read_record(&mut scratch).and_then(|n| {
            let len = Protected::checked(method, &scratch[..n])?;
            buf[..len].copy_from_slice(&scratch[..len]);
            Ok(len)
        });
        self.scratch = scratch;
        result
    }

    fn read_record_in(&mut self, buf: &mut [u8], len: usize) -> io::Result<usize> {
        match self.in_drive {
            Some(method) if buf.len() >= len + CRC_BYTES => {
                let n = self.drive.read_record(&mut buf[..len + CRC_BYTES])?;
                Protected::checked(method, &buf[..n])
            }
            Some(_) => self.read_record(&mut buf[..len]),
            None => self.drive.read_record_in(buf, len),
        }
    }

    fn close(&mut self) -> io::Result<()> {
        let off = self.turn_off();
        self.drive.close()?;
        off
    }

    fn reopen(&mut self) -> io::Result<()> {
        self.drive.reopen()?;
        self.negotiate()
    }

    fn protection(&self) -> Protection {
        self.state.clone()
    }

    /// Off for the rest of the run: a volume opened later stays off too.
    fn drop_protection(&mut self, why: String) -> io::Result<()> {
        self.turn_off()?;
        self.wanted = Wanted::Off;
        self.state = Protection {
            method: None,
            why_none: Some(why),
            ..Protection::default()
        };
        Ok(())
    }

    pass_on!(drive: op, status, name, transfer_limits, status_unopened, eject_unopened,
        tape_alerts, scsi_command, cartridge_serial, position, ready_poll_interval, cleaned);
}

impl Drop for Protected {
    /// A run that ends without closing (an error on the way out, a
    /// signal's unwinding) still leaves the drive as it found it.
    fn drop(&mut self) {
        let _ = self.turn_off();
    }
}
