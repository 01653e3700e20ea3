//! The writer thread: drains full blocks strictly in order to the outputs
//! and returns them to the free queue once every output is done with them.
//!
//! It counts an underrun each time the outputs have run dry before the end
//! of input (on a tape, each one is a stop), and then obeys the high
//! watermark: it gathers full blocks until the ring is full enough, or input
//! has ended, before it writes again. The first start obeys the watermark
//! too, but is not counted as an underrun.
//!
//! With `--pace`, the controller (`pace::Controller`) decides before each
//! block how long to wait, so that the outputs are fed at a steady rate
//! between bursts; it learns from how long each write took. After the ring
//! ran dry it may ask the writer to pass the input on as it arrives (an
//! empty ring is then no underrun), and after the drive stopped, to put
//! the block back and gather the watermark again.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crossbeam_channel::{select, Receiver, Sender, TryRecvError};

use crate::base::block::BlockRef;
use crate::base::signals::stopped;
use crate::base::sync::lock;
use crate::pace::{Controller, View};
use crate::pipeline::events::{Event, Events};
use crate::pipeline::fanout::Outputs;
use crate::pipeline::rate_limit::RateLimit;
use crate::pipeline::ring::WriterEnd;
use crate::pipeline::stats::Stats;

pub struct Writer {
    pub outputs: Outputs,
    pub ring: WriterEnd,
    pub stats: Arc<Stats>,
    pub start_blocks: usize,
    /// The ring's own blocks, without those a lone output may keep
    /// (`SinkTraits::keeps_blocks`): the most a rest can gather for
    /// certain, since that many are never lent out.
    pub own_blocks: usize,
    pub rate_limit: Option<RateLimit>,
    /// `--pace`: the pacing controller.
    pub pace: Option<Controller>,
    pub stop: Receiver<()>,
    pub events: Events,
}

/// Waits up to `limit`; true if the run was stopped meanwhile.
fn stop_within(stop: &Receiver<()>, limit: std::time::Duration) -> bool {
    matches!(
        stop.recv_timeout(limit),
        Err(crossbeam_channel::RecvTimeoutError::Disconnected)
    )
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
            match self.wait_for_pace(len) {
                Paced::Go => {}
                Paced::Stopped => break,
                Paced::Rest => {
                    held.push_front(block);
                    if !self.gather(&mut held) {
                        break;
                    }
                    streaming = true;
                    continue;
                }
            }
            // Without --pace, no clock is read and nothing is counted.
            let before = self
                .pace
                .as_ref()
                .map(|_| (self.stats.seconds(), self.stats.output_volumes_begun()));
            let (stats, free) = (&self.stats, &self.ring.free);
            self.outputs
                .deliver(block, stats, |b| release(stats, free, b));
            if let (Some(c), Some((started, volumes))) = (self.pace.as_mut(), before) {
                let ended = self.stats.seconds();
                // A write that waited for a new volume says nothing of
                // the drive's speed.
                if volumes == self.stats.output_volumes_begun() {
                    c.wrote(started, ended, len as u64);
                } else {
                    c.changed_volume();
                }
            }
            if let Some(limit) = self.rate_limit.as_mut() {
                limit.throttle(len, &self.stop);
            }
        }
        if let Some(c) = self.pace.as_ref() {
            self.stats.pace_target_bps.store(0, Relaxed);
            *lock(&self.stats.pace_report) = Some(c.report());
        }
        self.outputs.finish(&self.stats, &self.stop);
    }

    /// Asks the controller when the next block of `len` bytes may go, and
    /// waits that long, or whether the writer must rest first.
    fn wait_for_pace(&mut self, len: usize) -> Paced {
        let Some(c) = self.pace.as_mut() else {
            return Paced::Go;
        };
        let view = View {
            now: self.stats.seconds(),
            fill: self.stats.fill(),
            read_bytes: self.stats.read_bytes.load(Relaxed),
            reader_waiting: self.stats.reader_waiting.load(Relaxed),
            input_done: self.stats.input_done.load(Relaxed),
        };
        let plan = c.plan(view, len as u64);
        if plan.rest {
            self.stats.pace_target_bps.store(0, Relaxed);
            return Paced::Rest;
        }
        let target = plan.rate.map_or(0, |r| r.max(1.0) as u64);
        self.stats.pace_target_bps.store(target, Relaxed);
        if plan.wait_s > 0.0 {
            // Never a panic on a strange rate: an absurd wait is still
            // cut short by a stop.
            let wait = std::time::Duration::try_from_secs_f64(plan.wait_s)
                .unwrap_or(std::time::Duration::from_secs(3600));
            if stop_within(&self.stop, wait) {
                return Paced::Stopped;
            }
        }
        Paced::Go
    }

    /// The blocks to gather before writing, at the start and after the
    /// ring ran dry: the high watermark, or what the controller asks for
    /// (less while pacing, a full ring after a failed try). Never more
    /// than the ring's own blocks: a remote tape may hold the rest until
    /// its replies, and a rest that waited for those would never end.
    fn restart_blocks(&self) -> usize {
        let blocks = self.own_blocks.max(1);
        match self.pace.as_ref() {
            Some(c) => {
                let high = self.start_blocks as f64 / blocks as f64;
                let wanted = (c.start_fill(high) * blocks as f64).ceil() as usize;
                wanted.clamp(1, blocks)
            }
            None => self.start_blocks,
        }
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
                let through = self.pace.as_ref().is_some_and(|c| c.passing_through());
                if !self.outputs.busy() && !through {
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
        if *streaming {
            if let Some(c) = self.pace.as_mut() {
                c.ran_dry();
            }
            self.stats.pace_target_bps.store(0, Relaxed);
        }
        *streaming = false;
        if !self.gather(held) {
            return None;
        }
        *streaming = true;
        held.pop_front()
    }

    /// Gathers full blocks into `held` up to the restart fill (or the end
    /// of input). False on a stop.
    fn gather(&mut self, held: &mut VecDeque<BlockRef>) -> bool {
        let start_blocks = self.restart_blocks();
        self.stats.writer_waiting.store(true, Relaxed);
        let waiting_since = std::time::Instant::now();
        while held.len() < start_blocks {
            select! {
                recv(self.ring.full) -> msg => match msg {
                    Ok(b) => held.push_back(b),
                    Err(_) => break, // input ended: write what is held
                },
                recv(self.outputs.wakeups()) -> _ => self.reclaim(),
                recv(self.stop) -> _ => return false,
            }
        }
        let waited_ns = waiting_since.elapsed().as_nanos() as u64;
        self.stats.writer_wait_ns.fetch_add(waited_ns, Relaxed);
        self.stats.writer_waiting.store(false, Relaxed);
        true
    }
}

/// What the pacing controller allows for the next block.
enum Paced {
    Go,
    /// The drive stopped: put the block back and gather again.
    Rest,
    Stopped,
}
