//! The pool: parsing `--slots` and `--barcodes`, the glob matcher, and
//! the next candidate with the cartridges it passes over and why.

use std::collections::{HashMap, HashSet};

use super::*;
use crate::tape::drive::Access;
use crate::tape::emulated::changer::{EmulatedChanger, Tape};
use crate::tape::loader::pool::{glob, Judge, Key};

#[test]
fn slots_are_parsed_one_based_in_order_without_repeats() {
    assert_eq!(
        Pool::parse_slots("1-4,7").unwrap(),
        Pool::Slots(vec![0, 1, 2, 3, 6])
    );
    assert_eq!(
        Pool::parse_slots(" 3 , 1-2,2").unwrap(),
        Pool::Slots(vec![2, 0, 1])
    );
    assert_eq!(
        Pool::parse_slots("1-4,7").unwrap().describe(),
        "slots 1-4,7"
    );
}

#[test]
fn bad_slot_lists_are_refused_naming_the_text() {
    let e = Pool::parse_slots("0-3").unwrap_err();
    assert!(
        e.contains("\"0-3\"") && e.contains("numbered from 1"),
        "{e}"
    );
    let e = Pool::parse_slots("4-2").unwrap_err();
    assert!(e.contains("\"4-2\" is a range that runs backwards"), "{e}");
    let e = Pool::parse_slots("1,x").unwrap_err();
    assert!(
        e.starts_with("--slots \"1,x\": \"x\" is not a slot number"),
        "{e}"
    );
    assert!(Pool::parse_slots("1,,2").is_err());
    assert!(Pool::parse_slots("").is_err());
    assert!(Pool::parse_slots("99999999").is_err());
}

#[test]
fn barcode_globs_match_with_star_and_question_mark() {
    assert!(glob("E010*", "E01001L6"));
    assert!(glob("E011??L6", "E01199L6"));
    assert!(!glob("E011??L6", "E0119L6"));
    assert!(glob("*L6", "E01001L6"));
    assert!(glob("E*1*L6", "E01001L6"));
    assert!(!glob("E010*", "F01001L6"));
    assert!(glob("*", ""));
    assert!(!glob("?", ""));
    let pool = Pool::parse_barcodes("E010*, E011??L6").unwrap();
    assert_eq!(pool.describe(), "barcodes E010*,E011??L6");
    let e = Pool::parse_barcodes("E01*,,F").unwrap_err();
    assert!(e.contains("\"E01*,,F\""), "{e}");
}

/// Slots: a WORM, a cleaning, a data L3, an empty, two data L6.
fn library() -> Inventory {
    let mut changer = EmulatedChanger::new(
        1,
        vec![
            Some(Tape::tagged("W00001LW")),
            Some(Tape::tagged("CLN009L1")),
            Some(Tape::tagged("E00003L3")),
            None,
            Some(Tape::tagged("E01005L6")),
            Some(Tape::tagged("E01006L6")),
        ],
        1,
    );
    changer.drives[0].identifier = Some("IBM     ULT3580-TD6     SERIAL01".into());
    Inventory::read(&mut changer).unwrap()
}

#[test]
fn the_next_candidate_skips_cleaning_worm_wrong_generation_and_marked_cartridges() {
    let inventory = library();
    let mut refused = HashMap::new();
    refused.insert(Key::Barcode("E01005L6".into()), "is write-protected".into());
    let used = HashSet::new();
    let judge = Judge {
        access: Access::Write,
        generation: Some(6),
        refused: &refused,
        used: &used,
    };
    let mut skipped = Vec::new();
    let pool = Pool::parse_slots("1-6").unwrap();
    let next = pool
        .next(
            &inventory,
            ElementAddress::drive(0),
            &judge,
            &mut |e, home, why| {
                skipped.push(format!(
                    "{home} {}: {why}",
                    e.barcode.as_deref().unwrap_or("-")
                ))
            },
        )
        .unwrap();
    assert_eq!(next.barcode.as_deref(), Some("E01006L6"));
    assert_eq!(next.from, ElementAddress::slot(5));
    assert_eq!(
        skipped,
        vec![
            "slot 1 W00001LW: a WORM cartridge, written once and never again",
            "slot 2 CLN009L1: a cleaning cartridge",
            "slot 3 E00003L3: an LTO-3 cartridge, which an LTO-6 drive cannot write",
            "slot 5 E01005L6: refused earlier in this run (it is write-protected)",
        ]
    );
}

#[test]
fn an_unknown_drive_generation_skips_nothing_by_generation() {
    let inventory = library();
    let (refused, used) = (HashMap::new(), HashSet::new());
    let judge = Judge {
        access: Access::Read,
        generation: None,
        refused: &refused,
        used: &used,
    };
    let pool = Pool::parse_barcodes("W*,E*").unwrap();
    let next = pool.next(
        &inventory,
        ElementAddress::drive(0),
        &judge,
        &mut |_, _, _| {},
    );
    // Reading: a WORM cartridge is fine.
    assert_eq!(next.unwrap().barcode.as_deref(), Some("W00001LW"));
    let pool = Pool::parse_barcodes("E0000*").unwrap();
    let next = pool.next(
        &inventory,
        ElementAddress::drive(0),
        &judge,
        &mut |_, _, _| {},
    );
    assert_eq!(next.unwrap().barcode.as_deref(), Some("E00003L3"));
}
