//! Reading a `tapebuf probe --json` file back and saying what it found:
//! the table of rates per block size, the recommended sizes, and a warning
//! for every size whose figures should not be trusted.
//!
//! The invariant [`parse`] keeps: the results it returns have at least one
//! block size, sizes strictly ascending and above zero, and rates that are
//! finite and not negative, so the table and the picture never divide by
//! zero or take the log of nothing. The JSON types are the probe's own
//! (`crate::probe::schema`); this module adds no second copy of them.

use super::timeline::Bad;
use crate::probe::measure::{is_noisy, NOISY_SPREAD_PCT};
use crate::probe::schema::{DataKind, Measured, ProbeResults, TargetKind, SCHEMA_VERSION};

/// Parses a probe file: one JSON object on the first non-empty line, and
/// nothing after it. The caller has already seen its `schema` field.
pub fn parse(text: &str) -> Result<ProbeResults, Bad> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((i, first)) = lines.next() else {
        return Err(Bad {
            why: "is empty".into(),
            line: None,
        });
    };
    let n = i + 1;
    if let Some((extra, _)) = lines.next() {
        return Err(Bad::at(
            extra + 1,
            "more than one line: a probe file is one JSON object on one line",
        ));
    }
    let value: serde_json::Value =
        serde_json::from_str(first).map_err(|e| Bad::at(n, format!("not JSON: {e}")))?;
    match value.get("version").map(|v| v.as_u64()) {
        None => return Err(Bad::at(n, "no version field")),
        Some(Some(v)) if v == SCHEMA_VERSION as u64 => {}
        Some(Some(v)) if v > SCHEMA_VERSION as u64 => {
            return Err(Bad::at(
                n,
                format!(
                    "probe schema version {v} is newer than this tapebuf reads ({SCHEMA_VERSION})"
                ),
            ))
        }
        Some(v) => {
            let shown = v.map_or_else(|| value["version"].to_string(), |v| v.to_string());
            return Err(Bad::at(
                n,
                format!(
                    "unknown probe schema version {shown} (this tapebuf reads {SCHEMA_VERSION})"
                ),
            ));
        }
    }
    let probe: ProbeResults = serde_json::from_value(value)
        .map_err(|e| Bad::at(n, format!("not a probe result: {e}")))?;
    check(&probe).map_err(|why| Bad::at(n, why))?;
    Ok(probe)
}

/// The invariant of the module, on an already typed result.
fn check(probe: &ProbeResults) -> Result<(), String> {
    if probe.results.is_empty() {
        return Err("no results: the probe measured no block size".into());
    }
    let mut before = 0u64;
    for r in &probe.results {
        if r.block_bytes == 0 {
            return Err("a block size of 0 bytes".into());
        }
        if r.block_bytes <= before {
            return Err(format!(
                "block sizes are not ascending: {} after {}",
                size_label(r.block_bytes),
                size_label(before)
            ));
        }
        before = r.block_bytes;
        for (dir, m) in [("write", &r.write), ("read", &r.read)] {
            let rates = [
                m.median_bytes_per_s,
                m.min_bytes_per_s,
                m.max_bytes_per_s,
                m.stream_rate_bytes_per_s,
                m.startup_s,
            ];
            if rates.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(format!(
                    "a negative or infinite {dir} figure at {}",
                    size_label(r.block_bytes)
                ));
            }
        }
    }
    Ok(())
}

/// A block size as users type it: `16K`, `256K`, `1M`, `4M`; bytes when it
/// is not a whole number of KiB.
pub fn size_label(bytes: u64) -> String {
    for (unit, shift) in [("G", 30), ("M", 20), ("K", 10)] {
        let one = 1u64 << shift;
        if bytes >= one && bytes.is_multiple_of(one) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

pub fn target_kind_name(kind: TargetKind) -> &'static str {
    match kind {
        TargetKind::Tape => "tape",
        TargetKind::Remote => "remote tape",
        TargetKind::File => "file",
        TargetKind::Device => "device",
    }
}

pub fn data_kind_name(kind: DataKind) -> &'static str {
    match kind {
        DataKind::Zeros => "zeros",
        DataKind::Random => "random",
        DataKind::Mix => "mixed",
    }
}

/// One line naming what was probed, also the picture's title.
pub fn headline(p: &ProbeResults) -> String {
    format!(
        "probe of {} ({}), {} data, {} run{} of {} per size{}",
        p.target,
        target_kind_name(p.target_kind),
        data_kind_name(p.data),
        p.runs,
        if p.runs == 1 { "" } else { "s" },
        crate::base::size::Bytes(p.stream_bytes),
        if p.direct { ", O_DIRECT" } else { "" }
    )
}

fn mb(bytes_per_s: f64) -> f64 {
    bytes_per_s / 1e6
}

/// The lines printed on stdout: headline, table, recommendations, warnings.
pub fn lines(p: &ProbeResults) -> Vec<String> {
    let mut out = vec![headline(p)];
    let row = |size: &str, w: &str, r: &str, up: &str, stream: &str| {
        format!("{size:>6}  {w:>15}  {r:>15}  {up:>15}  {stream:>19}")
    };
    out.push(row(
        "size",
        "write MB/s",
        "read MB/s",
        "start-up s w/r",
        "streaming MB/s w/r",
    ));
    let rate = |m: &Measured| format!("{:.1} ±{:.1}%", mb(m.median_bytes_per_s), m.spread_pct);
    for r in &p.results {
        out.push(row(
            &size_label(r.block_bytes),
            &rate(&r.write),
            &rate(&r.read),
            &format!("{:.3}/{:.3}", r.write.startup_s, r.read.startup_s),
            &format!(
                "{:.1}/{:.1}",
                mb(r.write.stream_rate_bytes_per_s),
                mb(r.read.stream_rate_bytes_per_s)
            ),
        ));
    }
    let rec = &p.recommend;
    out.push(format!(
        "recommended for backups (write): -s {}: {}",
        size_label(rec.write_block_bytes),
        rec.write_why
    ));
    out.push(format!(
        "recommended for restores (read): -s {}: {}",
        size_label(rec.read_block_bytes),
        rec.read_why
    ));
    out.extend(warnings(p));
    out
}

/// A line for every size not verified or too spread, and for a sweep of
/// one run per size, whose spread says nothing.
pub fn warnings(p: &ProbeResults) -> Vec<String> {
    let mut out = Vec::new();
    if p.runs < 2 {
        out.push(
            "warning: one run per size: no spread to show a disturbed run (probe with --runs 3 or more)"
                .to_string(),
        );
    }
    for r in &p.results {
        let size = size_label(r.block_bytes);
        if let Some(why) = &r.refused {
            out.push(format!("warning: {size}: {why}"));
        } else if !r.verified {
            out.push(format!(
                "warning: {size}: the data read back did not match what was written"
            ));
        }
        for (dir, m) in [("write", &r.write), ("read", &r.read)] {
            if is_noisy(m) {
                out.push(format!(
                    "warning: {size}: {dir} rates spread {:.1}% over {} runs (above {NOISY_SPREAD_PCT}%): a run was disturbed; probe again",
                    m.spread_pct,
                    m.rates_bytes_per_s.len()
                ));
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::probe::schema::{Recommendation, SizeResult, SCHEMA};

    fn measured(median: f64, spread_pct: f64) -> Measured {
        let half = median * spread_pct / 200.0;
        Measured {
            rates_bytes_per_s: vec![median - half, median, median + half],
            median_bytes_per_s: median,
            min_bytes_per_s: median - half,
            max_bytes_per_s: median + half,
            spread_pct,
            startup_s: 0.25,
            // Whole numbers: serde_json, without its float_roundtrip
            // feature, may read a float back one unit in the last place off.
            stream_rate_bytes_per_s: median + 1e6,
        }
    }

    /// A sweep of 16K, 64K, 256K, 1M with the best write at 256K.
    pub(crate) fn sample() -> ProbeResults {
        let sizes = [16u64 << 10, 64 << 10, 256 << 10, 1 << 20];
        let write = [20e6, 60e6, 110e6, 112e6];
        let read = [25e6, 70e6, 100e6, 130e6];
        ProbeResults {
            schema: SCHEMA.into(),
            version: SCHEMA_VERSION,
            tapebuf: "0.1.0".into(),
            target: "/dev/nst0".into(),
            target_kind: TargetKind::Tape,
            data: DataKind::Random,
            stream_bytes: 64 << 20,
            runs: 3,
            direct: false,
            results: (0..4)
                .map(|i| SizeResult {
                    block_bytes: sizes[i],
                    write: measured(write[i], if i == 0 { 12.5 } else { 2.0 }),
                    read: measured(read[i], 1.0),
                    verified: i != 1,
                    refused: None,
                })
                .collect(),
            recommend: Recommendation {
                write_block_bytes: 256 << 10,
                read_block_bytes: 1 << 20,
                write_why: "the smallest size within 3% of the best write rate".into(),
                read_why: "the best read rate".into(),
            },
        }
    }

    #[test]
    fn labels_sizes_as_users_type_them() {
        assert_eq!(size_label(16 << 10), "16K");
        assert_eq!(size_label(1 << 20), "1M");
        assert_eq!(size_label(1536 << 10), "1536K");
        assert_eq!(size_label(3 << 30), "3G");
        assert_eq!(size_label(1000), "1000");
    }

    #[test]
    fn warns_of_the_unverified_size_and_the_spread_one_only() {
        let w = warnings(&sample());
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("16K: write rates spread 12.5%"), "{w:?}");
        assert!(
            w[1].contains("64K: the data read back did not match"),
            "{w:?}"
        );
    }

    #[test]
    fn rejects_sizes_out_of_order_naming_them() {
        let mut p = sample();
        p.results.swap(1, 2);
        let text = serde_json::to_string(&p).unwrap();
        let bad = parse(&text).unwrap_err();
        assert_eq!(bad.line, Some(1));
        assert!(bad.why.contains("64K after 256K"), "{}", bad.why);
    }

    #[test]
    fn rejects_a_newer_version_and_a_second_line() {
        let mut p = sample();
        p.version = SCHEMA_VERSION + 1;
        let bad = parse(&serde_json::to_string(&p).unwrap()).unwrap_err();
        assert!(
            bad.why.contains("newer than this tapebuf reads"),
            "{}",
            bad.why
        );
        let one = serde_json::to_string(&sample()).unwrap();
        let bad = parse(&format!("{one}\n\n{one}\n")).unwrap_err();
        assert_eq!(bad.line, Some(3));
    }
}
