//! The cartridge's memory (MAM, "medium auxiliary memory"), read with READ
//! ATTRIBUTE (SPC-4 6.17, attributes in 7.4): the medium's serial number,
//! barcode, manufacturer, load count and lifetime bytes. Text attributes
//! are trimmed and made safe for one line; a reply never makes tapebuf
//! allocate more than the buffer it asked with.

use serde::{Deserialize, Serialize};

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
    /// The attributes in a READ ATTRIBUTE (ATTRIBUTE VALUES) reply
    /// (contract stub).
    pub fn parse(reply: &[u8]) -> Option<Mam> {
        let _ = reply;
        None
    }
}
