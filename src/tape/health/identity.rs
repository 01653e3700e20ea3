//! Which drive this is: INQUIRY's vendor, product and revision, and the
//! unit serial number from VPD page 0x80 (SPC-4), the key of the drive's
//! history.

use serde::{Deserialize, Serialize};

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
    /// From a standard INQUIRY reply and, if read, VPD page 0x80
    /// (contract stub).
    pub fn parse(inquiry: &[u8], serial_page: Option<&[u8]>) -> Option<Identity> {
        let _ = (inquiry, serial_page);
        None
    }
}
