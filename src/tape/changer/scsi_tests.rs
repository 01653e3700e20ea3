//! The SCSI back end against a library written in code: chunked and
//! truncated reads, refused DVCID and VolTag bits, unit attention, and the
//! library's sense on a move.

use super::*;

#[path = "stk_l700.rs"]
mod stk_l700;
use stk_l700::{sense, StkL700};

#[test]
fn the_librarys_sense_becomes_typed_move_errors() {
    let p = Path::new("/dev/sch0");
    let (from, to) = (ElementAddress::slot(1), ElementAddress::drive(0));
    let err = |s| move_refused(p, from, to, s);
    assert!(matches!(err(sense(5, 0x3b, 0x0e)), ChangerError::SlotEmpty { from: f } if f == from));
    assert!(
        matches!(err(sense(5, 0x3b, 0x0d)), ChangerError::DestinationFull { to: t } if t == to)
    );
    assert!(matches!(
        err(sense(5, 0x21, 0x01)),
        ChangerError::NoSuchElement { address } if address == from
    ));
}

#[test]
fn any_other_refusal_is_one_line_with_the_sense_in_words() {
    let p = Path::new("/dev/sch0");
    let (from, to) = (ElementAddress::slot(1), ElementAddress::drive(0));
    let door = move_refused(p, from, to, sense(2, 0x3a, 0x02));
    assert!(matches!(
        door,
        ChangerError::Robot {
            key: 2,
            asc: 0x3a,
            ascq: 0x02,
            ..
        }
    ));
    assert_eq!(
        door.to_string(),
        "/dev/sch0: moving the medium in slot 2 to drive 0: \
         not ready: the import/export door is open (sense 02/3A/02)"
    );
    let stuck = move_refused(p, from, to, sense(4, 0x04, 0x03)).to_string();
    assert!(
        stuck.ends_with("hardware error: not ready: manual intervention required (sense 04/04/03)"),
        "{stuck}"
    );
}

#[test]
fn unit_attention_is_sent_again_and_other_failures_are_not() {
    let mut calls = 0;
    let got = retried(|| {
        calls += 1;
        if calls < 3 {
            Err(ScsiError::Check(sense(6, 0x28, 0)))
        } else {
            Ok(7)
        }
    });
    assert_eq!((got.unwrap(), calls), (7, 3));
    let mut calls = 0;
    let refused = retried(|| -> Result<(), _> {
        calls += 1;
        Err(ScsiError::Check(sense(5, 0x24, 0)))
    });
    assert!(refused.unwrap_err().is_illegal_request());
    assert_eq!(calls, 1);
    let mut calls = 0;
    let forever = retried(|| -> Result<(), _> {
        calls += 1;
        Err(ScsiError::Check(sense(6, 0x29, 0)))
    });
    assert!(forever.is_err());
    assert_eq!(calls, UNIT_ATTENTION_RETRIES + 1);
}

#[test]
fn a_read_error_names_what_was_read() {
    let e = scsi_error(
        "/dev/sch0: reading the state of the drives".into(),
        ScsiError::Ioctl(io::Error::from_raw_os_error(libc::EPERM)),
    );
    assert!(
        matches!(&e, ChangerError::Io { source, .. } if source.raw_os_error() == Some(libc::EPERM))
    );
    assert!(e
        .to_string()
        .starts_with("/dev/sch0: reading the state of the drives: "));
}

fn path() -> &'static Path {
    Path::new("/dev/sch0")
}

#[test]
fn the_probe_reads_the_map_and_one_element() {
    let mut library = StkL700::new(12);
    let scsi = Scsi::probe(&mut library).unwrap();
    assert_eq!(scsi.params().slots, 12);
    assert_eq!(scsi.params().drives, 2);
    assert_eq!(library.cdbs.len(), 2);
    // The one element is the transport, without tags: it changes nothing.
    assert_eq!(&library.cdbs[1][..7], &[0xb8, 0x01, 0, 1, 0, 1, 0]);
}

#[test]
fn the_probe_fails_where_the_kernel_refuses_read_element_status() {
    let mut library = StkL700::new(12);
    library.unprivileged = true;
    assert!(Scsi::probe(&mut library)
        .unwrap_err()
        .is_refused_by_kernel());
}

#[test]
fn drives_come_with_barcodes_and_identifiers_in_index_order() {
    let mut library = StkL700::new(12);
    let mut scsi = Scsi::probe(&mut library).unwrap();
    let drives = scsi
        .elements(&mut library, path(), ElementKind::Drive)
        .unwrap();
    assert_eq!(drives.len(), 2);
    assert_eq!(drives[0].address, ElementAddress::drive(0));
    assert_eq!(drives[0].barcode.as_deref(), Some("E00002L6"));
    assert!(drives[1]
        .identifier
        .as_deref()
        .unwrap()
        .ends_with("LABDRV02"));
    let cdb = library.cdbs.last().unwrap();
    assert_eq!(&cdb[..7], &[0xb8, 0x14, 0x01, 0xf4, 0, 2, 1]);
    // Slots are asked without DVCID.
    scsi.elements(&mut library, path(), ElementKind::Slot)
        .unwrap();
    assert_eq!(library.cdbs.last().unwrap()[6], 0);
}

#[test]
fn a_big_library_is_read_in_bounded_chunks() {
    let mut library = StkL700::new(1000);
    let mut scsi = Scsi::probe(&mut library).unwrap();
    let before = library.cdbs.len();
    let slots = scsi
        .elements(&mut library, path(), ElementKind::Slot)
        .unwrap();
    assert_eq!(slots.len(), 1000);
    assert!(slots.iter().enumerate().all(|(i, e)| e.address.index == i));
    assert_eq!(slots[999].barcode.as_deref(), Some("E00999L6"));
    let reads = library.cdbs.len() - before;
    assert_eq!(reads, 1000usize.div_ceil(ELEMENTS_PER_READ));
    assert!(library.cdbs[before..]
        .iter()
        .all(|c| u16::from_be_bytes([c[4], c[5]]) as usize <= ELEMENTS_PER_READ));
}

#[test]
fn a_reply_cut_short_is_read_on_from_where_it_stopped() {
    let mut library = StkL700::new(100);
    // Ten whole slot descriptors (12 + 36 + 4 bytes) and part of one more.
    library.max_reply = 8 + 8 + 10 * 52 + 20;
    let mut scsi = Scsi::probe(&mut library).unwrap();
    let before = library.cdbs.len();
    let slots = scsi
        .elements(&mut library, path(), ElementKind::Slot)
        .unwrap();
    assert_eq!(slots.len(), 100);
    assert_eq!(slots[57].barcode.as_deref(), Some("E00057L6"));
    assert_eq!(library.cdbs.len() - before, 10);
    let starts: Vec<u16> = library.cdbs[before..]
        .iter()
        .map(|c| u16::from_be_bytes([c[2], c[3]]))
        .collect();
    assert_eq!(starts, (0..10).map(|n| 1000 + 10 * n).collect::<Vec<u16>>());
}

#[test]
fn a_library_that_refuses_dvcid_then_voltag_is_asked_without_them() {
    let mut library = StkL700::new(4);
    library.refuses_dvcid = true;
    library.refuses_voltag = true;
    let mut scsi = Scsi::probe(&mut library).unwrap();
    let drives = scsi
        .elements(&mut library, path(), ElementKind::Drive)
        .unwrap();
    assert!(drives
        .iter()
        .all(|d| d.identifier.is_none() && d.barcode.is_none()));
    assert!(drives[0].full);
    let asked: Vec<u8> = library.cdbs[2..]
        .iter()
        .map(|c| c[1] & 0x10 | c[6])
        .collect();
    assert_eq!(asked, vec![0x11, 0x10, 0x00]);
    // The refusal is remembered: the next read asks plainly at once.
    let before = library.cdbs.len();
    scsi.elements(&mut library, path(), ElementKind::Slot)
        .unwrap();
    assert_eq!(library.cdbs.len(), before + 1);
}

#[test]
fn a_library_that_leaves_an_element_out_is_an_error() {
    let mut library = StkL700::new(6);
    library.omits = vec![1003];
    let mut scsi = Scsi::probe(&mut library).unwrap();
    let err = scsi
        .elements(&mut library, path(), ElementKind::Slot)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/dev/sch0: reading the state of the slots: the library reported 5 of 6"
    );
}

#[test]
fn unit_attention_after_an_opened_door_does_not_fail_the_read() {
    let mut library = StkL700::new(4);
    let mut scsi = Scsi::probe(&mut library).unwrap();
    library.attentions = 2;
    assert_eq!(
        scsi.elements(&mut library, path(), ElementKind::Slot)
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn a_move_sends_transport_source_and_destination_addresses() {
    let mut library = StkL700::new(12);
    let scsi = Scsi::probe(&mut library).unwrap();
    scsi.move_medium(
        &mut library,
        path(),
        ElementAddress::slot(2),
        ElementAddress::drive(0),
    )
    .unwrap();
    assert_eq!(
        library.cdbs.last().unwrap(),
        &vec![0xa5, 0, 0, 1, 0x03, 0xea, 0x01, 0xf4, 0, 0, 0, 0]
    );
    let missing = scsi
        .move_medium(
            &mut library,
            path(),
            ElementAddress::slot(12),
            ElementAddress::drive(0),
        )
        .unwrap_err();
    assert!(
        matches!(missing, ChangerError::NoSuchElement { address } if address == ElementAddress::slot(12))
    );
}

#[test]
fn a_refused_move_says_the_librarys_reason() {
    let mut library = StkL700::new(12);
    let scsi = Scsi::probe(&mut library).unwrap();
    library.move_sense = Some(sense(2, 0x3a, 0x02));
    let err = scsi
        .move_medium(
            &mut library,
            path(),
            ElementAddress::portal(0),
            ElementAddress::slot(0),
        )
        .unwrap_err();
    assert!(err.to_string().contains("door is open"), "{err}");
    library.move_sense = Some(sense(5, 0x3b, 0x0d));
    let full = scsi
        .move_medium(
            &mut library,
            path(),
            ElementAddress::slot(0),
            ElementAddress::drive(0),
        )
        .unwrap_err();
    assert!(matches!(full, ChangerError::DestinationFull { .. }));
}
