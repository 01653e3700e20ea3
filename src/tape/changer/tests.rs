//! The changer's decoding of the driver's raw fields, and the emulated
//! library's inventory and moves.

use super::chio;
use super::*;
use crate::tape::emulated::changer::{EmulatedChanger, Robot, Tape};

/// Two drives, a portal, and slots: two data cartridges, a cleaning one,
/// an empty slot.
fn library() -> EmulatedChanger {
    EmulatedChanger::new(
        2,
        vec![
            Some(Tape::tagged("E01001L6")),
            Some(Tape::tagged("E01002L6")),
            Some(Tape::tagged("CLN009L1")),
            None,
        ],
        1,
    )
}

fn barcodes(elements: &[Element]) -> Vec<Option<&str>> {
    elements.iter().map(|e| e.barcode.as_deref()).collect()
}

#[test]
fn the_inventory_counts_each_kind_and_shows_each_slot() {
    let mut changer = library();
    let params = changer.params().unwrap();
    assert_eq!(
        params,
        Params {
            transports: 1,
            slots: 4,
            portals: 1,
            drives: 2
        }
    );
    let slots = changer.elements(ElementKind::Slot).unwrap();
    assert_eq!(
        barcodes(&slots),
        vec![Some("E01001L6"), Some("E01002L6"), Some("CLN009L1"), None]
    );
    let full: Vec<bool> = slots.iter().map(|e| e.full).collect();
    assert_eq!(full, vec![true, true, true, false]);
    let indexes: Vec<usize> = slots.iter().map(|e| e.address.index).collect();
    assert_eq!(indexes, vec![0, 1, 2, 3]);
    let drives = changer.elements(ElementKind::Drive).unwrap();
    assert!(drives.iter().all(|d| !d.full && d.barcode.is_none()));
    assert_eq!(changer.elements(ElementKind::Portal).unwrap().len(), 1);
    assert_eq!(changer.elements(ElementKind::Transport).unwrap().len(), 1);
}

#[test]
fn a_move_takes_the_cartridge_to_the_drive_and_remembers_its_slot() {
    let mut changer = library();
    let (slot, drive) = (ElementAddress::slot(1), ElementAddress::drive(0));
    changer.move_medium(slot, drive).unwrap();
    let drives = changer.elements(ElementKind::Drive).unwrap();
    assert!(drives[0].full);
    assert_eq!(drives[0].barcode.as_deref(), Some("E01002L6"));
    assert_eq!(drives[0].source, Some(slot));
    assert!(!changer.elements(ElementKind::Slot).unwrap()[1].full);
    assert_eq!(changer.log, vec!["slot 2 -> drive 0"]);
}

#[test]
fn a_move_to_a_full_element_is_refused_and_moves_nothing() {
    let mut changer = library();
    let err = changer
        .move_medium(ElementAddress::slot(0), ElementAddress::slot(1))
        .unwrap_err();
    assert!(
        matches!(err, ChangerError::DestinationFull { to } if to == ElementAddress::slot(1)),
        "{err}"
    );
    assert_eq!(err.to_string(), "slot 2 is full");
    let slots = changer.elements(ElementKind::Slot).unwrap();
    assert_eq!(slots[0].barcode.as_deref(), Some("E01001L6"));
    assert!(changer.log.is_empty());
}

#[test]
fn a_move_from_an_empty_element_is_refused() {
    let mut changer = library();
    let err = changer
        .move_medium(ElementAddress::slot(3), ElementAddress::drive(1))
        .unwrap_err();
    assert!(
        matches!(err, ChangerError::SlotEmpty { from } if from == ElementAddress::slot(3)),
        "{err}"
    );
    assert_eq!(err.to_string(), "slot 4 is empty");
    assert!(!changer.elements(ElementKind::Drive).unwrap()[1].full);
}

#[test]
fn a_move_to_an_element_the_changer_lacks_is_refused() {
    let mut changer = library();
    let err = changer
        .move_medium(ElementAddress::slot(0), ElementAddress::drive(2))
        .unwrap_err();
    assert!(matches!(err, ChangerError::NoSuchElement { .. }), "{err}");
    assert_eq!(err.to_string(), "the changer has no drive 2");
}

#[test]
fn barcodes_lose_their_trailing_spaces() {
    let mut changer = library();
    let mut tape = Tape::unlabelled();
    tape.volume_tag = b"E01003L6      \0garbage after the NUL".to_vec();
    changer.slots[3].tape = Some(tape);
    let slots = changer.elements(ElementKind::Slot).unwrap();
    assert_eq!(slots[0].barcode.as_deref(), Some("E01001L6"));
    assert_eq!(slots[3].barcode.as_deref(), Some("E01003L6"));
}

#[test]
fn cleaning_cartridges_are_recognised_by_their_cln_barcode() {
    let mut changer = library();
    let slots = changer.elements(ElementKind::Slot).unwrap();
    let cleaning: Vec<bool> = slots.iter().map(Element::is_cleaning).collect();
    assert_eq!(cleaning, vec![false, false, true, false]);
}

#[test]
fn an_element_in_exception_says_why_in_words() {
    let mut changer = library();
    changer.drives[0].exception = Some((0x04, 0x03));
    let drive = &changer.elements(ElementKind::Drive).unwrap()[0];
    let exception = drive.exception.as_ref().unwrap();
    assert_eq!(exception.sense, Some((0x04, 0x03)));
    assert_eq!(
        exception.words,
        "not ready: manual intervention required (sense 04/03)"
    );
    assert_eq!(sense_words(0x99, 0x01), "sense 99/01");
}

#[test]
fn volume_tags_of_hostile_bytes_never_panic() {
    assert_eq!(volume_tag(&[]), None);
    assert_eq!(volume_tag(&[b' '; 36]), None);
    assert_eq!(volume_tag(&[0; 36]), None);
    assert_eq!(volume_tag(&[0xff, b'A', b'\n']).as_deref(), Some("?A?"));
    let long = [b'X'; 40];
    assert_eq!(volume_tag(&long).map(|t| t.len()), Some(32));
}

#[test]
fn the_drivers_element_fields_are_decoded_and_distrusted() {
    let mut raw = chio::ChangerGetElement::request(chio::CHET_DT, 0);
    raw.cge_status = 0x7fff_ff00 | i32::from(chio::CESTATUS_FULL | chio::CESTATUS_EXCEPT);
    raw.cge_errno = libc::EIO;
    raw.cge_flags = chio::CGE_PVOLTAG | chio::CGE_SRC | chio::CGE_AVOLTAG;
    raw.cge_srctype = chio::CHET_ST;
    raw.cge_srcunit = 6;
    for (d, s) in raw.cge_pvoltag.iter_mut().zip(b"W01008LW    ") {
        *d = *s as libc::c_char;
    }
    let e = Element::from_chio(ElementAddress::drive(0), &raw);
    assert!(e.full && !e.access && !e.import_export);
    assert_eq!(e.barcode.as_deref(), Some("W01008LW"));
    assert_eq!(e.source, Some(ElementAddress::slot(6)));
    assert!(e.exception.unwrap().words.contains("abnormal state"));

    raw.cge_srctype = 42;
    assert_eq!(
        Element::from_chio(ElementAddress::drive(0), &raw).source,
        None
    );
    raw.cge_srctype = chio::CHET_ST;
    raw.cge_srcunit = -1;
    assert_eq!(
        Element::from_chio(ElementAddress::drive(0), &raw).source,
        None
    );
    raw.cge_flags = 0;
    let bare = Element::from_chio(ElementAddress::drive(0), &raw);
    assert_eq!((bare.barcode, bare.source), (None, None));
}

#[test]
fn counts_below_zero_or_beyond_sixteen_bits_are_bounded() {
    let raw = chio::ChangerParams {
        cp_curpicker: 0,
        cp_npickers: -1,
        cp_nslots: i32::MAX,
        cp_nportals: 1,
        cp_ndrives: 2,
    };
    let p = Params::from_chio(&raw);
    assert_eq!(p.transports, 0);
    assert_eq!(p.slots, MAX_ELEMENTS);
    assert_eq!((p.portals, p.drives), (1, 2));
}

#[test]
fn element_kinds_round_trip_through_the_drivers_numbers() {
    for kind in ElementKind::ALL {
        assert_eq!(ElementKind::from_chet(kind.chet()), Some(kind));
    }
    assert_eq!(ElementKind::from_chet(4), None);
    assert_eq!(
        ElementAddress::portal(0).to_string(),
        "import/export slot 1"
    );
}

#[test]
fn a_test_sees_the_moves_made_through_a_shared_handle() {
    let robot: Robot = std::sync::Arc::new(std::sync::Mutex::new(library()));
    let mut driven: Box<dyn MediumChanger> = Box::new(robot.clone());
    driven
        .move_medium(ElementAddress::slot(0), ElementAddress::portal(0))
        .unwrap();
    let seen = robot.lock().unwrap();
    assert_eq!(seen.log, vec!["slot 1 -> import/export slot 1"]);
    assert!(seen.portals[0].tape.is_some());
}

/// An inventory of `drives` drive elements with these identifiers.
fn drives_with(identifiers: &[Option<&str>]) -> Inventory {
    let mut changer = EmulatedChanger::new(identifiers.len(), vec![None], 0);
    for (place, id) in changer.drives.iter_mut().zip(identifiers) {
        place.identifier = id.map(str::to_string);
    }
    Inventory::read(&mut changer).unwrap()
}

#[test]
fn a_drive_is_found_by_the_serial_in_its_identifier_not_by_its_number() {
    let inventory = drives_with(&[
        Some("IBM     ULT3580-TD6     LABDRV02  "),
        Some("IBM     ULT3580-TD6     LABDRV01  "),
    ]);
    assert_eq!(
        match_serial("LABDRV01", &inventory),
        Ok(ElementAddress::drive(1))
    );
    assert_eq!(
        match_serial("LABDRV02", &inventory),
        Ok(ElementAddress::drive(0))
    );
}

#[test]
fn a_serial_cut_short_by_the_library_still_matches_but_a_short_stub_does_not() {
    assert!(serial_matches(
        "IBM     ULT3580-TD6     1013000123",
        "101300012345"
    ));
    assert!(serial_matches("1013000123", "1013000123"));
    assert!(!serial_matches(
        "IBM     ULT3580-TD6     1013",
        "101300012345"
    ));
    assert!(!serial_matches("   ", "1013000123"));
}

#[test]
fn no_match_and_two_matches_are_both_refused_in_words() {
    let inventory = drives_with(&[Some("A  LABDRV01"), Some("B  LABDRV01")]);
    let why = match_serial("LABDRV01", &inventory).unwrap_err();
    assert_eq!(why, "2 drives of the changer match the serial LABDRV01");
    let why = match_serial("LABDRV09", &inventory).unwrap_err();
    assert_eq!(why, "no drive of the changer has the serial LABDRV09");
    let why = match_serial("LABDRV01", &drives_with(&[None, None])).unwrap_err();
    assert!(why.contains("gave no drive identifiers"), "{why}");
}

#[test]
fn a_node_without_a_serial_is_refused_with_a_message_naming_drive_element() {
    let inventory = drives_with(&[Some("X LABDRV01")]);
    let file = tempfile::NamedTempFile::new().unwrap();
    let err = find_drive(file.path(), &inventory, None).unwrap_err();
    assert!(matches!(err, ChangerError::NoDriveMatch { .. }), "{err}");
    assert!(err.to_string().contains("--drive-element N"), "{err}");
    assert_eq!(
        find_drive(file.path(), &inventory, Some(0)).unwrap(),
        ElementAddress::drive(0)
    );
    assert!(matches!(
        find_drive(file.path(), &inventory, Some(3)),
        Err(ChangerError::NoSuchElement { .. })
    ));
}

#[test]
fn an_inventory_finds_a_cartridge_by_barcode_wherever_it_is() {
    let mut changer = library();
    changer
        .move_medium(ElementAddress::slot(1), ElementAddress::drive(1))
        .unwrap();
    let inventory = Inventory::read(&mut changer).unwrap();
    let found = inventory.find_barcode("E01002L6").unwrap();
    assert_eq!(found.address, ElementAddress::drive(1));
    assert_eq!(inventory.find_barcode("E0100"), None);
    assert_eq!(inventory.first_empty_slot(), Some(ElementAddress::slot(1)));
}
