//! The sweep: at each block size and in each run, write the test stream,
//! read it back at the same size, and check every byte.
//!
//! Runs are interleaved across sizes (run 1 of every size, then run 2 ...)
//! so that drift in the target (a disk warming up, a busy link) falls on
//! every size alike and shows as spread rather than as a false curve. Each
//! pass uses its own seed, so bytes left behind by an earlier pass can
//! never pass for this one's. A byte that reads back wrong is recorded with
//! its offset and the sweep goes on, so the figures are complete; the size
//! is then not verified and never recommended. A stop request (a signal) is
//! honoured between blocks. A size the drive or its controller refuses at
//! its first block (EBUSY, EINVAL, EOVERFLOW: st's answers to a transfer
//! too large) is marked "not supported by this drive/controller" and
//! skipped in later runs; the sweep goes on with the other sizes.
//!
//! A pass is timed by the clock from its first block to the end of its
//! `end` call, gaps included, as a drive sees it. The test data is made (for
//! a write) and checked (for a read-back) on a helper thread a few blocks
//! ahead of or behind the target, as tapebuf's own ring keeps a drive fed,
//! so the time to make or check it does not count unless the helper falls
//! behind the target. The invariant: a pass never holds more than
//! `DEPTH_BLOCKS + 1` blocks of data, whatever the stream's length.

use std::fmt;
use std::io;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::aligned::AlignedBuf;
use super::data::{pass_seed, Pattern};
use super::measure::{summarize, Clock, PassTiming};
use super::recommend::recommend;
use super::schema::{DataKind, ProbeResults, SizeResult, SCHEMA, SCHEMA_VERSION};
use super::target::{Pass, ProbeTarget};
use crate::base::size::Bytes;
use crate::tape::limits::{is_refused_size, plain};

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Ascending, no repeats.
    pub sizes: Vec<u64>,
    pub runs: u32,
    /// Bytes written and read back per pass.
    pub stream_bytes: u64,
    pub data: DataKind,
}

/// A byte that read back wrong: the first of its pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub block_bytes: u64,
    pub run: u32,
    /// From the start of the stream.
    pub offset: u64,
    pub expected: u8,
    pub got: u8,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the read-back differs at byte offset {} (block size {} bytes, run {}): wrote 0x{:02x}, read 0x{:02x}",
            self.offset, self.block_bytes, self.run, self.expected, self.got
        )
    }
}

/// Why a sweep stopped.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A stop was asked for, by this signal.
    #[error("interrupted by signal {0}")]
    Interrupted(i32),
    #[error(
        "{doing} at byte offset {offset} (block size {block_bytes} bytes, run {run}): {source}"
    )]
    Io {
        doing: &'static str,
        offset: u64,
        block_bytes: u64,
        run: u32,
        source: io::Error,
    },
    #[error("the read-back ended at byte offset {offset} of {stream_bytes} (block size {block_bytes} bytes, run {run}): the target gave back less than was written")]
    Short {
        offset: u64,
        stream_bytes: u64,
        block_bytes: u64,
        run: u32,
    },
}

/// Every pass at one size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SizeRuns {
    pub block_bytes: u64,
    pub writes: Vec<PassTiming>,
    pub reads: Vec<PassTiming>,
    pub mismatches: Vec<Mismatch>,
    /// Why the target refused this size, which was then skipped.
    pub refused: Option<String>,
}

/// The outcome of a whole sweep, in ascending block size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sweep {
    pub sizes: Vec<SizeRuns>,
}

/// One finished run at one size, for progress lines.
pub struct Progress<'a> {
    pub run: u32,
    pub runs: u32,
    pub block_bytes: u64,
    pub write: &'a PassTiming,
    pub read: &'a PassTiming,
    pub mismatch: Option<&'a Mismatch>,
}

/// Runs the sweep on `target`. `stop` says whether, and by which signal,
/// to stop; it is asked between blocks.
pub fn sweep(
    target: &mut dyn ProbeTarget,
    plan: &Plan,
    clock: &dyn Clock,
    stop: &dyn Fn() -> Option<i32>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Sweep, SweepError> {
    let mut out = Sweep {
        sizes: plan
            .sizes
            .iter()
            .map(|&block_bytes| SizeRuns {
                block_bytes,
                ..SizeRuns::default()
            })
            .collect(),
    };
    for run in 1..=plan.runs {
        for entry in &mut out.sizes {
            if entry.refused.is_some() {
                continue;
            }
            let pass = OneRun {
                target: &mut *target,
                clock,
                stop,
                block_bytes: entry.block_bytes,
                run,
                stream_bytes: plan.stream_bytes,
                pattern: Pattern::new(plan.data, pass_seed(entry.block_bytes, run)),
            };
            let (write, read, mismatch) = match pass.run() {
                Err(e) => match refusal(&e) {
                    Some(why) => {
                        // Close the pass the refusal left open; the size
                        // is reported, not measured.
                        let _ = target.end();
                        entry.refused = Some(why);
                        continue;
                    }
                    None => return Err(e),
                },
                Ok(done) => done,
            };
            entry.writes.push(write);
            entry.reads.push(read);
            if let Some(m) = mismatch {
                entry.mismatches.push(m);
            }
            progress(Progress {
                run,
                runs: plan.runs,
                block_bytes: entry.block_bytes,
                write: &write,
                read: &read,
                mismatch: mismatch.as_ref(),
            });
        }
    }
    Ok(out)
}

/// The reason to report when `e` is a refusal of the block size itself:
/// st's EBUSY, EINVAL or EOVERFLOW at the first block of a pass.
fn refusal(e: &SweepError) -> Option<String> {
    match e {
        SweepError::Io {
            doing: doing @ ("writing" | "reading back"),
            offset: 0,
            block_bytes,
            source,
            ..
        } if is_refused_size(source) => Some(format!(
            "not supported by this drive/controller ({doing} a {}-byte block: {})",
            block_bytes,
            plain(source)
        )),
        _ => None,
    }
}

/// Blocks made or checked ahead of the target, per pass.
const DEPTH_BLOCKS: usize = 4;

/// One run at one size: a write pass and its read-back.
struct OneRun<'a> {
    target: &'a mut dyn ProbeTarget,
    clock: &'a dyn Clock,
    stop: &'a dyn Fn() -> Option<i32>,
    block_bytes: u64,
    run: u32,
    stream_bytes: u64,
    pattern: Pattern,
}

/// A block on its way between the target's thread and the helper.
struct Block {
    offset: u64,
    len: usize,
    buf: AlignedBuf,
}

impl OneRun<'_> {
    fn run(mut self) -> Result<(PassTiming, PassTiming, Option<Mismatch>), SweepError> {
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

    fn buffers(&self) -> (Sender<AlignedBuf>, Receiver<AlignedBuf>) {
        let (tx, rx) = bounded(DEPTH_BLOCKS + 1);
        for _ in 0..=DEPTH_BLOCKS {
            let _ = tx.send(AlignedBuf::zeroed(
                self.block_bytes as usize,
                self.target.alignment(),
            ));
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
                    pattern.fill(offset, &mut buf[..len]);
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
        free: Sender<AlignedBuf>,
    ) -> Result<PassTiming, SweepError> {
        let stream = self.stream_bytes;
        let mut timer = Timer::default();
        let mut done = 0u64;
        while done < stream {
            self.check_stop()?;
            let b = full.recv().expect("the maker makes the whole stream");
            timer.start_once(self.clock);
            self.target
                .write_block(&b.buf[..b.len])
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
                            .first_difference(b.offset, &b.buf[..b.len], &mut scratch)
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
        free: Receiver<AlignedBuf>,
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
                .read_block(&mut buf[..want])
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

impl Sweep {
    /// Every mismatch, by run and then size.
    pub fn mismatches(&self) -> Vec<Mismatch> {
        let mut all: Vec<Mismatch> = self
            .sizes
            .iter()
            .flat_map(|s| s.mismatches.iter().copied())
            .collect();
        all.sort_by_key(|m| (m.run, m.block_bytes));
        all
    }

    /// The summaries per size, ascending.
    pub fn size_results(&self) -> Vec<SizeResult> {
        self.sizes
            .iter()
            .map(|s| SizeResult {
                block_bytes: s.block_bytes,
                write: summarize(&s.writes),
                read: summarize(&s.reads),
                verified: s.mismatches.is_empty() && s.refused.is_none(),
                refused: s.refused.clone(),
            })
            .collect()
    }

    /// The whole result, as `--json` writes it.
    pub fn results(&self, target: &dyn ProbeTarget, plan: &Plan, direct: bool) -> ProbeResults {
        let results = self.size_results();
        ProbeResults {
            schema: SCHEMA.to_string(),
            version: SCHEMA_VERSION,
            tapebuf: env!("CARGO_PKG_VERSION").to_string(),
            target: target.name().to_string(),
            target_kind: target.kind(),
            data: plan.data,
            stream_bytes: plan.stream_bytes,
            runs: plan.runs,
            direct,
            recommend: recommend(&results),
            results,
        }
    }
}

/// "64 KiB" for progress lines.
pub fn show_size(block_bytes: u64) -> String {
    Bytes(block_bytes).to_string()
}
