//! Reading a `tapebuf probe --json` file back and saying what it found:
//! the probe's own table of rates per block size and recommended sizes
//! (one spelling for both commands, `probe::table`), and a warning for
//! every size whose figures should not be trusted.
//!
//! The invariant [`parse`] keeps: the results it returns have at least one
//! block size, sizes strictly ascending and above zero, and rates that are
//! finite and not negative, so the table and the picture never divide by
//! zero or take the log of nothing. The JSON types are the probe's own
//! (`crate::probe::schema`); this module adds no second copy of them.

use super::timeline::Bad;
use crate::base::size::size_flag;
use crate::probe::measure::{is_noisy, NOISY_SPREAD_PCT};
use crate::probe::recommend;
use crate::probe::schema::{ProbeResults, SCHEMA_VERSION};
use crate::probe::table::{headline, table};

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
                size_flag(r.block_bytes),
                size_flag(before)
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
                    size_flag(r.block_bytes)
                ));
            }
        }
    }
    Ok(())
}

/// The lines printed on stdout: the probe's own headline, table and
/// recommendation (`probe::table`), then the warnings.
pub fn lines(p: &ProbeResults) -> Vec<String> {
    let mut out = vec![headline(p)];
    out.extend(table(p));
    out.extend(recommend::lines(&p.recommend));
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
        let size = size_flag(r.block_bytes);
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
    use crate::probe::schema::TargetKind;
    use crate::probe::table::tests::sweep;

    /// A sweep of 16k, 64k, 256k, 1M with the best write at 256k; 64k did
    /// not read back, and 16k's write runs spread 12.5%.
    pub(crate) fn sample() -> ProbeResults {
        sweep(
            TargetKind::Tape,
            "/dev/nst0",
            &[
                (16 << 10, (20e6, 12.5), (25e6, 1.0), true),
                (64 << 10, (60e6, 2.0), (70e6, 1.0), false),
                (256 << 10, (110e6, 2.0), (100e6, 1.0), true),
                (1 << 20, (112e6, 2.0), (130e6, 1.0), true),
            ],
        )
    }

    #[test]
    fn warns_of_the_unverified_size_and_the_spread_one_only() {
        let w = warnings(&sample());
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("16k: write rates spread 12.5%"), "{w:?}");
        assert!(
            w[1].contains("64k: the data read back did not match"),
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
        assert!(bad.why.contains("64k after 256k"), "{}", bad.why);
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
