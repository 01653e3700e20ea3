//! The drive's counters, from its log pages: write and read error
//! counters (pages 0x02 and 0x03, SPC-4), data compression (0x1B, SSC-4;
//! IBM's and HP's LTO drives, and mhvtl, give the same parameters as
//! vendor page 0x32) and volume statistics (0x17, SSC-4). Each field is
//! `None` when the drive's page does not have it, or has it in a length
//! that is no number. Megabytes in these pages are 10^6 bytes; a product
//! that would overflow is `None`.

use serde::{Deserialize, Serialize};

use crate::tape::scsi::pages::log_page::LogPage;

/// The write error counter page.
pub const WRITE_ERRORS: u8 = 0x02;
/// The read error counter page.
pub const READ_ERRORS: u8 = 0x03;
/// The volume statistics page.
pub const VOLUME_STATISTICS: u8 = 0x17;
/// The data compression page (SSC-4).
pub const COMPRESSION: u8 = 0x1b;
/// The data compression page, vendor-specific (IBM, HP, mhvtl), with
/// the same parameters as 0x1B.
pub const VENDOR_COMPRESSION: u8 = 0x32;

const MEGABYTE: u64 = 1_000_000;

/// A write (0x02) or read (0x03) error counter page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCounters {
    /// Errors corrected without substantial delay (parameter 0000h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_fast: Option<u64>,
    /// Errors corrected with possible delays (0001h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_delayed: Option<u64>,
    /// Total rewrites (write) or rereads (read) (0002h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Total errors corrected (0003h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<u64>,
    /// Total times the correction algorithm ran (0004h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm_runs: Option<u64>,
    /// Total bytes processed (0005h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Total uncorrected errors (0006h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrected: Option<u64>,
}

/// The data compression page (0x1B).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compression {
    /// Read compression ratio times 100 (0000h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_ratio_percent: Option<u64>,
    /// Write compression ratio times 100 (0001h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ratio_percent: Option<u64>,
    /// Bytes the host wrote (0006h MB and 0007h bytes, combined).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_written_bytes: Option<u64>,
    /// Bytes the drive wrote to the medium (0008h and 0009h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_written_bytes: Option<u64>,
    /// Bytes the host read (0002h and 0003h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_read_bytes: Option<u64>,
    /// Bytes the drive read from the medium (0004h and 0005h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_read_bytes: Option<u64>,
}

/// The volume statistics page (0x17): the cartridge's life, as the drive
/// keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeStatistics {
    /// Times the volume was mounted (0001h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mounts: Option<u64>,
    /// Data sets written (0002h) and read (0007h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasets_written: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasets_read: Option<u64>,
    /// Recovered (0003h) and unrecovered (0004h) write errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered_write_errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecovered_write_errors: Option<u64>,
    /// Recovered (0008h) and unrecovered (0009h) read errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered_read_errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecovered_read_errors: Option<u64>,
    /// Lifetime megabytes written (0010h) and read (0011h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_written_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_read_bytes: Option<u64>,
    /// Total native capacity (0016h) and used native capacity (0017h),
    /// in bytes; `None` for mhvtl's placeholder (FFFFFFFEh, no cartridge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_capacity_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_native_capacity_bytes: Option<u64>,
}

impl ErrorCounters {
    /// The counters in a reply for page `code` (0x02 or 0x03); None when
    /// the reply is not that page.
    pub fn parse(reply: &[u8], code: u8) -> Option<ErrorCounters> {
        let page = LogPage::parse(reply, code)?;
        Some(ErrorCounters {
            corrected_fast: page.number(0x0000),
            corrected_delayed: page.number(0x0001),
            retries: page.number(0x0002),
            corrected: page.number(0x0003),
            algorithm_runs: page.number(0x0004),
            bytes: page.number(0x0005),
            uncorrected: page.number(0x0006),
        })
    }

    /// What was counted between `earlier` and `self`, field by field; a
    /// field either lacks is None, and a counter that went down (the
    /// drive reset it, as LTO drives do at a load) counts from 0.
    pub fn since(&self, earlier: &ErrorCounters) -> ErrorCounters {
        let d = |now: Option<u64>, then: Option<u64>| match (now, then) {
            (Some(n), Some(t)) if n >= t => Some(n - t),
            (Some(n), Some(_)) => Some(n),
            _ => None,
        };
        ErrorCounters {
            corrected_fast: d(self.corrected_fast, earlier.corrected_fast),
            corrected_delayed: d(self.corrected_delayed, earlier.corrected_delayed),
            retries: d(self.retries, earlier.retries),
            corrected: d(self.corrected, earlier.corrected),
            algorithm_runs: d(self.algorithm_runs, earlier.algorithm_runs),
            bytes: d(self.bytes, earlier.bytes),
            uncorrected: d(self.uncorrected, earlier.uncorrected),
        }
    }
}

impl Compression {
    /// The counters in a reply for page 0x1B or 0x32; None for another
    /// page. Each byte count is a megabytes parameter and a bytes
    /// parameter after it, added (SSC-4 gives the bytes as a signed
    /// difference from the megabytes; a total below zero is `None`).
    pub fn parse(reply: &[u8]) -> Option<Compression> {
        let page = LogPage::parse(reply, COMPRESSION)
            .or_else(|| LogPage::parse(reply, VENDOR_COMPRESSION))?;
        let bytes = |mb: u16| {
            let total = i128::from(page.number(mb)?) * i128::from(MEGABYTE)
                + i128::from(page.signed(mb + 1)?);
            u64::try_from(total).ok()
        };
        Some(Compression {
            read_ratio_percent: page.number(0x0000),
            write_ratio_percent: page.number(0x0001),
            host_read_bytes: bytes(0x0002),
            medium_read_bytes: bytes(0x0004),
            host_written_bytes: bytes(0x0006),
            medium_written_bytes: bytes(0x0008),
        })
    }
}

impl VolumeStatistics {
    /// The statistics in a reply for page 0x17; None for another page.
    pub fn parse(reply: &[u8]) -> Option<VolumeStatistics> {
        let page = LogPage::parse(reply, VOLUME_STATISTICS)?;
        let megabytes = |code: u16| page.number(code)?.checked_mul(MEGABYTE);
        let capacity = |code: u16| match page.value(code)? {
            [0xff, 0xff, 0xff, 0xfe | 0xff] => None,
            _ => megabytes(code),
        };
        Some(VolumeStatistics {
            mounts: page.number(0x0001),
            datasets_written: page.number(0x0002),
            recovered_write_errors: page.number(0x0003),
            unrecovered_write_errors: page.number(0x0004),
            datasets_read: page.number(0x0007),
            recovered_read_errors: page.number(0x0008),
            unrecovered_read_errors: page.number(0x0009),
            lifetime_written_bytes: megabytes(0x0010),
            lifetime_read_bytes: megabytes(0x0011),
            native_capacity_bytes: capacity(0x0016),
            used_native_capacity_bytes: capacity(0x0017),
        })
    }
}

#[cfg(test)]
#[path = "pages_tests.rs"]
mod tests;
