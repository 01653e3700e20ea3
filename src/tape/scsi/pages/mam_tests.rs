//! The cartridge memory parser against mhvtl's replies, truncations,
//! hostile lengths and unsafe text, and it and the identity parser
//! (`identity_tests.rs` has the rest) against random and damaged bytes.

use super::*;
use crate::tape::scsi::pages::fixtures::{self, be, XorShift};
use crate::tape::scsi::pages::identity::Identity;

const MIB: u64 = 1 << 20;

#[test]
fn mam_reads_as_mhvtl_serves_it() {
    let reply = fixtures::mam(7, [3000, 500], [2_384_185, 2_000_000]);
    let mam = Mam::parse(&reply).unwrap();
    assert_eq!(
        mam,
        Mam {
            serial: Some("E01001L6_1764201234".into()),
            barcode: Some("E01001L6".into()),
            manufacturer: Some("linuxVTL".into()),
            manufactured: Some("1764201234".into()),
            load_count: Some(7),
            lifetime_written_bytes: Some(3000 * MIB),
            lifetime_read_bytes: Some(500 * MIB),
            capacity_bytes: Some(2_384_185 * MIB),
            remaining_bytes: Some(2_000_000 * MIB),
        }
    );
}

#[test]
fn every_truncation_of_the_mam_gives_only_whole_attributes() {
    let reply = fixtures::mam(7, [3000, 500], [2_384_185, 2_000_000]);
    let whole = Mam::parse(&reply).unwrap();
    for cut in 0..reply.len() {
        let Some(part) = Mam::parse(&reply[..cut]) else {
            continue;
        };
        for (got, all) in [
            (&part.serial, &whole.serial),
            (&part.barcode, &whole.barcode),
            (&part.manufacturer, &whole.manufacturer),
            (&part.manufactured, &whole.manufactured),
        ] {
            assert!(got.is_none() || got == all, "cut {cut}: {got:?}");
        }
        assert!(part.load_count.is_none() || part.load_count == Some(7));
    }
    // The first attribute whole, the second cut.
    let part = Mam::parse(&reply[..4 + 13 + 6]).unwrap();
    assert_eq!(part.remaining_bytes, whole.remaining_bytes);
    assert_eq!(part.capacity_bytes, None);
}

#[test]
fn the_available_length_bounds_the_attributes() {
    let mut reply = fixtures::mam(7, [0, 0], [1, 1]);
    reply[..4].copy_from_slice(&13u32.to_be_bytes());
    let mam = Mam::parse(&reply).unwrap();
    assert_eq!(mam.remaining_bytes, Some(MIB));
    assert_eq!(mam.load_count, None);
}

#[test]
fn hostile_mam_lengths_never_read_past_the_reply() {
    let mut reply = vec![0xff, 0xff, 0xff, 0xff];
    reply.extend_from_slice(&[0x00, 0x03, 0x00, 0xff, 0xff, 1, 2, 3]);
    assert_eq!(Mam::parse(&reply), None);
    assert_eq!(Mam::parse(&[0, 0, 0]), None);
    assert_eq!(Mam::parse(&[0, 0, 0, 0]), None);
}

#[test]
fn a_number_in_text_format_or_too_long_is_not_taken() {
    let mut reply = vec![0, 0, 0, 0];
    reply.extend_from_slice(&[0x00, 0x03, 0x81, 0, 1, b'7']);
    reply.extend_from_slice(&[0x02, 0x20, 0x80, 0, 9]);
    reply.extend_from_slice(&[1; 9]);
    assert_eq!(Mam::parse(&reply), None);
}

#[test]
fn mebibytes_that_overflow_in_bytes_are_none() {
    let mut reply = vec![0, 0, 0, 13];
    reply.extend_from_slice(&[0x02, 0x20, 0x80, 0, 8]);
    reply.extend_from_slice(&be(u64::MAX / 2, 8));
    assert_eq!(Mam::parse(&reply), None);
}

#[test]
fn text_is_trimmed_and_safe_for_one_line() {
    assert_eq!(text(b"  E01001L6 \0\0\0"), Some("E01001L6".into()));
    assert_eq!(text(b"ab\ncd\x1b[2J"), Some("abcd[2J".into()));
    assert_eq!(text(b"caf\xc3\xa9 \xff"), Some("caf\u{e9} \\xff".into()));
    assert_eq!(text(b"\0\0 \0"), None);
    assert_eq!(text(&[b'x'; 1000]).unwrap().len(), TEXT_BYTES);
}

#[test]
fn random_bytes_never_panic_the_mam_or_identity_parsers() {
    let mut random = XorShift(0x0123_4567_89ab_cdef);
    for _ in 0..100_000 {
        let b = random.buffer(200);
        let _ = Mam::parse(&b);
        let _ = Identity::parse(&b, Some(&b));
    }
}

#[test]
fn a_damaged_mam_or_inquiry_never_panics() {
    let replies = [
        fixtures::mam(7, [3000, 500], [2_384_185, 2_000_000]),
        fixtures::inquiry(),
        fixtures::serial_page("XYZZY_A1"),
    ];
    let mut random = XorShift(7);
    for i in 0..30_000 {
        let mut reply = replies[i % replies.len()].clone();
        for _ in 0..random.next() % 4 + 1 {
            let at = random.next() as usize % reply.len();
            reply[at] = random.next() as u8;
        }
        reply.truncate(random.next() as usize % (reply.len() + 1));
        if let Some(mam) = Mam::parse(&reply) {
            let serial = mam.serial.unwrap_or_default();
            assert!(serial.len() <= 4 * TEXT_BYTES && !serial.contains('\n'));
        }
        let _ = Identity::parse(&reply, Some(&reply));
    }
}
