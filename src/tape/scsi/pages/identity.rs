//! Which drive this is: INQUIRY's vendor, product and revision, and the
//! unit serial number from VPD page 0x80 (SPC-4), the key of the drive's
//! history. Each field is trimmed of its padding and made safe for one
//! line; a short reply gives the fields it holds whole.

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
            serial: serial_page.and_then(serial),
        })
    }
}

/// The serial number in a VPD page 0x80 reply: byte 1 the page code,
/// bytes 2-3 the length, the number from byte 4.
fn serial(page: &[u8]) -> Option<String> {
    let header = page.get(..4)?;
    if header[1] != SERIAL_PAGE {
        return None;
    }
    let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
    let end = page.len().min(4 + length);
    text(&page[4..end])
}
