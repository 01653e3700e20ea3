//! Driving one or several outputs from the writer thread.
//!
//! One output is written inline and is lent the block itself
//! (`Sink::write_shared`): most sinks are done with it when the write
//! returns, and a remote tape keeps it until the server's reply. Blocks
//! go back to the free queue in order, as soon as nothing else holds them.
//!
//! Several outputs each get a worker thread and a queue. The writer lends
//! every live worker a read-only clone of each block, in order, and keeps
//! the original in `pending`. A worker writes the block, drops its clone and
//! sends a wake-up. A pending block is free again once the writer holds the
//! only reference (`Arc::strong_count == 1`): no new clone of it is ever
//! made, so that test cannot be fooled. Workers run ahead of each other by
//! up to the ring size; the slowest output sets the pace because its queue
//! holds blocks back from the free queue. Every output gets identical bytes
//! in identical order. An output that fails is marked in the stats and gets
//! nothing more; the others go on.
//!
//! Taps (the `--hash` digests) are workers too: they read every block like
//! an output, but write nowhere and are not counted as outputs.
//!
//! In the zero-copy ring a block is a kernel pipe. One output splices it
//! out, which empties it. Each of several outputs first tees the block into
//! a pipe of its own (tee reads without consuming, so the workers can share
//! the block), then splices that out; the reader empties the block's pipe
//! before it fills it again.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, never, Receiver, Sender};

use crate::base::block::BlockRef;
use crate::base::block::Tap;
use crate::base::kernel_pipe::KernelPipe;
use crate::base::signals::stopped;
use crate::pipeline::stats::Stats;
use crate::sink::{describe_write_error, LateFailure, PartialWrite, Sink};

/// One output and its position in the stream.
pub struct Slot {
    index: usize,
    sink: Box<dyn Sink>,
    /// The zero-copy ring with several outputs: the pipe this output tees
    /// each block into before it splices it out.
    own_pipe: Option<KernelPipe>,
    /// The sink appends to blocks in place (`SinkTraits::room_after_block`).
    in_place: bool,
}

impl Slot {
    /// Writes one block unless this output has failed; records the outcome.
    /// With `lend`, the sink may keep the block after it returns; a lent
    /// block that nothing else holds is written in place, so the sink may
    /// fill the room after its data (`Sink::write_in_place`).
    fn write(&mut self, block: &mut BlockRef, lend: bool, stats: &Stats) {
        let out = &stats.outputs[self.index];
        if out.failed.load(Relaxed) {
            return;
        }
        let offset = out.committed_bytes.load(Relaxed);
        let written = match (block.kernel_pipe(), lend) {
            (Some(pipe), true) => self.sink.write_pipe(pipe, block.len()),
            (Some(pipe), false) => self.tee_and_write(pipe, block.len()),
            (None, true) if self.in_place => match Arc::get_mut(block) {
                Some(only) => self.sink.write_in_place(only),
                None => self.sink.write_shared(block),
            },
            (None, true) => self.sink.write_shared(block),
            (None, false) => self.sink.write_block(block.data()),
        };
        // A sink that counts its own acknowledged bytes is never credited
        // with what was merely handed to it, not even for a moment.
        let counts_itself = self.sink.acknowledged_bytes().is_some();
        match written {
            Ok(()) if counts_itself => {}
            Ok(()) => {
                out.committed_bytes.fetch_add(block.len() as u64, Relaxed);
            }
            Err(e) => {
                let (written, cause) = PartialWrite::split(&e);
                out.committed_bytes.fetch_add(written, Relaxed);
                stats.fail_output(
                    self.index,
                    describe_write_error(self.sink.name(), offset + written, cause),
                )
            }
        }
        self.count_acknowledged(stats);
    }

    /// Writes a block of the zero-copy ring that other outputs share: a
    /// tee into this output's own pipe, then a splice out of it.
    fn tee_and_write(&mut self, block: &KernelPipe, len: usize) -> std::io::Result<()> {
        let own = self
            .own_pipe
            .as_ref()
            .ok_or_else(|| std::io::Error::other("no pipe to tee the block into"))?;
        own.empty()?;
        block.tee_into(own, len)?;
        self.sink.write_pipe(own, len)
    }

    /// For a sink whose writes are acknowledged late, what it has
    /// committed is what the server acknowledged, whatever was handed to
    /// it: this replaces the count, after a write or a close, failed or not.
    fn count_acknowledged(&self, stats: &Stats) {
        if let Some(acked) = self.sink.acknowledged_bytes() {
            stats.outputs[self.index]
                .committed_bytes
                .store(acked, Relaxed);
        }
    }

    /// Flushes and closes, unless the output already failed. `early`: the
    /// stream stopped before the end of the input.
    fn finish(&mut self, stats: &Stats, early: bool) {
        if stats.outputs[self.index].failed.load(Relaxed) {
            return;
        }
        let closed = match early {
            true => self.sink.finish_early(),
            false => self.sink.finish(),
        };
        self.count_acknowledged(stats);
        if let Err(e) = closed {
            let name = self.sink.name().to_string();
            let message = match LateFailure::within(&e) {
                Some(late) => format!("{name}: {late}"),
                None => format!("{name}: closing failed: {e}"),
            };
            stats.fail_output(self.index, message);
        }
    }
}

/// True when the stream stopped before the end of the input: the run was
/// stopped (a signal, the watchdog) or the input failed. Asked once the
/// writer is done, when both are settled.
fn ended_early(stats: &Stats, stop: &Receiver<()>) -> bool {
    stopped(stop) || stats.input_error().is_some()
}

/// What a worker thread serves.
enum Job {
    Output(Slot),
    Tap(Box<dyn Tap>),
}

impl Job {
    fn take(&mut self, block: &mut BlockRef, stats: &Stats) {
        match self {
            Job::Output(slot) => slot.write(block, false, stats),
            Job::Tap(tap) => tap.update(block.data()),
        }
    }

    fn finish(&mut self, stats: &Stats, stop: &Receiver<()>) {
        match self {
            Job::Output(slot) => slot.finish(stats, ended_early(stats, stop)),
            // A digest of a failed input still covers its first bytes.
            Job::Tap(_) if stopped(stop) => {}
            Job::Tap(tap) => tap.finish(),
        }
    }
}

pub struct Worker {
    /// The output's index in the stats; None for a tap.
    index: Option<usize>,
    jobs: Sender<BlockRef>,
    thread: JoinHandle<()>,
}

/// The writer's view of all outputs.
pub enum Outputs {
    Single {
        slot: Slot,
        idle: Receiver<()>,
        /// Blocks the sink may still hold, oldest first.
        lent: VecDeque<BlockRef>,
    },
    Many {
        workers: Vec<Worker>,
        /// A worker finished a block; a pending block may be free.
        wakeups: Receiver<()>,
        /// Blocks lent to workers, oldest first.
        pending: VecDeque<BlockRef>,
    },
}

impl Outputs {
    /// Takes ownership of the opened sinks, in command-line order, and of
    /// the taps. `ring_blocks` bounds every queue, so lending never blocks.
    /// `pipes`: for the zero-copy ring with several outputs, one pipe for
    /// each output to tee into.
    pub fn new(
        sinks: Vec<Box<dyn Sink>>,
        taps: Vec<Box<dyn Tap>>,
        pipes: Vec<KernelPipe>,
        stats: &Arc<Stats>,
        ring_blocks: usize,
        stop: &Receiver<()>,
    ) -> Outputs {
        if sinks.len() == 1 && taps.is_empty() {
            let sink = sinks.into_iter().next().expect("one sink");
            let traits = sink.traits();
            return Outputs::Single {
                lent: VecDeque::with_capacity(traits.keeps_blocks + 1),
                slot: Slot {
                    index: 0,
                    sink,
                    own_pipe: None,
                    in_place: traits.room_after_block > 0,
                },
                idle: never(),
            };
        }
        let mut pipes = pipes.into_iter();
        let (wake_tx, wake_rx) = bounded(ring_blocks * (sinks.len() + taps.len()));
        let jobs = sinks
            .into_iter()
            .enumerate()
            .map(|(index, sink)| {
                Job::Output(Slot {
                    index,
                    sink,
                    own_pipe: pipes.next(),
                    in_place: false,
                })
            })
            .chain(taps.into_iter().map(Job::Tap));
        let workers = jobs
            .enumerate()
            .map(|(n, mut job)| {
                let index = match &job {
                    Job::Output(slot) => Some(slot.index),
                    Job::Tap(_) => None,
                };
                let (jobs_tx, jobs_rx) = bounded::<BlockRef>(ring_blocks);
                let wake_tx = wake_tx.clone();
                let stats = Arc::clone(stats);
                let stop = stop.clone();
                let thread = crate::base::thread::spawn(format!("output-{n}"), move || {
                    for mut block in jobs_rx {
                        if !stopped(&stop) {
                            job.take(&mut block, &stats);
                        }
                        drop(block);
                        // Only a wake-up: if the queue is full, the
                        // writer has wake-ups enough.
                        let _ = wake_tx.try_send(());
                    }
                    job.finish(&stats, &stop);
                })
                .expect("spawning an output thread");
                Worker {
                    index,
                    jobs: jobs_tx,
                    thread,
                }
            })
            .collect();
        Outputs::Many {
            workers,
            wakeups: wake_rx,
            pending: VecDeque::with_capacity(ring_blocks),
        }
    }

    /// Hands `block` to every live output. Calls `release` for every block
    /// that no output needs any more, in order.
    pub fn deliver(&mut self, block: BlockRef, stats: &Stats, release: impl FnMut(BlockRef)) {
        match self {
            Outputs::Single { slot, lent, .. } => {
                let mut block = block;
                slot.write(&mut block, true, stats);
                lent.push_back(block);
            }
            Outputs::Many {
                workers, pending, ..
            } => {
                for w in workers.iter() {
                    if w.index
                        .is_none_or(|i| !stats.outputs[i].failed.load(Relaxed))
                    {
                        let _ = w.jobs.send(Arc::clone(&block));
                    }
                }
                pending.push_back(block);
            }
        }
        self.reclaim(release);
    }

    /// Releases, in order, the lent blocks that every output is done with.
    pub fn reclaim(&mut self, mut release: impl FnMut(BlockRef)) {
        let lent = match self {
            Outputs::Single { lent, .. } => lent,
            Outputs::Many {
                pending, wakeups, ..
            } => {
                while wakeups.try_recv().is_ok() {}
                pending
            }
        };
        while lent.front().is_some_and(|b| Arc::strong_count(b) == 1) {
            release(lent.pop_front().expect("front exists"));
        }
    }

    /// True while some output still has blocks to write.
    pub fn busy(&self) -> bool {
        match self {
            Outputs::Single { .. } => false,
            Outputs::Many { pending, .. } => !pending.is_empty(),
        }
    }

    /// Fires when an output has finished a block (never, for one output).
    pub fn wakeups(&self) -> &Receiver<()> {
        match self {
            Outputs::Single { idle, .. } => idle,
            Outputs::Many { wakeups, .. } => wakeups,
        }
    }

    /// Lets every output write what it was given, then flushes and closes
    /// each one and waits for the workers to end.
    pub fn finish(self, stats: &Stats, stop: &Receiver<()>) {
        match self {
            Outputs::Single { mut slot, .. } => slot.finish(stats, ended_early(stats, stop)),
            Outputs::Many { workers, .. } => {
                for w in workers {
                    drop(w.jobs);
                    let _ = w.thread.join();
                }
            }
        }
    }
}
