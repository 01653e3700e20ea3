//! The sender's side of the framed stream: one frame per block, each with
//! its length and checksum, then the end marker and a trailer that sums up
//! every frame sent. A block is never split across frames.
//!
//! A resumable stream's writer keeps each frame's length and checksum
//! until the receiver acknowledges it, so that after a dropped connection
//! it can count from the receiver's byte again (`rewind`) and the trailer
//! still sums every frame once.

use std::collections::VecDeque;
use std::io::{self, IoSlice, Write};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::format::{
    header_with, ABORT_MARK, FRAME_HEAD_LEN, MAX_FRAME, RESUMABLE, TRAILER_LEN, UNSUMMED,
};

/// Writes frames to `inner`, one per block, and the trailer at the end.
pub struct FramedWriter<W> {
    pub(super) inner: W,
    total: u64,
    frames: u64,
    /// The checksums of the frames before `settled_bytes`, chained.
    chain: Xxh3,
    settled_bytes: u64,
    settled_frames: u64,
    /// The length and checksum of each frame after `settled_bytes`, in
    /// order: only in a resumable stream, until the receiver holds it.
    open: VecDeque<(u64, u64)>,
    /// A resumable stream: frames stay open until `acknowledge`.
    resumable: bool,
    /// Each frame carries its checksum; false inside TLS (`UNSUMMED`).
    summed: bool,
}

impl<W: Write> FramedWriter<W> {
    /// Sends the header.
    pub fn start(inner: W, block_bytes: u32) -> io::Result<FramedWriter<W>> {
        FramedWriter::start_with(inner, block_bytes, 0)
    }

    /// Sends the header of a stream whose frames carry no checksum: for a
    /// link that authenticates every byte itself (TLS).
    pub fn start_unsummed(inner: W, block_bytes: u32) -> io::Result<FramedWriter<W>> {
        FramedWriter::start_with(inner, block_bytes, UNSUMMED)
    }

    /// Sends the header with `flags` (`UNSUMMED`, `RESUMABLE`).
    pub fn start_with(mut inner: W, block_bytes: u32, flags: u8) -> io::Result<FramedWriter<W>> {
        inner.write_all(&header_with(block_bytes, flags))?;
        Ok(FramedWriter {
            inner,
            total: 0,
            frames: 0,
            chain: Xxh3::new(),
            settled_bytes: 0,
            settled_frames: 0,
            open: VecDeque::new(),
            resumable: flags & RESUMABLE != 0,
            summed: flags & UNSUMMED == 0,
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
        self.open.push_back((data.len() as u64, sum));
        if !self.resumable {
            self.acknowledge(self.total);
        }
        Ok(())
    }

    /// The receiver holds every byte before `upto`: the frames that end
    /// there or earlier are settled.
    pub fn acknowledge(&mut self, upto: u64) {
        while let Some(&(len, sum)) = self.open.front() {
            if self.settled_bytes + len > upto {
                break;
            }
            self.open.pop_front();
            self.settled_bytes += len;
            self.settled_frames += 1;
            self.chain.update(&sum.to_be_bytes());
        }
    }

    /// Counts from byte `to` again, on a new connection: the receiver
    /// holds everything before it, and the frames after it will be sent
    /// again. Fails when `to` is not where a frame sent began.
    pub fn rewind(&mut self, to: u64) -> Result<(), String> {
        self.acknowledge(to);
        if to != self.settled_bytes {
            return Err(format!(
                "byte {to} is not where a frame this sender holds begins (it holds from byte {})",
                self.settled_bytes
            ));
        }
        self.open.clear();
        (self.total, self.frames) = (self.settled_bytes, self.settled_frames);
        Ok(())
    }

    /// Puts a new connection under the frames; returns the old one.
    pub fn replace_inner(&mut self, inner: W) -> W {
        std::mem::replace(&mut self.inner, inner)
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
        let mut chain = self.chain.clone();
        self.open
            .iter()
            .for_each(|(_, sum)| chain.update(&sum.to_be_bytes()));
        end[20..].copy_from_slice(&chain.digest().to_be_bytes());
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
