//! Which drive this is: INQUIRY's vendor, product and revision, and the
//! unit serial number from VPD page 0x80 (SPC-4), the key of the drive's
//! history and of a changer's drive element. Each field is trimmed of its
//! padding and made safe for one line; a short reply gives the fields it
//! holds whole.
//!
//! The serial has one reader, `unit_serial`, for drive health and for the
//! changer matching a tape node to its drive element (from sysfs's
//! `vpd_pg80` or INQUIRY): a page of code 0x80 whose header is whole; the
//! body is bytes 4 to 4 + its length (bytes 2-3), bounded by the reply;
//! it ends at its first NUL, as a C string does; then `mam::text`'s rule:
//! control bytes dropped, the space padding trimmed, bytes that are not
//! UTF-8 escaped, and nothing left is no serial.

use serde::{Deserialize, Serialize};

use crate::tape::scsi::pages::mam::text;

/// The unit serial number VPD page.
pub const SERIAL_PAGE: u8 = 0x80;

/// A drive's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub vendor: String,
    pub product: String,
    pub revision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
}

impl Identity {
    /// From a standard INQUIRY reply (vendor in bytes 8-15, product in
    /// 16-31, revision in 32-35) and, if read, VPD page 0x80; None when
    /// the reply is too short to hold the vendor.
    pub fn parse(inquiry: &[u8], serial_page: Option<&[u8]>) -> Option<Identity> {
        let field =
            |from: usize, to: usize| inquiry.get(from..to).and_then(text).unwrap_or_default();
        inquiry.get(8..16)?;
        Some(Identity {
            vendor: field(8, 16),
            product: field(16, 32),
            revision: field(32, 36),
            serial: serial_page.and_then(unit_serial),
        })
    }
}

/// The serial number in a VPD page 0x80 reply (byte 1 the page code,
/// bytes 2-3 the length, the number from byte 4), by the rule above; None
/// for a page too short for its header, of another code, or blank.
pub fn unit_serial(page: &[u8]) -> Option<String> {
    let header = page.get(..4)?;
    if header[1] != SERIAL_PAGE {
        return None;
    }
    let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
    let body = &page[4..page.len().min(4 + length)];
    let c_string = body.split(|&b| b == 0).next().unwrap_or_default();
    text(c_string)
}

#[cfg(test)]
#[path = "identity_tests.rs"]
mod tests;
