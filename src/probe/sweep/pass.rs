//! One run at one block size: the write pass and its read-back, each with
//! a helper thread that makes (for a write) or checks (for a read-back)
//! the test data a few blocks ahead of or behind the target.
//!
//! A pass is timed by the clock from its first block to the end of its
//! `end` call, gaps included, as a drive sees it, with a mark at the first
//! quarter of the stream. The invariant: a pass never holds more than
//! `DEPTH_BLOCKS + 1` blocks of data, whatever the stream's length.

use std::io;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::fault::{Mismatch, SweepError};
use crate::base::block::{Block as Buffer, PAGE_BYTES};
use crate::probe::data::Pattern;
use crate::probe::measure::{Clock, PassTiming};
use crate::probe::target::{Pass, ProbeTarget};

/// Blocks made or checked ahead of the target, per pass.
const DEPTH_BLOCKS: usize = 4;

/// One run at one size: a write pass and its read-back.
pub(super) struct OneRun<'a> {
    pub(super) target: &'a mut dyn ProbeTarget,
    pub(super) clock: &'a dyn Clock,
    pub(super) stop: &'a dyn Fn() -> Option<i32>,
    pub(super) block_bytes: u64,
    pub(super) run: u32,
    pub(super) stream_bytes: u64,
    pub(super) pattern: Pattern,
}

/// A block on its way between the target's thread and the helper.
struct Block {
    offset: u64,
    len: usize,
    buf: Buffer,
}

impl OneRun<'_> {
    pub(super) fn run(mut self) -> Result<(PassTiming, PassTiming, Option<Mismatch>), SweepError> {
        let write = self.write()?;
        let (read, mismatch) = self.read()?;
        Ok((write, read, mismatch))
    }

    fn io(&self, doing: &'static str, offset: u64) -> impl FnOnce(io::Error) -> SweepError {
        let (block_bytes, run) = (self.block_bytes, self.run);
        move |source| SweepError::Io {
            doing,
            offset,
            block_bytes,
            run,
            source,
        }
    }

    fn check_stop(&self) -> Result<(), SweepError> {
        match (self.stop)() {
            Some(sig) => Err(SweepError::Interrupted(sig)),
            None => Ok(()),
        }
    }

    fn buffers(&self) -> (Sender<Buffer>, Receiver<Buffer>) {
        let (tx, rx) = bounded(DEPTH_BLOCKS + 1);
        for _ in 0..=DEPTH_BLOCKS {
            // A block of its own mapping starts on a page, which is
            // aligned enough for O_DIRECT.
            debug_assert!(self.target.alignment() <= PAGE_BYTES);
            let buffer = Buffer::alone(self.block_bytes as usize)
                .unwrap_or_else(|e| panic!("cannot map a probe buffer: {e}"));
            let _ = tx.send(buffer);
        }
        (tx, rx)
    }

    /// Writes the stream; a helper thread makes the blocks ahead.
    fn write(&mut self) -> Result<PassTiming, SweepError> {
        let (block, stream) = (self.block_bytes, self.stream_bytes);
        self.check_stop()?;
        self.target
            .begin(Pass::Write, block as usize, stream)
            .map_err(self.io("opening to write", 0))?;
        let (free_tx, free_rx) = self.buffers();
        let (full_tx, full_rx) = bounded::<Block>(DEPTH_BLOCKS);
        let pattern = self.pattern;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut offset = 0u64;
                while offset < stream {
                    let Ok(mut buf) = free_rx.recv() else { return };
                    let len = block.min(stream - offset) as usize;
                    pattern.fill(offset, &mut buf.buffer_mut()[..len]);
                    if full_tx.send(Block { offset, len, buf }).is_err() {
                        return;
                    }
                    offset += len as u64;
                }
            });
            self.write_blocks(full_rx, free_tx)
        })
    }

    fn write_blocks(
        &mut self,
        full: Receiver<Block>,
        free: Sender<Buffer>,
    ) -> Result<PassTiming, SweepError> {
        let stream = self.stream_bytes;
        let mut timer = Timer::default();
        let mut done = 0u64;
        while done < stream {
            self.check_stop()?;
            let b = full.recv().expect("the maker makes the whole stream");
            timer.start_once(self.clock);
            self.target
                .write_block(&b.buf.data()[..b.len])
                .map_err(self.io("writing", b.offset))?;
            done += b.len as u64;
            let _ = free.send(b.buf);
            if timer.mark.is_none() && done >= stream / 4 {
                self.target.sync().map_err(self.io("syncing", done))?;
                timer.mark(self.clock, done);
            }
        }
        self.target
            .end()
            .map_err(self.io("ending the write", done))?;
        Ok(timer.timing(self.clock, done))
    }

    /// Reads the stream back; a helper thread checks the blocks.
    fn read(&mut self) -> Result<(PassTiming, Option<Mismatch>), SweepError> {
        let (block, stream) = (self.block_bytes, self.stream_bytes);
        self.check_stop()?;
        self.target
            .begin(Pass::Read, block as usize, stream)
            .map_err(self.io("opening to read back", 0))?;
        let (free_tx, free_rx) = self.buffers();
        let (full_tx, full_rx) = bounded::<Block>(DEPTH_BLOCKS);
        let (pattern, run) = (self.pattern, self.run);
        std::thread::scope(|scope| {
            let checker = scope.spawn(move || {
                let mut scratch = vec![0u8; block as usize];
                let mut first = None;
                for b in full_rx {
                    if first.is_none() {
                        first = pattern
                            .first_difference(b.offset, &b.buf.data()[..b.len], &mut scratch)
                            .map(|d| Mismatch {
                                block_bytes: block,
                                run,
                                offset: d.offset,
                                expected: d.expected,
                                got: d.got,
                            });
                    }
                    if free_tx.send(b.buf).is_err() {
                        break;
                    }
                }
                first
            });
            let timing = self.read_blocks(full_tx, free_rx)?;
            let mismatch = checker.join().expect("the checker does not panic");
            Ok((timing, mismatch))
        })
    }

    fn read_blocks(
        &mut self,
        full: Sender<Block>,
        free: Receiver<Buffer>,
    ) -> Result<PassTiming, SweepError> {
        let (block, stream) = (self.block_bytes, self.stream_bytes);
        let mut timer = Timer::default();
        let mut done = 0u64;
        while done < stream {
            self.check_stop()?;
            let mut buf = free.recv().expect("the checker gives buffers back");
            let want = block.min(stream - done) as usize;
            timer.start_once(self.clock);
            let n = self
                .target
                .read_block(&mut buf.buffer_mut()[..want])
                .map_err(self.io("reading back", done))?;
            if n == 0 {
                return Err(SweepError::Short {
                    offset: done,
                    stream_bytes: stream,
                    block_bytes: block,
                    run: self.run,
                });
            }
            let _ = full.send(Block {
                offset: done,
                len: n,
                buf,
            });
            done += n as u64;
            if timer.mark.is_none() && done >= stream / 4 {
                timer.mark(self.clock, done);
            }
        }
        self.target
            .end()
            .map_err(self.io("ending the read-back", done))?;
        Ok(timer.timing(self.clock, done))
    }
}

/// The wall clock of a pass, from its first block, and the quarter mark.
#[derive(Default)]
struct Timer {
    start_s: Option<f64>,
    mark: Option<(u64, f64)>,
}

impl Timer {
    fn start_once(&mut self, clock: &dyn Clock) {
        if self.start_s.is_none() {
            self.start_s = Some(clock.now_s());
        }
    }

    fn since_start(&self, clock: &dyn Clock) -> f64 {
        self.start_s
            .map_or(0.0, |start| (clock.now_s() - start).max(0.0))
    }

    fn mark(&mut self, clock: &dyn Clock, bytes: u64) {
        self.mark = Some((bytes, self.since_start(clock)));
    }

    fn timing(&self, clock: &dyn Clock, whole_bytes: u64) -> PassTiming {
        let whole_s = self.since_start(clock);
        let (quarter_bytes, quarter_s) = self.mark.unwrap_or((whole_bytes, whole_s));
        PassTiming {
            quarter_bytes,
            quarter_s,
            whole_bytes,
            whole_s,
        }
    }
}
