//! Driving one or several outputs from the writer thread.
//!
//! One output is written inline. Several outputs each get a worker thread;
//! for every block the writer lends each live worker a read-only clone of
//! the block and waits until all of them have written it and dropped their
//! clone. The slowest output therefore sets the pace, every output gets
//! identical bytes in identical order, and the block is unshared again when
//! `deliver` returns, ready to go back to the free queue. An output that
//! fails is marked in the stats and gets nothing more; the others go on.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::{describe_write_error, Sink};
use crate::ring::BlockRef;
use crate::stats::Stats;

/// One output and its position in the stream.
pub struct Slot {
    index: usize,
    sink: Box<dyn Sink>,
}

impl Slot {
    /// Writes one block unless this output has failed; records the outcome.
    fn write(&mut self, data: &[u8], stats: &Stats) {
        let out = &stats.outputs[self.index];
        if out.failed.load(Relaxed) {
            return;
        }
        let offset = out.committed_bytes.load(Relaxed);
        match self.sink.write_block(data) {
            Ok(()) => {
                out.committed_bytes.fetch_add(data.len() as u64, Relaxed);
            }
            Err(e) => stats.fail_output(
                self.index,
                describe_write_error(self.sink.name(), offset, &e),
            ),
        }
    }

    /// Flushes and closes, unless the output already failed.
    fn finish(&mut self, stats: &Stats) {
        if stats.outputs[self.index].failed.load(Relaxed) {
            return;
        }
        if let Err(e) = self.sink.finish() {
            let name = self.sink.name().to_string();
            stats.fail_output(self.index, format!("{name}: closing failed: {e}"));
        }
    }
}

pub struct Worker {
    index: usize,
    jobs: Sender<BlockRef>,
    thread: JoinHandle<()>,
}

/// The writer's view of all outputs.
pub enum Outputs {
    Single(Slot),
    Many {
        workers: Vec<Worker>,
        done: Receiver<()>,
    },
}

impl Outputs {
    /// Takes ownership of the opened sinks, in command-line order.
    pub fn new(sinks: Vec<Box<dyn Sink>>, stats: &Arc<Stats>) -> Outputs {
        if sinks.len() == 1 {
            let sink = sinks.into_iter().next().expect("one sink");
            return Outputs::Single(Slot { index: 0, sink });
        }
        let (done_tx, done_rx) = bounded(sinks.len());
        let workers = sinks
            .into_iter()
            .enumerate()
            .map(|(index, sink)| {
                let (jobs_tx, jobs_rx) = bounded::<BlockRef>(1);
                let done_tx = done_tx.clone();
                let stats = Arc::clone(stats);
                let thread = std::thread::Builder::new()
                    .name(format!("output-{index}"))
                    .spawn(move || {
                        let mut slot = Slot { index, sink };
                        for block in jobs_rx {
                            slot.write(block.data(), &stats);
                            drop(block);
                            if done_tx.send(()).is_err() {
                                break;
                            }
                        }
                        slot.finish(&stats);
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
            done: done_rx,
        }
    }

    /// Writes `block` to every live output and returns when all are done
    /// with it, so the caller again holds the only reference.
    pub fn deliver(&mut self, block: &BlockRef, stats: &Stats) {
        match self {
            Outputs::Single(slot) => slot.write(block.data(), stats),
            Outputs::Many { workers, done } => {
                let mut lent = 0;
                for w in workers.iter() {
                    if !stats.outputs[w.index].failed.load(Relaxed)
                        && w.jobs.send(Arc::clone(block)).is_ok()
                    {
                        lent += 1;
                    }
                }
                for _ in 0..lent {
                    // Workers only stop when their job channel closes, which
                    // happens in `finish`; an error here cannot occur.
                    let _ = done.recv();
                }
            }
        }
    }

    /// Flushes and closes every output, waiting for the workers to end.
    pub fn finish(self, stats: &Stats) {
        match self {
            Outputs::Single(mut slot) => slot.finish(stats),
            Outputs::Many { workers, done } => {
                drop(done);
                for w in workers {
                    drop(w.jobs);
                    let _ = w.thread.join();
                }
            }
        }
    }
}
