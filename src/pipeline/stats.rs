//! Counters shared by the reader, the writer and the observers.
//!
//! The data path only ever does relaxed atomic adds here; observers (the
//! status line, the summary, the progress bar and the stats log) read the
//! counters whenever they like and never make the data path wait. The one
//! thing an observer writes here is the ring's time near full and near
//! empty (`near_full_ns`, `near_empty_ns`), which only the ring clock
//! (`observe::ring_time`) keeps, off the data path.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::base::sync::lock;
use crate::net::facts::LinkFacts;
use crate::pipeline::zero_copy::RingPath;
use crate::volume::VolumeLog;

/// Per-output progress and fate.
#[derive(Debug, Default)]
pub struct OutputStats {
    /// Bytes this output has accepted (write returned success).
    pub committed_bytes: AtomicU64,
    /// Set once the output has failed; it gets no more data.
    pub failed: AtomicBool,
    /// The one-line reason, filled in when `failed` is set.
    pub error: Mutex<Option<String>>,
    /// The bytes on each volume, for an output that spans volumes.
    pub volumes: Option<Arc<VolumeLog>>,
    /// A network output's peer and privacy.
    pub link: Option<LinkFacts>,
}

/// Shared counters for one run.
#[derive(Debug)]
pub struct Stats {
    pub started: Instant,
    pub blocks_in_ring: usize,
    /// The size of one block.
    pub block_bytes: u64,
    /// Which ring runs (zero-copy or copying) and why.
    pub ring: RingPath,
    /// The most blocks the ring has held at once over the whole run.
    pub peak_blocks_held: AtomicU64,
    /// Bytes read from the input, counted at every read(2), including those
    /// of a block that is still filling.
    pub read_bytes: AtomicU64,
    /// Blocks filled by the reader so far.
    pub blocks_filled: AtomicU64,
    /// Blocks drained by the writer and returned to the free queue.
    pub blocks_released: AtomicU64,
    /// Times the writer found the ring empty before the end of input.
    pub underruns: AtomicU64,
    /// Times the reader found the ring full.
    pub overruns: AtomicU64,
    /// Set when the reader has seen the end of its input.
    pub input_done: AtomicBool,
    /// The reader's failure, if any.
    pub input_error: Mutex<Option<String>>,
    /// What the input taught us (a tape's record size), for the summary.
    pub input_note: Mutex<Option<String>>,
    /// A network input's peer and privacy, once its sender is in.
    pub input_link: Mutex<Option<LinkFacts>>,
    /// The bytes on each input volume, for an input that spans volumes.
    pub input_volumes: Option<Arc<VolumeLog>>,
    /// Zeros added by `--pad` to the final block.
    pub pad_bytes: AtomicU64,
    /// True while the writer waits for the ring to fill (at the start and
    /// after each underrun); false while it streams.
    pub writer_waiting: AtomicBool,
    /// Nanoseconds the writer has spent waiting, summed over finished waits.
    pub writer_wait_ns: AtomicU64,
    pub outputs: Vec<OutputStats>,
    /// Some output is a tape drive, where an underrun is a stop.
    pub tape_output: bool,
    /// `--pace` is on for this run.
    pub pacing: bool,
    /// The pace the writer holds now, in bytes per second; 0 while it
    /// writes at full speed or does not pace (see `pacing`).
    pub pace_target_bps: AtomicU64,
    /// How pacing went, set by the writer when it ends.
    pub pace_report: Mutex<Option<crate::pace::PaceReport>>,
    /// True while the reader waits for room in a full ring.
    pub reader_waiting: AtomicBool,
    /// The most and the fewest blocks the ring held since the last
    /// `take_fill_range`, so that a sampled record shows the peaks and
    /// the drops to empty between its samples.
    fill_high_blocks: AtomicU64,
    fill_low_blocks: AtomicU64,
    /// Nanoseconds the ring spent near full and near empty, kept by the
    /// observers' ring clock (`observe::ring_time`), never by the data
    /// path.
    pub near_full_ns: AtomicU64,
    pub near_empty_ns: AtomicU64,
}

/// A consistent-enough copy of the counters at one moment. The default is
/// the moment before anything moved.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub seconds: f64,
    pub read_bytes: u64,
    /// The smallest byte count committed by any output that has not failed,
    /// or by any output at all if every one failed.
    pub written_bytes: u64,
    pub fill_pct: f64,
    pub underruns: u64,
    pub overruns: u64,
    /// A volume change is under way: no byte moving is no stall.
    pub changing_volume: bool,
    /// The writer is waiting for the ring to fill rather than streaming.
    pub writer_waiting: bool,
    /// Seconds the writer has spent waiting, over finished waits.
    pub waiting_s: f64,
    /// The volume in use, counting from 1: the highest over every input or
    /// output that spans volumes, else 1.
    pub volume: u32,
    /// The pace the writer holds, in bytes per second: None when it does
    /// not pace, or writes at full speed (a full ring, a burst).
    pub pace_bps: Option<u64>,
}

impl Default for Snapshot {
    fn default() -> Snapshot {
        Snapshot {
            seconds: 0.0,
            read_bytes: 0,
            written_bytes: 0,
            fill_pct: 0.0,
            underruns: 0,
            overruns: 0,
            changing_volume: false,
            writer_waiting: false,
            waiting_s: 0.0,
            volume: 1,
            pace_bps: None,
        }
    }
}

impl Stats {
    pub fn new(blocks_in_ring: usize, outputs: usize) -> Stats {
        Stats {
            started: Instant::now(),
            blocks_in_ring,
            block_bytes: 0,
            ring: RingPath::default(),
            peak_blocks_held: AtomicU64::new(0),
            read_bytes: AtomicU64::new(0),
            blocks_filled: AtomicU64::new(0),
            blocks_released: AtomicU64::new(0),
            underruns: AtomicU64::new(0),
            overruns: AtomicU64::new(0),
            input_done: AtomicBool::new(false),
            input_error: Mutex::new(None),
            input_note: Mutex::new(None),
            input_link: Mutex::new(None),
            input_volumes: None,
            pad_bytes: AtomicU64::new(0),
            writer_waiting: AtomicBool::new(true),
            writer_wait_ns: AtomicU64::new(0),
            outputs: (0..outputs).map(|_| OutputStats::default()).collect(),
            tape_output: false,
            pacing: false,
            pace_target_bps: AtomicU64::new(0),
            pace_report: Mutex::new(None),
            reader_waiting: AtomicBool::new(false),
            fill_high_blocks: AtomicU64::new(0),
            fill_low_blocks: AtomicU64::new(0),
            near_full_ns: AtomicU64::new(0),
            near_empty_ns: AtomicU64::new(0),
        }
    }

    /// Counts a block filled by the reader, and the ring's new high.
    pub fn block_filled(&self) {
        let filled = self.blocks_filled.fetch_add(1, Relaxed) + 1;
        let in_ring = filled.saturating_sub(self.blocks_released.load(Relaxed));
        self.fill_high_blocks.fetch_max(in_ring, Relaxed);
        self.peak_blocks_held.fetch_max(in_ring, Relaxed);
    }

    /// Counts a block released by the writer, and the ring's new low.
    pub fn block_released(&self) {
        let released = self.blocks_released.fetch_add(1, Relaxed) + 1;
        let in_ring = self.blocks_filled.load(Relaxed).saturating_sub(released);
        self.fill_low_blocks.fetch_min(in_ring, Relaxed);
    }

    /// Seconds since the run started: the clock of the snapshots and of
    /// the pacing controller.
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Blocks in the ring now: filled by the reader and not yet released
    /// by the writer.
    pub fn blocks_held(&self) -> u64 {
        self.blocks_filled
            .load(Relaxed)
            .saturating_sub(self.blocks_released.load(Relaxed))
    }

    /// How full the ring is now, 0 to 1.
    pub fn fill(&self) -> f64 {
        self.blocks_held() as f64 / self.blocks_in_ring.max(1) as f64
    }

    /// The lowest and highest fill, in percent of the ring, since the
    /// last call, which starts the next range at the fill of now. Only
    /// one observer (the `--stats` file) may take it.
    pub fn take_fill_range(&self) -> (f64, f64) {
        let in_ring = self.blocks_held();
        let low = self.fill_low_blocks.swap(in_ring, Relaxed).min(in_ring);
        let high = self.fill_high_blocks.swap(in_ring, Relaxed).max(in_ring);
        let pct = |b: u64| 100.0 * b as f64 / self.blocks_in_ring.max(1) as f64;
        (pct(low), pct(high))
    }

    /// Marks output `index` failed with a one-line reason.
    pub fn fail_output(&self, index: usize, reason: String) {
        let out = &self.outputs[index];
        *lock(&out.error) = Some(reason);
        out.failed.store(true, Relaxed);
    }

    pub fn output_error(&self, index: usize) -> Option<String> {
        lock(&self.outputs[index].error).clone()
    }

    pub fn set_input_error(&self, reason: String) {
        *lock(&self.input_error) = Some(reason);
    }

    pub fn input_error(&self) -> Option<String> {
        lock(&self.input_error).clone()
    }

    pub fn set_input_note(&self, note: String) {
        *lock(&self.input_note) = Some(note);
    }

    pub fn input_note(&self) -> Option<String> {
        lock(&self.input_note).clone()
    }

    /// Keeps a network input's facts; true once there were some.
    pub fn set_input_link(&self, link: Option<LinkFacts>) -> bool {
        let known = link.is_some();
        if known {
            *lock(&self.input_link) = link;
        }
        known
    }

    /// Every network stream of the run, the input's first.
    pub fn links(&self) -> Vec<LinkFacts> {
        let input = lock(&self.input_link).clone();
        let outputs = self.outputs.iter().filter_map(|o| o.link.clone());
        input.into_iter().chain(outputs).collect()
    }

    /// Every volume log: the input's, then the outputs', in order.
    pub fn volume_logs(&self) -> impl Iterator<Item = &Arc<VolumeLog>> {
        self.input_volumes
            .iter()
            .chain(self.outputs.iter().filter_map(|o| o.volumes.as_ref()))
    }

    /// Every volume log with the flag that names its endpoint, "-i" or
    /// "-o", the input's first.
    pub fn flagged_volume_logs(&self) -> impl Iterator<Item = (&'static str, &Arc<VolumeLog>)> {
        (self.input_volumes.iter().map(|v| ("-i", v))).chain(
            (self.outputs.iter())
                .filter_map(|o| o.volumes.as_ref())
                .map(|v| ("-o", v)),
        )
    }

    /// Volumes begun so far over every output that spans volumes: a write
    /// during which this grew waited for a volume change.
    pub fn output_volumes_begun(&self) -> usize {
        self.outputs
            .iter()
            .filter_map(|o| o.volumes.as_ref())
            .map(|v| v.count())
            .sum()
    }

    /// True while at least one output still takes data.
    pub fn any_output_alive(&self) -> bool {
        self.outputs.iter().any(|o| !o.failed.load(Relaxed))
    }

    /// The smallest byte count committed by any output, failed or not:
    /// what every output holds, for the run's final count.
    pub fn least_committed_bytes(&self) -> Option<u64> {
        (self.outputs.iter())
            .map(|o| o.committed_bytes.load(Relaxed))
            .min()
    }

    pub fn snapshot(&self) -> Snapshot {
        let alive: Vec<u64> = self
            .outputs
            .iter()
            .filter(|o| !o.failed.load(Relaxed))
            .map(|o| o.committed_bytes.load(Relaxed))
            .collect();
        let written_bytes = if alive.is_empty() {
            self.outputs
                .iter()
                .map(|o| o.committed_bytes.load(Relaxed))
                .max()
                .unwrap_or(0)
        } else {
            alive.into_iter().min().unwrap_or(0)
        };
        Snapshot {
            seconds: self.seconds(),
            read_bytes: self.read_bytes.load(Relaxed),
            written_bytes,
            fill_pct: 100.0 * self.fill(),
            underruns: self.underruns.load(Relaxed),
            overruns: self.overruns.load(Relaxed),
            changing_volume: self.volume_logs().any(|v| v.is_changing()),
            writer_waiting: self.writer_waiting.load(Relaxed),
            waiting_s: self.writer_wait_ns.load(Relaxed) as f64 / 1e9,
            volume: self
                .volume_logs()
                .map(|v| v.volumes().len() as u32)
                .max()
                .unwrap_or(1)
                .max(1),
            pace_bps: match self.pace_target_bps.load(Relaxed) {
                0 => None,
                bps => Some(bps),
            },
        }
    }

    /// How pacing went, once the writer has ended; None without `--pace`.
    pub fn pace_report(&self) -> Option<crate::pace::PaceReport> {
        lock(&self.pace_report).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fill_range_keeps_the_peak_and_the_empty_ring_between_samples() {
        let stats = Stats::new(10, 1);
        for _ in 0..8 {
            stats.block_filled();
        }
        for _ in 0..8 {
            stats.block_released();
        }
        for _ in 0..3 {
            stats.block_filled();
        }
        // Now 3 blocks are in the ring, but it held 8 and ran empty.
        assert_eq!(stats.snapshot().fill_pct, 30.0);
        assert_eq!(stats.take_fill_range(), (0.0, 80.0));
        // The next range starts at the fill of now.
        stats.block_filled();
        assert_eq!(stats.take_fill_range(), (30.0, 40.0));
        assert_eq!(stats.take_fill_range(), (40.0, 40.0));
    }
}
