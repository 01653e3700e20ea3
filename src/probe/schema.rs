//! The probe's results as `tapebuf probe --json` writes them and
//! `tapebuf report` reads them: one compact JSON object on one line, so
//! that `report` can tell it from a `--stats` file by the first line's
//! `schema` field. Readers ignore fields they do not know; a field that
//! changes meaning or goes away bumps `SCHEMA_VERSION`. Rates are in bytes
//! per second, times in seconds, sizes in bytes.

use serde::{Deserialize, Serialize};

use crate::cli::probe::DataArg;

/// The `schema` field of a probe file.
pub const SCHEMA: &str = "tapebuf-probe";
/// The version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResults {
    pub schema: String,
    pub version: u32,
    /// The tapebuf version that ran the probe.
    pub tapebuf: String,
    /// The target as the user named it.
    pub target: String,
    pub target_kind: TargetKind,
    pub data: DataKind,
    /// Bytes written, and read back, per run at each size.
    pub stream_bytes: u64,
    /// Runs per size.
    pub runs: u32,
    /// O_DIRECT was used (files only).
    pub direct: bool,
    /// One entry per block size, ascending.
    pub results: Vec<SizeResult>,
    pub recommend: Recommendation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Tape,
    Remote,
    File,
    /// A directory, probed through a file the probe made in it.
    Directory,
    Device,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataKind {
    Zeros,
    Random,
    Mix,
}

/// `--data` as the sweep's test data.
impl From<DataArg> for DataKind {
    fn from(d: DataArg) -> DataKind {
        match d {
            DataArg::Zeros => DataKind::Zeros,
            DataArg::Random => DataKind::Random,
            DataArg::Mix => DataKind::Mix,
        }
    }
}

/// Everything measured at one block size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    pub block_bytes: u64,
    pub write: Measured,
    pub read: Measured,
    /// Every byte read back matched what was written, in every run.
    pub verified: bool,
    /// Why the drive or its controller refused this size (EBUSY, EINVAL or
    /// EOVERFLOW at the first block), which was then skipped: it is not
    /// verified and has no rates. Absent for a size that was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// One direction at one block size, over all runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Each run's rate over the whole pass, start-up included.
    pub rates_bytes_per_s: Vec<f64>,
    pub median_bytes_per_s: f64,
    pub min_bytes_per_s: f64,
    pub max_bytes_per_s: f64,
    /// 100 x (max - min) / median.
    pub spread_pct: f64,
    /// The fixed cost of a pass, from the differential method (median).
    pub startup_s: f64,
    /// The rate once streaming, from the differential method (median).
    pub stream_rate_bytes_per_s: f64,
}

/// The sizes recommended, and why, in one line each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub write_block_bytes: u64,
    pub read_block_bytes: u64,
    pub write_why: String,
    pub read_why: String,
}
