//! The recommendation: the smallest block size within 3% of the best
//! median rate, for backups (write) and restores (read), each with its
//! reason in one line.
//!
//! Bigger blocks cost memory, and a tape written with them can only be read
//! with a buffer as large, so a size that is only a hair faster is not
//! worth it. Only sizes whose every byte read back correctly are
//! candidates. The invariant: the rule lives here and nowhere else.

use crate::base::size::{size_flag, Rate};
use crate::probe::measure::is_noisy;
use crate::probe::schema::{Measured, Recommendation, SizeResult};

/// How far below the best median a size may be and still be chosen.
pub const WITHIN_PCT: f64 = 3.0;

/// The size chosen in one direction, and the best it was measured against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pick {
    pub block_bytes: u64,
    pub rate_bytes_per_s: f64,
    pub best_block_bytes: u64,
    pub best_rate_bytes_per_s: f64,
    /// The chosen size's runs disagreed by more than 10%.
    pub noisy: bool,
}

/// The rule: among `(block_bytes, measured)` (any order), the smallest
/// size whose median is at least (100 - WITHIN_PCT)% of the best median.
/// None when there is no candidate.
pub fn pick(candidates: &[(u64, &Measured)]) -> Option<Pick> {
    let (best_block, best) = candidates
        .iter()
        .max_by(|a, b| a.1.median_bytes_per_s.total_cmp(&b.1.median_bytes_per_s))?;
    let floor = best.median_bytes_per_s * (1.0 - WITHIN_PCT / 100.0);
    let (block, chosen) = candidates
        .iter()
        .filter(|(_, m)| m.median_bytes_per_s >= floor)
        .min_by_key(|(block, _)| *block)?;
    Some(Pick {
        block_bytes: *block,
        rate_bytes_per_s: chosen.median_bytes_per_s,
        best_block_bytes: *best_block,
        best_rate_bytes_per_s: best.median_bytes_per_s,
        noisy: is_noisy(chosen),
    })
}

/// The reason in one line, for `direction` "write" or "read".
pub fn why(pick: &Pick, direction: &str) -> String {
    let mut line = if pick.block_bytes == pick.best_block_bytes {
        format!(
            "the best {direction} rate, {}, with no smaller size within {WITHIN_PCT}% of it",
            Rate(pick.rate_bytes_per_s)
        )
    } else {
        format!(
            "the smallest size within {WITHIN_PCT}% of the best {direction} rate ({} at {}): {}",
            Rate(pick.best_rate_bytes_per_s),
            size_flag(pick.best_block_bytes),
            Rate(pick.rate_bytes_per_s)
        )
    };
    if pick.noisy {
        line.push_str("; its runs disagree by more than 10%, so try more --runs");
    }
    line
}

/// Both directions, over the verified sizes only.
pub fn recommend(results: &[SizeResult]) -> Recommendation {
    let verified: Vec<&SizeResult> = results.iter().filter(|r| r.verified).collect();
    let writes: Vec<(u64, &Measured)> =
        verified.iter().map(|r| (r.block_bytes, &r.write)).collect();
    let reads: Vec<(u64, &Measured)> = verified.iter().map(|r| (r.block_bytes, &r.read)).collect();
    let (write_block_bytes, write_why) = match pick(&writes) {
        Some(p) => (p.block_bytes, why(&p, "write")),
        None => (
            0,
            "no size read back correctly; nothing to recommend".into(),
        ),
    };
    let (read_block_bytes, read_why) = match pick(&reads) {
        Some(p) => (p.block_bytes, why(&p, "read")),
        None => (
            0,
            "no size read back correctly; nothing to recommend".into(),
        ),
    };
    Recommendation {
        write_block_bytes,
        read_block_bytes,
        write_why,
        read_why,
    }
}

/// The line that helps choose `--pace`, for a drive: the write rate at the
/// recommended size is the top of its range, and plain `--pace` would take
/// half of it as the floor. The drive's slowest speed is on its data
/// sheet, not measurable from here without stopping it many times.
pub fn pace_line(results: &[SizeResult], r: &Recommendation) -> Option<String> {
    let chosen = results
        .iter()
        .find(|s| s.verified && s.block_bytes == r.write_block_bytes)?;
    let top = chosen.write.median_bytes_per_s;
    if top <= 0.0 {
        return None;
    }
    let mb = |rate: f64| format!("{}MB", (rate / 1e6).round() as u64);
    Some(format!(
        "pacing: --pace {}:{} (the write rate at -s {} is the top; plain --pace would take \
         half of it as the floor; if the drive's data sheet gives a slower lowest \
         speed-matching speed, use that as the floor: see PACING in tapebuf(1))",
        mb(top * crate::pace::controller::AUTO_FLOOR_FRACTION),
        mb(top),
        size_flag(r.write_block_bytes)
    ))
}

/// The two lines printed after the table.
pub fn lines(r: &Recommendation) -> [String; 2] {
    let flag = |b: u64| {
        if b == 0 {
            "none".to_string()
        } else {
            format!("-s {}", size_flag(b))
        }
    };
    [
        format!("backups: {} ({})", flag(r.write_block_bytes), r.write_why),
        format!("restores: {} ({})", flag(r.read_block_bytes), r.read_why),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(median: f64) -> Measured {
        Measured {
            rates_bytes_per_s: vec![median],
            median_bytes_per_s: median,
            min_bytes_per_s: median,
            max_bytes_per_s: median,
            spread_pct: 0.0,
            startup_s: 0.0,
            stream_rate_bytes_per_s: median,
        }
    }

    #[test]
    fn picks_the_smallest_size_within_three_percent_of_the_best() {
        let (a, b, c, d) = (m(50e6), m(79.0e6), m(81.2e6), m(80.0e6));
        // 79.0 is 2.7% below 81.2: chosen over the best, 1 MiB.
        let p = pick(&[(1 << 20, &c), (65536, &a), (262144, &b), (4 << 20, &d)]).unwrap();
        assert_eq!(p.block_bytes, 262144);
        assert_eq!(p.best_block_bytes, 1 << 20);
        assert_eq!(
            why(&p, "write"),
            "the smallest size within 3% of the best write rate (81.2 MB/s at 1M): 79.0 MB/s"
        );
    }

    #[test]
    fn a_size_just_over_three_percent_below_is_passed_over() {
        let (slow, best) = (m(96.9), m(100.0));
        let p = pick(&[(16384, &slow), (32768, &best)]).unwrap();
        assert_eq!(p.block_bytes, 32768);
        assert!(why(&p, "read").starts_with("the best read rate, 100 B/s"));
        assert_eq!(pick(&[]), None);
    }

    #[test]
    fn unverified_sizes_are_never_recommended() {
        let result = |block: u64, rate: f64, verified: bool| SizeResult {
            block_bytes: block,
            write: m(rate),
            read: m(rate),
            verified,
            refused: None,
        };
        let r = recommend(&[result(65536, 50.0, true), result(1 << 20, 90.0, false)]);
        assert_eq!(r.write_block_bytes, 65536);
        assert_eq!(r.read_block_bytes, 65536);
        let none = recommend(&[result(65536, 50.0, false)]);
        assert_eq!(none.write_block_bytes, 0);
        assert_eq!(
            lines(&none)[0],
            "backups: none (no size read back correctly; nothing to recommend)"
        );
    }

    #[test]
    fn the_pace_line_gives_the_write_rate_at_the_chosen_size_as_the_top() {
        let result = |block: u64, rate: f64| SizeResult {
            block_bytes: block,
            write: m(rate),
            read: m(rate),
            verified: true,
            refused: None,
        };
        let results = [result(65536, 100e6), result(262144, 300e6)];
        let r = recommend(&results);
        let line = pace_line(&results, &r).unwrap();
        assert!(
            line.starts_with("pacing: --pace 150MB:300MB (the write rate at -s 256k is the top;"),
            "{line}"
        );
        let none = recommend(&[]);
        assert_eq!(pace_line(&[], &none), None);
    }

    #[test]
    fn sizes_print_as_dash_s_takes_them() {
        assert_eq!(size_flag(262144), "256k");
        assert_eq!(size_flag(4 << 20), "4M");
        assert_eq!(size_flag(10000), "10000");
    }
}
