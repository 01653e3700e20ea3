//! The streaming benchmark's verdicts, for the cells with the judged ring
//! (-m 32M): against mbuffer's medians, `--pace` stops at most a quarter
//! as often, `--pace=FLOOR:CEILING` at most a tenth as often, both within
//! 1.05x of its elapsed time; behind a fixed-speed drive, neither stops
//! more often than mbuffer.

use crate::common::verdict;
use crate::grid::{Cell, JUDGED_RING};
use crate::table::{medians, stops_text, Outcome};

const ELAPSED_LIMIT: f64 = 1.05;

/// (contender, the share of mbuffer's stops it may have on a
/// speed-matching drive).
const GOALS: [(&str, f64); 2] = [("tapebuf pace", 0.25), ("tapebuf range", 0.1)];

/// One contender's verdict in one cell, or why there is none.
fn judge(cell: &Cell, names: &[&str], outcome: &Outcome, name: &str, share: f64) -> String {
    let find = |n: &str| {
        names
            .iter()
            .position(|m| *m == n)
            .and_then(|i| medians(outcome, i))
    };
    let (Some((stops, elapsed_s)), Some((mb_stops, mb_elapsed_s))) = (find(name), find("mbuffer"))
    else {
        return format!("{name}: not judged (it or mbuffer did not run, or failed)");
    };
    let fixed = cell.drive.spec.speeds.len() == 1;
    let (share, said) = if fixed {
        (1.0, "mbuffer's".to_string())
    } else {
        (share, format!("1/{:.0} of mbuffer's", 1.0 / share))
    };
    let ratio = elapsed_s / mb_elapsed_s;
    format!(
        "{name}: stops {} ≤ {said} {}: {}; elapsed {ratio:.3}× ≤ {ELAPSED_LIMIT}×: {}",
        stops_text(stops),
        stops_text(mb_stops),
        verdict(stops <= share * mb_stops),
        verdict(ratio <= ELAPSED_LIMIT)
    )
}

/// A verdict line per contender for every judged cell that ran.
pub fn print_verdicts(cells: &[Cell], names: &[&str], outcomes: &[Outcome]) {
    let judged: Vec<(&Cell, &Outcome)> = cells
        .iter()
        .zip(outcomes)
        .filter(|(c, _)| c.ring == JUDGED_RING && c.old_key.is_none())
        .collect();
    if judged.is_empty() {
        return;
    }
    println!();
    println!("## Verdicts, -m {JUDGED_RING} (medians; speed-matching: pace ≤ 1/4 and range ≤ 1/10 of mbuffer's stops; fixed-speed: ≤ mbuffer's; elapsed ≤ {ELAPSED_LIMIT}× mbuffer's)");
    for (cell, outcome) in judged {
        for (name, share) in GOALS {
            if names.contains(&name) {
                println!(
                    "- {}: {}",
                    cell.label(),
                    judge(cell, names, outcome, name, share)
                );
            }
        }
    }
}
