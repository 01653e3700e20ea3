use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::library::lab;
use crate::library::schema::Medium;
use crate::tape::changer::{ElementAddress, MediumChanger, MediumType};
use crate::tape::emulated::changer::{EmulatedChanger, Tape};

fn nst(path: &str, serial: &str) -> TapeNode {
    TapeNode {
        path: PathBuf::from(path),
        serial: Some(serial.to_string()),
    }
}

#[test]
fn the_json_has_every_documented_field_with_nulls_where_unknown() {
    let mut changer = EmulatedChanger::new(1, vec![Some(Tape::tagged("E01001L6")), None], 1);
    changer.drives[0].identifier = Some(lab::IDENTIFIERS[0].to_string());
    changer
        .move_medium(ElementAddress::slot(0), ElementAddress::drive(0))
        .unwrap();
    let view = library_json(
        "/dev/sch0",
        &lab::inventory(changer),
        &[nst("/dev/nst1", "LABDRV01"), nst("/dev/nst0", "OTHER")],
    );
    let expected = json!({
        "schema": "tapebuf-library",
        "version": 1,
        "changer": "/dev/sch0",
        "transports": 1,
        "drives": [{
            "element": 0, "full": true, "barcode": "E01001L6", "medium": "data",
            "from_slot": 1, "exception": null,
            "identifier": "IBM     ULT3580-TD6     LABDRV01  ",
            "serial": "LABDRV01", "node": "/dev/nst1", "node_problem": null
        }],
        "slots": [
            {"slot": 1, "full": false, "barcode": null, "medium": null, "exception": null},
            {"slot": 2, "full": false, "barcode": null, "medium": null, "exception": null}
        ],
        "import_export": [{
            "slot": 1, "full": false, "barcode": null, "medium": null, "exception": null,
            "imported": false, "accessible": true
        }],
        "tape_nodes": [
            {"node": "/dev/nst1", "serial": "LABDRV01", "element": 0},
            {"node": "/dev/nst0", "serial": "OTHER", "element": null}
        ]
    });
    assert_eq!(serde_json::to_value(&view).unwrap(), expected);
}

#[test]
fn the_lab_library_shows_its_cleaning_and_worm_cartridges() {
    let view = library_json("/dev/sch0", &lab::inventory(lab::library()), &[]);
    let media: Vec<Option<Medium>> = view.slots.iter().map(|s| s.medium).collect();
    let mut expected = vec![Some(Medium::Data); 7];
    expected.extend([Some(Medium::Worm), Some(Medium::Cleaning), None, None, None]);
    assert_eq!(media, expected);
    assert_eq!(view.slots[8].barcode.as_deref(), Some("CLN009L1"));
    assert_eq!(view.slots.last().unwrap().slot, 12);
    assert_eq!(view.import_export.len(), 1);
    assert_eq!(view.drives.len(), 2);
}

#[test]
fn an_element_in_exception_says_why_in_words() {
    let mut changer = lab::library();
    changer.slots[2].exception = Some((0x3b, 0x12));
    changer.drives[1].exception = Some((0x04, 0x03));
    let view = library_json("/dev/sch0", &lab::inventory(changer), &[]);
    assert_eq!(
        view.slots[2].exception.as_deref(),
        Some("medium magazine removed (sense 3B/12)")
    );
    let drive = view.drives[1].exception.as_deref().unwrap();
    assert!(
        drive.starts_with("not ready: manual intervention required"),
        "{drive}"
    );
    assert_eq!(view.slots[0].exception, None);
}

#[test]
fn a_cartridge_without_a_label_is_full_with_no_barcode() {
    let mut unlabelled = Tape::unlabelled();
    unlabelled.medium_type = Some(MediumType::Cleaning);
    let changer = EmulatedChanger::new(0, vec![Some(Tape::unlabelled()), Some(unlabelled)], 0);
    let view = library_json("/dev/sch1", &lab::inventory(changer), &[]);
    assert!(view.slots[0].full);
    assert_eq!(view.slots[0].barcode, None);
    assert_eq!(view.slots[0].medium, Some(Medium::Unknown));
    assert_eq!(view.slots[1].medium, Some(Medium::Cleaning));
    assert!(view.drives.is_empty() && view.import_export.is_empty());
}

#[test]
fn odd_characters_in_a_barcode_survive_the_json_round_trip() {
    let mut tag = b"A\"B\\C\x01D \xffE".to_vec();
    tag.resize(36, b' ');
    let mut tape = Tape::tagged("");
    tape.volume_tag = tag;
    let changer = EmulatedChanger::new(0, vec![Some(tape)], 0);
    let view = library_json("/dev/sch0", &lab::inventory(changer), &[]);
    assert_eq!(view.slots[0].barcode.as_deref(), Some("A\"B\\C?D ?E"));
    let text = serde_json::to_string(&view).unwrap();
    assert_eq!(text.lines().count(), 1);
    let back: LibraryJson = serde_json::from_str(&text).unwrap();
    assert_eq!(back, view);
}

#[test]
fn a_cartridge_from_an_import_export_slot_has_no_from_slot() {
    let mut changer = lab::library();
    let mut handed = Tape::tagged("N00001L6");
    handed.import_export = true;
    changer.portals[0].tape = Some(handed);
    let view = library_json("/dev/sch0", &lab::inventory(changer.clone()), &[]);
    assert!(view.import_export[0].imported);
    assert_eq!(view.import_export[0].barcode.as_deref(), Some("N00001L6"));
    changer
        .move_medium(ElementAddress::portal(0), ElementAddress::drive(0))
        .unwrap();
    let view = library_json("/dev/sch0", &lab::inventory(changer), &[]);
    assert_eq!(view.drives[0].barcode.as_deref(), Some("N00001L6"));
    assert_eq!(view.drives[0].from_slot, None);
}
