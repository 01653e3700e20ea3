//! The sender's side of the framed stream: one frame per block, each with
//! its length and checksum, then the end marker and a trailer that sums up
//! every frame sent. A block is never split across frames.

use std::io::{self, IoSlice, Write};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::format::{header_with, ABORT_MARK, FRAME_HEAD_LEN, MAX_FRAME, TRAILER_LEN, UNSUMMED};

/// Writes frames to `inner`, one per block, and the trailer at the end.
pub struct FramedWriter<W> {
    pub(super) inner: W,
    total: u64,
    frames: u64,
    chain: Xxh3,
    /// Each frame carries its checksum; false inside TLS (`UNSUMMED`).
    summed: bool,
}

impl<W: Write> FramedWriter<W> {
    /// Sends the header.
    pub fn start(inner: W, block_bytes: u32) -> io::Result<FramedWriter<W>> {
        FramedWriter::open(inner, block_bytes, true)
    }

    /// Sends the header of a stream whose frames carry no checksum: for a
    /// link that authenticates every byte itself (TLS).
    pub fn start_unsummed(inner: W, block_bytes: u32) -> io::Result<FramedWriter<W>> {
        FramedWriter::open(inner, block_bytes, false)
    }

    fn open(mut inner: W, block_bytes: u32, summed: bool) -> io::Result<FramedWriter<W>> {
        let flags = if summed { 0 } else { UNSUMMED };
        inner.write_all(&header_with(block_bytes, flags))?;
        Ok(FramedWriter {
            inner,
            total: 0,
            frames: 0,
            chain: Xxh3::new(),
            summed,
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
        let sum = if self.summed { xxh3_64(data) } else { 0 };
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

    pub fn get_ref(&self) -> &W {
        &self.inner
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
