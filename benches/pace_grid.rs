//! The pacing grid (issue 46): drives and inputs drawn at random from a
//! fresh seed, each run on the simulated clock with the default `--pace`
//! and with `-P 90` bursts, beside the fewest stops any feeder could make
//! (`tapebuf::pace::bound`). The seed is printed; `TAPEBUF_BENCH_SEED`
//! replays it. The recorded `--stats` traces in `benches/traces/` join
//! the inputs.
//!
//! mbuffer cannot run on the simulated clock, so it has no column here:
//! `-P 90` bursts is what mbuffer does (wait until 90% full, then write as
//! fast as the drive takes it), and `benches/streaming.rs` compares with
//! the real mbuffer in real time.
//!
//!     cargo bench --bench pace_grid
//!     TAPEBUF_BENCH_SEED=12345 cargo bench --bench pace_grid
//!     TAPEBUF_BENCH_SEED=12345 TAPEBUF_BENCH_CELL=27 cargo bench --bench pace_grid
//!
//! The last replays one cell and prints what the paced run did: its
//! stops, stalls and the controller's state at the end.

use std::time::{SystemTime, UNIX_EPOCH};

use tapebuf::pace::families::parse_stats_trace;
use tapebuf::pace::grid::{draw_cells, run_cell, Cell, Result};

const MIB: f64 = 1024.0 * 1024.0;
/// Drive and input draws per run; each is run at every ring size.
const DRAWS: usize = 70;
/// Seconds of the producer's work in each input.
const INPUT_S: f64 = 120.0;

fn main() {
    let seed = std::env::var("TAPEBUF_BENCH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(fresh_seed);
    println!("pace_grid: seed {seed} (TAPEBUF_BENCH_SEED={seed} replays it)");
    let traces = recorded_traces();
    println!("recorded traces: {}", traces.len());
    let rings = [32.0 * MIB, 128.0 * MIB, 1024.0 * MIB];
    let cells = draw_cells(seed, DRAWS, &rings, INPUT_S, &traces);
    println!(
        "{:>4} {:>6} {:>7} {:>6} {:>9} {:>6} {:>5} {:>6} {:>6} {:>5} {:>7}",
        "cell",
        "ring",
        "speeds",
        "bufMB",
        "choice",
        "input",
        "pace",
        "bursts",
        "bound",
        "fin",
        "el.p/b"
    );
    let only: Option<usize> = std::env::var("TAPEBUF_BENCH_CELL")
        .ok()
        .and_then(|s| s.parse().ok());
    let mut results: Vec<(&Cell, Result)> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if only.is_some_and(|k| k != i) {
            continue;
        }
        if only.is_some() {
            println!("{c:?}");
            println!("{}", tapebuf::pace::grid::explain(c));
        }
        let r = run_cell(c);
        println!(
            "{i:>4} {:>5}M {:>7} {:>6.0} {:>9} {:>6} {:>5} {:>6} {:>6} {:>5} {:>7.3}",
            c.ring_bytes / MIB,
            c.drive.speeds.len(),
            c.drive.buffer_bytes / 1e6,
            choice_name(c),
            format!("{:?}", c.kind).chars().take(6).collect::<String>(),
            r.paced_stops,
            r.burst_stops,
            r.bound,
            r.finished,
            r.paced_elapsed_s / r.burst_elapsed_s.max(1e-9),
        );
        results.push((c, r));
    }
    for ring in rings {
        let at: Vec<Result> = results
            .iter()
            .filter(|(c, _)| c.ring_bytes == ring)
            .map(|(_, r)| *r)
            .collect();
        summary(&format!("-m {}M", ring / MIB), &at);
    }
    let all: Vec<Result> = results.iter().map(|(_, r)| *r).collect();
    summary("all", &all);
}

/// One line of the summary: what the targets ask.
fn summary(label: &str, rs: &[Result]) {
    let worse = rs.iter().filter(|r| r.paced_stops > r.burst_stops).count();
    let gap: Vec<f64> = rs
        .iter()
        .map(|r| r.paced_stops as f64 - r.bound as f64)
        .collect();
    let ratio = rs
        .iter()
        .map(|r| r.paced_stops as f64 / (2.0 * r.bound as f64 + 2.0))
        .fold(0.0, f64::max);
    let elapsed: Vec<f64> = rs
        .iter()
        .map(|r| r.paced_elapsed_s / r.burst_elapsed_s.max(1e-9))
        .collect();
    let unfinished = rs.iter().filter(|r| !r.finished).count();
    let bound_broken = rs
        .iter()
        .filter(|r| r.bound > r.paced_stops.min(r.burst_stops))
        .count();
    println!(
        "summary {label}: cells {}, pace>bursts {worse}, median(pace-bound) {:.1}, \
         max pace/(2*bound+2) {ratio:.2}, elapsed pace/bursts median {:.3} max {:.3}, \
         median(bursts-bound) {:.1}, unfinished {unfinished}, bound above a contender {bound_broken}",
        rs.len(),
        median(gap),
        median(elapsed.clone()),
        elapsed.iter().copied().fold(0.0, f64::max),
        median(
            rs.iter()
                .map(|r| r.burst_stops as f64 - r.bound as f64)
                .collect()
        ),
    );
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn choice_name(c: &Cell) -> String {
    format!("{:?}", c.drive.choice)
        .chars()
        .take_while(|ch| ch.is_alphanumeric())
        .take(9)
        .collect()
}

/// The `--stats` recordings kept in `benches/traces/`.
fn recorded_traces() -> Vec<Vec<(f64, f64)>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/traces");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| parse_stats_trace(&t))
        .filter(|c| c.len() > 1)
        .collect()
}

fn fresh_seed() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    now.as_nanos() as u64 ^ u64::from(std::process::id())
}
