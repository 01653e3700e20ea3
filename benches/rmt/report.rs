//! What the rmt benchmark prints: the header (the link, the sizes and
//! every contender's command line), the table of medians with each run's
//! spread, the time per request in lock-step, and the targets.

use std::path::Path;

use crate::common::{median, verdict};
use crate::contender::{
    Contender, Setup, LOCK_STEP, RAW, RAW_TAPEBUF, RMT_SERVER, TAR, TAR_RECORD_BYTES, TB,
};
use crate::settings::Settings;

/// The lines before the runs: the link, the sizes, where the output goes
/// and the command line of each contender, writing `out`.
pub fn print_header(
    settings: &Settings,
    setup: &Setup,
    contenders: &[Contender],
    out: &Path,
    measured_rtt_ms: f64,
) {
    let (delay_ms, mib, slow_mib, runs) = (
        settings.delay_ms,
        settings.mib,
        settings.slow_mib,
        settings.runs,
    );
    let (link_mbps, output) = (&settings.link_mbps, settings.output);
    let cap = if link_mbps.is_empty() {
        "no bandwidth cap".to_string()
    } else {
        format!("capped at {link_mbps} MB/s")
    };
    println!(
        "# rmt to {RMT_SERVER} through a relay delaying each direction {delay_ms} ms \
         ({} ms round trip set, {measured_rtt_ms:.2} ms measured), {cap}",
        2.0 * delay_ms
    );
    println!(
        "# {mib} MiB for the pipelined and raw contenders, {slow_mib} MiB for the lock-step \
         ones (one block per round trip): compare MB/s, not wall time"
    );
    println!(
        "# medians of {runs} interleaved runs after one checked run each; the output goes to {}",
        output.describe()
    );
    for c in contenders {
        println!("#   {:<10} {}", c.name, c.shown(setup, out));
    }
}

/// The table, the lock-step times and the targets, from each contender's
/// wall times (`walls[i]` for `contenders[i]`).
pub fn print_results(
    settings: &Settings,
    contenders: &[Contender],
    walls: Vec<Vec<f64>>,
    measured_rtt_ms: f64,
) {
    let (wall, rate) = print_table(contenders, walls);
    let (delay_ms, slow_mib, block) = (settings.delay_ms, settings.slow_mib, &settings.block);
    let blocks = (slow_mib << 20).div_ceil(settings.block_bytes);
    let records = contenders[TAR].output_bytes() / TAR_RECORD_BYTES;
    println!(
        "per request in lock-step: {:.2} ms for {block} (tapebuf), {:.2} ms for 10k (tar); \
         round trip {measured_rtt_ms:.2} ms",
        wall[LOCK_STEP] / blocks as f64 * 1e3,
        wall[TAR] / records as f64 * 1e3,
    );
    let at = if delay_ms == 1.0 {
        String::new()
    } else {
        format!(
            " (measured at {} ms; the target is for 2 ms)",
            2.0 * delay_ms
        )
    };
    println!(
        "target: tapebuf >= 10x tar at 2 ms RTT: {} ({:.1}x){at}",
        verdict(rate[TB] >= 10.0 * rate[TAR]),
        rate[TB] / rate[TAR]
    );
    println!(
        "target: tapebuf >= 80% of the raw relay: {} ({:.0}%)",
        verdict(rate[TB] >= 0.8 * rate[RAW]),
        100.0 * rate[TB] / rate[RAW]
    );
    println!(
        "the protocol's own cost: tapebuf over rmt moves {:.0}% of what tapebuf moves as a raw \
         stream through the same relay",
        100.0 * rate[TB] / rate[RAW_TAPEBUF]
    );
}

/// Prints one row per contender: its median wall time and MB/s, the
/// spread of its runs' MB/s and how tapebuf compares. Returns the median
/// wall times and the MB/s of those.
fn print_table(contenders: &[Contender], walls: Vec<Vec<f64>>) -> (Vec<f64>, Vec<f64>) {
    // MB/s of every run, then the median; the spread shows the noise.
    let rates: Vec<Vec<f64>> = contenders
        .iter()
        .zip(&walls)
        .map(|(c, w)| w.iter().map(|w| c.input_bytes as f64 / w / 1e6).collect())
        .collect();
    let wall: Vec<f64> = walls.into_iter().map(median).collect();
    let rate: Vec<f64> = contenders
        .iter()
        .zip(&wall)
        .map(|(c, w)| c.input_bytes as f64 / w / 1e6)
        .collect();

    println!(
        "{:<11} {:>5} {:>8} {:>8} {:>15} {:>11}",
        "contender", "MiB", "wall s", "MB/s", "runs' MB/s", "tapebuf is"
    );
    for (i, c) in contenders.iter().enumerate() {
        let low = rates[i].iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates[i].iter().copied().fold(0.0, f64::max);
        println!(
            "{:<11} {:>5} {:>8.3} {:>8.1} {:>15} {:>10.2}x",
            c.name,
            c.input_bytes >> 20,
            wall[i],
            rate[i],
            format!("{low:.1}-{high:.1}"),
            rate[TB] / rate[i]
        );
    }
    (wall, rate)
}
