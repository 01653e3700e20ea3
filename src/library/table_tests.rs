use std::path::PathBuf;

use super::*;
use crate::library::lab;
use crate::library::nodes::{TapeNode, NO_IDENTIFIERS};
use crate::library::view::library_json;
use crate::tape::changer::{ElementAddress, MediumChanger};
use crate::tape::emulated::changer::{EmulatedChanger, Tape};

fn nst(path: &str, serial: &str) -> TapeNode {
    TapeNode {
        path: PathBuf::from(path),
        serial: Some(serial.to_string()),
    }
}

/// The lab's library with the cartridge of slot 1 in drive 0, and the
/// drives' nodes the other way round from their numbers.
fn lab_table() -> String {
    let mut changer = lab::library();
    changer
        .move_medium(ElementAddress::slot(0), ElementAddress::drive(0))
        .unwrap();
    let nodes = [nst("/dev/nst0", "LABDRV02"), nst("/dev/nst1", "LABDRV01")];
    render(&library_json("/dev/sch0", &lab::inventory(changer), &nodes))
}

#[test]
fn the_lab_library_reads_as_a_table() {
    let expected = "\
Changer /dev/sch0: 2 drives, 12 storage slots, 1 import/export slot, 1 transport

Drive  Status  Barcode   Medium  From  Node       Serial
0      full    E01001L6  data    1     /dev/nst1  LABDRV01
1      empty   -         -       -     /dev/nst0  LABDRV02

Slot  Status  Barcode   Medium
1     empty   -         -
2     full    E01002L6  data
3     full    E01003L6  data
4     full    E01004L6  data
5     full    E01005L6  data
6     full    E01006L6  data
7     full    E01007L6  data
8     full    W01008LW  WORM
9     full    CLN009L1  cleaning
10    empty   -         -
11    empty   -         -
12    empty   -         -

Import/export  Status  Barcode  Medium
1              empty   -        -

Cleaning cartridges: CLN009L1 in slot 9
";
    assert_eq!(lab_table(), expected);
}

#[test]
fn without_drive_identifiers_the_reason_is_said_once() {
    let mut changer = lab::library();
    changer.drives.iter_mut().for_each(|d| d.identifier = None);
    let view = library_json("/dev/sch0", &lab::inventory(changer), &[]);
    let table = render(&view);
    let drives: Vec<&str> = table.lines().skip(2).take(5).collect();
    assert_eq!(
        drives,
        [
            "Drive  Status  Barcode  Medium  From  Node  Serial",
            "0      empty   -        -       -     -     -",
            "1      empty   -        -       -     -     -",
            &format!("Nodes: {NO_IDENTIFIERS}"),
            "",
        ]
    );
}

#[test]
fn tape_nodes_of_no_drive_are_listed_under_the_drives() {
    let mut changer = lab::library();
    changer.drives.iter_mut().for_each(|d| d.identifier = None);
    let nodes = [
        nst("/dev/nst0", "LABDRV02"),
        TapeNode {
            path: PathBuf::from("/dev/nst1"),
            serial: None,
        },
    ];
    let table = render(&library_json("/dev/sch0", &lab::inventory(changer), &nodes));
    let line = table.lines().nth(6).unwrap();
    assert_eq!(
        line,
        "Tape nodes of no drive here: /dev/nst0 (serial LABDRV02), /dev/nst1 (no serial in sysfs)"
    );
}

#[test]
fn a_drive_that_differs_gets_its_own_note() {
    let view = library_json(
        "/dev/sch0",
        &lab::inventory(lab::library()),
        &[nst("/dev/nst0", "LABDRV01")],
    );
    let table = render(&view);
    let drive1 = table.lines().find(|l| l.starts_with("1 ")).unwrap();
    assert!(
        drive1.contains("LABDRV02  no /dev/nst node here has the serial LABDRV02"),
        "{drive1}"
    );
    let drive0 = table.lines().find(|l| l.starts_with("0 ")).unwrap();
    assert!(drive0.ends_with("/dev/nst0  LABDRV01"), "{drive0}");
    assert!(table.contains("Serial    Note\n"), "{table}");
}

#[test]
fn odd_barcodes_stay_one_quoted_cell() {
    let mut tag = b"A B\"C".to_vec();
    tag.resize(36, b' ');
    let mut spaced = Tape::tagged("");
    spaced.volume_tag = tag;
    let slots = vec![
        Some(spaced),
        Some(Tape::tagged("-")),
        Some(Tape::unlabelled()),
    ];
    let changer = EmulatedChanger::new(0, slots, 0);
    let table = render(&library_json("/dev/sch0", &lab::inventory(changer), &[]));
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip_while(|l| !l.starts_with("Slot"))
        .skip(1)
        .take(3)
        .map(|l| {
            l.split("  ")
                .filter(|c| !c.is_empty())
                .map(str::trim)
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["1", "full", r#""A\u{20}B\"C""#, "unknown"]);
    assert_eq!(rows[1], ["2", "full", r#""-""#, "unknown"]);
    assert_eq!(rows[2], ["3", "full", "-", "unknown"]);
}

#[test]
fn exceptions_and_operator_cartridges_are_noted() {
    let mut changer = lab::library();
    changer.slots[3].exception = Some((0x3b, 0x12));
    let mut handed = Tape::tagged("CLN100L1");
    handed.import_export = true;
    changer.portals[0].tape = Some(handed);
    let table = render(&library_json("/dev/sch0", &lab::inventory(changer), &[]));
    let slot4 = table.lines().find(|l| l.starts_with("4 ")).unwrap();
    assert!(
        slot4.ends_with("data      medium magazine removed (sense 3B/12)"),
        "{slot4}"
    );
    let portal = table
        .lines()
        .skip_while(|l| !l.starts_with("Import"))
        .nth(1)
        .unwrap();
    assert!(
        portal.ends_with("cleaning  put in by the operator"),
        "{portal}"
    );
    assert!(
        table.ends_with(
            "Cleaning cartridges: CLN009L1 in slot 9, CLN100L1 in import/export slot 1\n"
        ),
        "{table}"
    );
}

#[test]
fn a_library_without_portals_or_drives_says_none() {
    let changer = EmulatedChanger::new(0, vec![Some(Tape::tagged("E01001L6"))], 0);
    let table = render(&library_json("/dev/sch3", &lab::inventory(changer), &[]));
    assert!(
        table.starts_with(
            "Changer /dev/sch3: 0 drives, 1 storage slot, 0 import/export slots, 1 transport\n"
        ),
        "{table}"
    );
    assert!(table.contains("\nDrives: none\n"), "{table}");
    assert!(table.contains("\nImport/export slots: none\n"), "{table}");
    assert!(table.ends_with("Cleaning cartridges: none\n"), "{table}");
}

#[test]
fn a_serial_with_control_characters_stays_in_its_cell_and_on_its_line() {
    let mut changer = lab::library();
    changer.drives[0].identifier = Some("IBM LAB\u{1}DRV\u{7f}".to_string());
    let view = library_json(
        "/dev/sch0",
        &lab::inventory(changer),
        &[nst("/dev/nst0", "LABDRV02")],
    );
    let table = render(&view);
    let drive0 = table.lines().find(|l| l.starts_with("0 ")).unwrap();
    assert!(
        drive0.contains(r#""LAB\u{1}DRV\u{7f}"  no /dev/nst node here"#),
        "{drive0}"
    );
    assert!(
        drive0.ends_with(r#"the serial LAB\u{1}DRV\u{7f} (is the drive on another host?)"#),
        "{drive0}"
    );
    assert!(
        !table.contains('\u{1}') && !table.contains('\u{7f}'),
        "{table}"
    );
}
