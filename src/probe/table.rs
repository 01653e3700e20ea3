//! The human-readable result, printed by `tapebuf probe` and by `tapebuf
//! report` on a probe's JSON alike: a headline naming what was probed, a
//! table of the rates at each size, with their spread and the differential
//! method's two figures, then the two recommendation lines, and for a drive
//! the line that helps choose `--pace`. Rates are in MB/s (10^6 bytes per
//! second, as drive vendors quote them). A size whose runs disagree by more
//! than 10% is marked "noisy"; one that did not read back correctly is
//! marked "BAD".
//!
//! The invariants: every size is spelled as `-s` takes it (`64k`, `1M`,
//! `base::size::size_flag`), and every column is as wide as its widest
//! cell, so the table lines up whatever the figures (a spread of 1000%, a
//! rate of 10 GB/s); in a rate cell the `±` signs line up too.

use super::measure::is_noisy;
use super::recommend::{lines, pace_line};
use super::schema::{DataKind, Measured, ProbeResults, TargetKind};
use crate::base::size::size_flag;

/// The table's column headings.
const HEADINGS: [&str; 8] = [
    "size",
    "write MB/s",
    "read MB/s",
    "w start s",
    "w stream",
    "r start s",
    "r stream",
    "",
];

/// Columns between cells.
const GAP: &str = "  ";

fn mb(rate_bytes_per_s: f64) -> f64 {
    rate_bytes_per_s / 1e6
}

/// What kind of target was probed, in words.
pub fn kind_name(kind: TargetKind) -> &'static str {
    match kind {
        TargetKind::Tape => "tape",
        TargetKind::Remote => "remote tape",
        TargetKind::File => "file",
        TargetKind::Directory => "directory",
        TargetKind::Device => "device",
    }
}

/// The data written, in words.
pub fn data_name(kind: DataKind) -> &'static str {
    match kind {
        DataKind::Zeros => "zeros",
        DataKind::Random => "random",
        DataKind::Mix => "mixed",
    }
}

/// One line naming what was probed: the report's first line, and its
/// picture's title.
pub fn headline(r: &ProbeResults) -> String {
    format!(
        "probe of {} ({}), {} data, {} run{} of {} per size{}",
        r.target,
        kind_name(r.target_kind),
        data_name(r.data),
        r.runs,
        if r.runs == 1 { "" } else { "s" },
        size_flag(r.stream_bytes),
        if r.direct { ", O_DIRECT" } else { "" }
    )
}

/// The headline, the table and the recommendation, one line each,
/// without newlines.
pub fn lines_of(r: &ProbeResults) -> Vec<String> {
    let mut out = vec![format!("tapebuf {}", headline(r))];
    out.extend(table(r));
    out.extend(lines(&r.recommend));
    if matches!(r.target_kind, TargetKind::Tape | TargetKind::Remote) {
        out.extend(pace_line(&r.results, &r.recommend));
    }
    out
}

/// A line of the table: cells, or a size and a note that spans the rest
/// (why a drive refused the size).
enum Row {
    Cells(Vec<String>),
    Note(String, String),
}

/// The headings and a row per size, aligned.
pub fn table(r: &ProbeResults) -> Vec<String> {
    let measured = || r.results.iter().filter(|s| s.refused.is_none());
    let mut writes = rate_cells(measured().map(|s| &s.write)).into_iter();
    let mut reads = rate_cells(measured().map(|s| &s.read)).into_iter();
    let mut rows = vec![Row::Cells(HEADINGS.map(String::from).to_vec())];
    for s in &r.results {
        let size = size_flag(s.block_bytes);
        if let Some(why) = &s.refused {
            rows.push(Row::Note(size, why.clone()));
            continue;
        }
        let mut flags = Vec::new();
        if is_noisy(&s.write) || is_noisy(&s.read) {
            flags.push("noisy");
        }
        if !s.verified {
            flags.push("BAD: read-back differs");
        }
        rows.push(Row::Cells(vec![
            size,
            writes.next().unwrap_or_default(),
            reads.next().unwrap_or_default(),
            format!("{:.3}", s.write.startup_s),
            format!("{:.1}", mb(s.write.stream_rate_bytes_per_s)),
            format!("{:.3}", s.read.startup_s),
            format!("{:.1}", mb(s.read.stream_rate_bytes_per_s)),
            flags.join(", "),
        ]));
    }
    aligned(&rows)
}

/// Each median and spread as `158.0 ±2.0%`, the medians padded to the
/// widest and the spreads too, so that the `±` signs line up.
fn rate_cells<'a>(measured: impl Iterator<Item = &'a Measured>) -> Vec<String> {
    let parts: Vec<(String, String)> = measured
        .map(|m| {
            (
                format!("{:.1}", mb(m.median_bytes_per_s)),
                format!("{:.1}", m.spread_pct),
            )
        })
        .collect();
    let widest = |pick: fn(&(String, String)) -> &String| {
        parts.iter().map(|p| width(pick(p))).max().unwrap_or(0)
    };
    let (median_w, spread_w) = (widest(|p| &p.0), widest(|p| &p.1));
    parts
        .iter()
        .map(|(median, spread)| format!("{median:>median_w$} ±{spread:>spread_w$}%"))
        .collect()
}

/// Characters, not bytes: `±` is two bytes and one column.
fn width(cell: &str) -> usize {
    cell.chars().count()
}

/// The rows with every column as wide as its widest cell: right-aligned,
/// but the last (words) left-aligned; no trailing blanks.
fn aligned(rows: &[Row]) -> Vec<String> {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        if let Row::Cells(cells) = row {
            widths.resize(widths.len().max(cells.len()), 0);
            for (w, cell) in widths.iter_mut().zip(cells) {
                *w = (*w).max(width(cell));
            }
        }
    }
    let last = widths.len().saturating_sub(1);
    rows.iter()
        .map(|row| {
            let line = match row {
                Row::Cells(cells) => cells
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(i, (cell, &w))| match i == last {
                        true => format!("{cell:<w$}"),
                        false => format!("{cell:>w$}"),
                    })
                    .collect::<Vec<_>>()
                    .join(GAP),
                Row::Note(size, why) => {
                    let w = widths.first().copied().unwrap_or(0);
                    format!("{size:>w$}{GAP}{why}")
                }
            };
            line.trim_end().to_string()
        })
        .collect()
}

#[cfg(test)]
#[path = "table_tests.rs"]
pub(crate) mod tests;
