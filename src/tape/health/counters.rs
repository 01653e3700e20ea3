//! The drive's counters, from its log pages: write and read error
//! counters (pages 0x02 and 0x03, SPC-4), data compression (0x1B, SSC-4)
//! and volume statistics (0x17, SSC-4). Each field is `None` when the
//! drive's page does not have it.

use serde::{Deserialize, Serialize};

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
    /// Lifetime megabytes written (0012h) and read (0013h), in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_written_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_read_bytes: Option<u64>,
    /// Total native capacity (0018h) and used native capacity (0019h),
    /// in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_capacity_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_native_capacity_bytes: Option<u64>,
}

impl ErrorCounters {
    /// The counters in a page 0x02 or 0x03 reply (contract stub).
    pub fn parse(reply: &[u8], code: u8) -> Option<ErrorCounters> {
        let _ = (reply, code);
        None
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
    /// The page 0x1B reply's counters (contract stub).
    pub fn parse(reply: &[u8]) -> Option<Compression> {
        let _ = reply;
        None
    }
}

impl VolumeStatistics {
    /// The page 0x17 reply's statistics (contract stub).
    pub fn parse(reply: &[u8]) -> Option<VolumeStatistics> {
        let _ = reply;
        None
    }
}
