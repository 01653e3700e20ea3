//! The emulated drive's logical block protection, as mhvtl's IBM drives
//! do it in the tape lab (tests/tapelab/FINDINGS.md, "Logical block
//! protection"):
//!
//! - it offers the methods of its `ScsiFace` (an LTO-6 Reed-Solomon CRC
//!   only, an LTO-7 and later CRC32C too) in INQUIRY's PROTECT bit and
//!   VPD page 0xB5, and holds the control data protection mode page for
//!   as long as the drive lives: no load, open or rewind resets it;
//! - MODE SELECT takes the page only with PF set, in the page code form
//!   mhvtl takes (0x0A, SPF clear; 0x4A is refused with 05/24/00);
//! - with LBP_W on, each record written carries 4 CRC bytes, checked and
//!   stripped; a record whose CRC is wrong is stored anyway and the
//!   write fails (EIO, as st reports HARDWARE ERROR 04/10/01), as mhvtl
//!   does;
//! - with LBP_R on, each record read comes back with the CRC of the
//!   record as stored, appended before any `ReadFault::Corrupt` damage,
//!   which stands for damage between the drive and the host.

use std::io;

use super::autoloader::Autoloader;
use crate::tape::protection::crc::crc;
use crate::tape::protection::CRC_BYTES;
use crate::tape::scsi::pages::protection::{self, Method, ProtectionPage};
use crate::tape::scsi::sg_io::{ScsiError, Sense, ILLEGAL_REQUEST};

/// The page a drive starts with: protection off.
pub fn page_off() -> ProtectionPage {
    ProtectionPage {
        code_byte: protection::MODE_PAGE,
        method: 0,
        info_bytes: protection::INFO_BYTES,
        on_write: false,
        on_read: false,
    }
}

fn invalid_field() -> ScsiError {
    ScsiError::Check(Sense {
        key: ILLEGAL_REQUEST,
        asc: 0x24,
        ascq: 0,
    })
}

impl Autoloader {
    fn offers_protection(&self) -> bool {
        !self.scsi.lbp_methods.is_empty()
    }

    /// The method the drive checks written records with, if on.
    pub(super) fn write_method(&self) -> Option<Method> {
        let page = self.lbp_page.unwrap_or_else(page_off);
        page.on_write
            .then(|| Method::from_code(page.method))
            .flatten()
    }

    /// The method the drive appends to records read, if on.
    pub(super) fn read_method(&self) -> Option<Method> {
        let page = self.lbp_page.unwrap_or_else(page_off);
        page.on_read
            .then(|| Method::from_code(page.method))
            .flatten()
    }

    /// MODE SENSE of the control data protection page.
    pub(super) fn mode_sense(&self, page: u8, subpage: u8) -> Result<Vec<u8>, ScsiError> {
        if !self.offers_protection()
            || (page, subpage) != (protection::MODE_PAGE, protection::SUBPAGE)
        {
            return Err(invalid_field());
        }
        Ok(protection::sense_reply(
            &self.lbp_page.unwrap_or_else(page_off),
        ))
    }

    /// MODE SELECT of `list`, a header and the control data protection page.
    pub(super) fn mode_select(
        &mut self,
        page_format: bool,
        save: bool,
        list: &[u8],
    ) -> Result<(), ScsiError> {
        if !page_format || save || list.len() < 8 {
            return Err(invalid_field());
        }
        let descriptors = usize::from(u16::from_be_bytes([list[6], list[7]]));
        let page = list
            .get(8 + descriptors..8 + descriptors + 7)
            .ok_or_else(invalid_field)?;
        if page[0] != protection::MODE_PAGE
            || page[1] != protection::SUBPAGE
            || !self.offers_protection()
        {
            return Err(invalid_field());
        }
        self.lbp_page = Some(ProtectionPage {
            code_byte: page[0],
            method: page[4] & 0x03,
            info_bytes: page[5] & 0x3f,
            on_write: page[6] & 0x80 != 0,
            on_read: page[6] & 0x40 != 0,
        });
        Ok(())
    }

    /// VPD page 0xB5, when the drive offers protection.
    pub(super) fn protection_vpd(&self) -> Option<Vec<u8>> {
        self.offers_protection()
            .then(|| protection::vpd_reply(&self.scsi.lbp_methods))
    }
}

/// The data of `record` as a drive checking `method` stores it, or the
/// data and the error a wrong CRC gets.
pub fn checked_write(method: Method, record: &[u8]) -> (&[u8], Option<io::Error>) {
    if record.len() <= CRC_BYTES {
        return (record, Some(io::Error::from_raw_os_error(libc::EIO)));
    }
    let (data, tail) = record.split_at(record.len() - CRC_BYTES);
    let wrong = crc(method, data) != tail;
    (data, wrong.then(|| io::Error::from_raw_os_error(libc::EIO)))
}
