//! The human-readable result: a table of the rates at each size, with
//! their spread and the differential method's two figures, then the two
//! recommendation lines, and for a drive the line that helps choose
//! `--pace`. Rates are in MB/s (10^6 bytes per second, as drive
//! vendors quote them). A size whose runs disagree by more than 10% is
//! marked "noisy"; one that did not read back correctly is marked "BAD".

use super::measure::is_noisy;
use super::recommend::{lines, pace_line};
use super::schema::{Measured, ProbeResults, TargetKind};
use crate::base::size::size_flag;

fn mb(rate_bytes_per_s: f64) -> f64 {
    rate_bytes_per_s / 1e6
}

fn cell(m: &Measured) -> String {
    format!("{:8.1} ±{:5.1}%", mb(m.median_bytes_per_s), m.spread_pct)
}

/// The table and the recommendation, one line each, without newlines.
pub fn lines_of(r: &ProbeResults) -> Vec<String> {
    let mut out = vec![
        format!(
            "tapebuf probe: {} ({}), {} runs of {} bytes per size, {} data",
            r.target,
            word(&r.target_kind),
            r.runs,
            r.stream_bytes,
            word(&r.data)
        ),
        format!(
            "{:>6}  {:>16}  {:>16}  {:>10}  {:>10}  {:>10}  {:>10}",
            "size", "write MB/s", "read MB/s", "w start s", "w stream", "r start s", "r stream"
        ),
    ];
    for s in &r.results {
        if let Some(why) = &s.refused {
            out.push(format!("{:>6}  {why}", size_flag(s.block_bytes)));
            continue;
        }
        let mut flags = Vec::new();
        if is_noisy(&s.write) || is_noisy(&s.read) {
            flags.push("noisy");
        }
        if !s.verified {
            flags.push("BAD: read-back differs");
        }
        let line = format!(
            "{:>6}  {}  {}  {:>10.3}  {:>10.1}  {:>10.3}  {:>10.1}  {}",
            size_flag(s.block_bytes),
            cell(&s.write),
            cell(&s.read),
            s.write.startup_s,
            mb(s.write.stream_rate_bytes_per_s),
            s.read.startup_s,
            mb(s.read.stream_rate_bytes_per_s),
            flags.join(", ")
        );
        out.push(line.trim_end().to_string());
    }
    out.extend(lines(&r.recommend));
    if matches!(r.target_kind, TargetKind::Tape | TargetKind::Remote) {
        out.extend(pace_line(&r.results, &r.recommend));
    }
    out
}

/// An enum's name as the JSON spells it ("tape", "random").
fn word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
