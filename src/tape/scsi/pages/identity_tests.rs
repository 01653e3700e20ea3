//! VPD page 0x80 read by its one rule, the drive's identity from INQUIRY,
//! and the serial pages drives and sysfs give: mhvtl's, padded,
//! NUL-terminated, blank, hostile.

use super::*;
use crate::tape::scsi::pages::fixtures::{self, padded};

/// A VPD page 0x80 whose length says `body` is all of it.
fn page(body: &[u8]) -> Vec<u8> {
    [&[0x01, SERIAL_PAGE, 0, body.len() as u8][..], body].concat()
}

#[test]
fn identity_reads_mhvtls_inquiry_and_serial() {
    let serial = fixtures::serial_page("XYZZY_A1");
    let id = Identity::parse(&fixtures::inquiry(), Some(&serial)).unwrap();
    assert_eq!(
        id,
        Identity {
            vendor: "IBM".into(),
            product: "ULT3580-TD6".into(),
            revision: "2160".into(),
            serial: Some("XYZZY_A1".into()),
        }
    );
}

#[test]
fn identity_without_a_serial_page_or_with_a_wrong_one_has_no_serial() {
    let inquiry = fixtures::inquiry();
    assert_eq!(Identity::parse(&inquiry, None).unwrap().serial, None);
    let mut other = fixtures::serial_page("XYZZY_A1");
    other[1] = 0x83;
    assert_eq!(
        Identity::parse(&inquiry, Some(&other)).unwrap().serial,
        None
    );
    let padded_serial = [vec![0x01, 0x80, 0, 12], padded("  10WT0123", 12, b' ')].concat();
    let id = Identity::parse(&inquiry, Some(&padded_serial)).unwrap();
    assert_eq!(id.serial.as_deref(), Some("10WT0123"));
}

#[test]
fn a_short_inquiry_gives_the_fields_it_holds_whole() {
    let inquiry = fixtures::inquiry();
    assert_eq!(Identity::parse(&inquiry[..15], None), None);
    let id = Identity::parse(&inquiry[..20], None).unwrap();
    assert_eq!((id.vendor.as_str(), id.product.as_str()), ("IBM", ""));
    let mut long_serial = vec![0x01, 0x80, 0xff, 0xff];
    long_serial.extend_from_slice(b"ABC");
    let id = Identity::parse(&inquiry, Some(&long_serial)).unwrap();
    assert_eq!(id.serial.as_deref(), Some("ABC"));
}

#[test]
fn a_vpd_page_gives_its_serial_and_a_hostile_one_gives_none() {
    // The tape lab's sysfs vpd_pg80: space-padded to 10.
    let mut lab = page(b"LABDRV01  ");
    assert_eq!(unit_serial(&lab).as_deref(), Some("LABDRV01"));
    // The length claims more than is there: only what is there counts.
    lab[3] = 0xff;
    assert_eq!(unit_serial(&lab).as_deref(), Some("LABDRV01"));
    // Less than is there: only what the length says counts.
    lab[3] = 6;
    assert_eq!(unit_serial(&lab).as_deref(), Some("LABDRV"));
    assert_eq!(unit_serial(&[0x01, 0x83, 0, 2, b'A', b'B']), None);
    assert_eq!(unit_serial(&[0x01, 0x80]), None);
    assert_eq!(unit_serial(&[]), None);
}

#[test]
fn a_serial_ends_at_its_first_nul() {
    assert_eq!(
        unit_serial(&page(b"LABDRV01\0\0\0\0")).as_deref(),
        Some("LABDRV01")
    );
    assert_eq!(unit_serial(&page(b"AB\0CD")).as_deref(), Some("AB"));
    assert_eq!(unit_serial(&page(b"\0LABDRV01")), None);
}

#[test]
fn a_serial_follows_the_text_rule_and_a_blank_one_is_none() {
    // A control byte is dropped, as in every text a drive gives.
    assert_eq!(
        unit_serial(&[0x01, 0x80, 0, 3, b' ', 7, b'A']).as_deref(),
        Some("A")
    );
    assert_eq!(unit_serial(&page(b"SN\xff1")).as_deref(), Some("SN\\xff1"));
    assert_eq!(unit_serial(&page(b"          ")), None);
    assert_eq!(unit_serial(&page(b"")), None);
    assert_eq!(unit_serial(&page(b"\x1b[2J")).as_deref(), Some("[2J"));
}
