//! A drive that asks to be cleaned: with `--clean` the library's cleaning
//! cartridge goes through it between volumes, without MTOFFL; without, a
//! warning and no move.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::common::{pattern, sha256};
use super::{backup, data, slots, Lab, DRIVE};
use tapebuf::tape::drive::cleaning::{CleanedBy, CleaningWatch};
use tapebuf::tape::emulated::changer::Tape;
use tapebuf::tape::emulated::Cartridge;
use tapebuf::tape::Drive;

fn lab() -> Lab {
    let cleaning = Cartridge {
        cleaning: true,
        ..Cartridge::default()
    };
    Lab::new(vec![
        data("E01001L6"),
        data("E01002L6"),
        data("E01003L6"),
        Some(Tape::tagged("CLN009L1").holding(cleaning)),
    ])
}

type Warnings = Arc<Mutex<Vec<String>>>;

/// Wraps the drive in a cleaning watch whose warnings go to `warnings`.
fn watched(warnings: &Warnings, by_changer: bool) -> impl FnOnce(Box<dyn Drive>) -> Box<dyn Drive> {
    let warnings = Arc::clone(warnings);
    move |drive| {
        let by = match by_changer {
            true => CleanedBy::Library,
            false => CleanedBy::Person,
        };
        Box::new(CleaningWatch::cleaned_by(
            drive,
            Box::new(move |line: &str| warnings.lock().unwrap().push(line.to_string())),
            by,
        ))
    }
}

#[test]
fn with_clean_the_cleaning_cartridge_goes_through_the_drive_between_volumes() {
    let lab = lab();
    {
        let mut drive = lab.shelf.lock().unwrap();
        drive.clean_after_bytes = Some(300_000);
        drive.cleaning_takes = Some(Duration::from_millis(50));
    }
    let loader = lab.loader(slots("1-3"), true, Duration::from_secs(5));
    let warnings = Warnings::default();
    let input = pattern(2_500_000, 41);
    let summary = backup(&lab, &loader, &input, watched(&warnings, true)).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let on_tapes: Vec<u8> = ["E01001L6", "E01002L6", "E01003L6"]
        .iter()
        .flat_map(|b| lab.data_on(b))
        .collect();
    assert_eq!(sha256(&on_tapes), sha256(&input));
    let cleanings = loader.cleanings();
    assert_eq!(cleanings.len(), 1, "one cycle a run: {cleanings:?}");
    assert_eq!(cleanings[0].barcode.as_deref(), Some("CLN009L1"));
    assert_eq!(cleanings[0].before_volume, 2);
    assert_eq!(cleanings[0].error, None);
    let cln: Vec<String> = loader
        .moves()
        .iter()
        .filter(|m| m.barcode.as_deref() == Some("CLN009L1"))
        .map(|m| format!("{} -> {}", m.from, m.to))
        .collect();
    assert_eq!(cln, vec!["slot 4 -> drive 1", "drive 1 -> slot 4"]);
    // The drive cleaned and ejected the cartridge itself: no MTOFFL.
    let log = lab.shelf.lock().unwrap().log.clone();
    let loaded = log.iter().position(|l| l == "changer load 1").unwrap();
    assert_eq!(
        &log[loaded + 1..loaded + 3],
        ["cleaned", "changer unload 1"],
        "{log:?}"
    );
    assert_eq!(warnings.lock().unwrap().len(), 1);
    assert!(warnings.lock().unwrap()[0].contains("--clean"));
    let (slots, _) = lab.barcodes();
    assert_eq!(slots[3].as_deref(), Some("CLN009L1"));
}

#[test]
fn a_tapealert_request_with_a_drive_that_never_finishes_ends_by_the_limit() {
    let lab = lab();
    lab.shelf.lock().unwrap().tape_alerts.insert(20);
    let loader = lab.loader(slots("1-3"), true, Duration::from_secs(5));
    let input = pattern(500_000, 42);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let cleanings = loader.cleanings();
    assert_eq!(cleanings.len(), 1);
    assert_eq!(cleanings[0].before_volume, 1);
    assert!(cleanings[0].seconds >= 0.3, "{cleanings:?}");
    let first: Vec<String> = loader
        .moves()
        .iter()
        .take(3)
        .map(|m| format!("{} -> {}", m.from, m.to))
        .collect();
    assert_eq!(
        first,
        vec![
            "slot 4 -> drive 1",
            "drive 1 -> slot 4",
            "slot 1 -> drive 1"
        ]
    );
    assert!(!lab.shelf.lock().unwrap().log.iter().any(|l| l == "unload"));
    assert_eq!(lab.data_on("E01001L6"), input);
    let (slots, drives) = lab.barcodes();
    assert_eq!(slots[3].as_deref(), Some("CLN009L1"));
    assert_eq!(drives[DRIVE.index].as_deref(), Some("E01001L6"));
}

#[test]
fn a_cleaning_ends_when_the_drive_stops_reporting_the_cleaning_cartridge() {
    let lab = lab();
    {
        let mut shelf = lab.shelf.lock().unwrap();
        shelf.tape_alerts.insert(20);
        shelf.cleaning_reported_for = Some(Duration::from_millis(100));
    }
    let loader = lab
        .builder(slots("1-3"), true, Duration::from_secs(5))
        .timing(Duration::from_millis(10), Duration::from_secs(20))
        .build();
    let input = pattern(500_000, 44);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let cleanings = loader.cleanings();
    assert_eq!(cleanings.len(), 1);
    assert_eq!(cleanings[0].error, None);
    assert!(cleanings[0].seconds >= 0.1, "{cleanings:?}");
    assert!(
        cleanings[0].seconds < 10.0,
        "ended by the limit: {cleanings:?}"
    );
    assert_eq!(lab.data_on("E01001L6"), input);
    let (slots, _) = lab.barcodes();
    assert_eq!(slots[3].as_deref(), Some("CLN009L1"));
}

#[test]
fn without_clean_a_cleaning_request_is_warned_of_and_nothing_moves_for_it() {
    let lab = lab();
    lab.shelf.lock().unwrap().clean_after_bytes = Some(300_000);
    let loader = lab.loader(slots("1-3"), false, Duration::from_secs(5));
    let warnings = Warnings::default();
    let input = pattern(2_500_000, 43);
    let summary = backup(&lab, &loader, &input, watched(&warnings, false)).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    assert!(loader.cleanings().is_empty());
    assert!(!loader
        .moves()
        .iter()
        .any(|m| m.barcode.as_deref() == Some("CLN009L1")));
    let warnings = warnings.lock().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("load a cleaning cartridge before the next run"),
        "{warnings:?}"
    );
}

#[test]
fn with_clean_and_no_cleaning_cartridge_the_run_goes_on_and_says_why() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6")]);
    lab.shelf.lock().unwrap().needs_cleaning = true;
    let loader = lab.loader(slots("1-2"), true, Duration::from_secs(5));
    let input = pattern(500_000, 44);
    assert!(backup(&lab, &loader, &input, |d| d).unwrap().is_clean());
    let cleanings = loader.cleanings();
    assert_eq!(cleanings.len(), 1);
    assert_eq!(
        cleanings[0].error.as_deref(),
        Some("the library holds no cleaning cartridge in a slot")
    );
    assert_eq!(lab.data_on("E01001L6"), input);
}

#[test]
fn a_cleaning_ends_when_the_drive_reports_itself_empty_if_the_library_does_not_show_it() {
    let lab = lab();
    lab.robot.lock().unwrap().shows_drive_access = false;
    {
        let mut drive = lab.shelf.lock().unwrap();
        drive.needs_cleaning = true;
        drive.cleaning_takes = Some(Duration::from_millis(50));
    }
    let loader = lab
        .builder(slots("1-3"), true, Duration::from_secs(5))
        .quiet(false)
        .build();
    let input = pattern(300_000, 45);
    assert!(backup(&lab, &loader, &input, |d| d).unwrap().is_clean());
    let cleanings = loader.cleanings();
    assert_eq!(cleanings.len(), 1);
    assert!(
        cleanings[0].seconds < 0.3,
        "before the limit: {cleanings:?}"
    );
    let heard = lab.heard.lock().unwrap();
    assert!(
        heard
            .iter()
            .any(|l| l.ends_with("(the drive reports it ejected it)")),
        "{heard:?}"
    );
}
