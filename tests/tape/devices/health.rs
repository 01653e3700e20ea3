//! Drive health through the real pipeline against the emulated drive,
//! which answers INQUIRY, LOG SENSE and READ ATTRIBUTE as mhvtl does: the
//! flags raised in each volume, the cartridges' memory and the rewrites
//! reach the summary and its JSON; a critical flag is an alarm; a drive
//! without log pages, or one the kernel will not let tapebuf ask, never
//! fails the run; the cleaning watch still hears a request the health
//! watch read first; each volume goes into the drive's history.

use std::sync::{Arc, Mutex};

use super::common::{pattern, sha256};
use tapebuf::observe::record::SummaryRecord;
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::FdSource;
use tapebuf::tape::drive::cleaning::CleaningWatch;
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::tape::health::history::History;
use tapebuf::tape::health::{HealthLog, HealthWatch};
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 64 * 1024;
/// The record of a volume's trailer (`tape::trailer`), which the drive
/// writes as well.
const TRAILER: u64 = 512;

/// What a run left behind.
struct Run {
    summary: Summary,
    shelf: Shelf,
    warnings: Vec<String>,
}

/// Writes `data` to an emulated drive set up by `setup`, watched for its
/// health (history kept in `history`, if given) and for cleaning, as a
/// local tape output is.
fn write(
    data: &[u8],
    cartridges: Vec<Cartridge>,
    history: Option<&std::path::Path>,
    setup: impl FnOnce(&Shelf),
) -> Run {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    setup(&shelf);
    let log = HealthLog::new();
    let health = HealthWatch::new(Box::new(drive), log.clone(), true, history.map(Into::into));
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&warnings);
    let watched = CleaningWatch::new(
        Box::new(health),
        Box::new(move |line: &str| heard.lock().unwrap().push(line.to_string())),
    );
    let settings = VolumeSettings {
        policy: ChangePolicy {
            command: Some("true".into()),
            timeout: None,
            loader: None,
        },
        ..VolumeSettings::default()
    };
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(Box::new(watched))),
        "/dev/nst0",
        settings,
    );
    use tapebuf::sink::Sink;
    sink.traits().volumes.unwrap().attach_health(log);
    let params = Params {
        high_pct: Some(90),
        ..Params::ring(8, BLOCK)
    };
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), data).unwrap();
    let source = Box::new(FdSource::open(input.path()).unwrap());
    let running = Running::start(source, vec![Box::new(sink)], params).unwrap();
    let stats = Arc::clone(running.stats());
    assert!(running.wait(None));
    let summary = Summary::collect(&stats, None, None);
    let warnings = warnings.lock().unwrap().clone();
    Run {
        summary,
        shelf,
        warnings,
    }
}

/// `n` cartridges of 1 MiB with a 200 KiB early-warning zone.
fn blanks(n: usize) -> Vec<Cartridge> {
    vec![Cartridge::blank(1 << 20, 200 << 10); n]
}

fn on_tapes(shelf: &Shelf) -> Vec<u8> {
    let lib = shelf.lock().unwrap();
    lib.slots.iter().flat_map(|c| c.first_file()).collect()
}

#[test]
fn a_critical_flag_raised_during_volume_2_is_named_with_its_volume_and_is_an_alarm() {
    let data = pattern(2_000_000, 11);
    let run = write(&data, blanks(3), None, |s| {
        let mut lib = s.lock().unwrap();
        // Inside volume 2 (each cartridge takes 852480 bytes): flag 4,
        // "media".
        lib.alert_after_bytes = Some((1_200_000, 4));
        lib.scsi.retries_every = Some(4);
    });
    let summary = &run.summary;
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&on_tapes(&run.shelf)), sha256(&data));
    assert!(summary.drive_alert(), "{}", summary.line());
    let line = summary.line();
    assert!(
        line.contains("TapeAlert 4 \"media\" during volume 2"),
        "{line}"
    );
    assert!(
        line.contains("DRIVE ALERT -o /dev/nst0: TapeAlert 4 \"media\""),
        "{line}"
    );
    assert!(line.contains("of records rewritten"), "{line}");
    let drive = &summary.drives[0];
    assert_eq!(drive.drive.as_ref().unwrap().product, "ULT3580-TD6");
    assert!(
        drive.volumes[0].tape_alerts.is_empty(),
        "{:?}",
        drive.volumes[0]
    );
    let serials: Vec<_> = (drive.volumes.iter())
        .map(|v| v.cartridge.as_ref().and_then(|m| m.serial.clone()))
        .collect();
    assert_eq!(serials.len(), 3, "{serials:?}");
    assert!(serials.iter().all(Option::is_some), "{serials:?}");
    assert_ne!(serials[0], serials[1], "each cartridge its own serial");
    assert!(
        drive.volumes[2].tape_alerts.is_empty(),
        "{:?}",
        drive.volumes[2]
    );
    let bytes: u64 = drive.volumes.iter().map(|v| v.bytes).sum();
    assert_eq!(
        bytes,
        data.len() as u64 + 3 * TRAILER,
        "every record the drive wrote: the data and each volume's trailer"
    );
    assert!(drive.volumes.iter().all(|v| v.retries.unwrap_or(0) > 0));
    let json = serde_json::to_value(SummaryRecord::new(summary)).unwrap();
    assert_eq!(
        json["drive_health"][0]["volumes"][1]["tape_alerts"][0]["flag"],
        4
    );
    assert_eq!(json["drive_health"][0]["critical"][0]["name"], "media");
}

#[test]
fn a_warning_flag_is_named_but_is_no_alarm() {
    let data = pattern(300_000, 12);
    let run = write(&data, blanks(1), None, |s| {
        s.lock().unwrap().tape_alerts.insert(2)
    });
    let line = run.summary.line();
    assert!(
        line.contains("TapeAlert 2 \"write warning\" during volume 1"),
        "{line}"
    );
    assert!(!run.summary.drive_alert(), "{line}");
    assert!(!line.contains("DRIVE ALERT"), "{line}");
}

#[test]
fn a_drive_without_log_pages_still_gives_its_cartridges_memory_and_no_counters() {
    let data = pattern(300_000, 13);
    let run = write(&data, blanks(1), None, |s| {
        s.lock().unwrap().scsi.no_log_pages = true
    });
    let drive = &run.summary.drives[0];
    assert_eq!(drive.unreadable, None);
    assert!(drive.volumes[0].cartridge.is_some());
    assert_eq!(drive.volumes[0].retries, None);
    assert!(run.summary.is_clean() && !run.summary.drive_alert());
}

#[test]
fn a_drive_the_kernel_will_not_let_tapebuf_ask_is_said_once_and_the_run_succeeds() {
    let data = pattern(2_000_000, 14);
    let run = write(&data, blanks(3), None, |s| {
        s.lock().unwrap().scsi.refused = true
    });
    assert!(run.summary.is_clean(), "{}", run.summary.line());
    assert_eq!(sha256(&on_tapes(&run.shelf)), sha256(&data));
    let line = run.summary.line();
    assert_eq!(
        line.matches("drive health: not read: the kernel refused SG_IO")
            .count(),
        1,
        "{line}"
    );
    assert!(!run.summary.drive_alert());
}

#[test]
fn the_cleaning_watch_still_hears_a_request_the_health_watch_read_first() {
    let data = pattern(300_000, 15);
    let run = write(&data, blanks(1), None, |s| {
        s.lock().unwrap().tape_alerts.insert(20)
    });
    assert_eq!(run.warnings.len(), 1, "{:?}", run.warnings);
    assert!(
        run.warnings[0].contains("needs cleaning"),
        "{:?}",
        run.warnings
    );
    assert!(
        run.summary.drive_alert(),
        "clean now, unanswered, is critical"
    );
}

#[test]
fn each_volume_goes_into_the_drives_history_under_its_serial_number() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(2_000_000, 16);
    let run = write(&data, blanks(3), Some(dir.path()), |_| {});
    assert!(run.summary.is_clean(), "{}", run.summary.line());
    let serial = run.summary.drives[0]
        .drive
        .as_ref()
        .unwrap()
        .serial
        .clone()
        .unwrap();
    let history = History::load(dir.path(), &serial).unwrap();
    assert_eq!(history.volumes.len(), 3, "{history:?}");
    assert!(history.volumes.iter().all(|v| v.writing));
    assert_eq!(
        history.volumes.iter().map(|v| v.bytes).sum::<u64>(),
        data.len() as u64 + 3 * TRAILER
    );
    let full: Vec<bool> = history.volumes.iter().map(|v| v.full).collect();
    assert_eq!(
        full,
        [true, true, false],
        "the first two ended at the end of their cartridges"
    );
    assert_eq!(run.summary.drives[0].history_problem, None);
}

#[test]
fn a_full_cartridge_holding_well_below_the_drives_usual_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    // The drive's past: three full cartridges of this kind held 8 MB each.
    let serial = "1068000001";
    let mut history = History::load(dir.path(), serial).unwrap();
    let past = tapebuf::tape::health::history::VolumeFigures {
        when: 0,
        writing: true,
        bytes: 8_000_000,
        drive_seconds: 0.1,
        full: true,
        medium: Some("1048576 bytes native".into()),
    };
    history.append(&[past.clone(), past.clone(), past]).unwrap();
    let data = pattern(1_200_000, 17);
    let run = write(&data, blanks(2), Some(dir.path()), |_| {});
    assert!(run.summary.is_clean(), "{}", run.summary.line());
    let drive = &run.summary.drives[0];
    assert_eq!(
        drive.drive.as_ref().unwrap().serial.as_deref(),
        Some(serial)
    );
    assert_eq!(drive.volumes[0].degraded.len(), 1, "{:?}", drive.volumes[0]);
    assert!(
        drive.volumes[0].degraded[0].contains("well below"),
        "{:?}",
        drive.volumes[0]
    );
    assert!(
        drive.volumes[1].degraded.is_empty(),
        "volume 2 was not filled"
    );
    let line = run.summary.line();
    assert!(line.contains("volume 1: the cartridge held"), "{line}");
    assert!(
        !run.summary.drive_alert(),
        "a degraded drive is said, not an alarm"
    );
}

#[test]
fn a_write_runs_verify_reads_are_not_counted_as_the_volumes_figures() {
    let (drive, shelf) = Emulated::new("/dev/nst0", blanks(1));
    let log = HealthLog::new();
    let mut watched = HealthWatch::new(Box::new(drive), log.clone(), true, None);
    use tapebuf::tape::{Drive, TapeOp};
    for _ in 0..4 {
        assert_eq!(watched.write_record(&[7u8; 4096]).unwrap(), 4096);
    }
    watched.op(TapeOp::WriteFilemarks(1)).unwrap();
    watched.op(TapeOp::Rewind).unwrap();
    let mut back = vec![0u8; 4096];
    for _ in 0..4 {
        assert_eq!(watched.read_record(&mut back).unwrap(), 4096);
    }
    watched.close().unwrap();
    let v = log.volume(1).unwrap();
    assert_eq!((v.records, v.bytes), (4, 4 * 4096), "the writes alone");
    assert_eq!(shelf.lock().unwrap().slots[0].first_file().len(), 4 * 4096);
}
