//! The streaming benchmark's grid table: one markdown row per cell, each
//! contender's median stops and elapsed seconds, and each tapebuf
//! contender's ratios to mbuffer's; failed runs are listed under it.

use crate::common::median;
use crate::contenders::short;
use crate::grid::Cell;
use crate::run::Measured;

/// One cell's runs, by contender (in the order of the names given).
pub struct Outcome {
    pub runs: Vec<Vec<Measured>>,
    pub failures: Vec<Vec<String>>,
}

/// A contender's medians in one cell: (stops, elapsed seconds); none if
/// it did not run or any of its runs failed.
pub fn medians(outcome: &Outcome, i: usize) -> Option<(f64, f64)> {
    let runs = &outcome.runs[i];
    if runs.is_empty() || !outcome.failures[i].is_empty() {
        return None;
    }
    Some((
        median(runs.iter().map(|r| r.tally.stops() as f64).collect()),
        median(runs.iter().map(|r| r.elapsed_s).collect()),
    ))
}

pub fn stops_text(stops: f64) -> String {
    if stops.fract() == 0.0 {
        format!("{stops:.0}")
    } else {
        format!("{stops:.1}")
    }
}

/// Stops divided by mbuffer's: `0/0` when neither stopped, `—` when only
/// mbuffer did not.
pub fn stops_ratio(stops: f64, mbuffer: f64) -> String {
    match (stops == 0.0, mbuffer == 0.0) {
        (true, true) => "0/0".into(),
        (false, true) => "—".into(),
        _ => format!("{:.2}", stops / mbuffer),
    }
}

fn row(cell: &Cell, names: &[&str], outcome: &Outcome) -> Vec<String> {
    let mut row = vec![
        cell.input.key.to_string(),
        cell.ring.to_string(),
        cell.drive.key.clone(),
    ];
    let m: Vec<Option<(f64, f64)>> = (0..names.len()).map(|i| medians(outcome, i)).collect();
    for (i, med) in m.iter().enumerate() {
        match med {
            Some((stops, elapsed_s)) => {
                row.push(stops_text(*stops));
                row.push(format!("{elapsed_s:.1}"));
            }
            None if !outcome.failures[i].is_empty() => {
                row.extend(["FAILED".into(), "FAILED".into()])
            }
            None => row.extend(["-".into(), "-".into()]),
        }
    }
    let mbuffer = names
        .iter()
        .position(|n| *n == "mbuffer")
        .and_then(|i| m[i]);
    for (i, name) in names.iter().enumerate() {
        if !name.starts_with("tapebuf") {
            continue;
        }
        match (m[i], mbuffer) {
            (Some((s, e)), Some((ms, me))) => {
                row.push(stops_ratio(s, ms));
                row.push(format!("{:.3}", e / me));
            }
            _ => row.extend(["-".into(), "-".into()]),
        }
    }
    row
}

fn heads(names: &[&str]) -> Vec<String> {
    let mut heads = vec!["input".to_string(), "ring".into(), "drive".into()];
    for name in names {
        heads.push(format!("{} stops", short(name)));
        heads.push(format!("{} elapsed s", short(name)));
    }
    if names.contains(&"mbuffer") {
        for name in names.iter().filter(|n| n.starts_with("tapebuf")) {
            heads.push(format!("{} stops ÷ mbuffer", short(name)));
            heads.push(format!("{} elapsed ÷ mbuffer", short(name)));
        }
    }
    heads
}

/// The whole grid as one markdown table, then every failure.
pub fn print_grid(cells: &[Cell], names: &[&str], outcomes: &[Outcome]) {
    let heads = heads(names);
    println!();
    println!("| {} |", heads.join(" | "));
    let rule: Vec<&str> = heads
        .iter()
        .enumerate()
        .map(|(i, _)| if i < 3 { "---" } else { "---:" })
        .collect();
    println!("|{}|", rule.join("|"));
    for (cell, outcome) in cells.iter().zip(outcomes) {
        let mut row = row(cell, names, outcome);
        row.truncate(heads.len());
        println!("| {} |", row.join(" | "));
    }
    for (cell, outcome) in cells.iter().zip(outcomes) {
        for (name, failures) in names.iter().zip(&outcome.failures) {
            for f in failures {
                println!("# {} / {name}: FAILED: {f}", cell.label());
            }
        }
    }
}
