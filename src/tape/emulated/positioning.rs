//! Where the emulated tape is, by block address, and going there: MTFSR
//! (`TapeOp::ForwardRecords`), MTSEEK (`TapeOp::SeekBlock`) and MTIOCPOS
//! (`Drive::position`), as Linux st does them over SCSI SPACE, LOCATE and
//! READ POSITION against mhvtl's drive (usr/vtlcart.c, usr/ssc.c).
//!
//! A block address counts every record and every filemark from the
//! beginning of the tape (SCSI logical objects), so it is the index of the
//! next item in `Cartridge::items`: 0 at the beginning, 4 after three
//! records and a filemark. In fixed-block mode each block is an item and
//! counts as one.
//!
//! - MTFSR spaces over records; a filemark on the way stops it with EIO,
//!   the tape left after the filemark; the end of the recorded data stops
//!   it with EIO there. A count over SPACE(6)'s 24 signed bits fails with
//!   EINVAL, as MTBSR's does. With no cartridge: ENOMEDIUM (st_int_ioctl).
//! - MTSEEK after a write first writes the filemark, as st does. Any
//!   address up to the end of data (where the next write goes) is reached;
//!   one past it fails with EIO and leaves the tape at the end of data, as
//!   mhvtl's LOCATE answers BLANK CHECK after positioning to EOD. After a
//!   seek st no longer knows file and block numbers, so no GMT_BOT is
//!   reported unless the seek went to block 0. With no cartridge: EIO
//!   (st's set_location).
//! - MTIOCPOS reports the address; with no cartridge EIO (get_location).
//! - `Autoloader::refuse_seek` and `Autoloader::refuse_position` make a drive
//!   that cannot seek or say where it is, failing with the errno given
//!   (ENOTTY as a driver without the ioctl, EINVAL, or EIO as st when the
//!   drive refuses LOCATE or READ POSITION), so a caller's fallback
//!   (rewind, then MTFSR) can be tested. A refused seek does not move the
//!   tape.
//!
//! Closing and opening again keep the address, as st's non-rewinding
//! device does (a close after a write adds its filemark first).

use std::io;

use super::autoloader::no_medium;
use super::cartridge::Item;
use super::drive::Emulated;
use crate::tape::drive::limits::MAX_SPACE_RECORDS;

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

impl Emulated {
    /// MTIOCPOS: the block address of the next item on the tape.
    pub(super) fn block_address(&mut self) -> io::Result<u64> {
        self.check_open()?;
        let lib = self.autoloader();
        if let Some(code) = lib.refuse_position {
            return Err(errno(code));
        }
        let slot = lib.loaded.ok_or_else(|| errno(libc::EIO))?;
        let end = lib.slots[slot].items.len();
        Ok(self.position.min(end) as u64)
    }

    /// MTFSR: forward over `n` records, stopping after a filemark or at
    /// the end of the data with EIO.
    pub(super) fn forward_records(&mut self, n: u32) -> io::Result<()> {
        if n > MAX_SPACE_RECORDS {
            return Err(errno(libc::EINVAL));
        }
        self.last_was_write = false;
        let mut lib = self.autoloader();
        let slot = lib.loaded.ok_or_else(no_medium)?;
        let items = &lib.slots[slot].items;
        let mut at = self.position.min(items.len());
        let mut stopped = None;
        for _ in 0..n {
            match items.get(at) {
                Some(Item::Record(_)) => at += 1,
                Some(Item::Filemark) => {
                    at += 1;
                    stopped = Some("filemark");
                    break;
                }
                None => {
                    stopped = Some("end of data");
                    break;
                }
            }
        }
        match stopped {
            None => lib.log.push(format!("forward records {n}")),
            Some(why) => lib.log.push(format!("forward records {n}: {why}")),
        }
        drop(lib);
        self.position = at;
        match stopped {
            None => Ok(()),
            Some(_) => Err(errno(libc::EIO)),
        }
    }

    /// MTSEEK: to block address `address`; past the end of the data fails
    /// with EIO, the tape left at the end of the data.
    pub(super) fn seek_block(&mut self, address: u32) -> io::Result<()> {
        let mut lib = self.autoloader();
        if let Some(code) = lib.refuse_seek {
            lib.log.push(format!("seek {address} refused"));
            return Err(errno(code));
        }
        if lib.loaded.is_none() {
            return Err(errno(libc::EIO));
        }
        drop(lib);
        if self.last_was_write {
            self.write_filemark()?;
        }
        let mut lib = self.autoloader();
        let slot = lib.loaded.ok_or_else(|| errno(libc::EIO))?;
        let end = lib.slots[slot].items.len();
        let address = address as usize;
        let past_end = address > end;
        match past_end {
            false => lib.log.push(format!("seek {address}")),
            true => lib.log.push(format!("seek {address}: end of data")),
        }
        drop(lib);
        self.position = address.min(end);
        self.refuse_next = false;
        self.position_unknown = past_end || address != 0;
        match past_end {
            false => Ok(()),
            true => Err(errno(libc::EIO)),
        }
    }
}
