//! The streaming benchmark's cells: which input, ring (`-m`) and drive
//! each run has, the grid of them, the old scenarios, and the choice of
//! cells from the environment, so that one cell or one row can be run
//! again on its own.

use crate::drives::{
    fixed, matching, old_fixed, old_matching, thresholds, Drive, BUFFERS_MB, SPEED_CHECKS_S,
};
use crate::inputs::{bursty, irregular, long_bursts, steady, Input};

/// The ring sizes, as `-m` takes them (MiB for both tapebuf and mbuffer).
pub const RINGS: [&str; 4] = ["16M", "32M", "128M", "512M"];
/// The ring whose cells get a verdict.
pub const JUDGED_RING: &str = "32M";

/// Every input a cell can have, built once.
pub struct Inputs {
    pub irregular: Input,
    pub long: Input,
    pub bursty: Input,
    pub steady: Input,
}

impl Inputs {
    pub fn new() -> Inputs {
        Inputs {
            irregular: irregular(),
            long: long_bursts(),
            bursty: bursty(),
            steady: steady(),
        }
    }
}

/// One cell: every contender runs it with the same input, ring and drive.
pub struct Cell<'a> {
    pub input: &'a Input,
    pub ring: &'static str,
    pub drive: Drive,
    pub total_bytes: u64,
    /// The old scenario's key, for the three kept from before the grid.
    pub old_key: Option<&'static str>,
}

impl Cell<'_> {
    pub fn label(&self) -> String {
        format!("{} / -m {} / {}", self.input.key, self.ring, self.drive.key)
    }

    /// The command that runs this cell alone.
    pub fn rerun(&self) -> String {
        match self.old_key {
            Some(key) => {
                format!("TAPEBUF_BENCH_STREAM_SCENARIOS={key} cargo bench --bench streaming")
            }
            None => format!(
                "TAPEBUF_BENCH_STREAM_INPUTS={} TAPEBUF_BENCH_STREAM_RINGS={} \
                 TAPEBUF_BENCH_STREAM_DRIVES={} cargo bench --bench streaming",
                self.input.key, self.ring, self.drive.key
            ),
        }
    }

    /// The ring's bytes (`-m`'s M is MiB for both tapebuf and mbuffer).
    pub fn ring_bytes(&self) -> f64 {
        let mib: f64 = self
            .ring
            .trim_end_matches('M')
            .parse()
            .expect("a ring in MiB");
        mib * 1024.0 * 1024.0
    }

    /// Seconds a run takes at least: the producer's own time, or the time
    /// to fill the ring to its start watermark (90%) and then write every
    /// byte at the drive's top speed, whichever is longer.
    pub fn expected_s(&self) -> f64 {
        let bytes = self.total_bytes as f64;
        let schedule = &self.input.schedule;
        let first_byte_s = schedule.seconds_for((0.9 * self.ring_bytes()).min(bytes));
        schedule
            .seconds_for(bytes)
            .max(first_byte_s + bytes / self.drive.spec.top())
    }
}

fn scaled(bytes: f64, scale: f64) -> u64 {
    (bytes * scale).round() as u64
}

/// The grid: irregular x rings x (speed checks x buffers, and the
/// fixed-speed drive); long bursts x rings x the 50 ms drive's buffers.
pub fn grid(inputs: &Inputs, scale: f64) -> Vec<Cell<'_>> {
    let mut irregular_drives: Vec<Drive> = SPEED_CHECKS_S
        .iter()
        .flat_map(|&c| BUFFERS_MB.iter().map(move |&b| matching(c, b)))
        .collect();
    irregular_drives.push(thresholds());
    irregular_drives.push(fixed());
    let long_drives: Vec<Drive> = BUFFERS_MB.iter().map(|&b| matching(0.05, b)).collect();
    let mut cells = Vec::new();
    for (input, drives) in [
        (&inputs.irregular, irregular_drives),
        (&inputs.long, long_drives),
    ] {
        for ring in RINGS {
            for drive in &drives {
                cells.push(Cell {
                    input,
                    ring,
                    drive: drive.clone(),
                    total_bytes: scaled(input.bytes, scale),
                    old_key: None,
                });
            }
        }
    }
    cells
}

/// The three scenarios from before the grid: a 512M ring, the 40 to
/// 120 MB/s drives, gigabytes of input.
pub fn old_scenarios(inputs: &Inputs, scale: f64) -> Vec<Cell<'_>> {
    let cell = |key, input, drive, gb: f64| Cell {
        input,
        ring: "512M",
        drive,
        total_bytes: scaled(gb * 1e9, scale),
        old_key: Some(key),
    };
    vec![
        cell("bursty-matching", &inputs.bursty, old_matching(), 8.0),
        cell("bursty-fixed", &inputs.bursty, old_fixed(), 4.0),
        cell("steady-matching", &inputs.steady, old_matching(), 3.0),
    ]
}

/// The comma-separated names in `var`, trimmed; empty when it is unset.
pub fn env_list(var: &str) -> Vec<String> {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Whether two names are the same, case and ' ' or '-' aside.
pub fn same(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_lowercase().replace(' ', "-");
    norm(a) == norm(b)
}

/// Whether `name` is in the list in `var`; an empty or missing list
/// chooses every name.
pub fn chosen(var: &str, name: &str) -> bool {
    let list = env_list(var);
    list.is_empty() || list.iter().any(|n| same(n, name))
}

/// The cells to run: with TAPEBUF_BENCH_STREAM_SCENARIOS, those old
/// scenarios only; else the grid's cells whose input, ring and drive are
/// chosen by TAPEBUF_BENCH_STREAM_INPUTS, _RINGS and _DRIVES.
pub fn chosen_cells(inputs: &Inputs, scale: f64) -> Vec<Cell<'_>> {
    if !env_list("TAPEBUF_BENCH_STREAM_SCENARIOS").is_empty() {
        return old_scenarios(inputs, scale)
            .into_iter()
            .filter(|c| chosen("TAPEBUF_BENCH_STREAM_SCENARIOS", c.old_key.unwrap_or("")))
            .collect();
    }
    grid(inputs, scale)
        .into_iter()
        .filter(|c| {
            chosen("TAPEBUF_BENCH_STREAM_INPUTS", c.input.key)
                && chosen("TAPEBUF_BENCH_STREAM_RINGS", c.ring)
                && chosen("TAPEBUF_BENCH_STREAM_DRIVES", &c.drive.key)
        })
        .collect()
}
