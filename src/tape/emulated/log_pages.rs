//! The emulated drive's log pages, encoded as LOG SENSE returns them
//! (SPC-4 7.3): a 4-byte header (page code, subpage 0, the length of what
//! follows) and parameters of a 2-byte code, a control byte, a length and
//! a big-endian value. The pages and their parameters are those mhvtl
//! serves for an IBM ULT3580 (`usr/mhvtl_log.c`), with their value sizes
//! and control bytes; the numbers are the library's, where mhvtl leaves
//! most at zero:
//!
//! - 0x00, the pages supported, in ascending order;
//! - 0x02 and 0x03, write and read error counters 0000h-0006h (4 bytes
//!   each, 0005h bytes processed 8 bytes);
//! - 0x17, volume statistics (SSC-4): mounts, data sets, retries,
//!   lifetime megabytes (0010h/0011h), native capacity (0016h/0017h), the
//!   volume serial number (0040h); megabytes are 2^20 bytes, mhvtl's unit
//!   for LTO;
//! - 0x1B, data compression (SSC-4), and the same parameters as IBM's page
//!   0x32, which is the one mhvtl serves: ratios times 100 (2 bytes), then
//!   megabytes and remaining bytes (4 bytes each) to and from the host
//!   and the medium;
//! - 0x2E, TapeAlert: flags 1-64 as parameters 0001h-0040h of one byte.

use super::cartridge::Cartridge;
use super::memory::{Direction, ScsiFace};
use crate::tape::scsi::pages::encode::{self, LogPageBytes as Page};
use crate::tape::scsi::pages::tape_alert::{TapeAlerts, PAGE as TAPE_ALERT};

pub use crate::tape::scsi::pages::counters::{
    COMPRESSION, READ_ERRORS, VENDOR_COMPRESSION as IBM_COMPRESSION, VOLUME_STATISTICS,
    WRITE_ERRORS,
};
pub use crate::tape::scsi::pages::log_page::SUPPORTED_PAGES as SUPPORTED;

/// Every page the drive serves, in ascending order.
pub const PAGES: [u8; 7] = [
    SUPPORTED,
    WRITE_ERRORS,
    READ_ERRORS,
    VOLUME_STATISTICS,
    COMPRESSION,
    TAPE_ALERT,
    IBM_COMPRESSION,
];

/// Page 0x00: the codes of the pages served.
pub fn supported() -> Vec<u8> {
    let mut page = vec![SUPPORTED, 0, 0, PAGES.len() as u8];
    page.extend_from_slice(&PAGES);
    page
}

/// Page 0x02 or 0x03 from one direction's counters. Every correction
/// counts as one without delay, by the algorithm.
pub fn error_counters(code: u8, counted: &Direction) -> Vec<u8> {
    /// mhvtl's control byte for the counters: DU and TSD set.
    const CONTROL: u8 = 0x60;
    Page::new(code)
        .number(0x0000, CONTROL, counted.corrected, 4)
        .number(0x0001, CONTROL, 0, 4)
        .number(0x0002, CONTROL, counted.retries, 4)
        .number(0x0003, CONTROL, counted.corrected, 4)
        .number(0x0004, CONTROL, counted.corrected, 4)
        .number(0x0005, CONTROL, counted.host_bytes, 8)
        .number(0x0006, CONTROL, 0, 4)
        .done()
}

/// Page 0x17 for `cartridge`, whose serial number is `serial`.
pub fn volume_statistics(cartridge: &Cartridge, serial: &str) -> Vec<u8> {
    /// mhvtl's control bytes: binary list (0x03) and ASCII list (0x01).
    const LIST: u8 = 0x03;
    const ASCII: u8 = 0x01;
    let mib = |bytes: u64| bytes >> 20;
    let memory = &cartridge.memory;
    let used = cartridge.used_bytes(cartridge.items.len());
    Page::new(VOLUME_STATISTICS)
        .number(0x0000, LIST, 1, 1)
        .number(0x0001, LIST, memory.load_count, 4)
        .number(0x0002, LIST, memory.datasets_written, 8)
        .number(0x0003, LIST, memory.write_retries, 4)
        .number(0x0004, LIST, 0, 2)
        .number(0x0007, LIST, memory.datasets_read, 8)
        .number(0x0008, LIST, memory.read_retries, 4)
        .number(0x0009, LIST, 0, 2)
        .number(0x0010, LIST, mib(memory.written_bytes), 8)
        .number(0x0011, LIST, mib(memory.read_bytes), 8)
        .number(0x0016, LIST, mib(cartridge.capacity_bytes), 4)
        .number(0x0017, LIST, mib(used), 4)
        .bytes(0x0040, ASCII, &padded(serial, 32))
        .done()
}

/// Page 0x1B, or `code` for IBM's 0x32 with the same parameters.
pub fn compression(code: u8, face: &ScsiFace) -> Vec<u8> {
    /// mhvtl's control byte here: DU set.
    const CONTROL: u8 = 0x40;
    let (write, read) = (&face.counters.write, &face.counters.read);
    let ratio = |d: &Direction| {
        (d.host_bytes * 100)
            .checked_div(d.medium_bytes)
            .unwrap_or(0)
    };
    let split = |bytes: u64| (bytes >> 20, bytes & ((1 << 20) - 1));
    let mut page = Page::new(code)
        .number(0x0000, CONTROL, ratio(read), 2)
        .number(0x0001, CONTROL, ratio(write), 2);
    let counts = [
        read.host_bytes,
        read.medium_bytes,
        write.host_bytes,
        write.medium_bytes,
    ];
    for (i, bytes) in counts.into_iter().enumerate() {
        let (mb, rest) = split(bytes);
        let code = 0x0002 + 2 * i as u16;
        page = page
            .number(code, CONTROL, mb, 4)
            .number(code + 1, CONTROL, rest, 4);
    }
    page.done()
}

/// Page 0x2E with `alerts` set.
pub fn tape_alert(alerts: &TapeAlerts) -> Vec<u8> {
    /// mhvtl's control byte for the flags: DU and DS set.
    const CONTROL: u8 = 0xc0;
    (1..=64u8)
        .fold(Page::new(TAPE_ALERT), |page, flag| {
            let set = u64::from(alerts.contains(flag));
            page.number(u16::from(flag), CONTROL, set, 1)
        })
        .done()
}

/// `text` in `width` bytes, padded with spaces, cut if longer.
pub fn padded(text: &str, width: usize) -> Vec<u8> {
    encode::padded(text, width, b' ')
}
