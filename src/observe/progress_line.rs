//! The progress bar's one line of text, fitted to the terminal's width.
//!
//! The line is made of fields, and a field is shown whole or not at all:
//! a narrow terminal drops fields, never cuts one. What stays longest is
//! what a person waits for: how far along the stream is and when it will
//! end (`40% done, ETA 0:12:03`), then the totals (`1.20 GiB in, 1.10 GiB out`),
//! then the ring's fill, the output rate, the underruns, the input rate.
//! The drawn bar takes whatever room is left. At 40 columns the line keeps
//! the ETA and the total written; from about 80 it has every field.

use crate::base::size::{Bytes, Rate};
use crate::pipeline::stats::Snapshot;

/// The widest the drawn bar gets, between its brackets.
const BAR_MOST: usize = 20;
/// The narrowest drawn bar worth showing, between its brackets.
const BAR_LEAST: usize = 5;

/// The fields, in the order they are shown.
const RING: usize = 0;
const IN_RATE: usize = 1;
const OUT_RATE: usize = 2;
const UNDERRUNS: usize = 3;
const PROGRESS: usize = 4;
const TOTALS: usize = 5;
const FIELDS: usize = 6;

/// The line for `now`, with rates over the time since `since`, an ETA
/// when `total_bytes` is known, in at most `width` columns.
pub fn line(
    now: &Snapshot,
    since: Option<&Snapshot>,
    total_bytes: Option<u64>,
    width: usize,
) -> String {
    let forms = spellings(now, since, total_bytes);
    // Each step shows a field, or a fuller spelling of it, if it fits.
    let mut steps = vec![(PROGRESS, 0), (TOTALS, 0), (RING, 0), (TOTALS, 1)];
    steps.extend([(PROGRESS, 1), (OUT_RATE, 0)]);
    match now.underruns {
        0 => steps.extend([(IN_RATE, 0), (UNDERRUNS, 0)]),
        _ => steps.extend([(UNDERRUNS, 0), (IN_RATE, 0)]),
    }
    let mut chosen: [Option<&str>; FIELDS] = [None; FIELDS];
    for (field, form) in steps {
        let Some(text) = forms[field].get(form) else {
            continue;
        };
        let before = chosen[field].replace(text);
        if columns(&join(&chosen, None)) > width {
            chosen[field] = before;
        }
    }
    let room = width.saturating_sub(columns(&join(&chosen, None)) + 1);
    let inner = room.saturating_sub(2).min(BAR_MOST);
    let bar = (chosen[RING].is_some() && inner >= BAR_LEAST).then(|| drawn(now.fill_pct, inner));
    join(&chosen, bar.as_deref())
}

/// Each field's spellings, leanest first; none for a field not shown.
fn spellings(
    now: &Snapshot,
    since: Option<&Snapshot>,
    total: Option<u64>,
) -> [Vec<String>; FIELDS] {
    let (in_rate, out_rate) = rates(now, since);
    let progress = match total {
        None => Vec::new(),
        Some(total) => {
            let done = format!("{:.0}%", pct(now.written_bytes, total));
            match eta(total.saturating_sub(now.written_bytes), now) {
                Some(eta) => vec![format!("ETA {eta}"), format!("{done} done, ETA {eta}")],
                None => vec![format!("{done} done")],
            }
        }
    };
    let out = format!("{} out", Bytes(now.written_bytes));
    [
        vec![format!("ring {:>3.0}%", now.fill_pct)],
        vec![format!("in {}", Rate(in_rate))],
        vec![format!("out {}", Rate(out_rate))],
        vec![format!("{} underruns", now.underruns)],
        progress,
        vec![out.clone(), format!("{} in, {out}", Bytes(now.read_bytes))],
    ]
}

/// The chosen fields as one line: the ring's fill and the drawn bar, then
/// the rest, separated by commas (and from the fill by the bar, if drawn).
fn join(chosen: &[Option<&str>; FIELDS], bar: Option<&str>) -> String {
    let tail = chosen[IN_RATE..].iter().flatten().copied();
    match (chosen[RING], bar) {
        (Some(ring), Some(bar)) => {
            let tail: Vec<&str> = tail.collect();
            match tail.is_empty() {
                true => format!("{ring} {bar}"),
                false => format!("{ring} {bar} {}", tail.join(", ")),
            }
        }
        (ring, _) => ring.into_iter().chain(tail).collect::<Vec<_>>().join(", "),
    }
}

/// The columns `text` takes on a terminal: one per character, as every
/// character here is ASCII.
fn columns(text: &str) -> usize {
    text.chars().count()
}

/// `[=====>    ]` with `inner` columns between the brackets.
fn drawn(fill_pct: f64, inner: usize) -> String {
    let full = ((fill_pct.clamp(0.0, 100.0) / 100.0) * inner as f64).round() as usize;
    let body = match full {
        0 => " ".repeat(inner),
        n if n >= inner => "=".repeat(inner),
        n => format!("{}>{}", "=".repeat(n - 1), " ".repeat(inner - n)),
    };
    format!("[{body}]")
}

/// `text` in at most `width` columns, cut after a whole word and marked
/// with "..." when it is longer.
pub fn fit(text: &str, width: usize) -> String {
    if columns(text) <= width {
        return text.to_string();
    }
    let mut kept = String::new();
    for word in text.split(' ') {
        let longer = match kept.is_empty() {
            true => word.to_string(),
            false => format!("{kept} {word}"),
        };
        if columns(&longer) + 4 > width {
            break;
        }
        kept = longer;
    }
    format!("{kept} ...")
}

/// Input and output rates over the window from `since` to `now`.
fn rates(now: &Snapshot, since: Option<&Snapshot>) -> (f64, f64) {
    match since {
        Some(s) if now.seconds > s.seconds => {
            let dt = now.seconds - s.seconds;
            (
                now.read_bytes.saturating_sub(s.read_bytes) as f64 / dt,
                now.written_bytes.saturating_sub(s.written_bytes) as f64 / dt,
            )
        }
        _ => (0.0, 0.0),
    }
}

fn pct(part: u64, total: u64) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * part.min(total) as f64 / total as f64
    }
}

/// `H:MM:SS` to write `left` bytes at the run's mean output rate, or None
/// before anything was written.
fn eta(left: u64, now: &Snapshot) -> Option<String> {
    if now.seconds <= 0.0 || now.written_bytes == 0 {
        return None;
    }
    let rate_bytes_per_s = now.written_bytes as f64 / now.seconds;
    let s = (left as f64 / rate_bytes_per_s).ceil() as u64;
    Some(format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60))
}

#[cfg(test)]
#[path = "progress_line_tests.rs"]
mod tests;
