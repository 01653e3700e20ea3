//! tar headers the parser refuses: a bad checksum, an unknown magic, the
//! GNU types it does not follow, sizes past its bounds, bad pax records,
//! a lone zero block; each turns it off with its reason and offset.

use super::build_tests::*;
use super::MAX_HEADER_BYTES;

#[test]
fn a_bad_checksum_turns_the_parser_off_at_its_offset_for_good() {
    let mut bad = header(b"b", b'0', 0, POSIX);
    bad[0] = b'c';
    let stream = [
        member(b"a", b'0', 10, POSIX),
        bad,
        member(b"c", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(members.len(), 1);
    let reason = result.unwrap_err();
    assert!(
        reason.starts_with("byte 1024: not a tar header (checksum"),
        "{reason}"
    );
}

#[test]
fn headers_the_parser_does_not_follow_turn_it_off_with_their_reason() {
    let huge = |size: &[u8; 12]| {
        let mut block = header(b"huge", b'0', 0, GNU);
        block[124..136].copy_from_slice(size);
        seal(&mut block);
        block
    };
    let over_u64 = huge(&[0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    let near_u64 = huge(&[
        0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0,
    ]);
    let cases: [(Vec<u8>, &str); 9] = [
        (
            over_u64,
            "byte 0: a tar header whose size field is not a size",
        ),
        (near_u64, "byte 0: a size too large (18446744073709551600)"),
        (
            header(b"././@LongLink", b'L', MAX_HEADER_BYTES + 1, GNU),
            "byte 0: a 'L' header of 1048577 bytes, over the 1048576",
        ),
        (
            header(b"a", b'0', 0, b"ustax\x0000"),
            "byte 0: a tar header with an unknown magic",
        ),
        (header(b"m", b'M', 0, GNU), "byte 0: a GNU multi-volume"),
        (
            header(b"n", b'N', 0, GNU),
            "byte 0: an old GNU long-names header ('N')",
        ),
        (
            header(b"x", b'x', MAX_HEADER_BYTES + 1, POSIX),
            "byte 0: a 'x' header of 1048577 bytes, over the 1048576",
        ),
        (
            extension(b'x', b"4 a\n", POSIX),
            "byte 1024: a bad pax record (no '=') in the extended header's records at byte 512",
        ),
        (
            extension(b'x', b"9 a=b\n", POSIX),
            "byte 1024: a bad pax record (its length runs past the header) in the extended header's records at byte 512",
        ),
    ];
    for (first, why) in cases {
        let (members, result) = parse_every_split(&[first, end()].concat());
        let reason = result.unwrap_err();
        assert!(members.is_empty());
        assert!(reason.starts_with(why), "{reason}");
    }
}

#[test]
fn a_lone_zero_block_followed_by_a_header_turns_the_parser_off() {
    let stream = [
        member(b"a", b'0', 0, POSIX),
        vec![0; 512],
        member(b"b", b'0', 0, POSIX),
        end(),
    ]
    .concat();
    let (members, result) = parse_every_split(&stream);
    assert_eq!(members.len(), 1);
    assert!(result
        .unwrap_err()
        .starts_with("byte 1024: a header after a lone zero block (at byte 512)"));
}
