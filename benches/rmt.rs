//! rmt benchmark: writing to an rmt server through a link with a round
//! trip of a few milliseconds. tapebuf's pipelined client runs side by
//! side with its own lock-step mode (`--rmt-window 1`), with GNU tar's rmt
//! client (`tar cf HOST:PATH -b 20`, lock-step with 10 KiB records) and
//! with the raw stream through the same link, the ceiling: `dd | relay`, and
//! `tapebuf -o - | relay`, which has the buffer's cost and not the
//! protocol's, so the two raw contenders tell those costs apart.
//!
//! The link is this binary. Run as `rmt relay HOST [-l USER] CMD...`, it
//! stands in for ssh: it runs `sh -c CMD` here and passes bytes both ways,
//! each after a one-way delay, like a link with latency (and, if asked, a
//! bandwidth cap). The server is GNU rmt (/usr/sbin/rmt). By default it
//! writes to a FIFO that a thread of this benchmark drains and counts,
//! which takes each write with one copy and keeps nothing, as a drive
//! does; on a file, the page cache that fills behind the writes makes the
//! runs on this VM alternate between fast and slow (its memory is handed
//! back to the host as it is freed, and taken back slowly). The inputs are
//! pseudo-random and in RAM (/dev/shm). Before the timed runs, each
//! contender writes once to a file that is checked byte for byte; every
//! timed run is checked for its byte count, so a broken run cannot look
//! fast.
//!
//! A lock-step client moves one block per round trip (tar would need
//! minutes for 1 GiB), so tar and lock-step tapebuf write a smaller file
//! and all contenders are compared by throughput, not wall time. Runs are
//! interleaved so that machine noise hits every contender alike; medians
//! and ratios are reported.
//!
//!     cargo bench --bench rmt
//!
//! Environment: TAPEBUF_BENCH_DELAY_MS (one way; default 1, a 2 ms round
//! trip), TAPEBUF_BENCH_MIB (default 1024), TAPEBUF_BENCH_SLOW_MIB (the
//! lock-step contenders' size, default 64), TAPEBUF_BENCH_RUNS (default 3),
//! TAPEBUF_BENCH_BLOCK (default 256k), TAPEBUF_BENCH_MEMORY (default 64M),
//! TAPEBUF_BENCH_WINDOW (--rmt-window for the first contender; default: it
//! adapts), TAPEBUF_BENCH_LINK_MBPS (a bandwidth cap on the link; default
//! none), TAPEBUF_BENCH_OUT (where the server writes: `drive`, the
//! default, the drained FIFO; `disk`, a file under /tmp; `ram`, a file on
//! /dev/shm).
//!
//! Besides the table, it prints the relay's round trip as a client sees
//! it (one byte there and back) and the time per request of the lock-step
//! contenders, which should be that round trip plus a little.

mod common;
#[path = "rmt/contender.rs"]
mod contender;
#[path = "rmt/files.rs"]
mod files;
#[path = "rmt/relay.rs"]
mod relay;
#[path = "rmt/report.rs"]
mod report;
#[path = "rmt/run.rs"]
mod run;
#[path = "rmt/settings.rs"]
mod settings;

use std::path::Path;

use contender::{lineup, Contender, Setup, RMT_SERVER};
use files::Scratch;
use run::{measure, Output};
use settings::Settings;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("relay") {
        relay::main(&args[2..]);
    }
    // Otherwise cargo bench passes `--bench`, which changes nothing here.
    bench();
}

fn bench() {
    let settings = Settings::from_env();
    assert!(
        Path::new(RMT_SERVER).exists(),
        "{RMT_SERVER} is missing (Debian: apt-get install tar)"
    );

    let exe = std::env::current_exe().unwrap().display().to_string();
    // tapebuf splits --rsh-command into words on white space.
    assert!(
        !exe.contains(char::is_whitespace),
        "the benchmark's path has a space in it: {exe}"
    );
    let scratch = Scratch::make(&exe, &settings);
    let setup = Setup {
        exe: exe.clone(),
        tar_rsh: scratch.tar_rsh.clone(),
        memory: settings.memory.clone(),
        block: settings.block.clone(),
    };
    let contenders = lineup(&settings, &scratch.full, &scratch.slow);

    let measured_rtt_ms = relay::round_trip_ms(&exe);
    report::print_header(
        &settings,
        &setup,
        &contenders,
        &scratch.out,
        measured_rtt_ms,
    );
    let walls = measure_all(&settings, &setup, &contenders, &scratch);
    report::print_results(&settings, &contenders, walls, measured_rtt_ms);
    settings.print_reproduce();
}

/// One checked run of each contender, then the timed runs, interleaved;
/// returns each contender's wall times.
fn measure_all(
    settings: &Settings,
    setup: &Setup,
    contenders: &[Contender],
    scratch: &Scratch,
) -> Vec<Vec<f64>> {
    let (out, checked, output) = (&scratch.out, &scratch.checked, settings.output);
    for c in contenders {
        measure(setup, c, checked, Output::Disk, true);
    }
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for run in 0..settings.runs {
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            let sample = measure(setup, &contenders[i], out, output, false);
            walls[i].push(sample.wall_s);
        }
    }
    walls
}
