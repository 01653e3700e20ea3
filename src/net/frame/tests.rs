//! The framed stream end to end: what a `FramedWriter` sends, a
//! `FramedReader` hands back intact, whatever the read sizes, and any damage
//! or cut is an error naming where it is.

use super::*;
use proptest::prelude::*;
use std::io::{self, Read};

/// A reader that hands out at most `step` bytes per read.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn encode(blocks: &[Vec<u8>]) -> Vec<u8> {
    let mut w = FramedWriter::start(Vec::new(), 4096).unwrap();
    for b in blocks {
        w.write_frame(b).unwrap();
    }
    w.finish().unwrap();
    w.inner
}

fn decode(wire: &[u8], step: usize) -> io::Result<Vec<u8>> {
    assert_eq!(classify(&wire[..HEADER_LEN]).unwrap(), Opening::Framed);
    let mut r = FramedReader::new(
        Trickle {
            data: &wire[HEADER_LEN..],
            step,
        },
        4096,
    );
    let mut out = Vec::new();
    r.read_to_end(&mut out)?;
    assert!(r.ended());
    Ok(out)
}

fn frame_error(e: io::Error) -> FrameError {
    e.into_inner()
        .and_then(|e| e.downcast::<FrameError>().ok())
        .map(|e| *e)
        .expect("a FrameError")
}

proptest! {
    #[test]
    fn any_blocks_arrive_intact_whatever_the_read_sizes(
        blocks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..600), 0..8),
        step in 1usize..700,
    ) {
        let wire = encode(&blocks);
        let got = decode(&wire, step).unwrap();
        prop_assert_eq!(got, blocks.concat());
    }

    #[test]
    fn any_flipped_bit_after_the_header_is_an_error(
        blocks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..300), 1..5),
        pick in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let mut wire = encode(&blocks);
        let i = HEADER_LEN + pick.index(wire.len() - HEADER_LEN);
        wire[i] ^= 1 << bit;
        prop_assert!(decode(&wire, 97).is_err());
    }

    #[test]
    fn no_byte_of_a_damaged_or_cut_frame_is_ever_handed_out(
        blocks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..300), 1..5),
        pick in any::<prop::sample::Index>(),
        bit in 0u8..8,
        cut in any::<bool>(),
        caller_buf in 1usize..400,
    ) {
        let mut wire = encode(&blocks);
        let i = HEADER_LEN + pick.index(wire.len() - HEADER_LEN);
        if cut {
            wire.truncate(i);
        } else {
            wire[i] ^= 1 << bit;
        }
        let mut r = FramedReader::new(&wire[HEADER_LEN..], 4096);
        let mut out = Vec::new();
        let mut buf = vec![0u8; caller_buf];
        let failed = loop {
            match r.read(&mut buf) {
                Ok(0) => break false,
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(_) => break true,
            }
        };
        prop_assert!(failed);
        // What came out is whole frames of the true stream, no more.
        let whole: Vec<usize> = blocks
            .iter()
            .scan(0, |at, b| { *at += b.len(); Some(*at) })
            .collect();
        let full = blocks.concat();
        prop_assert_eq!(&out[..], &full[..out.len()]);
        prop_assert!(out.is_empty() || whole.contains(&out.len()), "{} bytes out", out.len());
    }

    #[test]
    fn any_cut_short_stream_is_an_error(
        blocks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..300), 1..5),
        pick in any::<prop::sample::Index>(),
    ) {
        let wire = encode(&blocks);
        let cut = HEADER_LEN + pick.index(wire.len() - HEADER_LEN);
        prop_assert!(decode(&wire[..cut], 64).is_err());
    }
}

#[test]
fn truncation_names_the_bytes_that_arrived() {
    let wire = encode(&[vec![7u8; 100], vec![8u8; 100]]);
    let cut = HEADER_LEN + 12 + 100 + 12 + 50;
    let e = frame_error(decode(&wire[..cut], 1000).unwrap_err());
    // Only whole, checked frames count as arrived.
    assert_eq!(e, FrameError::Truncated { at: 100 });
    assert!(e.to_string().contains("after 100 bytes"));
}

#[test]
fn corruption_names_the_frame_offset() {
    let mut wire = encode(&[vec![7u8; 100], vec![8u8; 100]]);
    wire[HEADER_LEN + 12 + 100 + 12 + 5] ^= 0x40;
    let e = frame_error(decode(&wire, 1000).unwrap_err());
    assert_eq!(e, FrameError::Corrupt { at: 100, len: 100 });
}

#[test]
fn raw_streams_and_other_versions_are_recognised() {
    assert_eq!(classify(b"ustar and more bytes").unwrap(), Opening::Raw);
    assert_eq!(classify(b"short").unwrap(), Opening::Raw);
    let mut h = header(1 << 20);
    assert_eq!(classify(&[]).unwrap(), Opening::Incomplete);
    for cut in 1..HEADER_LEN {
        assert_eq!(classify(&h[..cut]).unwrap(), Opening::Incomplete, "{cut}");
    }
    assert_eq!(classify(&h).unwrap(), Opening::Framed);
    h[8] = 9;
    assert_eq!(classify(&h).unwrap_err(), FrameError::Version(9));
}

#[test]
fn an_aborted_stream_keeps_its_intact_bytes_and_fails_naming_them() {
    let mut w = FramedWriter::start(Vec::new(), 4096).unwrap();
    w.write_frame(&[5u8; 300]).unwrap();
    w.abort().unwrap();
    let wire = w.inner;
    let mut r = FramedReader::new(
        Trickle {
            data: &wire[HEADER_LEN..],
            step: 64,
        },
        4096,
    );
    let mut out = vec![0u8; 300];
    r.read_exact(&mut out).unwrap();
    assert_eq!(out, vec![5u8; 300]);
    let e = frame_error(r.read(&mut out).unwrap_err());
    assert_eq!(e, FrameError::Aborted { at: 300 });
    assert!(e
        .to_string()
        .contains("stopped before the end of its input"));
    assert!(!r.ended());
}

#[test]
fn an_abort_marker_with_a_wrong_trailer_is_damage() {
    let mut w = FramedWriter::start(Vec::new(), 4096).unwrap();
    w.write_frame(&[5u8; 10]).unwrap();
    w.abort().unwrap();
    let mut wire = w.inner;
    let last = wire.len() - 1;
    wire[last] ^= 1;
    let mut r = FramedReader::new(&wire[HEADER_LEN..], 4096);
    let e = frame_error(r.read_to_end(&mut Vec::new()).unwrap_err());
    assert!(matches!(e, FrameError::BadTrailer { .. }), "{e:?}");
}

#[test]
fn replies_round_trip_and_garbage_is_named() {
    assert_eq!(parse_reply(&reply_ok(42)).unwrap(), Reply::Ok(42));
    assert_eq!(parse_reply(&reply_bad(7)).unwrap(), Reply::Bad(7));
    assert!(parse_reply(b"HTTP/1.1 400 Bad")
        .unwrap_err()
        .contains("not a tapebuf reply"));
}

/// A stream of `blocks` under the UNSUMMED flag, as a sender inside TLS
/// sends it.
fn encode_unsummed(blocks: &[Vec<u8>]) -> Vec<u8> {
    let mut w = FramedWriter::start_unsummed(Vec::new(), 4096).unwrap();
    for b in blocks {
        w.write_frame(b).unwrap();
    }
    w.finish().unwrap();
    w.inner
}

#[test]
fn an_unsummed_stream_carries_zero_sums_and_arrives_intact_at_an_unsummed_reader() {
    let blocks = vec![vec![7u8; 1000], vec![9u8; 4096], vec![1u8; 3]];
    let wire = encode_unsummed(&blocks);
    let head: [u8; HEADER_LEN] = wire[..HEADER_LEN].try_into().unwrap();
    assert_eq!(announced_flags(&head), UNSUMMED);
    assert_eq!(classify(&head).unwrap(), Opening::Framed);
    // The first frame's sum field is zero.
    assert_eq!(&wire[HEADER_LEN + 4..HEADER_LEN + 12], &[0u8; 8]);
    let mut r = FramedReader::new(&wire[HEADER_LEN..], 4096).unsummed();
    let mut out = Vec::new();
    r.read_to_end(&mut out).unwrap();
    assert!(r.ended());
    assert_eq!(out, blocks.concat());
}

#[test]
fn a_summed_reader_refuses_an_unsummed_stream_at_its_first_frame() {
    let wire = encode_unsummed(&[vec![7u8; 1000]]);
    let mut r = FramedReader::new(&wire[HEADER_LEN..], 4096);
    let e = frame_error(r.read_to_end(&mut Vec::new()).unwrap_err());
    assert_eq!(e, FrameError::Corrupt { at: 0, len: 1000 });
}

#[test]
fn an_unsummed_stream_cut_short_or_with_a_wrong_count_still_fails() {
    let wire = encode_unsummed(&[vec![7u8; 1000], vec![8u8; 1000]]);
    let cut = &wire[HEADER_LEN..wire.len() - 1];
    let mut r = FramedReader::new(cut, 4096).unsummed();
    let e = frame_error(r.read_to_end(&mut Vec::new()).unwrap_err());
    assert!(matches!(e, FrameError::Truncated { .. }), "{e:?}");
    let mut miscounted = wire.clone();
    let count_low = wire.len() - 24 + 7;
    miscounted[count_low] ^= 1;
    let mut r = FramedReader::new(&miscounted[HEADER_LEN..], 4096).unsummed();
    let e = frame_error(r.read_to_end(&mut Vec::new()).unwrap_err());
    assert!(matches!(e, FrameError::BadTrailer { .. }), "{e:?}");
}

#[test]
fn a_header_with_flags_this_build_does_not_know_is_refused() {
    for flags in [0x04u8, 0x80, UNSUMMED | 0x04, RESUMABLE | 0x08] {
        let h = header_with(4096, flags);
        assert_eq!(classify(&h).unwrap_err(), FrameError::Flags(flags));
    }
}
