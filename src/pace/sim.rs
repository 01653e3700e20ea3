//! The buffer on a simulated clock: a producer, the ring, the writer (with
//! watermarks and, if asked, the pacing controller) and a drive model,
//! stepped a millisecond at a time. Tests use it to count a drive's stops
//! for a given input without sleeping; the numbers are the model's, not a
//! real drive's.
//!
//! The producer runs on its own work clock, which stands still while the
//! ring is full (a tar that cannot write does not advance), so its phases
//! are the same whatever the writer does; the time it stood still is the
//! reader's wait.

use super::controller::Controller;
use super::drive_model::{DriveModel, DriveSpec, DriveTally};
use super::settings::PaceSettings;
use super::view::View;

const STEP_S: f64 = 0.001;

/// A producer: phases of (seconds of work, bytes per second), repeated
/// until `total_bytes` are produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Producer {
    pub phases: Vec<(f64, f64)>,
    pub total_bytes: f64,
}

impl Producer {
    pub fn steady(rate: f64, total_bytes: f64) -> Producer {
        Producer {
            phases: vec![(1.0, rate)],
            total_bytes,
        }
    }

    /// Alternates `fast` for `fast_s` seconds with `slow` for `slow_s`.
    pub fn bursty(fast: (f64, f64), slow: (f64, f64), total_bytes: f64) -> Producer {
        Producer {
            phases: vec![fast, slow],
            total_bytes,
        }
    }

    /// Alternates `fast` and `slow` rates, each phase lasting a
    /// pseudo-random time within its range (seconds), the same for the
    /// same `seed`: tar's rhythm of runs of big and small files.
    pub fn irregular(
        fast: (f64, (f64, f64)),
        slow: (f64, (f64, f64)),
        seed: u64,
        total_bytes: f64,
    ) -> Producer {
        let mut state = seed | 1;
        let mut next = move |(lo, hi): (f64, f64)| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * u
        };
        let mut phases = Vec::new();
        let mut bytes = 0.0;
        while bytes < total_bytes {
            for (rate, range) in [fast, slow] {
                let len = next(range);
                bytes += len * rate;
                phases.push((len, rate));
            }
        }
        Producer {
            phases,
            total_bytes,
        }
    }

    /// Bytes per second at `work_s` seconds of the producer's own work.
    pub fn rate_at(&self, work_s: f64) -> f64 {
        let cycle: f64 = self.phases.iter().map(|p| p.0).sum();
        let mut t = work_s % cycle;
        for &(len, rate) in &self.phases {
            if t < len {
                return rate;
            }
            t -= len;
        }
        self.phases.last().map_or(0.0, |p| p.1)
    }
}

/// How the writer decides when to write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// Plain watermarks: after the ring runs dry, wait until it is
    /// `high_pct` full, then write as fast as the drive takes it.
    Bursts { high_pct: u8 },
    /// As Bursts, paced in between by the controller.
    Paced { high_pct: u8, range: PaceSettings },
}

#[derive(Debug, Clone)]
pub struct Setup {
    pub drive: DriveSpec,
    pub producer: Producer,
    pub ring_bytes: f64,
    pub block_bytes: f64,
    pub policy: Policy,
}

/// What a simulated run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub drive: DriveTally,
    /// Seconds until the writer had handed over the last byte.
    pub elapsed_s: f64,
    pub bytes_written: f64,
    /// Seconds the producer stood still because the ring was full.
    pub reader_wait_s: f64,
    pub underruns: u64,
    /// The controller at the end, for a paced run.
    pub controller: Option<Controller>,
    /// (time, target rate or None for full speed) at each plan.
    pub targets: Vec<(f64, Option<f64>)>,
}

struct Write {
    started: f64,
    left: f64,
    bytes: f64,
}

/// Runs the setup to the end of input; gives up after `limit_s`.
pub fn run(setup: &Setup, limit_s: f64) -> Outcome {
    let mut sim = Sim::new(setup);
    while sim.now < limit_s {
        sim.read();
        let input_done = sim.input_done();
        sim.write(input_done);
        if input_done && sim.full == 0 && sim.writing.is_none() {
            sim.out.elapsed_s = sim.now;
            break;
        }
        sim.now += STEP_S;
        sim.drive.advance(sim.now);
    }
    sim.finish()
}

/// The state of a simulated run, one field per thing that moves.
struct Sim<'a> {
    setup: &'a Setup,
    /// Blocks in the ring, and how many must be full before the writer
    /// starts (the high watermark).
    blocks: usize,
    start_blocks: usize,
    controller: Option<Controller>,
    drive: DriveModel,
    now: f64,
    /// The producer's own clock, which stands still while the ring is full.
    work_s: f64,
    produced: f64,
    /// Bytes in the block being filled.
    filling: f64,
    /// Full blocks waiting in the ring.
    full: usize,
    writing: Option<Write>,
    streaming: bool,
    out: Outcome,
}

impl<'a> Sim<'a> {
    fn new(setup: &'a Setup) -> Sim<'a> {
        let blocks = (setup.ring_bytes / setup.block_bytes).floor().max(2.0) as usize;
        let (high_pct, range) = match setup.policy {
            Policy::Bursts { high_pct } => (high_pct, None),
            Policy::Paced { high_pct, range } => (high_pct, Some(range)),
        };
        Sim {
            setup,
            blocks,
            start_blocks: ((blocks * high_pct as usize).div_ceil(100)).clamp(1, blocks),
            controller: range.map(|r| Controller::new(r, setup.ring_bytes)),
            drive: DriveModel::new(setup.drive.clone(), 0.0),
            now: 0.0,
            work_s: 0.0,
            produced: 0.0,
            filling: 0.0,
            full: 0,
            writing: None,
            streaming: false,
            out: Outcome {
                drive: DriveTally::default(),
                elapsed_s: 0.0,
                bytes_written: 0.0,
                reader_wait_s: 0.0,
                underruns: 0,
                controller: None,
                targets: Vec::new(),
            },
        }
    }

    fn input_done(&self) -> bool {
        self.produced >= self.setup.producer.total_bytes
    }

    /// The reader: produce into the ring for one step while there is room.
    fn read(&mut self) {
        if self.input_done() {
            return;
        }
        let (block, producer) = (self.setup.block_bytes, &self.setup.producer);
        let in_use = self.full + usize::from(self.writing.is_some());
        let room_blocks = self.blocks.saturating_sub(in_use);
        let room = room_blocks as f64 * block - self.filling;
        if room <= 0.0 {
            self.out.reader_wait_s += STEP_S;
            return;
        }
        let want = producer.rate_at(self.work_s) * STEP_S;
        let n = want.min(room).min(producer.total_bytes - self.produced);
        self.produced += n;
        self.filling += n;
        // A pause (a phase at rate 0) passes in full: nothing to wait for.
        let share = if want > 0.0 { (n / want).min(1.0) } else { 1.0 };
        self.work_s += STEP_S * share;
        while self.filling >= block {
            self.filling -= block;
            self.full += 1;
        }
        if self.produced >= producer.total_bytes && self.filling > 0.0 {
            self.filling = 0.0;
            self.full += 1;
        }
    }

    /// The writer: finish the write under way, then start the next, for
    /// as many blocks as one step allows.
    fn write(&mut self, input_done: bool) {
        for _ in 0..64 {
            let more = match self.writing.is_some() {
                true => self.carry_on_writing(),
                false => self.start_writing(input_done),
            };
            if !more {
                break;
            }
        }
    }

    /// Hands the drive what it takes of the write under way; true if the
    /// write is done.
    fn carry_on_writing(&mut self) -> bool {
        let now = self.now;
        let w = self.writing.as_mut().expect("a write is under way");
        if now < w.started {
            return false; // paced: this write starts later
        }
        w.left -= self.drive.offer(w.left);
        if w.left > 1e-6 {
            return false;
        }
        let w = self.writing.take().expect("a write is under way");
        self.out.bytes_written += w.bytes;
        if let Some(c) = self.controller.as_mut() {
            c.wrote(w.started, now, w.bytes as u64);
        }
        true
    }

    /// Starts writing the next full block, if the watermarks and the ring
    /// allow; true if it did.
    fn start_writing(&mut self, input_done: bool) -> bool {
        if !self.streaming && !self.may_restart(input_done) {
            return false;
        }
        if self.full == 0 {
            let through = self
                .controller
                .as_ref()
                .is_some_and(|c| c.passing_through());
            if !input_done && !through {
                self.out.underruns += 1;
                if let Some(c) = self.controller.as_mut() {
                    c.ran_dry();
                }
                self.streaming = self
                    .controller
                    .as_ref()
                    .is_some_and(|c| c.passing_through());
            }
            return false;
        }
        let Some(start_at) = self.plan(input_done) else {
            self.streaming = false; // the drive stopped: rest
            return false;
        };
        self.full -= 1;
        let block = self.setup.block_bytes;
        self.writing = Some(Write {
            started: start_at,
            left: block,
            bytes: block,
        });
        true
    }

    /// Whether the ring is full enough to start writing after it ran dry:
    /// the high watermark, or fuller if the controller asks.
    fn may_restart(&mut self, input_done: bool) -> bool {
        let (blocks, start_blocks) = (self.blocks, self.start_blocks);
        let start_blocks = self.controller.as_ref().map_or(start_blocks, |c| {
            let high = start_blocks as f64 / blocks as f64;
            ((c.start_fill(high) * blocks as f64).ceil() as usize).clamp(1, blocks)
        });
        self.streaming = self.full >= start_blocks || (input_done && self.full > 0);
        self.streaming
    }

    /// When the next block may start: now, or when the controller's plan
    /// says; None if the writer must rest first.
    fn plan(&mut self, input_done: bool) -> Option<f64> {
        let (now, block, blocks) = (self.now, self.setup.block_bytes, self.blocks);
        let view = View {
            now,
            fill: (self.full as f64 * block + self.filling) / (blocks as f64 * block),
            read_bytes: self.produced as u64,
            reader_waiting: self.full + 1 >= blocks && !input_done,
            input_done,
        };
        let Some(c) = self.controller.as_mut() else {
            return Some(now);
        };
        let plan = c.plan(view, block as u64);
        if plan.rest {
            return None;
        }
        self.out.targets.push((now, plan.rate));
        Some(now + plan.wait_s)
    }

    /// Lets the drive write what it still holds, and gives the outcome.
    fn finish(mut self) -> Outcome {
        self.drive.flush();
        let slowest = self.setup.drive.slowest().max(1.0);
        let drained_by = self.now + self.drive.buffered() / slowest + 10.0;
        self.drive.advance(drained_by);
        self.out.drive = self.drive.tally().clone();
        self.out.controller = self.controller;
        self.out
    }
}
