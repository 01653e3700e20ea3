//! The receiver's side of the framed stream: frames checked as they
//! arrive, and the stream's end accepted only with a trailer that matches.
//! No byte of a frame is handed out before the whole frame passed its
//! checksum.

use std::io::{self, Read};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::format::{FrameError, ABORT_MARK, FRAME_HEAD_LEN, MAX_FRAME, TRAILER_LEN};

/// Reads a framed stream (after its header) as plain data. `read` hands
/// out only bytes of frames that passed their checksum, so a damaged frame
/// never reaches an output, not even in part; it returns 0 only after a
/// trailer that matches. Any other end is an error.
///
/// A frame that fits the caller's buffer is read straight into it and
/// checked there (the usual case: the ring's blocks are as large as the
/// sender's). A larger one is gathered here first. No frame is larger than
/// the block the header announced, and the listener refuses a header whose
/// block is larger than the receiver's `-m`, so this costs at most one
/// more `-m`.
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
    /// Each frame carries its checksum; false for a stream whose header
    /// said `UNSUMMED`, which only a TLS link may carry.
    summed: bool,
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
            summed: true,
        }
    }

    /// The same reader for a stream whose frames carry no checksum
    /// (`UNSUMMED`): its link checks every byte.
    pub fn unsummed(self) -> FramedReader<R> {
        FramedReader {
            summed: false,
            ..self
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

    /// Puts a new connection under the frames, after the old one dropped
    /// between or inside a frame: the next read begins a frame again, and
    /// nothing of a frame cut short was counted or handed out (a held
    /// frame is always handed out whole before the connection is read).
    pub fn replace_inner(&mut self, inner: R) -> R {
        std::mem::replace(&mut self.inner, inner)
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
        let expected = if self.summed { xxh3_64(data) } else { 0 };
        if expected != sum {
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
        // At most the announced block, which the listener held to `-m`.
        frame.reserve_exact(len);
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
