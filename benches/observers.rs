//! Observer cost: tapebuf plain against tapebuf with every observer on
//! (`--stats` every 0.1 s, `--status-interval 1 --log`, and a forced
//! `--progress` bar drawn to /dev/null), side by side in one run.
//!
//! Each variant sits between `dd if=/dev/zero` and `dd of=/dev/null`,
//! joined by pipes. Runs are interleaved, variant by variant, so machine
//! noise hits each alike; medians and ratios to plain are reported. The
//! observers read atomic counters on their own threads, so the ratios
//! should sit within the noise of 1.00.
//!
//!     cargo bench --bench observers
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_MEMORY (default 64M).

mod common;

use common::{between_zero_and_null, env_number, env_or, wall_and_cpu_medians, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stats = dir.path().join("run.jsonl").display().to_string();
    let log = dir.path().join("run.log").display().to_string();
    let base = |extra: &[&str]| -> Vec<String> {
        [TAPEBUF, "-s", "1M", "-m", &memory]
            .iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect()
    };
    let observers = [
        "--stats",
        &stats,
        "--stats-interval",
        "0.1",
        "--status-interval",
        "1",
        "--log",
        &log,
    ];
    let with_bar: Vec<&str> = observers.iter().copied().chain(["--progress"]).collect();
    let variants: Vec<(&str, Vec<String>)> = vec![
        ("plain", base(&[])),
        ("stats+log", base(&observers)),
        ("all+bar", base(&with_bar)),
    ];
    println!("# {gib} GiB from /dev/zero to /dev/null through pipes, {runs} runs per variant, -s 1M -m {memory}");
    println!("# medians; cpu is tapebuf's own (wait4); ratios are to plain");
    println!(
        "{:<10} {:>8} {:>8} {:>9} {:>11} {:>10}",
        "variant", "wall s", "cpu s", "MB/s", "wall ratio", "cpu ratio"
    );
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); variants.len()];
    for run in 0..runs {
        for k in 0..variants.len() {
            let i = (run + k) % variants.len();
            samples[i].push(between_zero_and_null(&variants[i].1, gib));
        }
    }
    let medians = wall_and_cpu_medians(&samples);
    let (plain_wall, plain_cpu) = medians[0];
    for (i, (name, _)) in variants.iter().enumerate() {
        let (wall, cpu) = medians[i];
        println!(
            "{:<10} {:>8.3} {:>8.3} {:>9.0} {:>11.3} {:>10.3}",
            name,
            wall,
            cpu,
            (gib << 30) as f64 / wall / 1e6,
            wall / plain_wall,
            cpu / plain_cpu
        );
    }
    let lines = std::fs::read_to_string(&stats).map_or(0, |t| t.lines().count());
    println!("# the last observed run's stats file held {lines} records");
}
