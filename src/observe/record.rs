//! The `--stats` file's schema: one JSON object per line, told apart by its
//! `kind`. A `start` record comes first and names the schema and its
//! version; `sample` records follow at a fixed interval; a `summary` record
//! ends a run that finished (`--summary-json` writes the same object). The
//! man page's STATS FILE section documents every field; the names carry
//! their units. `tapebuf report` reads these same types back.

use serde::{Deserialize, Serialize};

use crate::stats::Snapshot;
use crate::summary::Summary;

/// The `schema` field of a stats file's `start` record.
pub const SCHEMA: &str = "tapebuf-stats";
/// Bumped when a field changes meaning or goes away; new fields may appear
/// without a bump, and readers ignore fields they do not know.
pub const SCHEMA_VERSION: u32 = 1;

/// One line of the stats file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    Start(Start),
    Sample(Sample),
    Summary(SummaryRecord),
}

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
}

/// Whether the writer was writing or waiting for the ring to fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriterState {
    Streaming,
    Waiting,
}

/// The counters at one moment, and the rates since the previous sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Seconds since the ring started.
    pub t_s: f64,
    pub in_bytes: u64,
    pub out_bytes: u64,
    pub fill_pct: f64,
    pub in_rate_bytes_per_s: f64,
    pub out_rate_bytes_per_s: f64,
    pub underruns: u64,
    pub overruns: u64,
    pub writer: WriterState,
    /// Seconds the writer has waited so far, over finished waits.
    pub waiting_s: f64,
    /// The volume in use, from 1.
    pub volume: u32,
    /// The lowest and highest ring fill since the previous sample: an
    /// underrun between samples shows as a low of 0 even when `fill_pct`,
    /// taken at the tick, is high again. Absent in files from before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_min_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_max_pct: Option<f64>,
}

impl Sample {
    /// The sample for `now`, with rates over the time since `previous`.
    pub fn from_snapshots(now: &Snapshot, previous: Option<&Snapshot>) -> Sample {
        let (dt, din, dout) = match previous {
            Some(p) => (
                now.seconds - p.seconds,
                now.read_bytes.saturating_sub(p.read_bytes),
                now.written_bytes.saturating_sub(p.written_bytes),
            ),
            None => (now.seconds, now.read_bytes, now.written_bytes),
        };
        let per_s = |bytes: u64| if dt > 0.0 { bytes as f64 / dt } else { 0.0 };
        Sample {
            t_s: round_ms(now.seconds),
            in_bytes: now.read_bytes,
            out_bytes: now.written_bytes,
            fill_pct: (now.fill_pct * 10.0).round() / 10.0,
            in_rate_bytes_per_s: per_s(din).round(),
            out_rate_bytes_per_s: per_s(dout).round(),
            underruns: now.underruns,
            overruns: now.overruns,
            writer: if now.writer_waiting {
                WriterState::Waiting
            } else {
                WriterState::Streaming
            },
            waiting_s: round_ms(now.waiting_s),
            volume: now.volume,
            fill_min_pct: None,
            fill_max_pct: None,
        }
    }
}

/// The end of a run: the summary line's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRecord {
    pub schema: String,
    pub version: u32,
    pub t_s: f64,
    pub in_bytes: u64,
    pub out_bytes: u64,
    /// out_bytes over t_s.
    pub rate_bytes_per_s: f64,
    pub underruns: u64,
    pub overruns: u64,
    pub waiting_s: f64,
    /// Volumes used (1 when nothing spans volumes).
    pub volumes: u32,
    /// Every byte read reached every output and nothing failed.
    pub clean: bool,
    /// "SIGINT", "SIGTERM" or "SIGHUP" when a signal stopped the run.
    pub interrupted_by: Option<String>,
    pub input_error: Option<String>,
    pub failed_outputs: Vec<String>,
    pub stalled: Option<String>,
    /// The summary line, exactly as printed.
    pub line: String,
}

impl SummaryRecord {
    pub fn new(summary: &Summary) -> SummaryRecord {
        let s = &summary.snapshot;
        SummaryRecord {
            schema: SCHEMA.to_string(),
            version: SCHEMA_VERSION,
            t_s: round_ms(s.seconds),
            in_bytes: s.read_bytes,
            out_bytes: s.written_bytes,
            rate_bytes_per_s: if s.seconds > 0.0 {
                (s.written_bytes as f64 / s.seconds).round()
            } else {
                0.0
            },
            underruns: s.underruns,
            overruns: s.overruns,
            waiting_s: round_ms(s.waiting_s),
            volumes: s.volume,
            clean: summary.is_clean(),
            interrupted_by: summary.interrupted_by.map(str::to_string),
            input_error: summary.input_error.clone(),
            failed_outputs: summary.failed_outputs.clone(),
            stalled: summary.stalled.clone(),
            line: summary.line(),
        }
    }
}

fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
