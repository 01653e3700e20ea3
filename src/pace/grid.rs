//! One cell of the pacing grid (issue 46): a drive, an input and a ring,
//! run on the simulated clock with each contender — `-P 90` bursts and
//! the default `--pace` — beside the fewest stops possible (`bound`).
//! The property test and `benches/pace_grid.rs` both use it.
//!
//! The invariant it checks: the bound is at most the stops of every
//! contender; a bound above an observed count is a bug in the bound.

use super::bound::{fewest_stops, Arrivals};
use super::drive_model::DriveSpec;
use super::families::{self, Draw, InputKind, INPUT_KINDS};
use super::settings::PaceSettings;
use super::sim::{run, Outcome, Policy, Producer, Setup};

/// The block size of every cell: 256 KiB, tapebuf's default.
pub const BLOCK_BYTES: f64 = 256.0 * 1024.0;

#[derive(Debug, Clone)]
pub struct Cell {
    pub drive: DriveSpec,
    pub kind: InputKind,
    pub producer: Producer,
    pub ring_bytes: f64,
}

/// What each contender did in a cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Result {
    pub paced_stops: u64,
    pub burst_stops: u64,
    pub bound: u64,
    pub paced_elapsed_s: f64,
    pub burst_elapsed_s: f64,
    /// Whether both contenders wrote every byte within the time limit.
    pub finished: bool,
}

/// `per_ring` cells for each of `rings` (bytes) drawn from `seed`, each
/// input lasting about `seconds` of the producer's work; `traces` as in
/// `families::input`. The drive and input of the i-th draw are the same
/// for every ring.
pub fn draw_cells(
    seed: u64,
    per_ring: usize,
    rings: &[f64],
    seconds: f64,
    traces: &[Vec<(f64, f64)>],
) -> Vec<Cell> {
    let mut d = Draw::new(seed);
    let mut cells = Vec::new();
    for i in 0..per_ring {
        let drive = families::drive(&mut d);
        let kind = INPUT_KINDS[i % INPUT_KINDS.len()];
        let producer = families::input(&mut d, kind, drive.slowest(), seconds, traces);
        for &ring_bytes in rings {
            cells.push(Cell {
                drive: drive.clone(),
                kind,
                producer: producer.clone(),
                ring_bytes,
            });
        }
    }
    cells
}

/// Runs a cell with both contenders and computes its bound.
pub fn run_cell(cell: &Cell) -> Result {
    let contender = |policy| {
        let setup = Setup {
            drive: cell.drive.clone(),
            producer: cell.producer.clone(),
            ring_bytes: cell.ring_bytes,
            block_bytes: BLOCK_BYTES,
            policy,
        };
        let work_s = cell.producer.total_bytes / mean_rate(&cell.producer);
        run(&setup, 10.0 * work_s + 600.0)
    };
    let paced = contender(Policy::Paced {
        high_pct: 90,
        range: PaceSettings::default(),
    });
    let bursts = contender(Policy::Bursts { high_pct: 90 });
    let arrivals = Arrivals::from_producer(&cell.producer, 0.001);
    let all = |o: &Outcome| o.bytes_written >= cell.producer.total_bytes;
    Result {
        paced_stops: paced.drive.stops(),
        burst_stops: bursts.drive.stops(),
        bound: fewest_stops(&arrivals, cell.ring_bytes, &cell.drive),
        paced_elapsed_s: paced.elapsed_s,
        burst_elapsed_s: bursts.elapsed_s,
        finished: all(&paced) && all(&bursts),
    }
}

/// What the paced run of a cell did, for replaying one cell: the
/// drive's stops, the stalls the controller saw, and its state at the end.
pub fn explain(cell: &Cell) -> String {
    let setup = Setup {
        drive: cell.drive.clone(),
        producer: cell.producer.clone(),
        ring_bytes: cell.ring_bytes,
        block_bytes: BLOCK_BYTES,
        policy: Policy::Paced {
            high_pct: 90,
            range: PaceSettings::default(),
        },
    };
    let work_s = cell.producer.total_bytes / mean_rate(&cell.producer);
    let o = run(&setup, 10.0 * work_s + 600.0);
    let stops: Vec<String> = (o.drive.stop_times.iter())
        .map(|t| format!("{t:.1}"))
        .collect();
    let c = o.controller.as_ref();
    format!(
        "stops at {}\nstalls {:?}\nmode {:?} floor {:?} top {:?}\nelapsed {:.1} s, {} underruns, reader waited {:.1} s",
        stops.join(" "),
        c.map(|c| c.stalls().to_vec()),
        c.map(|c| c.mode()),
        c.and_then(|c| c.floor()),
        c.and_then(|c| c.top()),
        o.elapsed_s,
        o.underruns,
        o.reader_wait_s,
    )
}

fn mean_rate(p: &Producer) -> f64 {
    let cycle_s: f64 = p.phases.iter().map(|x| x.0).sum();
    let bytes: f64 = p.phases.iter().map(|x| x.0 * x.1).sum();
    (bytes / cycle_s.max(1e-9)).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1024.0 * 1024.0;

    fn recorded() -> Vec<Vec<(f64, f64)>> {
        [
            include_str!("../../benches/traces/tar-usr-share-cold.jsonl"),
            include_str!("../../benches/traces/dump-usr-share-cold.jsonl"),
        ]
        .iter()
        .map(|t| families::parse_stats_trace(t))
        .collect()
    }

    #[test]
    fn no_contender_beats_the_fewest_stops_possible_on_fixed_seeds() {
        let traces = recorded();
        let mut results = Vec::new();
        for seed in [1, 2, 3] {
            let cells = draw_cells(seed, 8, &[32.0 * MIB, 128.0 * MIB], 30.0, &traces);
            for (i, cell) in cells.iter().enumerate() {
                let r = run_cell(cell);
                assert!(r.finished, "seed {seed} cell {i} did not finish: {r:?}");
                assert!(
                    r.bound <= r.paced_stops.min(r.burst_stops),
                    "seed {seed} cell {i}: {r:?}\n{cell:?}"
                );
                results.push((seed, i, r));
            }
        }
        assert_pacing_targets(&results);
    }

    /// Issue 46's targets on the fixed seeds: `--pace` never stops more
    /// often than `-P 90` bursts in any of the 48 cells (before the try
    /// waited for a burst's last `TRY_LEAD_S`, seed 1's cell 11 got 1
    /// stop against 0); its median is at most 1 above the bound; it never
    /// takes more than 1.05 times as long as bursts.
    fn assert_pacing_targets(results: &[(u64, usize, Result)]) {
        let worse: Vec<_> = (results.iter())
            .filter(|(_, _, r)| r.paced_stops > r.burst_stops)
            .collect();
        assert!(worse.is_empty(), "worse than bursts: {worse:?}");
        for (seed, i, r) in results {
            let elapsed = r.paced_elapsed_s / r.burst_elapsed_s;
            assert!(elapsed <= 1.05, "seed {seed} cell {i}: {elapsed} × bursts");
        }
        let mut gaps: Vec<u64> = (results.iter())
            .map(|(_, _, r)| r.paced_stops.saturating_sub(r.bound))
            .collect();
        gaps.sort_unstable();
        assert!(
            gaps[gaps.len() / 2] <= 1,
            "median gap to the bound: {gaps:?}"
        );
    }

    #[test]
    fn a_steady_input_below_a_fixed_drive_is_bounded_by_the_closed_form() {
        // K = 33.6 + 30 MB, v = 60, r = 30: one stop per 127 MB of 3 GB.
        let cell = Cell {
            drive: DriveSpec::fixed_speed(60e6),
            kind: InputKind::JustBelow,
            producer: Producer::steady(30e6, 3000e6),
            ring_bytes: 32.0 * MIB,
        };
        let r = run_cell(&cell);
        let k = 32.0 * MIB + cell.drive.buffer_bytes;
        let closed = 3000e6 * super::super::bound::steady_stops_per_byte(30e6, 60e6, k);
        assert!(
            (r.bound as f64 - closed).abs() <= 1.0,
            "{r:?}, closed form {closed}"
        );
        assert!(r.bound <= r.burst_stops.min(r.paced_stops), "{r:?}");
    }
}
