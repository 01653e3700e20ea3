//! A robot that fails a move, and a stop while a move is under way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::common::pattern;
use super::{backup, data, slots, Lab, DRIVE};
use tapebuf::tape::changer::ElementAddress;
use tapebuf::tape::emulated::changer::MoveFailure;
use tapebuf::tape::loader::{Wanted, Wanting};
use tapebuf::tape::Access;
use tapebuf::tape::Drive;
use tapebuf::volume::VolumeLog;

#[test]
fn a_load_the_robot_refuses_marks_that_cartridge_and_the_pool_goes_on() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6"), data("E01003L6")]);
    lab.robot.lock().unwrap().failures.push(MoveFailure {
        from: Some(ElementAddress::slot(1)),
        to: Some(DRIVE),
    });
    let loader = lab.loader(slots("1-3"), false, Duration::from_secs(5));
    let input = pattern(1_500_000, 51);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let placed: Vec<Option<String>> = loader.placements().into_iter().map(|p| p.barcode).collect();
    assert_eq!(
        placed,
        vec![Some("E01001L6".to_string()), Some("E01003L6".to_string())]
    );
    let failed: Vec<_> = loader
        .moves()
        .into_iter()
        .filter(|m| m.error.is_some())
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(
        (failed[0].from, failed[0].to),
        (ElementAddress::slot(1), DRIVE)
    );
    let error = failed[0].error.clone().unwrap();
    assert!(
        error.contains("manual intervention required (sense 04/03)"),
        "{error}"
    );
    // The refused cartridge never left its slot, volume 1 went home, and
    // the last volume's cartridge is still in the drive.
    let (slots, drives) = lab.barcodes();
    assert_eq!(slots[0].as_deref(), Some("E01001L6"));
    assert_eq!(slots[1].as_deref(), Some("E01002L6"));
    assert_eq!(slots[2], None);
    assert_eq!(drives, vec![None, Some("E01003L6".to_string())]);
    let mut written = lab.data_on("E01001L6");
    written.extend(lab.data_on("E01003L6"));
    assert_eq!(written, input);
}

#[test]
fn a_load_the_robot_refuses_with_no_other_cartridge_fails_the_change_and_is_recorded() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6")]);
    lab.robot.lock().unwrap().failures.push(MoveFailure {
        from: Some(ElementAddress::slot(1)),
        to: Some(DRIVE),
    });
    let loader = lab.loader(slots("1-2"), false, Duration::from_secs(1));
    let summary = backup(&lab, &loader, &pattern(1_500_000, 51), |d| d).unwrap();
    assert!(!summary.is_clean(), "{}", summary.line());
    assert_eq!(loader.placements().len(), 1);
    let failed = loader
        .moves()
        .into_iter()
        .find(|m| m.error.is_some())
        .unwrap();
    assert_eq!((failed.from, failed.to), (ElementAddress::slot(1), DRIVE));
    // Volume 1 went home; the refused cartridge is still in its slot.
    let (slots, drives) = lab.barcodes();
    assert_eq!(slots[0].as_deref(), Some("E01001L6"));
    assert_eq!(slots[1].as_deref(), Some("E01002L6"));
    assert_eq!(drives, vec![None, None]);
}

#[test]
fn a_stop_during_a_move_lets_it_finish_and_record_before_it_is_obeyed() {
    let lab = Lab::new(vec![data("E01001L6")]);
    lab.robot.lock().unwrap().move_delay = Duration::from_millis(400);
    let loader = lab.loader(slots("1"), false, Duration::from_secs(5));
    let (stop_tx, stop) = crossbeam_channel::bounded::<()>(0);
    let changing = loader.clone();
    let log = VolumeLog::new("/dev/nst0");
    log.set_changing(true);
    let status = Arc::clone(&log);
    let started = Instant::now();
    let change = std::thread::spawn(move || {
        let want = Wanting {
            access: Access::Write,
            volume: 1,
            refused: None,
        };
        changing.change(&want, None, &stop, &|n| log.set_note(n))
    });
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        status.change_note().as_deref(),
        Some("moving E01001L6 slot 1 → drive 1"),
        "the status line shows the move"
    );
    drop(stop_tx);
    let e = change.join().unwrap().unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert!(
        e.is_stop(),
        "a stop is told from a failure by its type: {e}"
    );
    assert_eq!(
        e.to_string(),
        "/dev/nst0: stopped after E01001L6 was loaded into drive 1"
    );
    let moves = loader.moves();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].error, None);
    assert!(moves[0].seconds >= 0.39, "{moves:?}");
    assert!(loader.placements().is_empty(), "no volume went on it");
    let (_, drives) = lab.barcodes();
    assert_eq!(drives[DRIVE.index].as_deref(), Some("E01001L6"));
}

#[test]
fn a_refused_cartridge_wanted_by_barcode_fails_the_change_with_no_other_to_take() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6")]);
    let loader = lab.loader(
        Wanted::Barcodes(vec!["E01002L6".into()]),
        false,
        Duration::from_secs(5),
    );
    let never = crossbeam_channel::never();
    let log = VolumeLog::new("/dev/nst0");
    let mut want = Wanting {
        access: Access::Read,
        volume: 1,
        refused: None,
    };
    loader
        .change(&want, None, &never, &|n| log.set_note(n))
        .unwrap();
    assert_eq!(loader.placements().len(), 1);
    // load.rs ejects a refused cartridge before it asks again.
    let mut drive = lab.drive(Access::Read);
    drive.eject_unopened().unwrap();
    want.refused = Some("was refused by the drive (EIO)");
    let e = loader
        .change(&want, Some(&mut drive), &never, &|n| log.set_note(n))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/dev/nst0: E01002L6, the cartridge of volume 1, was refused by the drive (EIO), \
         and no other cartridge holds volume 1"
    );
    assert!(
        loader.placements().is_empty(),
        "the placement is taken back"
    );
    let (slots, drives) = lab.barcodes();
    assert_eq!(slots[1].as_deref(), Some("E01002L6"), "it went home");
    assert_eq!(drives, vec![None, None]);
}

#[test]
fn a_move_out_of_the_drive_that_fails_once_is_tried_again_a_little_later() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6")]);
    lab.robot.lock().unwrap().failures.push(MoveFailure {
        from: Some(DRIVE),
        to: Some(ElementAddress::slot(0)),
    });
    let loader = lab.loader(slots("1-2"), false, Duration::from_secs(5));
    let summary = backup(&lab, &loader, &pattern(1_500_000, 52), |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let moves: Vec<(String, bool)> = loader
        .moves()
        .iter()
        .map(|m| (format!("{} -> {}", m.from, m.to), m.error.is_none()))
        .collect();
    let done = |s: &str, ok| (s.to_string(), ok);
    assert_eq!(
        moves,
        vec![
            done("slot 1 -> drive 1", true),
            done("drive 1 -> slot 1", false),
            done("drive 1 -> slot 1", true),
            done("slot 2 -> drive 1", true),
        ]
    );
}
