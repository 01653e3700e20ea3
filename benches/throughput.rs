//! Throughput benchmark: tapebuf's zero-copy ring against its copying ring
//! (`--zero-copy=off`), mbuffer, pv and dd, side by side in one run.
//!
//! Scenarios, each with the same block size for every tool and the same
//! memory for the buffers:
//! - pipe to pipe: `dd if=/dev/zero | TOOL | dd of=/dev/null`, 1M and 64k;
//! - file to pipe: TOOL reads a file on /dev/shm (tmpfs), `| dd of=/dev/null`;
//! - pipe to file: `dd if=/dev/zero | TOOL` writing a file on /dev/shm;
//! - the fallback: pipe to pipe with `--hash xxh3`, which needs the bytes,
//!   so `auto` runs the copying ring: against `--zero-copy=off`.
//!
//! Runs are interleaved, tool by tool, with the order rotated, so machine
//! noise hits every tool alike; medians and ratios are reported. CPU time
//! and peak RSS are the middle tool's own, from wait4(2). tapebuf's kernel
//! pipe memory and the most its ring held come from `--summary-json`, which
//! also proves which ring ran.
//!
//!     cargo bench --bench throughput
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_MEMORY (default 64M). Needs mbuffer, pv and
//! about 2 x GIB free in /dev/shm.

mod common;

use std::path::{Path, PathBuf};

use common::relay::{relay, Out};
use common::{env_number, env_or, median, verdict, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ends {
    PipeToPipe,
    FileToPipe,
    PipeToFile,
}

struct Scenario {
    block: &'static str,
    ends: Ends,
    /// `--hash xxh3` on both tapebuf rows, and no other tools.
    hash: bool,
}

impl Scenario {
    fn label(&self) -> String {
        let ends = match self.ends {
            Ends::PipeToPipe => "pipe>pipe",
            Ends::FileToPipe => "file>pipe",
            Ends::PipeToFile => "pipe>file",
        };
        let hash = if self.hash { "+xxh3" } else { "" };
        format!("{ends}{hash} {}", self.block)
    }
}

/// One contender: its command line, where its stdout goes, and for tapebuf
/// the ring `--summary-json` must report.
struct Tool {
    name: &'static str,
    args: Vec<String>,
    out: Out,
    ring: Option<&'static str>,
}

/// The files the scenarios use, all on tmpfs.
struct Paths {
    input: PathBuf,
    output: PathBuf,
    summary: PathBuf,
}

/// A tool's medians over its runs, and tapebuf's ring figures.
struct Row {
    wall_s: f64,
    cpu_s: f64,
    rss_mib: f64,
    pipe_mib: f64,
    held_mib: f64,
}

fn main() {
    // `cargo bench` passes --bench; a filter argument is not supported.
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
    let memory_bytes = tapebuf::base::size::parse_size(&memory).expect("TAPEBUF_BENCH_MEMORY");
    let pid = std::process::id();
    let paths = Paths {
        input: PathBuf::from(format!("/dev/shm/tapebuf-bench-{pid}.in")),
        output: PathBuf::from(format!("/dev/shm/tapebuf-bench-{pid}.out")),
        summary: PathBuf::from(format!("/dev/shm/tapebuf-bench-{pid}.json")),
    };
    println!("# {gib} GiB per run, {runs} runs per tool, memory {memory}; medians");
    println!("# cpu and rss are the middle tool's own (wait4); pipe is tapebuf's kernel pipe memory (peak held)");
    println!(
        "{:<17} {:<9} {:>7} {:>7} {:>8} {:>15} {:>7} {:>9}",
        "scenario", "tool", "wall s", "cpu s", "rss MiB", "pipe MiB", "MB/s", "tb÷tool"
    );
    for scenario in scenarios() {
        if scenario.ends == Ends::FileToPipe && !paths.input.exists() {
            make_input(&paths.input, gib);
        }
        if scenario.ends == Ends::PipeToFile {
            // A first write of this much tmpfs costs more on a virtual
            // machine, whose host backs the guest's memory on first touch:
            // pay it once, untimed, so no tool's run pays it.
            make_input(&paths.output, gib);
            let _ = std::fs::remove_file(&paths.output);
        }
        let tools = tools(&scenario, &memory, &paths);
        let rows = measure(&scenario, &tools, &paths, gib, runs);
        print_rows(&scenario, &tools, &rows, gib);
        print_targets(&scenario, &rows, memory_bytes);
    }
    for path in [&paths.input, &paths.output, &paths.summary] {
        let _ = std::fs::remove_file(path);
    }
}

fn scenarios() -> Vec<Scenario> {
    let s = |block, ends, hash| Scenario { block, ends, hash };
    vec![
        s("1M", Ends::PipeToPipe, false),
        s("64k", Ends::PipeToPipe, false),
        s("1M", Ends::FileToPipe, false),
        s("1M", Ends::PipeToFile, false),
        s("1M", Ends::PipeToPipe, true),
    ]
}

/// `gib` GiB of zeros written to `path` by dd.
fn make_input(path: &Path, gib: u64) {
    let ok = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=1M", "status=none"])
        .arg(format!("count={}", gib * 1024))
        .arg(format!("of={}", path.display()))
        .status()
        .expect("dd")
        .success();
    assert!(ok, "writing the input file {}", path.display());
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// The contenders of `scenario`: tapebuf on each ring first, then the
/// peers (none for the fallback scenario, which compares tapebuf alone).
fn tools(scenario: &Scenario, memory: &str, paths: &Paths) -> Vec<Tool> {
    let (input, output) = (
        paths.input.to_str().unwrap(),
        paths.output.to_str().unwrap(),
    );
    let (block, ends) = (scenario.block, scenario.ends);
    let tapebuf = |ring: &'static str, zero_copy: &str| {
        let mut args = strings(&[TAPEBUF, "-q", "-s", block, "-m", memory, zero_copy]);
        args.extend(strings(&[
            "--summary-json",
            paths.summary.to_str().unwrap(),
        ]));
        if scenario.hash {
            args.extend(strings(&["--hash", "xxh3"]));
        }
        let ring = if scenario.hash { "copying" } else { ring };
        buffer_tool("tapebuf", args, ends, (input, output), Some(ring))
    };
    let mut tools = vec![
        tapebuf("zero-copy", "--zero-copy=auto"),
        tapebuf("copying", "--zero-copy=off"),
    ];
    tools[1].name = "tb-copy";
    if scenario.hash {
        return tools;
    }
    let mbuffer = strings(&["mbuffer", "-q", "-s", block, "-m", memory]);
    tools.push(buffer_tool("mbuffer", mbuffer, ends, (input, output), None));
    let mut pv = strings(&["pv", "-q"]);
    let mut pv_out = Out::Drain;
    match ends {
        Ends::FileToPipe => pv.push(input.into()),
        Ends::PipeToFile => pv_out = Out::File(paths.output.clone()),
        Ends::PipeToPipe => {}
    }
    tools.push(Tool {
        name: "pv",
        args: pv,
        out: pv_out,
        ring: None,
    });
    let mut dd = vec![
        "dd".to_string(),
        format!("bs={block}"),
        "status=none".into(),
    ];
    let mut dd_out = Out::Drain;
    match ends {
        Ends::FileToPipe => dd.push(format!("if={input}")),
        Ends::PipeToFile => {
            dd.push(format!("of={output}"));
            dd_out = Out::Null;
        }
        Ends::PipeToPipe => {}
    }
    tools.push(Tool {
        name: "dd",
        args: dd,
        out: dd_out,
        ring: None,
    });
    tools
}

/// tapebuf or mbuffer, which both name files with -i and -o.
fn buffer_tool(
    name: &'static str,
    mut args: Vec<String>,
    ends: Ends,
    (input, output): (&str, &str),
    ring: Option<&'static str>,
) -> Tool {
    let mut out = Out::Drain;
    match ends {
        Ends::FileToPipe => args.extend(strings(&["-i", input])),
        Ends::PipeToFile => {
            if name == "tapebuf" {
                args.push("-f".into());
            }
            args.extend(strings(&["-o", output]));
            out = Out::Null;
        }
        Ends::PipeToPipe => {}
    }
    Tool {
        name,
        args,
        out,
        ring,
    }
}

/// Runs every tool `runs` times, interleaved with the order rotated, and
/// checks each run: the output file's size, and tapebuf's ring.
fn measure(scenario: &Scenario, tools: &[Tool], paths: &Paths, gib: u64, runs: usize) -> Vec<Row> {
    let mut samples: Vec<Vec<(Sample, u64, u64)>> = tools.iter().map(|_| Vec::new()).collect();
    for run in 0..runs {
        for k in 0..tools.len() {
            let i = (run + k) % tools.len();
            let tool = &tools[i];
            let _ = std::fs::remove_file(&paths.output);
            let _ = std::fs::remove_file(&paths.summary);
            let sample = relay(
                &tool.args,
                scenario.ends != Ends::FileToPipe,
                &tool.out,
                gib,
            );
            if scenario.ends == Ends::PipeToFile {
                let len = std::fs::metadata(&paths.output).map_or(0, |m| m.len());
                assert_eq!(len, gib << 30, "{} wrote {len} bytes", tool.name);
                let _ = std::fs::remove_file(&paths.output);
            }
            let (pipe, held) = tool
                .ring
                .map_or((0, 0), |want| ring_of(&paths.summary, want));
            samples[i].push((sample, pipe, held));
        }
    }
    samples.iter().map(|s| row(s)).collect()
}

/// tapebuf's ring from its summary JSON, which must be of kind `want`:
/// its pipe memory and the most it held, in bytes.
fn ring_of(summary: &Path, want: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(summary).expect("tapebuf's --summary-json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("summary JSON");
    let ring = &v["ring"];
    assert_eq!(ring["kind"], want, "tapebuf ran another ring: {ring}");
    (
        ring["pipe_bytes"].as_u64().unwrap_or(0),
        ring["peak_held_bytes"].as_u64().unwrap_or(0),
    )
}

fn row(samples: &[(Sample, u64, u64)]) -> Row {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    Row {
        wall_s: median(samples.iter().map(|s| s.0.wall_s).collect()),
        cpu_s: median(samples.iter().map(|s| s.0.cpu_s).collect()),
        rss_mib: samples.iter().map(|s| s.0.max_rss_kib).max().unwrap_or(0) as f64 / 1024.0,
        pipe_mib: mib(samples.iter().map(|s| s.1).max().unwrap_or(0)),
        held_mib: mib(samples.iter().map(|s| s.2).max().unwrap_or(0)),
    }
}

fn print_rows(scenario: &Scenario, tools: &[Tool], rows: &[Row], gib: u64) {
    let label = scenario.label();
    for (tool, r) in tools.iter().zip(rows) {
        let pipe = match r.pipe_mib > 0.0 {
            true => format!("{:.0} ({:.0})", r.pipe_mib, r.held_mib),
            false => "-".to_string(),
        };
        println!(
            "{:<17} {:<9} {:>7.3} {:>7.3} {:>8.1} {:>15} {:>7.0} {:>9.2}",
            label,
            tool.name,
            r.wall_s,
            r.cpu_s,
            r.rss_mib,
            pipe,
            (gib << 30) as f64 / r.wall_s / 1e6,
            rows[0].wall_s / r.wall_s
        );
    }
}

/// The targets for a scenario, met or MISSED.
fn print_targets(scenario: &Scenario, rows: &[Row], memory_bytes: u64) {
    let (zc, copying) = (&rows[0], &rows[1]);
    let (cpu, wall) = (zc.cpu_s / copying.cpu_s, zc.wall_s / copying.wall_s);
    let label = scenario.label();
    if scenario.hash {
        println!(
            "{label:<17} targets: the fallback no slower than --zero-copy=off: wall {} ({wall:.2}x), cpu {cpu:.2}x",
            verdict(wall <= 1.05)
        );
        return;
    }
    let limit = memory_bytes as f64 / (1 << 20) as f64 + 16.0;
    println!(
        "{label:<17} targets: cpu <= 0.25x copying {} ({cpu:.2}x), wall <= 0.7x copying {} ({wall:.2}x), rss <= {limit:.0} MiB {} ({:.1}), pipe <= {limit:.0} MiB {} ({:.0})",
        verdict(cpu <= 0.25),
        verdict(wall <= 0.7),
        verdict(zc.rss_mib <= limit),
        zc.rss_mib,
        verdict(zc.pipe_mib <= limit),
        zc.pipe_mib
    );
    let mbuffer = &rows[2];
    println!(
        "{label:<17} beside mbuffer: wall {:.2}x, cpu {:.2}x",
        zc.wall_s / mbuffer.wall_s,
        zc.cpu_s / mbuffer.cpu_s
    );
}
