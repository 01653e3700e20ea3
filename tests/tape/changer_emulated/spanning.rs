//! Backups across cartridges from a pool, and restores that find each
//! volume's cartridge by barcode wherever it is now.

use super::common::{pattern, sha256};
use super::{backup, data, placed, restore, slots, Lab, DRIVE};
use std::time::Duration;
use tapebuf::tape::changer::ElementAddress;
use tapebuf::tape::loader::{Placement, Wanted};

fn placement(volume: u32, barcode: &str, slot: usize) -> Placement {
    Placement {
        volume,
        barcode: Some(barcode.into()),
        slot: Some(slot),
    }
}

fn three_cartridges() -> Lab {
    Lab::new(vec![
        data("E01001L6"),
        data("E01002L6"),
        data("E01003L6"),
        None,
        None,
    ])
}

#[test]
fn a_backup_spans_three_cartridges_of_its_pool_recording_placements_and_moves() {
    let lab = three_cartridges();
    let loader = lab.loader(slots("1-3"), false, Duration::from_secs(5));
    let input = pattern(2_500_000, 31);
    let summary = backup(&lab, &loader, &input, |d| d).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(
        loader.placements(),
        vec![
            placement(1, "E01001L6", 1),
            placement(2, "E01002L6", 2),
            placement(3, "E01003L6", 3),
        ]
    );
    let on_tapes: Vec<u8> = ["E01001L6", "E01002L6", "E01003L6"]
        .iter()
        .flat_map(|b| lab.data_on(b))
        .collect();
    assert_eq!(sha256(&on_tapes), sha256(&input));
    let moves: Vec<(ElementAddress, ElementAddress, Option<String>)> = loader
        .moves()
        .into_iter()
        .map(|m| {
            assert!(m.error.is_none(), "{m:?}");
            (m.from, m.to, m.barcode)
        })
        .collect();
    let slot = ElementAddress::slot;
    let b = |s: &str| Some(s.to_string());
    assert_eq!(
        moves,
        vec![
            (slot(0), DRIVE, b("E01001L6")),
            (DRIVE, slot(0), b("E01001L6")),
            (slot(1), DRIVE, b("E01002L6")),
            (DRIVE, slot(1), b("E01002L6")),
            (slot(2), DRIVE, b("E01003L6")),
        ]
    );
    // The other drive was never touched.
    assert!(lab.other.lock().unwrap().slots.is_empty());
    let (_, drives) = lab.barcodes();
    assert_eq!(drives, vec![None, b("E01003L6")]);
}

#[test]
fn a_restore_finds_each_cartridge_by_barcode_after_they_were_shuffled() {
    let lab = three_cartridges();
    let writer = lab.loader(slots("1-3"), false, Duration::from_secs(5));
    let input = pattern(2_500_000, 32);
    assert!(backup(&lab, &writer, &input, |d| d).unwrap().is_clean());
    let barcodes: Vec<String> = placed(&writer);
    {
        // Volume 1 to slot 5, volume 2 to the import/export slot, volume 3
        // stays in the drive, ejected by nobody.
        use tapebuf::tape::changer::MediumChanger;
        let mut robot = lab.robot.clone();
        robot
            .move_medium(ElementAddress::slot(0), ElementAddress::slot(4))
            .unwrap();
        robot
            .move_medium(ElementAddress::slot(1), ElementAddress::portal(0))
            .unwrap();
    }
    let reader = lab.loader(Wanted::Barcodes(barcodes), false, Duration::from_secs(5));
    let (summary, back) = restore(&lab, &reader, 3).unwrap();
    assert!(summary.is_clean(), "{}", summary.line());
    assert_eq!(sha256(&back), sha256(&input));
    let froms: Vec<String> = reader
        .moves()
        .iter()
        .map(|m| format!("{} -> {}", m.from, m.to))
        .collect();
    assert_eq!(
        froms,
        vec![
            "drive 1 -> slot 3",
            "slot 5 -> drive 1",
            "drive 1 -> slot 5",
            "import/export slot 1 -> drive 1",
            "drive 1 -> slot 1",
            "slot 3 -> drive 1",
        ]
    );
    let volumes: Vec<(u32, Option<usize>)> = reader
        .placements()
        .iter()
        .map(|p| (p.volume, p.slot))
        .collect();
    assert_eq!(volumes, vec![(1, Some(5)), (2, Some(1)), (3, Some(3))]);
}

#[test]
fn the_pools_first_cartridge_already_in_the_drive_is_used_as_it_is() {
    use tapebuf::tape::changer::MediumChanger;
    let lab = three_cartridges();
    lab.robot
        .clone()
        .move_medium(ElementAddress::slot(0), DRIVE)
        .unwrap();
    let loader = lab.loader(slots("1-3"), false, Duration::from_secs(5));
    let input = pattern(500_000, 36);
    assert!(backup(&lab, &loader, &input, |d| d).unwrap().is_clean());
    assert!(loader.moves().is_empty(), "{:?}", loader.moves());
    assert_eq!(loader.placements(), vec![placement(1, "E01001L6", 1)]);
    assert_eq!(lab.data_on("E01001L6"), input);
}

#[test]
fn a_cartridge_from_outside_the_pool_in_the_drive_is_ejected_and_moved_home_first() {
    use tapebuf::tape::changer::MediumChanger;
    let lab = Lab::new(vec![data("E01001L6"), data("E01002L6"), data("F00003L6")]);
    lab.robot
        .clone()
        .move_medium(ElementAddress::slot(2), DRIVE)
        .unwrap();
    let loader = lab.loader(slots("1-2"), false, Duration::from_secs(5));
    let input = pattern(500_000, 37);
    assert!(backup(&lab, &loader, &input, |d| d).unwrap().is_clean());
    let moves: Vec<String> = loader
        .moves()
        .iter()
        .map(|m| format!("{} -> {}", m.from, m.to))
        .collect();
    assert_eq!(moves, vec!["drive 1 -> slot 3", "slot 1 -> drive 1"]);
    let log = lab.shelf.lock().unwrap().log.clone();
    let ejected = log.iter().position(|l| l == "unload").unwrap();
    let taken = log.iter().position(|l| l == "changer unload 0").unwrap();
    assert!(ejected < taken, "MTOFFL before the move: {log:?}");
    assert!(
        lab.data_on("F00003L6").is_empty(),
        "nothing written outside the pool"
    );
    assert_eq!(lab.data_on("E01001L6"), input);
}
