//! The stats file's records written and read back: what each carries,
//! and that files from before a field was added still read.

use super::*;
use crate::observe::summary::Summary;
use crate::pace::{Mode, PaceReport, Stall};
use crate::pipeline::stats::Snapshot;

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
        dips_ended_s: None,
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
        dips_ended_s: None,
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
        dips_ended_s: None,
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
