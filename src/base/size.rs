//! Parsing and printing byte sizes, as users type them on the command line.
//!
//! `k`, `M`, `G`, `T` and their `KiB`/`MiB`/`GiB`/`TiB` spellings are binary
//! multiples (1024), as in mbuffer and dd's `K`. The two-letter forms `kB`,
//! `MB`, `GB`, `TB` are decimal (1000), as in dd. A trailing `B` or `b` alone
//! means bytes. Fractions such as `1.5G` are accepted and rounded down to a
//! whole byte. The invariant: a parsed size always fits in a `u64`.

use std::fmt;

/// Why a size string was rejected. The caller adds the flag name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("'{0}' is not a size (try 256k, 64MiB, 1G)")]
    NotASize(String),
    #[error(
        "'{0}' has an unknown unit '{1}' (use k, M, G, T, KiB, MiB, GiB, TiB, kB, MB, GB, TB)"
    )]
    UnknownUnit(String, String),
    #[error("'{0}' is too large")]
    TooLarge(String),
    #[error("'{0}' is not a percentage above 0 and at most 100")]
    BadPercent(String),
}

/// What `-m` may be: an absolute size or a share of physical memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeOrPercent {
    Bytes(u64),
    /// A percentage of physical RAM, 0 < pct <= 100.
    Percent(f64),
}

/// A size as `-s` takes it: `256k`, `1M`, or bytes.
pub fn size_flag(bytes: u64) -> String {
    const KI: u64 = 1024;
    if bytes > 0 && bytes.is_multiple_of(KI * KI) {
        format!("{}M", bytes / (KI * KI))
    } else if bytes > 0 && bytes.is_multiple_of(KI) {
        format!("{}k", bytes / KI)
    } else {
        bytes.to_string()
    }
}

/// Parses `256k`, `1GiB`, `10MB`, `4096`, `1.5G`.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if number.is_empty() || number.matches('.').count() > 1 || number == "." {
        return Err(SizeError::NotASize(text.to_string()));
    }
    let multiplier = unit_multiplier(unit.trim())
        .ok_or_else(|| SizeError::UnknownUnit(text.to_string(), unit.trim().to_string()))?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| SizeError::TooLarge(text.to_string()))?
    };
    let mut bytes = whole
        .checked_mul(multiplier)
        .ok_or_else(|| SizeError::TooLarge(text.to_string()))?;
    if !fraction.is_empty() {
        // Only the first 9 digits of a fraction matter for any unit we know.
        let digits = &fraction[..fraction.len().min(9)];
        let scale = 10u128.pow(digits.len() as u32);
        let frac: u128 = digits.parse().unwrap_or(0);
        let extra = frac * multiplier as u128 / scale;
        bytes = bytes
            .checked_add(extra as u64)
            .ok_or_else(|| SizeError::TooLarge(text.to_string()))?;
    }
    Ok(bytes)
}

/// Parses what `-m` accepts: a size, or a percentage of physical RAM (`25%`).
pub fn parse_size_or_percent(text: &str) -> Result<SizeOrPercent, SizeError> {
    if let Some(number) = text.trim().strip_suffix('%') {
        let pct: f64 = number
            .trim()
            .parse()
            .map_err(|_| SizeError::BadPercent(text.to_string()))?;
        if !(pct > 0.0 && pct <= 100.0) {
            return Err(SizeError::BadPercent(text.to_string()));
        }
        return Ok(SizeOrPercent::Percent(pct));
    }
    parse_size(text).map(SizeOrPercent::Bytes)
}

fn unit_multiplier(unit: &str) -> Option<u64> {
    const KI: u64 = 1024;
    let m = match unit {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" => KI,
        "m" | "M" | "MiB" | "Mi" => KI * KI,
        "g" | "G" | "GiB" | "Gi" => KI * KI * KI,
        "t" | "T" | "TiB" | "Ti" => KI * KI * KI * KI,
        "kB" | "KB" => 1000,
        "MB" => 1000 * 1000,
        "GB" => 1000 * 1000 * 1000,
        "TB" => 1000 * 1000 * 1000 * 1000,
        _ => return None,
    };
    Some(m)
}

/// `n` things, in words: "1 volume", "3 volumes".
pub fn count(n: u64, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// A byte count printed with a binary unit, `1.50 GiB`, for messages.
#[derive(Debug, Clone, Copy)]
pub struct Bytes(pub u64);

/// The binary prefixes, from 1024 on.
const BINARY_PREFIXES: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

impl fmt::Display for Bytes {
    /// Whole bytes below 1 KiB, else two decimals of the largest unit that
    /// keeps the number at or above 1, as the progress bar shows them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut n = self.0 as f64;
        if n < 1024.0 {
            return write!(f, "{n:.0} B");
        }
        n /= 1024.0;
        let mut unit = 0;
        while n >= 1024.0 && unit + 1 < BINARY_PREFIXES.len() {
            n /= 1024.0;
            unit += 1;
        }
        write!(f, "{n:.2} {}B", BINARY_PREFIXES[unit])
    }
}

/// Bytes per second over `seconds`; 0 when no time has passed.
pub fn bytes_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds
    } else {
        0.0
    }
}

/// A rate printed as `123.4 MB/s` (decimal, as drive vendors quote rates).
#[derive(Debug, Clone, Copy)]
pub struct Rate(pub f64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        if r >= 1e9 {
            write!(f, "{:.2} GB/s", r / 1e9)
        } else if r >= 1e6 {
            write!(f, "{:.1} MB/s", r / 1e6)
        } else if r >= 1e3 {
            write!(f, "{:.1} kB/s", r / 1e3)
        } else {
            write!(f, "{:.0} B/s", r)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_flag_is_in_the_largest_unit_that_divides_it() {
        assert_eq!(size_flag(1 << 20), "1M");
        assert_eq!(size_flag(10240), "10k");
        assert_eq!(size_flag(1000), "1000");
    }

    #[test]
    fn binary_suffixes_are_powers_of_1024() {
        assert_eq!(parse_size("256k").unwrap(), 256 * 1024);
        assert_eq!(parse_size("256KiB").unwrap(), 256 * 1024);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("2T").unwrap(), 2 << 40);
    }

    #[test]
    fn decimal_suffixes_are_powers_of_1000() {
        assert_eq!(parse_size("10kB").unwrap(), 10_000);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
    }

    #[test]
    fn plain_numbers_and_fractions_are_bytes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert_eq!(parse_size("0.5G").unwrap(), 512 << 20);
    }

    #[test]
    fn garbage_and_overflow_are_rejected() {
        assert!(matches!(parse_size("lots"), Err(SizeError::NotASize(_))));
        assert!(matches!(parse_size("12q"), Err(SizeError::UnknownUnit(..))));
        assert!(matches!(parse_size("1.2.3k"), Err(SizeError::NotASize(_))));
        assert!(matches!(
            parse_size("99999999999T"),
            Err(SizeError::TooLarge(_))
        ));
    }

    #[test]
    fn percent_is_accepted_only_between_0_and_100() {
        assert_eq!(
            parse_size_or_percent("25%").unwrap(),
            SizeOrPercent::Percent(25.0)
        );
        assert!(parse_size_or_percent("0%").is_err());
        assert!(parse_size_or_percent("101%").is_err());
        assert_eq!(
            parse_size_or_percent("1G").unwrap(),
            SizeOrPercent::Bytes(1 << 30)
        );
    }
}
