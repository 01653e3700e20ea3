//! The writer thread: drains full blocks strictly in order to the outputs
//! and returns them to the free queue once every output is done with them.
//!
//! It counts an underrun each time the outputs have run dry before the end
//! of input (on a tape, each one is a stop), and then obeys the high
//! watermark: it gathers full blocks until the ring is full enough, or input
//! has ended, before it writes again. The first start obeys the watermark
//! too, but is not counted as an underrun.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_channel::{select, Receiver, Sender, TryRecvError};

use crate::events::{Event, Events};
use crate::pipeline::stopped;
use crate::rate::Pacer;
use crate::ring::{BlockRef, WriterEnd};
use crate::sink::Outputs;
use crate::stats::Stats;

pub struct Writer {
    pub outputs: Outputs,
    pub ring: WriterEnd,
    pub stats: Arc<Stats>,
    pub start_blocks: usize,
    pub pacer: Option<Pacer>,
    pub stop: Receiver<()>,
    pub events: Events,
}

/// Puts a drained block back on the free queue.
fn release(stats: &Stats, free: &Sender<BlockRef>, block: BlockRef) {
    stats.block_released();
    // The reader may already have gone; the block is then dropped.
    let _ = free.send(block);
}

impl Writer {
    /// Runs until input has ended and every block is written, a stop, or
    /// every output has failed. Closes the outputs at the end.
    pub fn run(mut self) {
        let mut held: VecDeque<BlockRef> = VecDeque::new();
        let mut streaming = false;
        while !stopped(&self.stop) && self.stats.any_output_alive() {
            let Some(block) = self.next_full(&mut held, &mut streaming) else {
                break;
            };
            let len = block.len();
            let (stats, free) = (&self.stats, &self.ring.free);
            self.outputs
                .deliver(block, stats, |b| release(stats, free, b));
            if let Some(p) = self.pacer.as_mut() {
                p.pace(len, &self.stop);
            }
        }
        self.outputs.finish(&self.stats, &self.stop);
    }

    fn reclaim(&mut self) {
        let (stats, free) = (&self.stats, &self.ring.free);
        self.outputs.reclaim(|b| release(stats, free, b));
    }

    /// The next full block, or None at the end of input or on a stop.
    fn next_full(
        &mut self,
        held: &mut VecDeque<BlockRef>,
        streaming: &mut bool,
    ) -> Option<BlockRef> {
        if let Some(b) = held.pop_front() {
            return Some(b);
        }
        if *streaming {
            loop {
                match self.ring.full.try_recv() {
                    Ok(b) => return Some(b),
                    Err(TryRecvError::Disconnected) => return None,
                    Err(TryRecvError::Empty) => {}
                }
                if !self.outputs.busy() {
                    break;
                }
                // The outputs are still writing earlier blocks, so this is
                // not a stop yet: wait for input or for an output to finish.
                select! {
                    recv(self.ring.full) -> msg => return msg.ok(),
                    recv(self.outputs.wakeups()) -> _ => self.reclaim(),
                    recv(self.stop) -> _ => return None,
                }
            }
            if !self.stats.input_done.load(Relaxed) {
                self.stats.underruns.fetch_add(1, Relaxed);
                self.events.send(Event::Underrun);
            }
        }
        // Not streaming: at the start, or after an underrun. Gather blocks
        // up to the high watermark before writing again.
        *streaming = false;
        self.stats.writer_waiting.store(true, Relaxed);
        let waiting_since = std::time::Instant::now();
        while held.len() < self.start_blocks {
            select! {
                recv(self.ring.full) -> msg => match msg {
                    Ok(b) => held.push_back(b),
                    Err(_) => break, // input ended: write what is held
                },
                recv(self.outputs.wakeups()) -> _ => self.reclaim(),
                recv(self.stop) -> _ => return None,
            }
        }
        *streaming = true;
        let waited_ns = waiting_since.elapsed().as_nanos() as u64;
        self.stats.writer_wait_ns.fetch_add(waited_ns, Relaxed);
        self.stats.writer_waiting.store(false, Relaxed);
        held.pop_front()
    }
}
