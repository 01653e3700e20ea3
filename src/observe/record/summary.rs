//! The `summary` record that ends a run that finished (`--summary-json`
//! writes the same object): the summary line's facts, the details the
//! line leaves out, the ring that ran, and how pacing went (`pace.rs`).

use serde::{Deserialize, Serialize};

use super::pace::PaceSummary;
use super::schema::{round_ms, SCHEMA, SCHEMA_VERSION};
use crate::net::facts::LinkFacts;
use crate::observe::drive_health::DriveHealth;
use crate::observe::summary::Summary;
use crate::pace::PaceReport;

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
    /// How pacing went; null when `--pace` was off. Absent in files from
    /// before pacing. Boxed to keep `Record` small.
    #[serde(default)]
    pub pace: Option<Box<PaceSummary>>,
    /// Which ring ran. Absent in files from before the zero-copy ring.
    #[serde(default)]
    pub ring: Option<Box<RingSummary>>,
    /// The facts the short summary line leaves out, as fields of this
    /// same object (boxed to keep `Record` small).
    #[serde(flatten)]
    pub detail: Box<SummaryDetail>,
    /// The summary line, exactly as printed.
    pub line: String,
}

/// More of the summary's fields: what the line gives only for a tape,
/// with `--verbose` or after a failure. Each is absent in files from
/// before it was added, and reads as false, 0, null or empty.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SummaryDetail {
    /// Some output was a tape drive, local or remote, where each underrun
    /// was a stop.
    #[serde(default)]
    pub tape_output: bool,
    /// Bytes read that did not reach every output still alive.
    #[serde(default)]
    pub uncommitted_bytes: u64,
    /// Zeros `--pad` added after the last byte.
    #[serde(default)]
    pub pad_bytes: u64,
    /// What the input taught: a tape's record sizes, a missing trailer.
    #[serde(default)]
    pub input_note: Option<String>,
    /// For an input read as volumes: whether a trailer (or a manifest)
    /// proved where the stream ends; absent for any other input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounded: Option<bool>,
    /// Why nothing proved where the input's stream ends, when `bounded`
    /// is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbounded_because: Option<String>,
    /// The bytes on each volume of every input and output that spans
    /// volumes, the input first.
    #[serde(default)]
    pub volume_bytes: Vec<VolumeBytes>,
    /// What each local tape drive said of its health: cartridges,
    /// TapeAlert flags, errors, compression; absent without one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drive_health: Vec<DriveHealth>,
    /// Every network stream, the input's first: its end, peer, and how
    /// private it was (`net::facts`); absent when there was none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network: Vec<LinkFacts>,
    /// `--catalog`: the catalog file, its format and members, or why
    /// there is none; absent without `--catalog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<crate::manifest::CatalogRef>,
}

/// One entry of the summary's `volume_bytes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VolumeBytes {
    /// "-i NAME" or "-o NAME", as on the command line.
    pub endpoint: String,
    /// Each volume's bytes, from volume 1.
    pub bytes: Vec<u64>,
    /// Each volume's cartridge barcode (null when it had none), when a
    /// tape library loaded them; absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub barcodes: Vec<Option<String>>,
    /// Each volume's home slot in the library, from 1, beside `barcodes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<Option<usize>>,
    /// The cleanings the library made between this endpoint's volumes,
    /// in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cleanings: Vec<String>,
    /// A local tape's logical block protection: its method ("CRC32C",
    /// "RS-CRC"), or "off"; absent for other media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbp: Option<String>,
    /// Why a local tape had none ("--no-lbp", "the drive does not offer
    /// it").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbp_off_because: Option<String>,
    /// A local tape the drive encrypted (or decrypted, reading): the
    /// fingerprint of the key of the last volume ("tapebuf:…").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption_key: Option<String>,
    /// Set when that key was in the drive before the run (another
    /// program's, or a killed run's), not from `--encrypt-key` or
    /// `--key-dir`: what the key names ("key tapebuf:…", "a key it does
    /// not name").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption_key_left: Option<String>,
}

/// The summary's `ring` object: the zero-copy ring or the copying one,
/// why, the kernel pipe memory the zero-copy ring held, and the time the
/// ring spent near full and near empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RingSummary {
    /// "zero-copy" or "copying".
    pub kind: String,
    /// Why the copying ring ran, a clause that reads after "because";
    /// null for the zero-copy ring.
    pub why: Option<String>,
    /// The zero-copy ring's pipes, the fan-out's included; 0 for the
    /// copying ring. Absent in files from before, read as 0.
    #[serde(default)]
    pub pipes: u64,
    /// The zero-copy ring's pipes, in bytes of kernel memory; 0 for the
    /// copying ring, whose memory is the process's own.
    pub pipe_bytes: u64,
    /// The most bytes the ring held at once (whole blocks).
    pub peak_held_bytes: u64,
    /// Seconds the ring held at least 90% of its blocks, from the
    /// writer's start to the input's end (`observe::ring_time`). Absent
    /// in files from before, read as null.
    #[serde(default)]
    pub near_full_s: Option<f64>,
    /// Seconds the ring held at most 10% of its blocks, over the same
    /// span. Absent in files from before, read as null.
    #[serde(default)]
    pub near_empty_s: Option<f64>,
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
            pace: None,
            ring: Some(Box::new(RingSummary {
                kind: match summary.ring.zero_copy {
                    true => "zero-copy",
                    false => "copying",
                }
                .to_string(),
                why: Some(summary.ring.why.clone()).filter(|w| !w.is_empty()),
                pipes: summary.ring.pipes as u64,
                pipe_bytes: summary.ring.pipe_bytes,
                peak_held_bytes: summary.peak_held_bytes,
                near_full_s: Some(round_ms(summary.near_full_s)),
                near_empty_s: Some(round_ms(summary.near_empty_s)),
            })),
            detail: Box::new(SummaryDetail {
                tape_output: summary.tape_output,
                uncommitted_bytes: summary.uncommitted_bytes(),
                pad_bytes: summary.pad_bytes,
                input_note: summary.input_note.clone(),
                bounded: summary.bounded().map(|b| b.is_ok()),
                unbounded_because: summary.bounded().and_then(Result::err),
                volume_bytes: (summary.volumes.iter())
                    .map(|v| VolumeBytes {
                        endpoint: v.endpoint.clone(),
                        bytes: v.bytes.clone(),
                        barcodes: v.cartridges.iter().map(|c| c.barcode.clone()).collect(),
                        slots: v.cartridges.iter().map(|c| c.slot).collect(),
                        cleanings: v.cleanings.clone(),
                        lbp: (v.protection.as_ref())
                            .map(|p| p.method.map_or("off", |m| m.name()).to_string()),
                        lbp_off_because: v.protection.as_ref().and_then(|p| p.why_none.clone()),
                        encryption_key: (v.protection.as_ref())
                            .and_then(|p| p.key.map(|k| k.to_string())),
                        encryption_key_left: (v.protection.as_ref())
                            .and_then(|p| p.key_left.clone()),
                    })
                    .collect(),
                drive_health: summary.drives.clone(),
                network: summary.links.clone(),
                catalog: summary.catalog.clone(),
            }),
            line: summary.line(),
        }
    }

    /// The record with how pacing went, from `Stats::pace_report`.
    pub fn with_pace(self, report: Option<&PaceReport>) -> SummaryRecord {
        SummaryRecord {
            pace: report.map(|r| Box::new(PaceSummary::new(r))),
            ..self
        }
    }
}
