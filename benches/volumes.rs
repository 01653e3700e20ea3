//! Volume benchmark: splitting a stream into fixed-size files, tapebuf
//! (`-D SIZE -o dir/v.%03d`) against coreutils `split -b`, alone and behind
//! mbuffer, side by side in one run, with tapebuf writing one file as the
//! baseline for what volumes cost.
//!
//! Each pipeline reads `dd if=/dev/zero bs=1M` and writes into a fresh
//! directory (a tmpfs by default, so the disk's own noise stays out); the
//! files are checked for count and size and then removed. Runs are
//! interleaved; medians and ratios are reported. Wall and CPU time cover
//! the whole pipeline, dd included (wait4 on the shell).
//!
//!     cargo bench --bench volumes
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_VOLUME (default 512M), TAPEBUF_BENCH_DIR
//! (default /dev/shm).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use common::{env_number, env_or, reap, wall_and_cpu_medians, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

// Reaped by wait4 in `reap`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn measure(pipeline: &str, dir: &Path) -> Sample {
    std::fs::create_dir(dir).expect("creating the benchmark directory");
    let started = Instant::now();
    let child = Command::new("sh")
        .args(["-c", &format!("set -e; cd {}; {pipeline}", dir.display())])
        .spawn()
        .expect("spawning sh");
    let sample = reap(&child, pipeline, started);
    std::fs::remove_dir_all(dir).expect("removing the benchmark directory");
    sample
}

/// Checks that `dir` holds `count` files that add up to `total` bytes,
/// besides tapebuf's empty trailer marker files (`tape::trailer_marker`).
fn check(dir: &Path, count: usize, total: u64) {
    let sizes: Vec<u64> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().contains(".tbt-"))
        .map(|e| e.metadata().unwrap().len())
        .collect();
    assert_eq!(sizes.len(), count, "{}: {sizes:?}", dir.display());
    assert_eq!(sizes.iter().sum::<u64>(), total);
}

fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let volume = env_or("TAPEBUF_BENCH_VOLUME", "512M");
    let volume_bytes = tapebuf::base::size::parse_size(&volume).expect("TAPEBUF_BENCH_VOLUME");
    let base = env_or("TAPEBUF_BENCH_DIR", "/dev/shm");
    let total = gib << 30;
    let count = total.div_ceil(volume_bytes) as usize;
    let source = format!("dd if=/dev/zero bs=1M count={} status=none", gib * 1024);
    let tools: Vec<(&str, String, usize)> = vec![
        (
            "tapebuf -D",
            format!("{source} | {TAPEBUF} -q -s 1M -m 64M -D {volume} -o v.%03d"),
            count,
        ),
        (
            "split -b",
            format!("{source} | split -b {volume} - v."),
            count,
        ),
        (
            "mbuffer|split",
            format!("{source} | mbuffer -q -s 1M -m 64M | split -b {volume} - v."),
            count,
        ),
        (
            "tapebuf 1 file",
            format!("{source} | {TAPEBUF} -q -s 1M -m 64M -o one"),
            1,
        ),
    ];
    println!("# {gib} GiB from /dev/zero into {volume} files under {base}, {runs} runs per tool");
    println!("# medians; wall and cpu cover the whole pipeline, dd included");
    println!(
        "{:<15} {:>8} {:>8} {:>9} {:>16}",
        "tool", "wall s", "cpu s", "MB/s", "tapebuf -D ratio"
    );
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); tools.len()];
    for run in 0..runs {
        for k in 0..tools.len() {
            let i = (run + k) % tools.len();
            let dir = Path::new(&base).join(format!("tapebuf-bench-{}-{i}", std::process::id()));
            let (_, pipeline, files) = &tools[i];
            // Check the output of the first run of each tool.
            if run == 0 {
                std::fs::create_dir(&dir).unwrap();
                let out = Command::new("sh")
                    .args(["-c", &format!("set -e; cd {}; {pipeline}", dir.display())])
                    .status()
                    .unwrap();
                assert!(out.success(), "{pipeline}");
                check(&dir, *files, total);
                std::fs::remove_dir_all(&dir).unwrap();
            }
            samples[i].push(measure(pipeline, &dir));
        }
    }
    let medians = wall_and_cpu_medians(&samples);
    for (i, (name, _, _)) in tools.iter().enumerate() {
        let (wall, cpu) = medians[i];
        println!(
            "{:<15} {:>8.3} {:>8.3} {:>9.0} {:>16.2}",
            name,
            wall,
            cpu,
            total as f64 / wall / 1e6,
            medians[0].0 / wall
        );
    }
}
