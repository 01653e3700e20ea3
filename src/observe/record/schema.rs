//! The stats file's name and version, which its first record, `start`,
//! carries with the run's settings; and the one rounding of seconds every
//! record uses.

use serde::{Deserialize, Serialize};

/// The `schema` field of a stats file's `start` record.
pub const SCHEMA: &str = "tapebuf-stats";
/// Bumped when a field changes meaning or goes away; new fields may appear
/// without a bump, and readers ignore fields they do not know.
pub const SCHEMA_VERSION: u32 = 1;

/// The run's settings, first in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Start {
    pub schema: String,
    pub version: u32,
    /// The tapebuf version that wrote the file.
    pub tapebuf: String,
    pub block_bytes: u64,
    /// The ring's size (-m), in bytes.
    pub ring_bytes: u64,
    /// The high watermark in force (-P, or its default for the outputs).
    pub high_pct: u8,
    pub low_pct: u8,
    /// The stream's total when known (--size, or -i on a regular file).
    pub total_bytes: Option<u64>,
    pub interval_s: f64,
    /// `--pace` was on: samples may carry a `pace_bps`. False in files
    /// from before pacing.
    #[serde(default)]
    pub pacing: bool,
    /// An output is a tape, local or remote: an underrun stopped a drive.
    /// Absent (None) in files from before; `tapebuf report` then names an
    /// underrun for what it was on any output, a wait of the writer.
    #[serde(default)]
    pub tape_output: Option<bool>,
}

/// Seconds rounded to the millisecond, as every record gives them.
pub(super) fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
