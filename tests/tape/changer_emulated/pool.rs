//! The pool passes over what it must not write, and waits for the
//! operator when nothing usable is left.

use std::time::{Duration, Instant};

use super::common::{pattern, sha256};
use super::{backup, data, placed, slots, Lab};
use tapebuf::tape::changer::{ElementAddress, ElementKind, MediumChanger, MediumType};
use tapebuf::tape::emulated::changer::{EmulatedChanger, Tape};
use tapebuf::tape::emulated::Cartridge;
use tapebuf::tape::loader::Wanting;
use tapebuf::tape::Access;
use tapebuf::volume::VolumeLog;

#[test]
fn the_pool_skips_cleaning_worm_write_protected_and_wrong_generation_cartridges() {
    let protected = Cartridge {
        write_protected: true,
        ..Cartridge::blank(1 << 20, 200 << 10)
    };
    let cleaning = Cartridge {
        cleaning: true,
        ..Cartridge::default()
    };
    let lab = Lab::new(vec![
        Some(Tape::tagged("CLN009L1").holding(cleaning)),
        Some(Tape::tagged("W00001LW")),
        Some(Tape::tagged("E01003L6").holding(protected)),
        Some(Tape::tagged("E00004L3")),
        Some(Tape::tagged("X00005").of_type(MediumType::Worm)),
        data("E01006L6"),
        data("E01007L6"),
        data("E01008L6"),
    ]);
    let loader = lab.loader(slots("1-8"), false, Duration::from_secs(5));
    let input = pattern(2_500_000, 33);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let used = placed(&loader);
    assert_eq!(used, vec!["E01006L6", "E01007L6", "E01008L6"]);
    let on_tapes: Vec<u8> = used.iter().flat_map(|b| lab.data_on(b)).collect();
    assert_eq!(sha256(&on_tapes), sha256(&input));
    // Only the write-protected one was tried (its protection shows only
    // once loaded), and it went back to its slot.
    let tried: Vec<String> = loader
        .moves()
        .iter()
        .filter_map(|m| m.barcode.clone())
        .collect();
    assert_eq!(
        tried.iter().filter(|b| *b == "E01003L6").count(),
        2,
        "{tried:?}"
    );
    assert!(!tried
        .iter()
        .any(|b| ["CLN009L1", "W00001LW", "E00004L3", "X00005"].contains(&b.as_str())));
    let (slots, _) = lab.barcodes();
    assert_eq!(slots[2].as_deref(), Some("E01003L6"));
}

#[test]
fn a_pool_that_runs_out_takes_a_cartridge_put_into_the_import_export_slot() {
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6"), None]);
    let loader = lab.loader(slots("1-2"), false, Duration::from_secs(10));
    let robot = lab.robot.clone();
    let operator = std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(20));
        let mut r = robot.lock().unwrap();
        if r.log.iter().any(|l| l == "drive 1 -> slot 2") {
            r.hand_in(0, data("E01009L6").unwrap());
            return;
        }
    });
    let input = pattern(2_500_000, 34);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    operator.join().unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let last = loader.placements().pop().unwrap();
    assert_eq!(last.barcode.as_deref(), Some("E01009L6"));
    assert_eq!(last.slot, Some(3), "its home is the first empty slot");
    let on_tapes: Vec<u8> = ["E01001L6", "E01002L6", "E01009L6"]
        .iter()
        .flat_map(|b| lab.data_on(b))
        .collect();
    assert_eq!(sha256(&on_tapes), sha256(&input));
}

#[test]
fn a_cartridge_handed_in_is_taken_only_once_the_import_export_door_is_closed() {
    let lab = Lab::new(vec![data("E01001L6"), None]);
    let loader = lab.loader(slots("1"), false, Duration::from_secs(10));
    let robot = lab.robot.clone();
    let watching = loader.clone();
    let operator = std::thread::spawn(move || {
        // The operator opens the door and puts a cartridge in once the
        // pool's only cartridge went home.
        let handed = loop {
            std::thread::sleep(Duration::from_millis(20));
            let mut r = robot.lock().unwrap();
            if r.log.iter().any(|l| l == "drive 1 -> slot 1") {
                r.door_open = true;
                r.hand_in(0, data("E01009L6").unwrap());
                break r.log.len();
            }
        };
        // The loader looks (reads the inventory) while the door is open,
        // and must not try to move the cartridge out.
        std::thread::sleep(Duration::from_millis(300));
        let mut r = robot.lock().unwrap();
        assert_eq!(r.log.len(), handed, "a move while the door was open");
        r.door_open = false;
        drop(r);
        assert!(watching.moves().iter().all(|m| m.error.is_none()));
    });
    let input = pattern(1_500_000, 35);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    operator.join().unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let last = loader.placements().pop().unwrap();
    assert_eq!(last.barcode.as_deref(), Some("E01009L6"));
    assert!(loader.moves().iter().all(|m| m.error.is_none()));
    let on_tapes: Vec<u8> = ["E01001L6", "E01009L6"]
        .iter()
        .flat_map(|b| lab.data_on(b))
        .collect();
    assert_eq!(sha256(&on_tapes), sha256(&input));
}

#[test]
fn a_move_through_an_open_import_export_door_fails_with_the_sense_in_words() {
    let mut lab = EmulatedChanger::new(1, vec![None], 1);
    lab.hand_in(0, Tape::tagged("E01009L6"));
    lab.door_open = true;
    let e = lab
        .move_medium(ElementAddress::portal(0), ElementAddress::slot(0))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "moving import/export slot 1 to slot 1: not ready: the import/export door is open (sense 02/3A/02)"
    );
    assert!(!lab.elements(ElementKind::Portal).unwrap()[0].access);
}

#[test]
fn a_pool_that_runs_out_fails_the_change_at_the_change_timeout() {
    let lab = Lab::new(vec![Some(Tape::tagged("CLN001L1")), None]);
    let loader = lab.loader(slots("1-2"), false, Duration::from_millis(300));
    let want = Wanting {
        access: Access::Write,
        volume: 1,
        refused: None,
    };
    let started = Instant::now();
    let log = VolumeLog::new("/dev/nst0");
    let e = loader
        .change(&want, None, &crossbeam_channel::never(), &|n| {
            log.set_note(n)
        })
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        e.to_string(),
        "/dev/nst0: no usable cartridge for volume 1 came within 0.3s (--change-timeout)"
    );
    assert!(loader.moves().is_empty() && loader.placements().is_empty());
    assert_eq!(
        *lab.heard.lock().unwrap(),
        vec![
            "tapebuf: /dev/nst0: no usable cartridge is left in slots 1-2; put one into \
             import/export slot 1, or into a pool slot, within 0.3s (--change-timeout)"
        ]
    );

    let lab = Lab::new(vec![data("E01001L6")]);
    let loader = lab.loader(slots("1"), false, Duration::from_millis(200));
    let summary = backup(&lab, &loader, &pattern(1_500_000, 35), |d| d).unwrap();
    assert!(!summary.is_clean(), "{}", summary.line());
    assert_eq!(loader.placements().len(), 1);
}

#[test]
fn a_drive_of_unknown_generation_refuses_a_wrong_cartridge_which_is_then_marked() {
    let incompatible = Cartridge {
        incompatible: true,
        ..Cartridge::blank(1 << 20, 200 << 10)
    };
    let lab = Lab::new(vec![
        Some(Tape::tagged("E00004L3").holding(incompatible)),
        data("E01001L6"),
        data("E01002L6"),
        data("E01003L6"),
    ]);
    lab.robot.lock().unwrap().drives[1].identifier = Some("SERIAL-B".into());
    let loader = lab.loader(slots("1-4"), false, Duration::from_secs(5));
    let input = pattern(2_500_000, 36);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    let used = placed(&loader);
    assert_eq!(used, vec!["E01001L6", "E01002L6", "E01003L6"]);
    let tried = loader
        .moves()
        .iter()
        .filter(|m| m.barcode.as_deref() == Some("E00004L3"))
        .count();
    assert_eq!(tried, 2, "loaded once, refused, taken home, never again");
}

#[test]
fn each_move_is_said_and_each_skipped_cartridge_once() {
    let lab = Lab::new(vec![
        Some(Tape::tagged("CLN009L1")),
        data("E01002L6"),
        data("E01003L6"),
    ]);
    let loader = lab
        .builder(slots("1-3"), false, Duration::from_secs(5))
        .quiet(false)
        .build();
    let summary = backup(&lab, &loader, &pattern(1_500_000, 37), |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(
        *lab.heard.lock().unwrap(),
        vec![
            "tapebuf: /dev/nst0: skipping slot 1 (CLN009L1): a cleaning cartridge",
            "tapebuf: /dev/nst0: loading E01002L6 from slot 2 into drive 1 for volume 1",
            "tapebuf: /dev/nst0: returning E01002L6 from drive 1 to slot 2",
            "tapebuf: /dev/nst0: loading E01003L6 from slot 3 into drive 1 for volume 2",
        ]
    );
}
