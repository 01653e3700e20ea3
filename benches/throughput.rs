//! Throughput benchmark: tapebuf against mbuffer and plain dd, side by side
//! in one run.
//!
//! Each tool sits between `dd if=/dev/zero` and `dd of=/dev/null`, joined by
//! pipes, and moves the same stream with the same block size (and, for the
//! two buffers, the same memory). Runs are interleaved, tool by tool, so
//! that machine noise hits every tool alike; medians and ratios are
//! reported. The tool's own CPU time and peak RSS come from wait4(2).
//!
//!     cargo bench --bench throughput
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_MEMORY (default 64M).

mod common;

use common::{between_zero_and_null, env_number, env_or, median, verdict, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

fn main() {
    // `cargo bench` passes --bench; a filter argument is not supported.
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
    let memory_bytes = tapebuf::base::size::parse_size(&memory).expect("TAPEBUF_BENCH_MEMORY");

    println!(
        "# {gib} GiB from /dev/zero to /dev/null through pipes, {runs} runs per tool, memory {memory}"
    );
    println!("# medians; cpu and rss are the middle tool's own (wait4)");
    println!(
        "{:<8} {:<9} {:>8} {:>8} {:>9} {:>9} {:>12}",
        "block", "tool", "wall s", "cpu s", "rss MiB", "MB/s", "wall ratio"
    );
    for block in ["1M", "64k"] {
        let tools = tools(block, &memory);
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); tools.len()];
        for run in 0..runs {
            // Rotate the order so no tool always runs first.
            for k in 0..tools.len() {
                let i = (run + k) % tools.len();
                samples[i].push(between_zero_and_null(&tools[i].1, gib));
            }
        }
        print_block(block, &tools, &samples, gib, memory_bytes);
    }
}

/// The tools with `block` and, for the two buffers, `memory`: tapebuf
/// first, then mbuffer and dd.
fn tools(block: &str, memory: &str) -> Vec<(&'static str, Vec<String>)> {
    vec![
        (
            "tapebuf",
            [TAPEBUF, "-q", "-s", block, "-m", memory]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        ),
        (
            "mbuffer",
            ["mbuffer", "-q", "-s", block, "-m", memory]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        ),
        (
            "dd",
            vec!["dd".into(), format!("bs={block}"), "status=none".into()],
        ),
    ]
}

/// One block size's rows (each tool's medians and its wall time against
/// tapebuf's) and the targets.
fn print_block(
    block: &str,
    tools: &[(&str, Vec<String>)],
    samples: &[Vec<Sample>],
    gib: u64,
    memory_bytes: u64,
) {
    let medians: Vec<(f64, f64, f64)> = samples
        .iter()
        .map(|s| {
            (
                median(s.iter().map(|x| x.wall_s).collect()),
                median(s.iter().map(|x| x.cpu_s).collect()),
                s.iter().map(|x| x.max_rss_kib).max().unwrap_or(0) as f64 / 1024.0,
            )
        })
        .collect();
    let tapebuf_wall = medians[0].0;
    for (i, (name, _)) in tools.iter().enumerate() {
        let (wall, cpu, rss) = medians[i];
        println!(
            "{:<8} {:<9} {:>8.3} {:>8.3} {:>9.1} {:>9.0} {:>12.2}",
            block,
            name,
            wall,
            cpu,
            rss,
            (gib << 30) as f64 / wall / 1e6,
            tapebuf_wall / wall
        );
    }
    let (tw, tc, trss) = medians[0];
    let (mw, mc, _) = medians[1];
    let rss_limit = memory_bytes as f64 / (1 << 20) as f64 + 16.0;
    println!(
        "{:<8} targets: wall <= mbuffer {} ({:.2}x), cpu <= mbuffer {} ({:.2}x), peak rss <= {:.0} MiB {} ({:.1})",
        block,
        verdict(tw <= mw),
        tw / mw,
        verdict(tc <= mc),
        tc / mc,
        rss_limit,
        verdict(trss <= rss_limit),
        trss
    );
}
