//! Streaming benchmark: how often a modelled tape drive stops behind each
//! buffer, in real time through real pipes, over a grid of inputs, ring
//! sizes and drives.
//!
//! A producer thread writes deterministic pseudo-random bytes into the
//! contender's stdin following a rate schedule on its own work clock, which
//! stands still while the pipe is full (a tar that cannot write does not
//! advance). A drive thread reads the contender's stdout only while the
//! drive model (`tapebuf::pace::drive_model`) has room, advancing the model
//! with the wall clock, so the contender sees the back-pressure a drive
//! would give it. Every byte is counted and checksummed on both sides.
//! Every contender gets the same bytes, memory and block size; contenders
//! run one at a time, the order rotated between runs, and medians are
//! reported in one markdown table for the whole grid.
//!
//!     cargo bench --bench streaming
//!
//! The grid (40 cells, about an hour with one run): the irregular
//! tar-like input on each ring (16M, 32M, 128M, 512M) behind the 12 to
//! 40 MB/s speed-matching drive at each speed check (2, 50, 250 ms) and
//! buffer (4, 64 MB), behind issue 46's held-out drive that steps only on
//! its buffer's thresholds, and behind the 40 MB/s fixed-speed drive; the long
//! bursts on each ring behind the 50 ms drive at both buffers.
//!
//! Environment: TAPEBUF_BENCH_RUNS (default 1), TAPEBUF_BENCH_STREAM_SCALE
//! (multiplies the stream sizes, default 1.0; 0.1 for a quick try). To
//! run one cell or row again (comma-separated keys, as in the table):
//! TAPEBUF_BENCH_STREAM_INPUTS (irregular, long),
//! TAPEBUF_BENCH_STREAM_RINGS (16M, 32M, 128M, 512M),
//! TAPEBUF_BENCH_STREAM_DRIVES (c2ms-b4, c2ms-b64, c50ms-b4, c50ms-b64,
//! c250ms-b4, c250ms-b64, thresholds, fixed), TAPEBUF_BENCH_STREAM_CONTENDERS
//! (tapebuf pace, tapebuf range, mbuffer; "tapebuf", without pacing, runs
//! only when named), TAPEBUF_BENCH_STREAM_STATS_DIR (tapebuf's runs also
//! write `--stats` and `--summary-json` files there).
//! TAPEBUF_BENCH_STREAM_SCENARIOS (bursty-matching, bursty-fixed,
//! steady-matching) runs those scenarios from before the grid instead of
//! it: -m 512M behind a 40 to 120 MB/s drive.

mod common;
#[path = "streaming/contenders.rs"]
mod contenders;
#[path = "streaming/drive.rs"]
mod drive;
#[path = "streaming/drives.rs"]
mod drives;
#[path = "streaming/grid.rs"]
mod grid;
#[path = "streaming/inputs.rs"]
mod inputs;
#[path = "streaming/producer.rs"]
mod producer;
#[path = "streaming/run.rs"]
mod run;
#[path = "streaming/schedule.rs"]
mod schedule;
#[path = "streaming/table.rs"]
mod table;
#[path = "streaming/verdict.rs"]
mod verdict;

use common::env_number;
use contenders::{available, contender, TAPEBUF};
use drives::describe;
use grid::{chosen_cells, Cell, Inputs};
use run::{run_once, Contender};
use table::{print_grid, Outcome};
use verdict::print_verdicts;

/// Every variable that chooses what runs, in the reproduce command.
const CHOICES: [&str; 6] = [
    "TAPEBUF_BENCH_STREAM_INPUTS",
    "TAPEBUF_BENCH_STREAM_RINGS",
    "TAPEBUF_BENCH_STREAM_DRIVES",
    "TAPEBUF_BENCH_STREAM_CONTENDERS",
    "TAPEBUF_BENCH_STREAM_SCENARIOS",
    "TAPEBUF_BENCH_STREAM_STATS_DIR",
];

/// The command that runs this again, with every choice made.
fn reproduce(runs: usize, scale: f64) -> String {
    let mut words = vec![
        format!("TAPEBUF_BENCH_RUNS={runs}"),
        format!("TAPEBUF_BENCH_STREAM_SCALE={scale}"),
    ];
    for var in CHOICES {
        if let Ok(v) = std::env::var(var) {
            words.push(format!("{var}='{v}'"));
        }
    }
    words.push("cargo bench --bench streaming".into());
    words.join(" ")
}

/// The header's first lines: the command, drives and inputs.
fn print_header(cells: &[Cell], inputs: &Inputs, runs: usize, scale: f64) {
    println!(
        "# Streaming: a tape drive's timing model behind each buffer, in real time through pipes"
    );
    println!("# reproduce: {}", reproduce(runs, scale));
    let mut drives: Vec<&drives::Drive> = Vec::new();
    for c in cells {
        if !drives.iter().any(|d| d.key == c.drive.key) {
            drives.push(&c.drive);
        }
    }
    for d in drives {
        println!("# drive {}: {}", d.key, describe(&d.spec));
    }
    for input in [
        &inputs.irregular,
        &inputs.long,
        &inputs.bursty,
        &inputs.steady,
    ] {
        if cells.iter().any(|c| c.input.key == input.key) {
            println!("# input {}", input.about);
        }
    }
    println!("# stream sizes x {scale}; the drive thread reads only while the model has room; elapsed = start to the contender's EOF;");
    println!("# stops = the model's buffer ran dry mid-stream; medians over {runs} run(s); ratios are to mbuffer's medians");
}

/// How long the chosen cells take at least: every contender's stream at
/// the producer's own pace.
fn print_duration(cells: &[Cell], runs: usize, contenders: usize) {
    let expected_s: f64 =
        cells.iter().map(|c| c.expected_s()).sum::<f64>() * (contenders * runs) as f64;
    println!(
        "# {} cell(s) x {contenders} contender(s) x {runs} run(s): at least {:.0} s ({:.1} min)",
        cells.len(),
        expected_s,
        expected_s / 60.0
    );
}

fn main() {
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "1");
    let scale: f64 = env_number("TAPEBUF_BENCH_STREAM_SCALE", "1.0");
    let inputs = Inputs::new();
    let cells = chosen_cells(&inputs, scale);
    assert!(
        !cells.is_empty(),
        "no cell chosen: see the keys in benches/streaming.rs (the long input runs only with c50ms-b4 and c50ms-b64)"
    );
    print_header(&cells, &inputs, runs, scale);
    let first = &cells[0];
    let names = available(first.ring, first.drive.range);
    print_duration(&cells, runs, names.len());
    let stats_dir = std::env::var("TAPEBUF_BENCH_STREAM_STATS_DIR").ok();

    let outcomes: Vec<Outcome> = cells
        .iter()
        .map(|cell| run_cell(cell, &names, runs, &stats_dir))
        .collect();
    print_grid(&cells, &names, &outcomes);
    print_verdicts(&cells, &names, &outcomes);
    let failed = outcomes
        .iter()
        .any(|o| o.failures.iter().any(|f| !f.is_empty()));
    assert!(
        !failed,
        "a contender lost bytes, exited non-zero or hung (see FAILED above)"
    );
}

/// `runs` runs of every contender in `names` on `cell`, one at a time,
/// the order rotated.
fn run_cell(
    cell: &Cell,
    names: &[&'static str],
    runs: usize,
    stats_dir: &Option<String>,
) -> Outcome {
    eprintln!("# {}: {}", cell.label(), cell.rerun());
    let contenders: Vec<Contender> = names
        .iter()
        .map(|n| contender(n, cell.ring, cell.drive.range))
        .collect();
    let mut outcome = Outcome {
        runs: vec![Vec::new(); names.len()],
        failures: vec![Vec::new(); names.len()],
    };
    for run in 0..runs {
        // Rotate the order so no contender always runs first.
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            let c = &contenders[i];
            let extra = stats_args(stats_dir, cell, c, run);
            match run_once(cell, c, &extra) {
                Ok(m) => {
                    eprintln!(
                        "# {} / {}: run {}: {}",
                        cell.label(),
                        c.name,
                        run + 1,
                        m.describe(&cell.drive.spec.speeds)
                    );
                    outcome.runs[i].push(m);
                }
                Err(why) => {
                    eprintln!(
                        "# {} / {}: run {} FAILED: {why}",
                        cell.label(),
                        c.name,
                        run + 1
                    );
                    outcome.failures[i].push(why);
                }
            }
        }
    }
    outcome
}

/// With a stats directory, tapebuf's `--stats` and `--summary-json` files
/// for this run there; nothing for mbuffer or without one.
fn stats_args(stats_dir: &Option<String>, cell: &Cell, c: &Contender, run: usize) -> Vec<String> {
    match stats_dir {
        Some(dir) if c.argv[0] == TAPEBUF => {
            let stem = format!(
                "{dir}/{}.{}.{}.{}.{}",
                cell.input.key,
                cell.ring,
                cell.drive.key,
                c.name.replace(' ', "-"),
                run + 1
            );
            vec![
                "--stats".into(),
                format!("{stem}.jsonl"),
                "--summary-json".into(),
                format!("{stem}.json"),
            ]
        }
        _ => Vec::new(),
    }
}
