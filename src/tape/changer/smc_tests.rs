//! SMC's CDBs and the parsing of replies, against bytes written from the
//! SMC-3 layout and from how mhvtl's STK L700 answers (picker 1, MAP from
//! 10, drives from 500, slots from 1000), including truncated and hostile
//! replies.

use super::*;

/// The tape lab's library: 1 transport, 12 slots, 1 MAP, 2 drives.
fn lab_map() -> AddressMap {
    AddressMap::new([(1, 1), (1000, 12), (10, 1), (500, 2)])
}

/// The bytes of a `.hex` fixture: hex pairs, `#` comments.
fn fixture(text: &str) -> Vec<u8> {
    text.lines()
        .map(|l| l.split('#').next().unwrap())
        .flat_map(str::split_whitespace)
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn lab_drives() -> Vec<u8> {
    fixture(include_str!(
        "../../../tests/fixtures/changer/mhvtl-stk-l700-drives.hex"
    ))
}

/// A descriptor as mhvtl fills it: 12 bytes, a 36-byte primary tag when
/// `tag` is given (space-filled, or zeros for `""`), then 4 reserved
/// bytes.
fn descriptor(address: u16, status: u8, byte9: u8, source: u16, tag: Option<&str>) -> Vec<u8> {
    let mut d = address.to_be_bytes().to_vec();
    d.extend([status, 0, 0, 0, 0, 0, 0, byte9]);
    d.extend(source.to_be_bytes());
    if let Some(tag) = tag {
        let mut field = [if tag.is_empty() { 0 } else { b' ' }; 36];
        field[..tag.len()].copy_from_slice(tag.as_bytes());
        d.extend(field);
    }
    d.extend([0; 4]);
    d
}

/// A reply of one page of `code` with `flags`, holding `descriptors`.
fn reply(code: u8, flags: u8, descriptors: &[Vec<u8>]) -> Vec<u8> {
    let length = descriptors.first().map_or(0, Vec::len);
    let body: Vec<u8> = descriptors.concat();
    let page_bytes = body.len() as u32;
    let mut r = vec![0, 0, 0, descriptors.len() as u8, 0];
    r.extend(&(page_bytes + 8).to_be_bytes()[1..]);
    r.extend([code, flags]);
    r.extend((length as u16).to_be_bytes());
    r.push(0);
    r.extend(&page_bytes.to_be_bytes()[1..]);
    r.extend(body);
    r
}

#[test]
fn the_cdbs_carry_type_address_count_flags_and_length() {
    let request = StatusRequest {
        kind: ElementKind::Drive,
        start: 500,
        count: 4,
        voltag: true,
        dvcid: true,
        allocation: 512,
    };
    assert_eq!(
        read_element_status_cdb(&request),
        [0xb8, 0x14, 0x01, 0xf4, 0, 4, 0x01, 0, 0x02, 0, 0, 0]
    );
    let bare = StatusRequest {
        kind: ElementKind::Slot,
        voltag: false,
        dvcid: false,
        allocation: u32::MAX,
        ..request
    };
    assert_eq!(
        read_element_status_cdb(&bare),
        [0xb8, 0x02, 0x01, 0xf4, 0, 4, 0, 0xff, 0xff, 0xff, 0, 0]
    );
    assert_eq!(
        move_medium_cdb(1, 1002, 500),
        [0xa5, 0, 0, 1, 0x03, 0xea, 0x01, 0xf4, 0, 0, 0, 0]
    );
    assert_eq!(mode_sense_addresses_cdb(255), [0x1a, 0x08, 0x1d, 0, 255, 0]);
}

#[test]
fn the_element_address_page_gives_first_address_and_count_per_kind() {
    // mhvtl: MODE SENSE(6) header with DBD (no block descriptor), then
    // page 1D of 20 bytes.
    let mut r = vec![23, 0, 0, 0, 0x1d, 0x12];
    for (first, count) in [(1u16, 1u16), (1000, 12), (10, 1), (500, 2)] {
        r.extend(first.to_be_bytes());
        r.extend(count.to_be_bytes());
    }
    r.extend([0, 0]);
    let map = AddressMap::parse(&r).unwrap();
    assert_eq!(map, lab_map());
    assert_eq!(
        map.params(),
        Params {
            transports: 1,
            slots: 12,
            portals: 1,
            drives: 2
        }
    );
    // A block descriptor before the page is skipped.
    let mut with_block = r.clone();
    with_block[3] = 8;
    with_block.splice(4..4, [0xee; 8]);
    assert_eq!(AddressMap::parse(&with_block), Some(lab_map()));
}

#[test]
fn a_short_or_foreign_mode_page_is_no_map() {
    assert_eq!(AddressMap::parse(&[]), None);
    assert_eq!(AddressMap::parse(&[3, 0, 0, 0]), None);
    assert_eq!(AddressMap::parse(&[23, 0, 0, 255, 0x1d]), None);
    let mut other = vec![23, 0, 0, 0, 0x1c, 0x12];
    other.extend([0; 18]);
    assert_eq!(AddressMap::parse(&other), None);
    let mut cut = vec![23, 0, 0, 0, 0x1d, 0x12];
    cut.extend([0; 10]);
    assert_eq!(AddressMap::parse(&cut), None);
}

#[test]
fn addresses_turn_into_kind_and_index_and_back() {
    let map = lab_map();
    assert_eq!(map.element(1000), Some(ElementAddress::slot(0)));
    assert_eq!(map.element(1011), Some(ElementAddress::slot(11)));
    assert_eq!(map.element(1012), None);
    assert_eq!(map.element(501), Some(ElementAddress::drive(1)));
    assert_eq!(map.element(10), Some(ElementAddress::portal(0)));
    assert_eq!(map.element(0), None);
    assert_eq!(map.address(ElementAddress::slot(2)), Some(1002));
    assert_eq!(map.address(ElementAddress::drive(2)), None);
    // A count that runs past 16 bits is cut where addresses end.
    let hostile = AddressMap::new([(0xfff0, 0xffff), (0, 0), (0, 0), (0, 0)]);
    assert_eq!(hostile.count(ElementKind::Transport), 16);
    let top = ElementAddress {
        kind: ElementKind::Transport,
        index: 15,
    };
    assert_eq!(hostile.address(top), Some(0xffff));
    assert_eq!(hostile.element(0xffff), Some(top));
}

#[test]
fn mhvtls_drive_reply_gives_barcode_source_type_and_identifier() {
    let elements = parse_element_status(&lab_drives(), &lab_map());
    let [loaded, empty] = &elements[..] else {
        panic!("{elements:?}");
    };
    assert_eq!(loaded.address, ElementAddress::drive(0));
    assert!(loaded.full && !loaded.access && loaded.exception.is_none());
    assert_eq!(loaded.barcode.as_deref(), Some("E01003L6"));
    assert_eq!(loaded.source, Some(ElementAddress::slot(2)));
    assert_eq!(loaded.medium_type, Some(MediumType::Data));
    assert_eq!(
        loaded.identifier.as_deref(),
        Some("IBM     ULT3580-TD6     LABDRV01")
    );
    assert_eq!(empty.address, ElementAddress::drive(1));
    assert!(!empty.full && empty.access);
    assert_eq!((empty.barcode.as_deref(), empty.source), (None, None));
    assert_eq!(empty.medium_type, None);
    assert!(empty.identifier.as_deref().unwrap().ends_with("LABDRV02"));
}

#[test]
fn slots_give_barcodes_medium_types_and_exceptions() {
    let mut exception = descriptor(1003, 0x05, 0, 0, Some("BAD001L6"));
    exception[4] = 0x83;
    exception[5] = 0x09;
    let slots = [
        descriptor(1000, 0x09, 0x01, 0, Some("E01001L6")),
        descriptor(1001, 0x09, 0x02, 0, Some("CLN001L1")),
        descriptor(1002, 0x08, 0, 0, Some("")),
        exception,
        descriptor(1004, 0x0d, 0, 0, Some("")),
    ];
    let elements = parse_element_status(&reply(2, 0x80, &slots), &lab_map());
    let e = &elements;
    assert_eq!(e.len(), 5);
    assert_eq!(e[0].barcode.as_deref(), Some("E01001L6"));
    assert!(e[1].is_cleaning());
    assert_eq!(e[1].medium_type, Some(MediumType::Cleaning));
    assert!(!e[2].full && e[2].barcode.is_none() && e[2].identifier.is_none());
    let why = e[3].exception.as_ref().unwrap();
    assert_eq!(why.sense, Some((0x83, 0x09)));
    assert!(why.words.contains("vendor-specific"), "{}", why.words);
    // EXCEPT without a code keeps the general words.
    let general = e[4].exception.as_ref().unwrap();
    assert_eq!(general.sense, None);
}

#[test]
fn the_import_export_bit_and_a_source_in_another_kind_are_kept() {
    let portal = descriptor(10, 0x3b, 0x81, 1005, Some("E01009L6"));
    let elements = parse_element_status(&reply(3, 0x80, &[portal]), &lab_map());
    let p = &elements[0];
    assert!(p.full && p.import_export && p.access);
    assert_eq!(p.address, ElementAddress::portal(0));
    assert_eq!(p.source, Some(ElementAddress::slot(5)));
    // A source the map does not know is no source.
    let lost = descriptor(1000, 0x09, 0x81, 7777, Some("E01001L6"));
    let elements = parse_element_status(&reply(2, 0x80, &[lost]), &lab_map());
    assert_eq!(elements[0].source, None);
}

#[test]
fn without_voltag_there_are_no_barcodes_and_the_descriptor_is_shorter() {
    let slots = [
        descriptor(1000, 0x09, 0x01, 0, None),
        descriptor(1001, 0x08, 0, 0, None),
    ];
    let elements = parse_element_status(&reply(2, 0, &slots), &lab_map());
    assert_eq!(elements.len(), 2);
    assert!(elements.iter().all(|e| e.barcode.is_none()));
    assert!(elements[0].full);
}

#[test]
fn a_serial_only_identifier_after_a_flagged_alternate_tag_is_found() {
    // mhvtl's HP personality: AVolTag flagged on drives, but the serial
    // (20 bytes, identifier type 0) straight after the primary tag.
    let mut drive = descriptor(500, 0x08, 0, 0, Some(""));
    drive.truncate(12 + 36);
    drive.extend([2, 0, 0, 20]);
    drive.extend(b"HPDRV0001           ");
    let elements = parse_element_status(&reply(4, 0xc0, &[drive]), &lab_map());
    assert_eq!(elements[0].identifier.as_deref(), Some("HPDRV0001"));
}

#[test]
fn a_binary_identifier_is_shown_in_hex_and_unknown_code_sets_are_none() {
    let mut naa = descriptor(500, 0x08, 0, 0, None);
    naa.truncate(12);
    naa.extend([1, 3, 0, 8, 0x50, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd]);
    let mut odd = naa.clone();
    odd[12] = 0x0f;
    let mut long = naa.clone();
    long[15] = 200;
    let elements = parse_element_status(&reply(4, 0, &[naa]), &lab_map());
    assert_eq!(elements[0].identifier.as_deref(), Some("500123456789ABCD"));
    for bad in [odd, long] {
        let elements = parse_element_status(&reply(4, 0, &[bad]), &lab_map());
        assert_eq!(elements[0].identifier, None);
    }
}

#[test]
fn a_truncated_reply_gives_its_whole_descriptors_and_where_it_stopped() {
    let full = lab_drives();
    let one_and_a_half = &full[..16 + 86 + 40];
    let elements = parse_element_status(one_and_a_half, &lab_map());
    assert_eq!(elements.len(), 1);
    assert_eq!(elements[0].address, ElementAddress::drive(0));
    for cut in 0..full.len() {
        let whole = parse_element_status(&full[..cut], &lab_map()).len();
        assert_eq!(whole, (cut.saturating_sub(16) / 86).min(2), "{cut}");
    }
}

#[test]
fn hostile_replies_never_panic_and_unknown_addresses_are_dropped() {
    // Claimed lengths far beyond the bytes there.
    let mut claims = vec![0, 0, 0, 1, 0, 0xff, 0xff, 0xff];
    claims.extend([2, 0x80, 0xff, 0xff, 0, 0xff, 0xff, 0xff]);
    claims.extend([0x03, 0xe8, 1, 0, 0, 0]);
    assert_eq!(parse_element_status(&claims, &lab_map()), vec![]);
    // A descriptor length of zero, or below the common part.
    for length in [0u8, 1, 11] {
        let mut r = reply(2, 0, &[descriptor(1000, 1, 0, 0, None)]);
        r[11] = length;
        let elements = parse_element_status(&r, &lab_map());
        assert!(elements.is_empty(), "{length}");
    }
    // An address of another kind than the page says, or outside the map.
    let mixed = [
        descriptor(500, 1, 0, 0, None),
        descriptor(9999, 1, 0, 0, None),
        descriptor(1001, 1, 0, 0, None),
    ];
    let elements = parse_element_status(&reply(2, 0, &mixed), &lab_map());
    let addresses: Vec<_> = elements.iter().map(|e| e.address).collect();
    assert_eq!(addresses, vec![ElementAddress::slot(1)]);
    // Every byte pattern of a short reply.
    for byte in [0u8, 0x80, 0xff] {
        for len in 0..40 {
            parse_element_status(&vec![byte; len], &lab_map());
        }
    }
}

#[test]
fn type_codes_are_the_ch_types_plus_one() {
    for kind in ElementKind::ALL {
        assert_eq!(i32::from(type_code(kind)), kind.chet() + 1);
        assert_eq!(kind_of_code(type_code(kind)), Some(kind));
    }
    assert_eq!(kind_of_code(0), None);
    assert_eq!(kind_of_code(5), None);
}

#[test]
fn a_reply_of_several_pages_gives_each_pages_elements() {
    // As for "all types": a slots page then a drives page, each with its
    // own descriptor length and tag flags.
    let slots = reply(2, 0x80, &[descriptor(1000, 0x09, 1, 0, Some("E01001L6"))]);
    let drives = reply(4, 0, &[descriptor(500, 0x08, 0, 0, None)]);
    let mut both = slots[..8].to_vec();
    let pages = [&slots[8..], &drives[8..]].concat();
    both[5..8].copy_from_slice(&(pages.len() as u32).to_be_bytes()[1..]);
    both.extend(pages);
    let elements = parse_element_status(&both, &lab_map());
    let addresses: Vec<_> = elements.iter().map(|e| e.address).collect();
    assert_eq!(
        addresses,
        vec![ElementAddress::slot(0), ElementAddress::drive(0)]
    );
    assert_eq!(elements[0].barcode.as_deref(), Some("E01001L6"));
}

/// The replies captured from mhvtl in the tape lab (tests/tapelab/FINDINGS.md,
/// "The library"): E01001L6 from slot 1 in drive 0, the cleaning cartridge
/// CLN009L1 from slot 9 in drive 1, E01020L6 put in the import/export slot.
const LAB_MODE_SENSE: &[u8] =
    include_bytes!("../../../tests/fixtures/changer/lab-mode-sense-1d.bin");
const LAB_MODE_SENSE_DBD: &[u8] =
    include_bytes!("../../../tests/fixtures/changer/lab-mode-sense-1d-dbd.bin");
const LAB_STATUS: &[u8] =
    include_bytes!("../../../tests/fixtures/changer/lab-read-element-status-all-voltag-dvcid.bin");
const LAB_STATUS_PLAIN: &[u8] =
    include_bytes!("../../../tests/fixtures/changer/lab-read-element-status-all-plain.bin");

#[test]
fn the_labs_element_address_page_is_read_past_its_block_descriptor() {
    for reply in [LAB_MODE_SENSE, LAB_MODE_SENSE_DBD] {
        let map = AddressMap::parse(reply).expect("the lab's page 0x1D");
        assert_eq!(map.first(ElementKind::Transport), 1);
        assert_eq!(map.first(ElementKind::Slot), 1000);
        assert_eq!(map.first(ElementKind::Portal), 10);
        assert_eq!(map.first(ElementKind::Drive), 500);
        let p = map.params();
        assert_eq!((p.transports, p.slots, p.portals, p.drives), (1, 18, 1, 2));
    }
}

#[test]
fn the_labs_element_status_gives_barcodes_sources_types_and_drive_serials() {
    let map = AddressMap::parse(LAB_MODE_SENSE).unwrap();
    let elements = parse_element_status(LAB_STATUS, &map);
    assert_eq!(elements.len(), 22);
    let find = |a: ElementAddress| elements.iter().find(|e| e.address == a).unwrap();
    let drive0 = find(ElementAddress::drive(0));
    assert!(drive0.full);
    assert_eq!(drive0.barcode.as_deref(), Some("E01001L6"));
    assert_eq!(drive0.source, Some(ElementAddress::slot(0)));
    assert_eq!(drive0.medium_type, Some(MediumType::Data));
    assert_eq!(
        drive0.identifier.as_deref(),
        Some("IBM     ULT3580-TD6     LABDRV01")
    );
    let drive1 = find(ElementAddress::drive(1));
    assert!(drive1.is_cleaning());
    assert_eq!(drive1.source, Some(ElementAddress::slot(8)));
    assert!(drive1.identifier.as_deref().unwrap().ends_with("LABDRV02"));
    assert_eq!(
        find(ElementAddress::slot(7)).medium_type,
        Some(MediumType::Worm)
    );
    assert!(!find(ElementAddress::slot(0)).full);
    let portal = find(ElementAddress::portal(0));
    assert!(portal.full && portal.import_export);
    assert_eq!(portal.barcode.as_deref(), Some("E01020L6"));
    let plain = parse_element_status(LAB_STATUS_PLAIN, &map);
    assert_eq!(plain.len(), 22);
    assert!(plain
        .iter()
        .all(|e| e.barcode.is_none() && e.identifier.is_none()));
}
