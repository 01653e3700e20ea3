//! The cartridge's memory (MAM, "medium auxiliary memory"), read with READ
//! ATTRIBUTE (SPC-4 6.17, attributes in 7.4): the medium's serial number,
//! barcode, manufacturer, load count and lifetime bytes. Text attributes
//! are trimmed and made safe for one line; a reply never makes tapebuf
//! allocate more than the buffer it asked with, and no length in it is
//! trusted beyond the bytes there. Capacities and lifetime totals are in
//! mebibytes (2^20 bytes), as SPC-4 gives them.
//!
//! The reply (service action 00h, ATTRIBUTE VALUES): a 4-byte available
//! data length, then attributes of a 2-byte identifier, a byte whose bit
//! 7 marks it read-only and whose bits 1-0 give its format (00b binary,
//! 01b ASCII, 10b text), a 2-byte length and the value.

use serde::{Deserialize, Serialize};

use crate::base::escape;

/// The longest text kept from one attribute, in bytes.
pub const TEXT_BYTES: usize = 160;

const MEBIBYTE: u64 = 1 << 20;

/// Format bits of a binary attribute.
const BINARY: u8 = 0b00;

/// What the cartridge's memory says. Each field is `None` when the
/// cartridge or drive does not give it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mam {
    /// MEDIUM SERIAL NUMBER (0401h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// BARCODE (0806h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    /// MEDIUM MANUFACTURER (0400h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    /// MEDIUM MANUFACTURE DATE (0406h), YYYYMMDD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manufactured: Option<String>,
    /// LOAD COUNT (0003h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_count: Option<u64>,
    /// TOTAL MB WRITTEN IN MEDIUM LIFE (0220h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_written_bytes: Option<u64>,
    /// TOTAL MB READ IN MEDIUM LIFE (0221h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_read_bytes: Option<u64>,
    /// MAXIMUM CAPACITY IN PARTITION (0001h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
    /// REMAINING CAPACITY IN PARTITION (0000h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_bytes: Option<u64>,
}

impl Mam {
    /// The attributes in a READ ATTRIBUTE (ATTRIBUTE VALUES) reply; None
    /// when it holds none of these.
    pub fn parse(reply: &[u8]) -> Option<Mam> {
        let header = reply.get(..4)?;
        let available = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let end = usize::try_from(available)
            .ok()
            .and_then(|a| a.checked_add(4))
            .map_or(reply.len(), |e| e.min(reply.len()));
        let mut mam = Mam::default();
        let mut found = false;
        let mut at = 4;
        while at + 5 <= end {
            let id = u16::from_be_bytes([reply[at], reply[at + 1]]);
            let format = reply[at + 2] & 0x03;
            let length = usize::from(u16::from_be_bytes([reply[at + 3], reply[at + 4]]));
            let Some(value) = reply[..end].get(at + 5..at + 5 + length) else {
                break;
            };
            found |= mam.take(id, format, value);
            at += 5 + length;
        }
        found.then_some(mam)
    }

    /// Keeps attribute `id` if it is one of these; whether it was.
    fn take(&mut self, id: u16, format: u8, value: &[u8]) -> bool {
        let binary = || (format == BINARY).then(|| number(value)).flatten();
        let mebibytes = || binary()?.checked_mul(MEBIBYTE);
        let slot = match id {
            0x0000 => return set(&mut self.remaining_bytes, mebibytes()),
            0x0001 => return set(&mut self.capacity_bytes, mebibytes()),
            0x0003 => return set(&mut self.load_count, binary()),
            0x0220 => return set(&mut self.lifetime_written_bytes, mebibytes()),
            0x0221 => return set(&mut self.lifetime_read_bytes, mebibytes()),
            0x0400 => &mut self.manufacturer,
            0x0401 => &mut self.serial,
            0x0406 => &mut self.manufactured,
            0x0806 => &mut self.barcode,
            _ => return false,
        };
        set(slot, text(value))
    }
}

/// Sets `slot` to `value` if it is one; whether it was.
fn set<T>(slot: &mut Option<T>, value: Option<T>) -> bool {
    let found = value.is_some();
    if found {
        *slot = value;
    }
    found
}

/// A binary attribute's value as an unsigned big-endian number (1 to 8
/// bytes).
fn number(value: &[u8]) -> Option<u64> {
    if value.is_empty() || value.len() > 8 {
        return None;
    }
    Some(value.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)))
}

/// Text from a drive (an attribute, an INQUIRY field) as one safe line:
/// at most [`TEXT_BYTES`] bytes, control characters dropped, spaces and
/// NULs trimmed from both ends, and bytes that are not UTF-8 escaped
/// (`\xff`). None when nothing is left.
pub fn text(value: &[u8]) -> Option<String> {
    let kept: Vec<u8> = value
        .iter()
        .take(TEXT_BYTES)
        .copied()
        .filter(|&b| b >= 0x20 && b != 0x7f)
        .collect();
    let shown = escape::shown(&kept);
    let trimmed = shown.trim_matches(|c: char| c == ' ' || c.is_control());
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

#[cfg(test)]
#[path = "mam_tests.rs"]
mod tests;
