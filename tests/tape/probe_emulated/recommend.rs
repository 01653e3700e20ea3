//! The sweep finds the emulated drive's best size: the figures follow the
//! injected curve exactly, the recommendation is its peak, and a size
//! whose read-back did not match is never recommended.

use super::support::*;
use tapebuf::probe::recommend::recommend;
use tapebuf::probe::schema::{DataKind, ProbeResults, TargetKind};
use tapebuf::probe::sweep::{Mismatch, Plan};
use tapebuf::probe::table::lines_of;
use tapebuf::probe::ProbeTarget;
use tapebuf::tape::emulated::Shelf;

#[test]
fn the_probe_recommends_the_size_where_the_emulated_drive_peaks() {
    let (tape, shelf) = emulated_tape();
    let clock = VirtualClock::default();
    let mut target = timed(tape, &clock);
    let plan = Plan {
        sizes: (4..=10).map(|p| KIB << p).collect(), // 16 KiB .. 1 MiB
        runs: 3,
        stream_bytes: 8 << 20,
        data: DataKind::Random,
    };
    let done = run(&mut target, &plan, &clock).unwrap();
    let results = done.results(&target, &plan, false);
    assert_eq!(results.target_kind, TargetKind::Tape);
    assert!(done.mismatches().is_empty());

    // The recommendation is the peak, for backups and restores alike.
    assert_eq!(results.recommend.write_block_bytes, 256 * KIB);
    assert_eq!(results.recommend.read_block_bytes, 256 * KIB);

    // The table follows the curve: every median is the curve's whole-pass
    // rate, rising to the peak and falling after it.
    let medians = each_size_follows_the_curve(&results, &plan);
    let peak = medians_peak_at(&results, &medians, 256 * KIB);
    the_table_recommends_the_peak_and_its_pace(&results, peak);

    // The tape was rewound between runs, so it holds one pass, and the
    // probe leaves it rewound.
    assert_eq!(target.cleanup().unwrap(), "rewound emu0");
    the_tape_holds_one_pass_after_rewinds(&shelf, &plan);
}

/// Checks every size's figures against the curve; gives the write
/// medians, by size.
fn each_size_follows_the_curve(results: &ProbeResults, plan: &Plan) -> Vec<f64> {
    let medians: Vec<f64> = results
        .results
        .iter()
        .map(|r| r.write.median_bytes_per_s)
        .collect();
    for (r, median) in results.results.iter().zip(&medians) {
        let want = plan.stream_bytes as f64 / CURVE.pass_s(r.block_bytes, plan.stream_bytes);
        assert!(
            (median / want - 1.0).abs() < 1e-6,
            "{} bytes: {median} against {want}",
            r.block_bytes
        );
        assert!((r.read.median_bytes_per_s / want - 1.0).abs() < 1e-6);
        assert!(r.verified);
        assert_eq!(r.write.rates_bytes_per_s.len(), 3);
        assert!(r.write.spread_pct < 1e-6, "a virtual clock has no noise");
        // The differential method recovers the injected start-up cost and
        // the streaming rate.
        assert!(
            (r.write.startup_s - CURVE.startup_s).abs() < 1e-3,
            "start-up {} at {}",
            r.write.startup_s,
            r.block_bytes
        );
        assert!((r.read.startup_s - CURVE.startup_s).abs() < 1e-3);
        let stream = CURVE.stream_rate(r.block_bytes, plan.stream_bytes);
        assert!((r.write.stream_rate_bytes_per_s / stream - 1.0).abs() < 1e-3);
    }
    medians
}

/// Checks that the medians rise to a peak at `peak_block_bytes` and fall
/// after it; gives the peak's index.
fn medians_peak_at(results: &ProbeResults, medians: &[f64], peak_block_bytes: u64) -> usize {
    let peak = medians
        .iter()
        .position(|&m| m == medians.iter().copied().fold(0.0, f64::max))
        .unwrap();
    assert_eq!(results.results[peak].block_bytes, peak_block_bytes);
    assert!(
        medians[..=peak].windows(2).all(|w| w[0] < w[1]),
        "{medians:?}"
    );
    assert!(
        medians[peak..].windows(2).all(|w| w[0] > w[1]),
        "{medians:?}"
    );
    peak
}

/// The table recommends 256k for backups and, since a drive's probe helps
/// choose `--pace`, a pace up to the write rate at the peak.
fn the_table_recommends_the_peak_and_its_pace(results: &ProbeResults, peak: usize) {
    let table = lines_of(results);
    assert!(table.iter().any(|l| l.trim_start().starts_with("256k")));
    assert!(
        table.iter().any(|l| l.starts_with("backups: -s 256k (")),
        "{table:#?}"
    );
    // A drive's probe helps choose --pace: the write rate at 256k is the top.
    let top = results.results[peak].write.median_bytes_per_s;
    let mb = |rate: f64| (rate / 1e6).round() as u64;
    let pace = format!("pacing: --pace {}MB:{}MB (", mb(top / 2.0), mb(top));
    assert!(
        table.iter().any(|l| l.starts_with(&pace)),
        "{pace} in {table:#?}"
    );
}

/// The tape was rewound before every pass, so it holds one pass, one
/// filemark, and was closed last.
fn the_tape_holds_one_pass_after_rewinds(shelf: &Shelf, plan: &Plan) {
    let lib = shelf.lock().unwrap();
    let rewinds = lib.log.iter().filter(|l| *l == "rewind").count();
    assert!(rewinds >= 2 * 7 * 3, "{rewinds} rewinds");
    assert_eq!(lib.slots[0].first_file().len() as u64, plan.stream_bytes);
    assert_eq!(lib.slots[0].filemarks(), 1);
    assert_eq!(lib.log.last().map(String::as_str), Some("close"));
}

#[test]
fn a_flipped_byte_in_the_read_back_is_caught_at_its_offset() {
    let (tape, _shelf) = emulated_tape();
    let mut target = Corrupt {
        inner: tape,
        block_bytes: 0,
        run_counter: 0,
        at: (64 * KIB, 2, 100_003),
        read_offset: 0,
    };
    let plan = Plan {
        sizes: vec![32 * KIB, 64 * KIB, 128 * KIB],
        runs: 2,
        stream_bytes: 1 << 20,
        data: DataKind::Mix,
    };
    let clock = VirtualClock::default();
    // The drive takes no virtual time; each call moves the clock a little.
    let done = run(&mut target, &plan, &Ticking(clock)).unwrap();
    let mismatches = done.mismatches();
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    let m: Mismatch = mismatches[0];
    assert_eq!((m.block_bytes, m.run, m.offset), (64 * KIB, 2, 100_003));
    assert_eq!(m.expected ^ 0x01, m.got);
    let text = m.to_string();
    assert!(text.contains("byte offset 100003"), "{text}");
    assert!(text.contains("block size 64k, run 2"), "{text}");

    let results = done.size_results();
    let verified: Vec<bool> = results.iter().map(|r| r.verified).collect();
    assert_eq!(verified, vec![true, false, true]);
    let r = recommend(&results);
    assert_ne!(r.write_block_bytes, 64 * KIB);
    assert_ne!(r.read_block_bytes, 64 * KIB);
}
