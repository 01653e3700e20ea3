//! The `sample` record: the counters at one moment of the run, and the
//! rates since the sample before, written at a fixed interval.

use serde::{Deserialize, Serialize};

use super::schema::round_ms;
use crate::pipeline::stats::Snapshot;

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
    /// The pace the writer held at the tick, in bytes per second: null
    /// when it did not pace or wrote at full speed (a burst, a full ring).
    /// Absent in files from before pacing, read as null.
    #[serde(default)]
    pub pace_bps: Option<u64>,
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
            pace_bps: now.pace_bps,
        }
    }
}
