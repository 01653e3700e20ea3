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

use super::controller::{Controller, View};
use super::drive_model::{DriveModel, DriveSpec, DriveTally};
use super::PaceSettings;

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

    fn rate_at(&self, work_s: f64) -> f64 {
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
    let blocks = (setup.ring_bytes / setup.block_bytes).floor().max(2.0) as usize;
    let block = setup.block_bytes;
    let (high_pct, range) = match setup.policy {
        Policy::Bursts { high_pct } => (high_pct, None),
        Policy::Paced { high_pct, range } => (high_pct, Some(range)),
    };
    let start_blocks = ((blocks * high_pct as usize).div_ceil(100)).clamp(1, blocks);
    let mut controller = range.map(Controller::new);
    let mut drive = DriveModel::new(setup.drive.clone(), 0.0);

    let mut now = 0.0;
    let mut work_s = 0.0;
    let mut produced = 0.0;
    let mut filling = 0.0; // bytes in the block being filled
    let mut full = 0usize; // full blocks waiting in the ring
    let mut writing: Option<Write> = None;
    let mut streaming = false;
    let mut out = Outcome {
        drive: DriveTally::default(),
        elapsed_s: 0.0,
        bytes_written: 0.0,
        reader_wait_s: 0.0,
        underruns: 0,
        controller: None,
        targets: Vec::new(),
    };

    while now < limit_s {
        // The reader: produce into the ring while there is room.
        let input_done = produced >= setup.producer.total_bytes;
        if !input_done {
            let in_use = full + usize::from(writing.is_some());
            let room_blocks = blocks.saturating_sub(in_use);
            let room = room_blocks as f64 * block - filling;
            if room > 0.0 {
                let want = setup.producer.rate_at(work_s) * STEP_S;
                let n = want.min(room).min(setup.producer.total_bytes - produced);
                produced += n;
                filling += n;
                work_s += STEP_S * (n / want.max(1e-9)).min(1.0);
                while filling >= block {
                    filling -= block;
                    full += 1;
                }
                if produced >= setup.producer.total_bytes && filling > 0.0 {
                    filling = 0.0;
                    full += 1;
                }
            } else {
                out.reader_wait_s += STEP_S;
            }
        }
        let input_done = produced >= setup.producer.total_bytes;

        // The writer: finish the write under way, then start the next.
        for _ in 0..64 {
            if let Some(w) = writing.as_mut() {
                if now < w.started {
                    break; // paced: this write starts later
                }
                w.left -= drive.offer(w.left);
                if w.left > 1e-6 {
                    break;
                }
                let w = writing.take().expect("a write is under way");
                out.bytes_written += w.bytes;
                if let Some(c) = controller.as_mut() {
                    c.wrote(w.started, now, w.bytes as u64);
                }
                continue;
            }
            if !streaming {
                let restart = controller.as_ref().and_then(|c| c.restart_fill());
                let start_blocks = restart.map_or(start_blocks, |f| {
                    start_blocks
                        .max((f * blocks as f64).ceil() as usize)
                        .min(blocks)
                });
                if full >= start_blocks || (input_done && full > 0) {
                    streaming = true;
                } else {
                    break;
                }
            }
            let mut start_at = now;
            if full == 0 {
                if !input_done {
                    out.underruns += 1;
                    streaming = false;
                    if let Some(c) = controller.as_mut() {
                        c.ran_dry();
                    }
                }
                break;
            }
            if let Some(c) = controller.as_mut() {
                let view = View {
                    now,
                    fill: (full as f64 * block + filling) / (blocks as f64 * block),
                    read_bytes: produced as u64,
                    reader_waiting: full + 1 >= blocks && !input_done,
                    input_done,
                };
                let plan = c.plan(view, block as u64);
                out.targets.push((now, plan.rate));
                start_at = now + plan.wait_s;
            }
            full -= 1;
            writing = Some(Write {
                started: start_at,
                left: block,
                bytes: block,
            });
        }

        if input_done && full == 0 && writing.is_none() {
            out.elapsed_s = now;
            break;
        }
        now += STEP_S;
        drive.advance(now);
    }
    drive.flush();
    let drained_by = now + drive.buffered() / setup.drive.slowest().max(1.0) + 10.0;
    drive.advance(drained_by);
    out.drive = drive.tally().clone();
    out.controller = controller;
    out
}
