//! Unit tests of the probe's table: aligned for any figures, sizes spelled
//! as `-s` takes them, and the target's kind named.

use super::*;
use crate::probe::schema::{Recommendation, SizeResult, SCHEMA, SCHEMA_VERSION};

/// One direction at one size: three runs around `median`, spread by
/// `spread_pct` of it. Also the report's tests' figures.
pub(crate) fn measured(median: f64, spread_pct: f64) -> Measured {
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

/// One size: its bytes, the write and read (median, spread %), and
/// whether it read back correctly.
pub(crate) type Size = (u64, (f64, f64), (f64, f64), bool);

/// A sweep of `kind` at `target`, 3 runs of 64M per size, recommending
/// 256k for backups and 1M for restores. Also the report's tests' sweep.
pub(crate) fn sweep(kind: TargetKind, target: &str, sizes: &[Size]) -> ProbeResults {
    ProbeResults {
        schema: SCHEMA.into(),
        version: SCHEMA_VERSION,
        tapebuf: "0.1.0".into(),
        target: target.into(),
        target_kind: kind,
        data: DataKind::Random,
        stream_bytes: 64 << 20,
        runs: 3,
        direct: false,
        results: sizes
            .iter()
            .map(|&(block_bytes, write, read, verified)| SizeResult {
                block_bytes,
                write: measured(write.0, write.1),
                read: measured(read.0, read.1),
                verified,
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

/// A sweep of 16k to 1M whose figures differ widely in width: a spread of
/// 1234.5% at 64k and 12 GB/s reads at 1M; 256k did not read back.
fn wide() -> ProbeResults {
    sweep(
        TargetKind::Directory,
        "/srv/scratch",
        &[
            (16 << 10, (5e6, 2.0), (7e6, 1.0), true),
            (64 << 10, (60e6, 1234.5), (70e6, 10.5), true),
            (256 << 10, (110e6, 0.4), (100e6, 2.0), false),
            (1 << 20, (112e6, 3.0), (12_345e6, 0.0), true),
        ],
    )
}

/// The char columns at which `needle` occurs in `line`.
fn columns_of(line: &str, needle: char) -> Vec<usize> {
    line.chars()
        .enumerate()
        .filter(|(_, c)| *c == needle)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn every_column_lines_up_whatever_the_width_of_the_figures() {
    let t = table(&wide());
    assert_eq!(t.len(), 5, "{t:#?}");
    let heading = t[0].chars().count();
    // Rows without flags end where the heading does; the others go on.
    for row in &t[1..] {
        let n = row.chars().count();
        let flagged = row.ends_with("noisy") || row.contains("BAD");
        assert!(
            (n == heading) != flagged,
            "{row:?} is {n} wide, the heading {heading}:\n{}",
            t.join("\n")
        );
    }
    // The two ± of every row stand at the same columns, and each rate
    // cell ends under its heading.
    let signs = columns_of(&t[1], '±');
    assert_eq!(signs.len(), 2);
    for row in &t[2..] {
        assert_eq!(columns_of(row, '±'), signs, "\n{}", t.join("\n"));
    }
    let end_of = |heading: &str| t[0].find(heading).unwrap() + heading.len();
    for row in &t[1..] {
        let percents = columns_of(row, '%');
        assert_eq!(
            percents,
            vec![end_of("write MB/s") - 1, end_of("read MB/s") - 1]
        );
    }
    assert!(t[2].contains("60.0 ±1234.5%"), "{}", t[2]);
    assert!(t[1].contains("  5.0 ±   2.0%"), "{}", t[1]);
    assert!(t[4].contains("12345.0 ± 0.0%"), "{}", t[4]);
    assert!(t[2].ends_with("noisy") && t[3].ends_with("BAD: read-back differs"));
}

#[test]
fn sizes_are_spelled_as_the_block_size_flag_takes_them() {
    let r = wide();
    let t = table(&r);
    let sizes: Vec<&str> = t[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(sizes, ["16k", "64k", "256k", "1M"]);
    let all = lines_of(&r).join("\n");
    assert!(all.contains("backups: -s 256k ("), "{all}");
    assert!(all.contains("restores: -s 1M ("), "{all}");
    assert!(all.contains("3 runs of 64M per size"), "{all}");
    assert!(!all.contains('K'), "{all}");
}

#[test]
fn a_directory_is_named_a_directory() {
    let mut r = wide();
    assert_eq!(
        headline(&r),
        "probe of /srv/scratch (directory), random data, 3 runs of 64M per size"
    );
    r.target_kind = TargetKind::File;
    r.target = "/srv/scratch/f".into();
    assert!(headline(&r).contains("/srv/scratch/f (file),"));
}

#[test]
fn a_refused_size_is_a_note_beside_its_size() {
    let mut r = wide();
    r.results[3].refused = Some("the drive refused it (EBUSY)".into());
    let t = table(&r);
    assert_eq!(
        t[4],
        "  1M  the drive refused it (EBUSY)",
        "\n{}",
        t.join("\n")
    );
    assert!(t[1].starts_with(" 16k  "), "{}", t[1]);
}
