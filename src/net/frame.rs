//! The framed stream that tapebuf sends over TCP, so that a receiver can
//! tell a finished stream from a truncated or damaged one. Plain TCP cannot:
//! a killed sender and a finished one both close with FIN.
//!
//! All integers are big-endian.
//!
//! ```text
//! header   16 bytes  "\x89TAPEBUF", version 1, flags 0, 2 reserved bytes,
//!                    the sender's block size (u32)
//! frame    12 bytes  length (u32, 1 ..= 2^31), XXH3-64 of the data (u64)
//!          then the data
//! end      4 bytes   length 0 when the sender's input ended, or
//!                    0xFFFFFFFF when the sender stopped early (a signal,
//!                    its watchdog, an input failure)
//! trailer  24 bytes  total data bytes (u64), frame count (u64), XXH3-64
//!                    of every frame's checksum in order (u64)
//! reply    16 bytes  receiver to sender: "TBUF-OK\0" and the byte count,
//!                    or "TBUF-BAD" and the offset of the damage
//! ```
//!
//! Each frame is one block, checked as it arrives, so damage is named by
//! its byte offset. A sender that stops early still closes the stream in
//! order, but with the abort marker: the receiver then knows the bytes it
//! kept are intact and that the stream is incomplete, and fails. The reply tells the sender that every byte arrived
//! intact; it does not say the receiver's outputs have committed them.
//! None of this is encryption or authentication.

use std::io::{self, IoSlice, Read, Write};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The first bytes of a framed stream. The high byte makes it unlikely to
/// begin a tar, cpio, dump or zfs stream, which a raw sender would send.
pub const MAGIC: [u8; 8] = *b"\x89TAPEBUF";
/// The only version this build speaks.
pub const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 16;
const FRAME_HEAD_LEN: usize = 12;
const TRAILER_LEN: usize = 24;
/// The largest frame: the largest block (-s).
pub const MAX_FRAME: u32 = 1 << 31;
const ACK_OK: [u8; 8] = *b"TBUF-OK\0";
const ACK_BAD: [u8; 8] = *b"TBUF-BAD";
pub const REPLY_LEN: usize = 16;
/// The end marker of a stream whose sender stopped before its input ended.
/// Larger than `MAX_FRAME`, so a receiver that predates it fails too.
const ABORT_MARK: u32 = u32::MAX;

/// Why a framed stream is not what the sender sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("the connection ended after {at} bytes without tapebuf's end-of-stream trailer: the sender stopped early (killed, crashed or cut off) and the stream is truncated")]
    Truncated { at: u64 },
    #[error(
        "the {len}-byte frame at byte {at} fails its checksum: the stream was damaged in transit"
    )]
    Corrupt { at: u64, len: u32 },
    #[error("a frame header at byte {at} claims {len} bytes, more than any block: the stream is damaged")]
    BadLength { at: u64, len: u32 },
    #[error("the trailer does not match what arrived ({why}): the stream is damaged")]
    BadTrailer { why: String },
    #[error("the sender speaks tapebuf stream version {0}; this tapebuf knows version {VERSION}")]
    Version(u8),
    #[error("the sender stopped before the end of its input, after {at} bytes (it was interrupted, stopped by its watchdog, or its input failed): the stream is incomplete")]
    Aborted { at: u64 },
}

impl From<FrameError> for io::Error {
    fn from(e: FrameError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// The block size a header announces (the largest frame that follows).
pub fn announced_block_bytes(header: &[u8; HEADER_LEN]) -> u32 {
    u32::from_be_bytes(header[12..].try_into().expect("4 bytes"))
}

/// The stream header for a sender with this block size.
pub fn header(block_bytes: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8] = VERSION;
    h[12..].copy_from_slice(&block_bytes.to_be_bytes());
    h
}

/// What the first bytes of a connection say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// A whole tapebuf header: the rest is frames.
    Framed,
    /// Bytes that cannot begin a tapebuf header (mbuffer, nc, socat, or a
    /// stranger): data, if raw streams are allowed.
    Raw,
    /// Nothing yet, or the start of a header: more bytes are needed. A
    /// connection that ends here sent no stream at all.
    Incomplete,
}

/// Classifies the first bytes of a connection.
pub fn classify(first: &[u8]) -> Result<Opening, FrameError> {
    let magic = first.len().min(MAGIC.len());
    if first[..magic] != MAGIC[..magic] {
        return Ok(Opening::Raw);
    }
    if first.len() < HEADER_LEN {
        return Ok(Opening::Incomplete);
    }
    match first[8] {
        VERSION => Ok(Opening::Framed),
        v => Err(FrameError::Version(v)),
    }
}

/// Writes frames to `inner`, one per block, and the trailer at the end.
pub struct FramedWriter<W> {
    inner: W,
    total: u64,
    frames: u64,
    chain: Xxh3,
}

impl<W: Write> FramedWriter<W> {
    /// Sends the header.
    pub fn start(mut inner: W, block_bytes: u32) -> io::Result<FramedWriter<W>> {
        inner.write_all(&header(block_bytes))?;
        Ok(FramedWriter {
            inner,
            total: 0,
            frames: 0,
            chain: Xxh3::new(),
        })
    }

    /// Sends one block as one frame, header and data in one writev.
    pub fn write_frame(&mut self, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(()); // length 0 is the end marker
        }
        let len = u32::try_from(data.len())
            .ok()
            .filter(|l| *l <= MAX_FRAME)
            .ok_or_else(|| io::Error::other("a block larger than 2 GiB cannot be framed"))?;
        let sum = xxh3_64(data);
        let mut head = [0u8; FRAME_HEAD_LEN];
        head[..4].copy_from_slice(&len.to_be_bytes());
        head[4..].copy_from_slice(&sum.to_be_bytes());
        write_both(&mut self.inner, &head, data)?;
        self.total += data.len() as u64;
        self.frames += 1;
        self.chain.update(&sum.to_be_bytes());
        Ok(())
    }

    /// Sends the end marker and the trailer: the stream is complete.
    pub fn finish(&mut self) -> io::Result<()> {
        self.end(0)
    }

    /// Sends the abort marker and the trailer: the bytes sent are intact,
    /// but the stream stopped before the end of the sender's input.
    pub fn abort(&mut self) -> io::Result<()> {
        self.end(ABORT_MARK)
    }

    fn end(&mut self, marker: u32) -> io::Result<()> {
        let mut end = [0u8; 4 + TRAILER_LEN];
        end[..4].copy_from_slice(&marker.to_be_bytes());
        end[4..12].copy_from_slice(&self.total.to_be_bytes());
        end[12..20].copy_from_slice(&self.frames.to_be_bytes());
        end[20..].copy_from_slice(&self.chain.digest().to_be_bytes());
        self.inner.write_all(&end)?;
        self.inner.flush()
    }

    /// Data bytes sent so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

/// Writes `head` then `data` completely, with as few system calls as the
/// socket allows.
fn write_both(w: &mut impl Write, head: &[u8], data: &[u8]) -> io::Result<()> {
    let mut done = 0usize;
    let whole = head.len() + data.len();
    while done < whole {
        let n = if done < head.len() {
            w.write_vectored(&[IoSlice::new(&head[done..]), IoSlice::new(data)])
        } else {
            w.write(&data[done - head.len()..])
        };
        match n {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads a framed stream (after its header) as plain data. `read` hands
/// out only bytes of frames that passed their checksum, so a damaged frame
/// never reaches an output, not even in part; it returns 0 only after a
/// trailer that matches. Any other end is an error.
///
/// A frame that fits the caller's buffer is read straight into it and
/// checked there (the usual case: the ring's blocks are as large as the
/// sender's). A larger one is gathered here first, growing only as its
/// bytes arrive, so a header that claims a huge frame costs nothing until
/// the bytes come.
pub struct FramedReader<R> {
    inner: R,
    /// The largest frame the sender announced (its block size).
    max_frame: u32,
    /// A checked frame larger than the caller's buffer, and how much of it
    /// was handed out.
    held: Vec<u8>,
    held_out: usize,
    total: u64,
    frames: u64,
    chain: Xxh3,
    ended: bool,
}

impl<R: Read> FramedReader<R> {
    /// A reader for a stream whose header announced `block_bytes`.
    pub fn new(inner: R, block_bytes: u32) -> FramedReader<R> {
        FramedReader {
            inner,
            max_frame: block_bytes.clamp(1, MAX_FRAME),
            held: Vec::new(),
            held_out: 0,
            total: 0,
            frames: 0,
            chain: Xxh3::new(),
            ended: false,
        }
    }

    /// Data bytes that arrived and passed their checksum so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// True once the trailer has arrived and matched.
    pub fn ended(&self) -> bool {
        self.ended
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Reads exactly `buf`, or fails with `Truncated` at a clean EOF.
    fn exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => return Err(FrameError::Truncated { at: self.total }.into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Reads the next frame's head: its length and checksum, or None
    /// after the end marker and a matching trailer.
    fn next_frame(&mut self) -> io::Result<Option<(usize, u64)>> {
        let mut head = [0u8; FRAME_HEAD_LEN];
        self.exact(&mut head[..4])?;
        let len = u32::from_be_bytes(head[..4].try_into().expect("4 bytes"));
        if len == 0 {
            self.trailer()?;
            self.ended = true;
            return Ok(None);
        }
        if len == ABORT_MARK {
            // The trailer is checked first: damage is the better reason.
            self.trailer()?;
            return Err(FrameError::Aborted { at: self.total }.into());
        }
        if len > self.max_frame {
            return Err(FrameError::BadLength {
                at: self.total,
                len,
            }
            .into());
        }
        self.exact(&mut head[4..])?;
        let sum = u64::from_be_bytes(head[4..].try_into().expect("8 bytes"));
        Ok(Some((len as usize, sum)))
    }

    /// Checks a whole frame's data against its checksum and counts it.
    fn check(&mut self, data: &[u8], sum: u64) -> io::Result<()> {
        if xxh3_64(data) != sum {
            return Err(FrameError::Corrupt {
                at: self.total,
                len: data.len() as u32,
            }
            .into());
        }
        self.total += data.len() as u64;
        self.frames += 1;
        self.chain.update(&sum.to_be_bytes());
        Ok(())
    }

    /// Reads the trailer and checks it against what arrived.
    fn trailer(&mut self) -> io::Result<()> {
        let mut t = [0u8; TRAILER_LEN];
        self.exact(&mut t)?;
        let word = |i: usize| u64::from_be_bytes(t[i..i + 8].try_into().expect("8 bytes"));
        let (total, frames, chain) = (word(0), word(8), word(16));
        let why = if total != self.total {
            Some(format!("it says {total} bytes, {} arrived", self.total))
        } else if frames != self.frames {
            Some(format!("it says {frames} frames, {} arrived", self.frames))
        } else if chain != self.chain.digest() {
            Some("the stream checksum differs".to_string())
        } else {
            None
        };
        match why {
            Some(why) => Err(FrameError::BadTrailer { why }.into()),
            None => Ok(()),
        }
    }
}

impl<R: Read> Read for FramedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.held_out < self.held.len() {
            let n = buf.len().min(self.held.len() - self.held_out);
            buf[..n].copy_from_slice(&self.held[self.held_out..self.held_out + n]);
            self.held_out += n;
            return Ok(n);
        }
        if self.ended {
            return Ok(0);
        }
        let Some((len, sum)) = self.next_frame()? else {
            return Ok(0);
        };
        if len <= buf.len() {
            self.exact(&mut buf[..len])?;
            self.check(&buf[..len], sum)?;
            return Ok(len);
        }
        let mut frame = std::mem::take(&mut self.held);
        frame.clear();
        (&mut self.inner).take(len as u64).read_to_end(&mut frame)?;
        if frame.len() < len {
            return Err(FrameError::Truncated { at: self.total }.into());
        }
        self.check(&frame, sum)?;
        let n = buf.len();
        buf.copy_from_slice(&frame[..n]);
        (self.held, self.held_out) = (frame, n);
        Ok(n)
    }
}

/// The receiver's reply: every byte arrived intact.
pub fn reply_ok(total: u64) -> [u8; REPLY_LEN] {
    reply(ACK_OK, total)
}

/// The receiver's reply: the stream is damaged at this offset.
pub fn reply_bad(at: u64) -> [u8; REPLY_LEN] {
    reply(ACK_BAD, at)
}

fn reply(tag: [u8; 8], n: u64) -> [u8; REPLY_LEN] {
    let mut r = [0u8; REPLY_LEN];
    r[..8].copy_from_slice(&tag);
    r[8..].copy_from_slice(&n.to_be_bytes());
    r
}

/// What the receiver replied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Every byte arrived intact; the receiver counted this many.
    Ok(u64),
    /// The receiver found damage at this offset.
    Bad(u64),
}

/// Parses a reply, or says why it is not one.
pub fn parse_reply(r: &[u8; REPLY_LEN]) -> Result<Reply, String> {
    let n = u64::from_be_bytes(r[8..].try_into().expect("8 bytes"));
    if r[..8] == ACK_OK {
        Ok(Reply::Ok(n))
    } else if r[..8] == ACK_BAD {
        Ok(Reply::Bad(n))
    } else {
        Err(format!(
            "the receiver replied {:?}, which is not a tapebuf reply",
            String::from_utf8_lossy(&r[..8])
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
}
