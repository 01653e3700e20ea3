//! Hostile input: random bytes, and real-looking archives with bytes
//! changed or cut, never panic, and the bytes the parser holds stay
//! under its bound whatever it is fed.

use proptest::prelude::*;

use super::build_tests::*;
use super::{Parser, MAX_HEADER_BYTES};

fn sample_archives() -> Vec<Vec<u8>> {
    let pax = [record("path", &"p".repeat(300)), record("size", "700")].concat();
    vec![
        [
            extension(b'L', &[b'l'; 300], GNU),
            member(b"l", b'0', 700, GNU),
            member(b"d", b'5', 0, GNU),
            end(),
        ]
        .concat(),
        [
            extension(b'x', pax.as_bytes(), POSIX),
            member(b"p", b'0', 700, POSIX),
            end(),
        ]
        .concat(),
        [
            newc("070701", "a", 0o100644, 2, b"hello", 1),
            newc("070701", "TRAILER!!!", 0, 1, b"", 0),
        ]
        .concat(),
        [odc("a", 0o120777, b"target"), odc("TRAILER!!!", 0, b"")].concat(),
    ]
}

fn bound() -> usize {
    MAX_HEADER_BYTES as usize + 512
}

fn feed_all(stream: &[u8], chunk: usize) {
    let mut parser = Parser::new();
    for piece in stream.chunks(chunk.max(1)) {
        parser.feed(piece);
        assert!(parser.buffered() <= bound());
        for member in parser.take_members() {
            assert!(member.header_offset < member.end_offset);
            assert!(member.end_offset <= stream.len() as u64);
        }
    }
    let _ = parser.finish();
}

proptest! {
    #[test]
    fn random_bytes_never_panic(stream in proptest::collection::vec(any::<u8>(), 0..4096), chunk in 1usize..700) {
        feed_all(&stream, chunk);
    }

    #[test]
    fn mutated_archives_never_panic(
        which in 0usize..4,
        changes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        chunk in 1usize..1100,
    ) {
        let mut stream = sample_archives().swap_remove(which);
        for (at, byte) in changes {
            let i = at.index(stream.len());
            stream[i] = byte;
        }
        let keep = cut.index(stream.len() + 1);
        feed_all(&stream[..keep], chunk);
    }

    #[test]
    fn changed_numeric_fields_never_panic(field in 0usize..4, text in "[0-7 \\x00\\x80\\xff]{0,12}", which in 0usize..2) {
        let mut stream = sample_archives().swap_remove(which);
        let at = [124, 136, 148, 483][field];
        let bytes = text.as_bytes();
        let len = bytes.len().min(12);
        stream[at..at + len].copy_from_slice(&bytes[..len]);
        feed_all(&stream, 513);
    }
}

#[test]
fn sample_archives_parse_cleanly_in_any_split() {
    for stream in sample_archives() {
        let (members, result) = parse_every_split(&stream);
        assert_eq!(result, Ok(()));
        assert!(!members.is_empty());
    }
}
