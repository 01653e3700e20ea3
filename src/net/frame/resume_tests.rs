//! A resumable stream's parts: the session record and the new replies
//! round-trip, and a stream cut at any frame and sent on from the
//! receiver's byte over a new connection reads back whole, its trailer
//! matching, however often it is cut.

use super::*;
use proptest::prelude::*;
use std::io::{Cursor, Read};

fn blocks(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| (0..1000 + i * 37).map(|j| (i * 7 + j) as u8).collect())
        .collect()
}

/// Sends `blocks` with a cut after each frame count in `cuts` (sorted):
/// each connection carries the frames from the receiver's count on, and
/// the receiver reads each connection's frames then takes the next
/// connection. Returns what the receiver read and whether it ended.
fn send_with_cuts(blocks: &[Vec<u8>], cuts: &[usize]) -> (Vec<u8>, bool) {
    let mut w = FramedWriter::start_with(Vec::new(), 4096, RESUMABLE).unwrap();
    w.inner.clear(); // the header: the reader starts after it
    let mut r = FramedReader::new(Cursor::new(Vec::new()), 4096);
    let mut out = Vec::new();
    let mut next = 0;
    for &cut in cuts.iter().chain(std::iter::once(&blocks.len())) {
        // The sender sends every block not yet held, up to the cut, and the
        // receiver reads them.
        for b in &blocks[next..cut] {
            w.write_frame(b).unwrap();
        }
        if cut == blocks.len() {
            w.finish().unwrap();
        }
        let wire = w.replace_inner(Vec::new());
        r.replace_inner(Cursor::new(wire));
        let mut buf = vec![0u8; 4096];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, r.ended()),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(_) => break, // the cut: Truncated
            }
        }
        // The receiver answers with what it holds; the sender rewinds.
        let held = r.total();
        w.rewind(held).unwrap();
        next = blocks
            .iter()
            .scan(0u64, |at, b| {
                *at += b.len() as u64;
                Some(*at)
            })
            .take_while(|at| *at <= held)
            .count();
    }
    (out, r.ended())
}

#[test]
fn a_stream_cut_at_any_frames_reads_back_whole_with_a_matching_trailer() {
    let blocks = blocks(12);
    let whole: Vec<u8> = blocks.concat();
    for cuts in [
        vec![],
        vec![0],
        vec![3],
        vec![1, 2, 3],
        vec![5, 5, 11],
        vec![11],
    ] {
        let (out, ended) = send_with_cuts(&blocks, &cuts);
        assert!(ended, "cuts {cuts:?}: the trailer matched");
        assert_eq!(out, whole, "cuts {cuts:?}");
    }
}

proptest! {
    #[test]
    fn any_cuts_read_back_whole(mut cuts in proptest::collection::vec(0usize..12, 0..8)) {
        cuts.sort();
        let blocks = blocks(12);
        let (out, ended) = send_with_cuts(&blocks, &cuts);
        prop_assert!(ended);
        prop_assert_eq!(out, blocks.concat());
    }
}

#[test]
fn a_rewind_to_a_byte_inside_a_frame_is_refused() {
    let mut w = FramedWriter::start_with(Vec::new(), 4096, RESUMABLE).unwrap();
    w.write_frame(&[1; 100]).unwrap();
    w.write_frame(&[2; 100]).unwrap();
    assert!(w.rewind(150).unwrap_err().contains("byte 150"));
    assert!(w.rewind(100).is_ok());
    assert_eq!(w.total(), 100);
}

#[test]
fn a_session_record_and_every_reply_round_trip() {
    let hello = Hello {
        id: SessionId::new().unwrap(),
        from: 1 << 40,
    };
    assert_eq!(Hello::decode(&hello.encode()), hello);
    assert_ne!(SessionId::new().unwrap(), hello.id);
    let cases = [
        (reply_held(7), Reply::Held(7)),
        (reply_go_on(8), Reply::GoOn(8)),
        (
            reply_refused(Refused::NotResumable),
            Reply::Refused(Refused::NotResumable),
        ),
        (
            reply_refused(Refused::UnknownSession),
            Reply::Refused(Refused::UnknownSession),
        ),
        (reply_ok(9), Reply::Ok(9)),
        (reply_bad(10), Reply::Bad(10)),
    ];
    for (bytes, reply) in cases {
        assert_eq!(parse_reply(&bytes).unwrap(), reply);
    }
}

#[test]
fn a_header_may_say_resumable_but_no_unknown_flag() {
    let h = header_with(4096, RESUMABLE | UNSUMMED);
    assert_eq!(classify(&h).unwrap(), Opening::Framed);
    let h = header_with(4096, 0x04);
    assert_eq!(classify(&h).unwrap_err(), FrameError::Flags(0x04));
}
