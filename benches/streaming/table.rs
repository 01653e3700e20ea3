//! The streaming benchmark's table: per scenario, each contender's
//! medians (stops, elapsed time, seconds at each speed) and its ratios to
//! mbuffer; failed runs are listed under their contender.

use crate::common::median;
use crate::run::{Contender, Measured};
use crate::scenario::{Scenario, MB};

/// "40:2% 50:1% ... 120:60% stop:5%": the share of the drive's time from
/// the first byte to the last at each speed (MB/s), under 0.5% left out.
fn shares(speeds: &[f64], at_speed_s: &[f64], stopped_s: f64) -> String {
    let total: f64 = at_speed_s.iter().sum::<f64>() + stopped_s;
    let mut parts: Vec<String> = speeds
        .iter()
        .zip(at_speed_s)
        .filter(|(_, s)| **s / total >= 0.005)
        .map(|(v, s)| format!("{:.0}:{:.0}%", v / MB, 100.0 * s / total))
        .collect();
    parts.push(format!("stop:{:.0}%", 100.0 * stopped_s / total));
    parts.join(" ")
}

/// The medians of one contender's runs.
struct Row {
    stops: f64,
    elapsed_s: f64,
    at_speed_s: Vec<f64>,
    /// Standing still after the first byte.
    stopped_s: f64,
    first_byte_s: f64,
    bytes: u64,
}

fn row(runs: &[Measured]) -> Row {
    let m = |f: &dyn Fn(&Measured) -> f64| median(runs.iter().map(f).collect());
    let speeds = runs[0].tally.seconds_at_speed.len();
    Row {
        stops: m(&|r| r.tally.stops as f64),
        elapsed_s: m(&|r| r.elapsed_s),
        at_speed_s: (0..speeds)
            .map(|i| m(&|r| r.tally.seconds_at_speed[i]))
            .collect(),
        stopped_s: m(&|r| r.tally.seconds_stopped - r.first_byte_s),
        first_byte_s: m(&|r| r.first_byte_s),
        bytes: runs[0].bytes,
    }
}

pub fn print_table(
    scenario: &Scenario,
    contenders: &[Contender],
    results: &[Vec<Measured>],
    failures: &[Vec<String>],
) {
    let mb = scenario.total_bytes as f64 / MB;
    println!();
    println!(
        "## {} producer, {} drive, {mb:.0} MB",
        scenario.schedule.name, scenario.drive_name
    );
    println!(
        "{:<14} {:>6} {:>9} {:>9} {:>8} {:>7} {:>7} {:>7} {:>7} {:>13}  share of drive time at each speed (MB/s)",
        "contender",
        "stops",
        "stops/mb",
        "elapsed s",
        "el/mb",
        "1st B s",
        "top s",
        "slow s",
        "stop s",
        "bytes ok",
    );
    let rows: Vec<Option<Row>> = results
        .iter()
        .map(|r| (!r.is_empty()).then(|| row(r)))
        .collect();
    let mbuffer = contenders
        .iter()
        .position(|c| c.name == "mbuffer")
        .and_then(|i| rows[i].as_ref());
    let speeds = &scenario.drive.speeds;
    for (i, c) in contenders.iter().enumerate() {
        if let Some(r) = &rows[i] {
            let (stop_ratio, elapsed_ratio) = match mbuffer {
                Some(m) => (
                    if m.stops > 0.0 {
                        format!("{:.2}", r.stops / m.stops)
                    } else {
                        "-".to_string()
                    },
                    format!("{:.3}", r.elapsed_s / m.elapsed_s),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            println!(
                "{:<14} {:>6} {:>9} {:>9.1} {:>8} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>13}  {}",
                c.name,
                r.stops,
                stop_ratio,
                r.elapsed_s,
                elapsed_ratio,
                r.first_byte_s,
                r.at_speed_s.last().copied().unwrap_or(0.0),
                r.at_speed_s.first().copied().unwrap_or(0.0),
                r.stopped_s,
                r.bytes,
                shares(speeds, &r.at_speed_s, r.stopped_s)
            );
        }
        for f in &failures[i] {
            println!("{:<14} FAILED: {f}", c.name);
        }
    }
}
