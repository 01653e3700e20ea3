//! The parser's own behaviour: format detection from the first bytes,
//! empty and short streams, and off staying off.

use super::build_tests::*;
use super::Parser;

#[test]
fn an_empty_or_short_stream_does_not_end_cleanly() {
    assert_eq!(
        Parser::new().finish(),
        Err("the stream is empty".to_string())
    );
    let (_, result, parser) = parse(b"07070", 0);
    assert_eq!(
        result,
        Err("byte 5: the stream ended before its first header".to_string())
    );
    assert_eq!(parser.format(), None);
}

#[test]
fn old_binary_cpio_in_either_byte_order_is_refused() {
    for first in [[0xc7, 0x71], [0x71, 0xc7]] {
        let mut stream = first.to_vec();
        stream.resize(1024, 0);
        let (_, result, _) = parse(&stream, 0);
        assert_eq!(
            result,
            Err("byte 0: old binary cpio, not followed".to_string())
        );
    }
}

#[test]
fn random_text_is_not_an_archive() {
    let (members, result, parser) = parse(&[b'z'; 2048], 0);
    assert!(members.is_empty());
    assert!(result.unwrap_err().starts_with("byte 0: not a tar header"));
    assert_eq!(parser.format(), None);
}

#[test]
fn once_off_the_parser_ignores_what_is_fed_and_stays_off() {
    let mut parser = Parser::new();
    parser.feed(&[b'z'; 512]);
    let reason = parser.off().map(str::to_string);
    assert!(reason.is_some());
    parser.feed(&member(b"a", b'0', 0, POSIX));
    assert!(parser.take_members().is_empty());
    assert_eq!(parser.off().map(str::to_string), reason);
    assert_eq!(parser.finish().err(), reason);
}

#[test]
fn members_are_handed_out_once_their_end_is_fed() {
    let mut parser = Parser::new();
    let stream = member(b"a", b'0', 1000, POSIX);
    parser.feed(&stream[..1535]);
    assert!(parser.take_members().is_empty());
    parser.feed(&stream[1535..]);
    assert_eq!(parser.take_members().len(), 1);
    assert!(parser.take_members().is_empty());
}

#[test]
fn finish_names_the_member_or_header_the_stream_ended_in() {
    let stream = [member(b"a", b'0', 1000, POSIX), end()].concat();
    let (_, result, _) = parse(&stream[..1000], 0);
    assert_eq!(
        result,
        Err("byte 1000: the stream ended inside member a (it ends at byte 1536)".to_string())
    );
    let (_, result, _) = parse(&stream[..300], 0);
    assert_eq!(
        result,
        Err("byte 300: the stream ended inside a header".to_string())
    );
    let (_, result, parser) = parse(&stream[..2048], 0);
    assert_eq!((result, parser.end()), (Ok(()), None));
}

#[test]
fn an_empty_tar_archive_ends_cleanly_without_a_format() {
    let (members, result, parser) = parse(&[0; 10240], 0);
    assert!(members.is_empty());
    assert_eq!(
        (result, parser.format(), parser.end()),
        (Ok(()), None, Some(1024))
    );
}

#[test]
fn a_stream_that_ends_after_a_header_whose_blocks_are_due_does_not_end_cleanly() {
    let mut sparse = header(b"sp", b'S', 0, GNU);
    sparse[482] = 1;
    seal(&mut sparse);
    let global = extension(b'g', record("comment", "hi").as_bytes(), POSIX);
    for stream in [sparse, global[..512].to_vec()] {
        let (_, result, _) = parse(&stream, 0);
        assert_eq!(
            result,
            Err("byte 512: the stream ended inside a header".to_string())
        );
    }
}

#[test]
fn only_zeros_may_follow_the_end_and_a_second_archive_turns_the_parser_off() {
    let first = member(b"a", b'0', 5, POSIX);
    let ends_at = first.len() + 1024;
    let mut one = first.clone();
    one.extend(end());
    let padded_to = one.len() + 4096;
    let mut padded = one.clone();
    padded.resize(padded_to, 0);
    let (members, result) = parse_every_split(&padded);
    assert_eq!((members.len(), result), (1, Ok(())));
    // `tar cf - a; tar cf - b`: a second archive after the first's end.
    let mut two = padded.clone();
    two.extend(member(b"b", b'0', 5, POSIX));
    two.extend(end());
    let (members, result) = parse_every_split(&two);
    assert_eq!(
        members.len(),
        1,
        "the first archive's member is still handed out"
    );
    assert_eq!(
        result,
        Err(format!(
            "byte {padded_to}: data after the archive's end at byte {ends_at} (a second archive appended?)"
        ))
    );
}
