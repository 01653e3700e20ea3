//! The `--stats` file's schema: one JSON object per line, told apart by its
//! `kind`. A `start` record comes first and names the schema and its
//! version; `sample` records follow at a fixed interval; a `summary` record
//! ends a run that finished (`--summary-json` writes the same object). The
//! man page's STATS FILE section documents every field; the names carry
//! their units. `tapebuf report` reads these same types back.
//!
//! Length: the whole schema, every record and field, is kept in one file
//! so that it reads as the one format it is.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::observe::drive_health::DriveHealth;
use crate::observe::summary::Summary;
use crate::pace::{Mode, PaceReport};
use crate::pipeline::stats::Snapshot;
use crate::tape::health::VolumeHealth;

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
    /// A tape library's robot moved a cartridge (`--changer`).
    Move(MoveEntry),
    /// What a local tape drive said of its health over one volume,
    /// written once the volume has ended.
    Health(HealthEntry),
    Summary(SummaryRecord),
}

/// One move of a tape library's robot, written when the stats thread
/// next wakes after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveEntry {
    /// "-i NAME" or "-o NAME": the endpoint whose volume change moved it.
    pub endpoint: String,
    /// When the move began, UTC, ISO 8601.
    pub started: String,
    /// "slot 2", "drive 0", "import/export slot 1", as mtx numbers them.
    pub from: String,
    pub to: String,
    pub barcode: Option<String>,
    pub seconds: f64,
    /// Why the move failed; null when it succeeded.
    pub error: Option<String>,
}

/// One volume's drive health: the endpoint, and what `VolumeHealth` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthEntry {
    /// "-i NAME" or "-o NAME".
    pub endpoint: String,
    #[serde(flatten)]
    pub health: VolumeHealth,
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

/// What the pacing controller was doing at the end of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaceMode {
    /// The top rate was never learned: bursts, as with watermarks alone.
    Learning,
    Pacing,
    /// Pacing was turned off after the drive stopped while paced.
    Bursts,
}

/// The stall that turned pacing off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PaceStall {
    /// Seconds since the ring started.
    pub at_s: f64,
    /// Seconds the write that showed the stall was held.
    pub held_s: f64,
    /// The pace the writer held then, in bytes per second.
    pub pace_bps: f64,
}

/// The summary's `pace` object: the range paced in and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaceSummary {
    /// The lowest pace, given (`--pace MIN`) or derived; null if unknown.
    pub floor_bps: Option<f64>,
    /// The highest pace, given (`--pace MIN:MAX`) or learned; null if the
    /// output never pushed back long enough to learn it.
    pub top_bps: Option<f64>,
    /// `top_bps` was measured, not given.
    pub top_learned: bool,
    /// The output took half the ring at once while the top was being
    /// learned, so the input was passed on as it came. Absent in files
    /// from before, read as false.
    #[serde(default)]
    pub swallowed: bool,
    pub mode: PaceMode,
    pub stall: Option<PaceStall>,
    /// The share of time, from 0 to 1, once the floor was known, in which
    /// the outputs were fed at the floor or faster.
    pub inside_share: Option<f64>,
    /// The writer's full-speed episodes while pacing, by reason
    /// (`FullSpeedWhy::key`: "ring_full", "learning", "bursts"), each
    /// reason always present. Absent in files from before, read as empty.
    #[serde(default)]
    pub full_speed: BTreeMap<String, FullSpeedCount>,
}

/// How often the writer went at full speed for one reason, and for how
/// long in all.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FullSpeedCount {
    pub times: u64,
    pub seconds: f64,
}

impl PaceSummary {
    pub fn new(report: &PaceReport) -> PaceSummary {
        PaceSummary {
            floor_bps: report.floor_bps.map(f64::round),
            top_bps: report.top_bps.map(f64::round),
            top_learned: report.top_learned,
            swallowed: report.swallowed,
            mode: match report.mode {
                Mode::Learning => PaceMode::Learning,
                Mode::Pacing => PaceMode::Pacing,
                Mode::Bursts => PaceMode::Bursts,
            },
            stall: report.stall.map(|s| PaceStall {
                at_s: round_ms(s.at_s),
                held_s: round_ms(s.held_s),
                pace_bps: s.pace.round(),
            }),
            inside_share: report.inside_share.map(|x| (x * 1000.0).round() / 1000.0),
            full_speed: (report.full_speed.each().iter())
                .map(|(why, t)| {
                    let count = FullSpeedCount {
                        times: t.times,
                        seconds: round_ms(t.seconds),
                    };
                    (why.key().to_string(), count)
                })
                .collect(),
        }
    }
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
                    })
                    .collect(),
                drive_health: summary.drives.clone(),
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

fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pace::Stall;

    fn snapshot(pace_bps: Option<u64>) -> Snapshot {
        Snapshot {
            seconds: 2.0,
            read_bytes: 4_000_000,
            written_bytes: 3_000_000,
            pace_bps,
            ..Snapshot::default()
        }
    }

    fn round_trip(record: &Record) -> (serde_json::Value, Record) {
        let line = serde_json::to_string(record).unwrap();
        let back: Record = serde_json::from_str(&line).unwrap();
        (serde_json::from_str(&line).unwrap(), back)
    }

    #[test]
    fn a_sample_carries_the_writers_pace_target_or_null_and_reads_back_the_same() {
        let paced = Record::Sample(Sample::from_snapshots(&snapshot(Some(25_000_000)), None));
        let (json, back) = round_trip(&paced);
        assert_eq!(json["pace_bps"], 25_000_000);
        assert_eq!(json["out_rate_bytes_per_s"], 1_500_000.0);
        assert_eq!(back, paced);

        let unpaced = Record::Sample(Sample::from_snapshots(&snapshot(None), None));
        let (json, back) = round_trip(&unpaced);
        assert!(json["pace_bps"].is_null(), "{json}");
        assert!(json.as_object().unwrap().contains_key("pace_bps"), "{json}");
        assert_eq!(back, unpaced);
    }

    #[test]
    fn records_written_before_pacing_read_as_a_run_that_did_not_pace() {
        let start = r#"{"kind":"start","schema":"tapebuf-stats","version":1,"tapebuf":"0.1.0","block_bytes":4096,"ring_bytes":65536,"high_pct":50,"low_pct":100,"total_bytes":null,"interval_s":1.0}"#;
        let sample = r#"{"kind":"sample","t_s":1.0,"in_bytes":10,"out_bytes":5,"fill_pct":0.0,"in_rate_bytes_per_s":10.0,"out_rate_bytes_per_s":5.0,"underruns":0,"overruns":0,"writer":"streaming","waiting_s":0.0,"volume":1}"#;
        let summary = r#"{"kind":"summary","schema":"tapebuf-stats","version":1,"t_s":1.0,"in_bytes":10,"out_bytes":10,"rate_bytes_per_s":10.0,"underruns":0,"overruns":0,"waiting_s":0.0,"volumes":1,"clean":true,"interrupted_by":null,"input_error":null,"failed_outputs":[],"stalled":null,"line":"tapebuf: summary: ..."}"#;
        match serde_json::from_str::<Record>(start).unwrap() {
            Record::Start(s) => assert!(!s.pacing && s.tape_output.is_none()),
            other => panic!("{other:?}"),
        }
        match serde_json::from_str::<Record>(sample).unwrap() {
            Record::Sample(s) => {
                assert_eq!(s.pace_bps, None);
                assert_eq!(s.out_bytes, 5);
            }
            other => panic!("{other:?}"),
        }
        match serde_json::from_str::<Record>(summary).unwrap() {
            Record::Summary(s) => {
                assert_eq!(s.pace, None);
                assert_eq!(s.in_bytes, 10);
                assert_eq!(*s.detail, SummaryDetail::default());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_summarys_detail_sits_beside_its_other_fields_and_reads_back_the_same() {
        let mut summary = Summary::collect(&crate::pipeline::stats::Stats::new(4, 1), None, None);
        summary.input_note = Some("tape records of 10240 bytes".into());
        summary.volumes.push(crate::observe::summary::VolumeList {
            endpoint: "-o /dev/nst0".into(),
            bytes: vec![10, 20],
            cartridges: vec![
                crate::observe::summary::Cartridge {
                    barcode: Some("E01001L6".into()),
                    slot: Some(1),
                },
                crate::observe::summary::Cartridge::default(),
            ],
            cleanings: vec!["drive cleaned with CLN009L1 before volume 2 (30 s)".into()],
            ..Default::default()
        });
        let record = Record::Summary(SummaryRecord::new(&summary));
        let (json, back) = round_trip(&record);
        assert_eq!(json["input_note"], "tape records of 10240 bytes");
        assert_eq!(json["volume_bytes"][0]["bytes"][1], 20);
        assert_eq!(json["volume_bytes"][0]["barcodes"][0], "E01001L6");
        assert_eq!(
            json["volume_bytes"][0]["barcodes"][1],
            serde_json::Value::Null
        );
        assert_eq!(json["volume_bytes"][0]["slots"][0], 1);
        assert_eq!(
            json["volume_bytes"][0]["cleanings"][0],
            "drive cleaned with CLN009L1 before volume 2 (30 s)"
        );
        assert_eq!(json["uncommitted_bytes"], 0);
        assert!(json.get("detail").is_none(), "{json}");
        assert_eq!(back, record);
    }

    #[test]
    fn the_start_record_says_whether_the_run_paced_and_wrote_to_a_tape() {
        let start = Record::Start(Start {
            schema: SCHEMA.into(),
            version: SCHEMA_VERSION,
            tapebuf: "0.1.0".into(),
            block_bytes: 262_144,
            ring_bytes: 1 << 26,
            high_pct: 90,
            low_pct: 100,
            total_bytes: None,
            interval_s: 1.0,
            pacing: true,
            tape_output: Some(true),
        });
        let (json, back) = round_trip(&start);
        assert_eq!(json["pacing"], true);
        assert_eq!(json["tape_output"], true);
        assert_eq!(back, start);
    }

    #[test]
    fn the_summarys_pace_object_names_the_mode_the_range_and_the_stall() {
        let report = PaceReport {
            floor_bps: Some(20_000_000.4),
            top_bps: Some(80_000_000.0),
            top_learned: true,
            swallowed: false,
            mode: Mode::Bursts,
            stall: Some(Stall {
                at_s: 12.3456,
                held_s: 0.5004,
                pace: 21_000_000.2,
            }),
            inside_share: Some(0.87654),
            full_speed: Default::default(),
        };
        let json = serde_json::to_value(PaceSummary::new(&report)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "floor_bps": 20_000_000.0,
                "top_bps": 80_000_000.0,
                "top_learned": true,
                "swallowed": false,
                "mode": "bursts",
                "stall": {"at_s": 12.346, "held_s": 0.5, "pace_bps": 21_000_000.0},
                "inside_share": 0.877,
                "full_speed": {
                    "ring_full": {"times": 0, "seconds": 0.0},
                    "learning": {"times": 0, "seconds": 0.0},
                    "bursts": {"times": 0, "seconds": 0.0},
                },
            })
        );
        let learning = PaceReport {
            floor_bps: None,
            top_bps: None,
            top_learned: false,
            swallowed: false,
            mode: Mode::Learning,
            stall: None,
            inside_share: None,
            full_speed: Default::default(),
        };
        let json = serde_json::to_value(PaceSummary::new(&learning)).unwrap();
        assert_eq!(json["mode"], "learning");
        assert!(
            json["stall"].is_null() && json["top_bps"].is_null(),
            "{json}"
        );
        let back: PaceSummary = serde_json::from_value(json).unwrap();
        assert_eq!(back, PaceSummary::new(&learning));
    }

    #[test]
    fn the_pace_object_counts_full_speed_by_reason_and_old_files_read_without_it() {
        let mut report = PaceReport {
            floor_bps: Some(20e6),
            top_bps: Some(80e6),
            top_learned: false,
            swallowed: false,
            mode: Mode::Pacing,
            stall: None,
            inside_share: None,
            full_speed: Default::default(),
        };
        report.full_speed.ring_full = crate::pace::FullSpeedTally {
            times: 3,
            seconds: 2.12345,
        };
        let json = serde_json::to_value(PaceSummary::new(&report)).unwrap();
        assert_eq!(json["full_speed"]["ring_full"]["times"], 3);
        assert_eq!(json["full_speed"]["ring_full"]["seconds"], 2.123);
        assert_eq!(json["full_speed"]["bursts"]["times"], 0);
        let old = r#"{"floor_bps":1.0,"top_bps":2.0,"top_learned":false,"mode":"pacing","stall":null,"inside_share":null}"#;
        let back: PaceSummary = serde_json::from_str(old).unwrap();
        assert!(back.full_speed.is_empty());
    }

    #[test]
    fn the_ring_object_gives_the_time_near_full_and_near_empty_or_null_in_old_files() {
        let mut summary = Summary::collect(&crate::pipeline::stats::Stats::new(4, 1), None, None);
        summary.near_full_s = 1.23456;
        summary.near_empty_s = 0.5;
        let (json, back) = round_trip(&Record::Summary(SummaryRecord::new(&summary)));
        assert_eq!(json["ring"]["near_full_s"], 1.235);
        assert_eq!(json["ring"]["near_empty_s"], 0.5);
        assert_eq!(back, Record::Summary(SummaryRecord::new(&summary)));
        let old = r#"{"kind":"zero-copy","why":null,"pipe_bytes":0,"peak_held_bytes":0}"#;
        let ring: RingSummary = serde_json::from_str(old).unwrap();
        assert_eq!((ring.near_full_s, ring.near_empty_s), (None, None));
    }
}
