//! Drives that ask to be cleaned, against the emulated drive through the
//! real pipeline: the warning is given once per run across volumes, also
//! when the request is raised during the run, and never for a clean drive.

use std::sync::{Arc, Mutex};

use super::common::{pattern, sha256};
use tapebuf::observe::summary::Summary;
use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::FdSource;
use tapebuf::tape::drive::cleaning::{CleanedBy, CleaningWatch};
use tapebuf::tape::emulated::{Cartridge, Emulated, Shelf};
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 64 * 1024;

/// Writes `data` through the pipeline to an emulated drive set up by
/// `setup`, with tapebuf's cleaning watch; returns the warnings given.
fn write_watched(
    data: &[u8],
    cartridges: Vec<Cartridge>,
    setup: impl FnOnce(&Shelf),
) -> (Summary, Shelf, Vec<String>) {
    let (drive, shelf) = Emulated::new("/dev/nst0", cartridges);
    setup(&shelf);
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let sink_warnings = Arc::clone(&warnings);
    let watched = CleaningWatch::new(
        Box::new(drive),
        Box::new(move |line: &str| sink_warnings.lock().unwrap().push(line.to_string())),
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
    (summary, shelf, warnings)
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
fn a_drive_asking_for_cleaning_is_warned_of_once_per_run_across_volumes() {
    let data = pattern(2_000_000, 7);
    let (summary, shelf, warnings) = write_watched(&data, blanks(3), |s| {
        s.lock().unwrap().needs_cleaning = true
    });
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&on_tapes(&shelf)), sha256(&data));
    let used = shelf
        .lock()
        .unwrap()
        .slots
        .iter()
        .filter(|c| !c.items.is_empty())
        .count();
    assert!(used >= 2, "the run should span volumes, used {used}");
    assert_eq!(
        warnings,
        vec![
            "tapebuf: /dev/nst0: warning: the drive reports that it needs cleaning \
             (at the start of volume 1); load a cleaning cartridge before the next run, \
             since a dirty head gives read and write errors"
                .to_string()
        ]
    );
}

#[test]
fn a_cleaning_request_raised_during_the_run_is_warned_of_at_its_end() {
    let data = pattern(500_000, 8);
    let (summary, shelf, warnings) = write_watched(&data, blanks(1), |s| {
        s.lock().unwrap().clean_after_bytes = Some(200_000)
    });
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&on_tapes(&shelf)), sha256(&data));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("needs cleaning (at the end of volume 1)"),
        "{warnings:?}"
    );
}

#[test]
fn a_clean_drive_gets_no_warning() {
    let data = pattern(300_000, 9);
    let (summary, _, warnings) = write_watched(&data, blanks(1), |_| {});
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn in_a_library_run_without_clean_the_warning_names_clean() {
    let (drive, shelf) = Emulated::new("/dev/nst0", blanks(1));
    shelf.lock().unwrap().needs_cleaning = true;
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&warnings);
    let _watched = CleaningWatch::cleaned_by(
        Box::new(drive),
        Box::new(move |line: &str| seen.lock().unwrap().push(line.to_string())),
        CleanedBy::PersonInLibrary,
    );
    // The first look was at the start; a second never repeats it.
    let warnings = warnings.lock().unwrap().clone();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].ends_with(
            "(at the start of volume 1); give --clean to let the library clean it between \
             volumes, or load a cleaning cartridge before the next run, since a dirty head gives \
             read and write errors"
        ),
        "{}",
        warnings[0]
    );
}
