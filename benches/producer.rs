//! The producer run by tapebuf (`tapebuf -- CMD`) against the same producer
//! piped into tapebuf (`CMD | tapebuf`) and into mbuffer, side by side in
//! one run: what running and judging the producer costs.
//!
//! The producer is `dd if=/dev/zero bs=1M` of GIB GiB; every buffer gets
//! the same block size and memory and writes /dev/null. Runs are
//! interleaved with the order rotated, so machine noise hits every
//! contender alike; medians of wall and CPU time (the whole pipeline's,
//! from wait4(2) on the shell that runs it) and their ratios to the pipe
//! into tapebuf are reported.
//!
//!     cargo bench --bench producer
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5). Needs mbuffer.

mod common;

use std::process::{Command, Stdio};
use std::time::Instant;

use common::{env_number, median, reap, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// The contenders, as shell command lines.
fn contenders(gib: u64) -> Vec<(&'static str, String)> {
    let dd = format!("dd if=/dev/zero bs=1M count={} status=none", gib * 1024);
    let buffer = "-q -s 1M -m 64M -o /dev/null";
    vec![
        ("dd | tapebuf", format!("{dd} | {TAPEBUF} {buffer}")),
        ("tapebuf -- dd", format!("{TAPEBUF} {buffer} -- {dd}")),
        (
            "dd | mbuffer",
            format!("{dd} | mbuffer -q -s 1M -m 64M -o /dev/null 2>/dev/null"),
        ),
    ]
}

#[allow(clippy::zombie_processes)] // reap() waits for it with wait4(2)
fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let contenders = contenders(gib);
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); contenders.len()];
    for run in 0..runs {
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            let (name, line) = &contenders[i];
            let started = Instant::now();
            let child = Command::new("sh")
                .args(["-c", line])
                .stdin(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            samples[i].push(reap(&child, name, started));
        }
    }
    println!("producer: {gib} GiB of dd output, 1M blocks, 64M of buffer, to /dev/null; medians of {runs}");
    let base_wall = median(samples[0].iter().map(|s| s.wall_s).collect());
    let base_cpu = median(samples[0].iter().map(|s| s.cpu_s).collect());
    for ((name, _), s) in contenders.iter().zip(&samples) {
        let wall = median(s.iter().map(|s| s.wall_s).collect());
        let cpu = median(s.iter().map(|s| s.cpu_s).collect());
        println!(
            "  {name:<14} wall {wall:6.2} s ({:.3}x)  cpu {cpu:6.2} s ({:.3}x)  {:.0} MB/s",
            wall / base_wall,
            cpu / base_cpu,
            gib as f64 * 1073.741824 / wall
        );
    }
}
