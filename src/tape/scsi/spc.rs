//! The SCSI primary commands that the drive, the changer and drive health
//! send, each built in this one place, with the parser the emulated
//! devices read them back with: INQUIRY (standard and VPD pages), LOG
//! SENSE, READ ATTRIBUTE and TEST UNIT READY; how long each may take; and
//! the resend after UNIT ATTENTION (SPC-4, the commands' field layouts).

use std::time::Duration;

use super::sg_io::ScsiError;

pub const TEST_UNIT_READY: u8 = 0x00;
pub const INQUIRY: u8 = 0x12;
pub const LOG_SENSE: u8 = 0x4d;
pub const READ_ATTRIBUTE: u8 = 0x8c;

/// The most bytes asked of INQUIRY and of a VPD page.
pub const INQUIRY_BYTES: u8 = 255;
/// How long a device may take to answer INQUIRY.
pub const INQUIRY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a drive may take to answer LOG SENSE.
pub const LOG_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a drive may take to read its cartridge's memory.
pub const ATTRIBUTE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long TEST UNIT READY may take.
pub const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Sense key 6: the device's state changed since it was last asked (a
/// cartridge loaded, a door opened, a reset); the command was not run.
pub const UNIT_ATTENTION: u8 = 0x06;

/// TEST UNIT READY.
pub fn test_unit_ready() -> [u8; 6] {
    [TEST_UNIT_READY, 0, 0, 0, 0, 0]
}

/// The standard INQUIRY, for up to `bytes` bytes.
pub fn inquiry(bytes: u8) -> [u8; 6] {
    [INQUIRY, 0, 0, 0, bytes, 0]
}

/// INQUIRY with EVPD for VPD page `page`, for up to `bytes` bytes.
pub fn inquiry_vpd(page: u8, bytes: u8) -> [u8; 6] {
    [INQUIRY, 0x01, page, 0, bytes, 0]
}

/// LOG SENSE (10) for page `page`, cumulative values (PC 01b), for up to
/// `bytes` bytes.
pub fn log_sense(page: u8, bytes: u16) -> [u8; 10] {
    let [high, low] = bytes.to_be_bytes();
    [LOG_SENSE, 0, 0x40 | (page & 0x3f), 0, 0, 0, 0, high, low, 0]
}

/// READ ATTRIBUTE (16), ATTRIBUTE VALUES (service action 00h) of
/// partition 0 from the first attribute on, for up to `bytes` bytes.
pub fn read_attribute(bytes: u32) -> [u8; 16] {
    let mut cdb = [0u8; 16];
    cdb[0] = READ_ATTRIBUTE;
    cdb[10..14].copy_from_slice(&bytes.to_be_bytes());
    cdb
}

/// One of the commands above, read back from its CDB the way a device
/// reads it (the emulated devices answer with this).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    TestUnitReady,
    /// `page` is None for the standard INQUIRY.
    Inquiry {
        page: Option<u8>,
        bytes: usize,
    },
    /// `cumulative` when PC is 01b.
    LogSense {
        page: u8,
        cumulative: bool,
        bytes: usize,
    },
    ReadAttribute {
        bytes: usize,
    },
    /// Any other operation code.
    Other(u8),
}

impl Command {
    /// The command in `cdb`; None when it is empty or too short for its
    /// operation code.
    pub fn parse(cdb: &[u8]) -> Option<Command> {
        let field = |range: std::ops::Range<usize>| {
            cdb.get(range)
                .map(|b| b.iter().fold(0usize, |n, &x| n << 8 | usize::from(x)))
        };
        Some(match *cdb.first()? {
            TEST_UNIT_READY => Command::TestUnitReady,
            INQUIRY => Command::Inquiry {
                page: (cdb.get(1)? & 0x01 == 1).then_some(*cdb.get(2)?),
                bytes: field(3..5)?,
            },
            LOG_SENSE => Command::LogSense {
                page: cdb.get(2)? & 0x3f,
                cumulative: cdb.get(2)? >> 6 == 1,
                bytes: field(7..9)?,
            },
            READ_ATTRIBUTE => Command::ReadAttribute {
                bytes: field(10..14)?,
            },
            other => Command::Other(other),
        })
    }
}

/// True when `e` is UNIT ATTENTION.
pub fn is_unit_attention(e: &ScsiError) -> bool {
    e.sense().is_some_and(|s| s.key == UNIT_ATTENTION)
}

/// `send`, and again up to `times` more times while it meets UNIT
/// ATTENTION; the last outcome.
pub fn resent_after_unit_attention<T>(
    times: usize,
    mut send: impl FnMut() -> Result<T, ScsiError>,
) -> Result<T, ScsiError> {
    for _ in 0..times {
        match send() {
            Err(e) if is_unit_attention(&e) => continue,
            other => return other,
        }
    }
    send()
}

#[cfg(test)]
#[path = "spc_tests.rs"]
mod tests;
