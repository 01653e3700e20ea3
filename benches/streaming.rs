//! Streaming benchmark: how often a modelled tape drive stops behind each
//! buffer, in real time through real pipes.
//!
//! A producer thread writes deterministic pseudo-random bytes into the
//! contender's stdin following a rate schedule on its own work clock, which
//! stands still while the pipe is full (a tar that cannot write does not
//! advance). A drive thread reads the contender's stdout only while the
//! drive model (`tapebuf::pace::drive_model`) has room, advancing the model
//! with the wall clock, so the contender sees the back-pressure a drive
//! would give it. Every byte is counted and checksummed on both sides.
//! Every contender gets the same bytes, memory and block size; runs are
//! interleaved and medians reported.
//!
//!     cargo bench --bench streaming
//!
//! Environment: TAPEBUF_BENCH_RUNS (default 1), TAPEBUF_BENCH_STREAM_SCALE
//! (multiplies the stream sizes, default 1.0; 0.1 for a quick try). To
//! look into one result: TAPEBUF_BENCH_STREAM_SCENARIOS (comma-separated
//! keys: bursty-matching, bursty-fixed, steady-matching),
//! TAPEBUF_BENCH_STREAM_CONTENDERS (comma-separated names, as in the
//! table), TAPEBUF_BENCH_STREAM_STATS_DIR (tapebuf's runs also write
//! `--stats` and `--summary-json` files there).

mod common;
#[path = "streaming/drive.rs"]
mod drive;
#[path = "streaming/producer.rs"]
mod producer;
#[path = "streaming/run.rs"]
mod run;
#[path = "streaming/scenario.rs"]
mod scenario;
#[path = "streaming/table.rs"]
mod table;

use common::env_number;
use run::{probe, run_once, Contender, Measured};
use scenario::{bursty, describe, matching, scenarios, steady, Scenario, MB};
use table::print_table;
use tapebuf::pace::drive_model::DriveSpec;

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// tapebuf plain, pacing, pacing within the drive's range, and mbuffer,
/// all with the same memory, block size and start watermark.
fn contenders() -> Vec<Contender> {
    let common = ["-q", "-m", "512M", "-s", "256k", "-P", "90"];
    let with = |extra: &[&str]| {
        let mut v = vec![TAPEBUF];
        v.extend_from_slice(&common);
        v.extend_from_slice(extra);
        argv(&v)
    };
    // The drive's real range in bytes per second (parse_size's M is MiB).
    let range = format!("--pace={:.0}:{:.0}", 40.0 * MB, 120.0 * MB);
    vec![
        Contender {
            name: "tapebuf",
            argv: with(&[]),
        },
        Contender {
            name: "tapebuf pace",
            argv: with(&["--pace"]),
        },
        Contender {
            name: "tapebuf range",
            argv: with(&[&range]),
        },
        Contender {
            name: "mbuffer",
            argv: argv(&[&["mbuffer"][..], &common[..]].concat()),
        },
    ]
}

fn print_header(runs: usize, scale: f64) {
    println!(
        "# Streaming: a tape drive's timing model behind each buffer, in real time through pipes"
    );
    println!("# reproduce: cargo bench --bench streaming   (TAPEBUF_BENCH_RUNS={runs}, TAPEBUF_BENCH_STREAM_SCALE={scale})");
    println!("# speed-matching drive: {}", describe(&matching()));
    println!(
        "# fixed-speed drive: {}",
        describe(&DriveSpec::fixed_speed(120.0 * MB))
    );
    println!("# producers (MB = 1e6 bytes): {}", bursty().describe());
    println!("#   {}", steady().describe());
    println!("# the drive thread reads only while the model has room; elapsed = start to the contender's EOF;");
    println!("# stops = the model's buffer ran dry mid-stream; medians over {runs} run(s); el/mb, stops/mb = ratio to mbuffer;");
    println!("# 1st B s = until the contender passed on its first byte (its -P fill); top s, slow s, stop s = the drive's");
    println!("# seconds at its top and slowest speed and standing still after the first byte; shares are of that same time");
}

/// Whether `name` is in the comma-separated list in `var`; an empty or
/// missing list chooses every name.
fn chosen(var: &str, name: &str) -> bool {
    let list = std::env::var(var).unwrap_or_default();
    list.trim().is_empty() || list.split(',').any(|n| n.trim() == name)
}

/// Prints each contender's command line; returns which of them run: those
/// chosen and able to start.
fn available(contenders: &[Contender]) -> Vec<bool> {
    let mut available = Vec::new();
    for c in contenders {
        println!("# {:<14} {}", c.name, c.argv.join(" "));
        if !chosen("TAPEBUF_BENCH_STREAM_CONTENDERS", c.name) {
            println!("#   not chosen (TAPEBUF_BENCH_STREAM_CONTENDERS)");
            available.push(false);
            continue;
        }
        match probe(c) {
            Ok(()) => available.push(true),
            Err(why) => {
                println!("#   UNAVAILABLE, left out: {why}");
                available.push(false);
            }
        }
    }
    available
}

fn main() {
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "1");
    let scale: f64 = env_number("TAPEBUF_BENCH_STREAM_SCALE", "1.0");
    let contenders = contenders();
    let scenarios = scenarios(scale);

    print_header(runs, scale);
    let stats_dir = std::env::var("TAPEBUF_BENCH_STREAM_STATS_DIR").ok();
    let available = available(&contenders);

    let mut failed = false;
    for scenario in &scenarios {
        if !chosen("TAPEBUF_BENCH_STREAM_SCENARIOS", scenario.key) {
            continue;
        }
        let (results, failures) = run_scenario(scenario, &contenders, &available, runs, &stats_dir);
        failed |= failures.iter().any(|f| !f.is_empty());
        print_table(scenario, &contenders, &results, &failures);
    }
    let missing: Vec<&str> = contenders
        .iter()
        .zip(&available)
        .filter(|(_, a)| !**a)
        .map(|(c, _)| c.name)
        .collect();
    if !missing.is_empty() {
        println!();
        println!("# not run: {}", missing.join(", "));
    }
    assert!(
        !failed,
        "a contender lost bytes, exited non-zero or hung (see FAILED above)"
    );
}

/// `runs` runs of every available contender on `scenario`, the order
/// rotated; returns each contender's measurements and failures.
fn run_scenario(
    scenario: &Scenario,
    contenders: &[Contender],
    available: &[bool],
    runs: usize,
    stats_dir: &Option<String>,
) -> (Vec<Vec<Measured>>, Vec<Vec<String>>) {
    let mut results: Vec<Vec<Measured>> = vec![Vec::new(); contenders.len()];
    let mut failures: Vec<Vec<String>> = vec![Vec::new(); contenders.len()];
    for run in 0..runs {
        // Rotate the order so no contender always runs first.
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            if !available[i] {
                continue;
            }
            let c = &contenders[i];
            let extra = stats_args(stats_dir, scenario, c, run);
            match run_once(scenario, c, &extra) {
                Ok(m) => {
                    eprintln!(
                        "# {} / {} / {}: run {}: {} stops, {:.1} s",
                        scenario.schedule.name,
                        scenario.drive_name,
                        c.name,
                        run + 1,
                        m.tally.stops,
                        m.elapsed_s
                    );
                    results[i].push(m);
                }
                Err(why) => {
                    eprintln!(
                        "# {} / {}: run {} FAILED: {why}",
                        scenario.schedule.name,
                        c.name,
                        run + 1
                    );
                    failures[i].push(why);
                }
            }
        }
    }
    (results, failures)
}

/// With a stats directory, tapebuf's `--stats` and `--summary-json` files
/// for this run there; nothing for mbuffer or without one.
fn stats_args(
    stats_dir: &Option<String>,
    scenario: &Scenario,
    c: &Contender,
    run: usize,
) -> Vec<String> {
    match stats_dir {
        Some(dir) if c.argv[0] == TAPEBUF => {
            let stem = format!(
                "{dir}/{}.{}.{}",
                scenario.key,
                c.name.replace(' ', "-"),
                run + 1
            );
            argv(&[
                "--stats",
                &format!("{stem}.jsonl"),
                "--summary-json",
                &format!("{stem}.json"),
            ])
        }
        _ => Vec::new(),
    }
}
