//! probe benchmark: does `tapebuf probe` measure what dd measures?
//!
//! On one file on disk, with O_DIRECT so the page cache flatters neither,
//! it runs `tapebuf probe FILE --direct --sizes 64k..1M --runs 1 --size
//! 256M --json` five times, and after each, dd at each size:
//! `dd if=RANDOM of=FILE bs=SIZE count=N oflag=direct` to write (from a
//! pre-made file of random bytes on /dev/shm, so the data cannot be
//! compressed and its source costs no disk time) and `dd if=FILE
//! of=/dev/null bs=SIZE iflag=direct` to read. dd's own rate (its last
//! line) is taken, and the medians over the rounds are compared size by
//! size. The rounds interleave the probe and dd because a disk's drift
//! (here, a virtual machine's disk) can exceed the difference measured;
//! the verdict is on the geometric mean of the ratios over all sizes,
//! which shows a bias where one size's ratio shows mostly noise.
//!
//!     cargo bench --bench probe
//!
//! Environment: TAPEBUF_BENCH_DIR (where the files go; default /tmp, which
//! must take O_DIRECT), TAPEBUF_BENCH_MIB (the stream per run, default
//! 256), TAPEBUF_BENCH_RUNS (rounds, default 5), TAPEBUF_BENCH_SIZES
//! (default 64k..1M), TAPEBUF_BENCH_TOLERANCE_PCT (the agreement asked of
//! the geometric mean, default 10).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{env_number, env_or, median, verdict};
use tapebuf::probe::schema::ProbeResults;
use tapebuf::probe::settings::parse_sizes;

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// dd's rate from its last line: "N bytes (...) copied, T s, ...".
fn dd_rate(args: &[String]) -> f64 {
    let out = Command::new("dd")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running dd");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "dd {args:?} failed: {err}");
    let line = err
        .lines()
        .rev()
        .find(|l| l.contains(" copied, "))
        .unwrap_or_else(|| panic!("no rate from dd: {err}"));
    let bytes: f64 = line.split_whitespace().next().unwrap().parse().unwrap();
    let after = line.split(" copied, ").nth(1).unwrap();
    let seconds: f64 = after.split_whitespace().next().unwrap().parse().unwrap();
    bytes / seconds
}

/// Each size's rates over the rounds, one list per size.
struct Rates {
    probe_write: Vec<Vec<f64>>,
    probe_read: Vec<Vec<f64>>,
    dd_write: Vec<Vec<f64>>,
    dd_read: Vec<Vec<f64>>,
}

fn main() {
    let dir = env_or("TAPEBUF_BENCH_DIR", "/tmp");
    let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "256");
    let runs: u32 = env_number("TAPEBUF_BENCH_RUNS", "5");
    let sizes_text = env_or("TAPEBUF_BENCH_SIZES", "64k..1M");
    let tolerance_pct: f64 = env_number("TAPEBUF_BENCH_TOLERANCE_PCT", "10");
    let sizes = parse_sizes(&sizes_text).expect("TAPEBUF_BENCH_SIZES");
    let stream_bytes = mib << 20;

    let work = tempfile::tempdir_in(&dir).expect("a directory for the files");
    let source = tempfile::NamedTempFile::new_in("/dev/shm").expect("/dev/shm");
    let made = Command::new("head")
        .args(["-c", &stream_bytes.to_string(), "/dev/urandom"])
        .stdout(source.reopen().unwrap())
        .status()
        .unwrap();
    assert!(made.success());

    println!(
        "probe benchmark: {mib} MiB per run, {runs} runs, sizes {sizes_text}, O_DIRECT, in {dir}"
    );

    // Rounds: the probe once over every size, then dd over every size, so
    // that the disk's drift falls on both alike.
    let target = work.path().join("probe-file");
    let file = work.path().join("dd-file");
    let mut rates = Rates {
        probe_write: vec![Vec::new(); sizes.len()],
        probe_read: vec![Vec::new(); sizes.len()],
        dd_write: vec![Vec::new(); sizes.len()],
        dd_read: vec![Vec::new(); sizes.len()],
    };
    for _ in 0..runs {
        probe_round(&mut rates, &target, &sizes_text, mib, &sizes);
        dd_round(&mut rates, source.path(), &file, stream_bytes, &sizes);
    }
    let _ = std::fs::remove_file(&file);

    print_comparison(&rates, &sizes, tolerance_pct);
}

/// One run of `tapebuf probe` on `target` over every size.
fn probe_round(rates: &mut Rates, target: &Path, sizes_text: &str, mib: u64, sizes: &[u64]) {
    let out = Command::new(TAPEBUF)
        .arg("probe")
        .arg(target)
        .args(["--direct", "--sizes", sizes_text, "--json"])
        .args(["--runs", "1", "--size", &format!("{mib}M")])
        .stdin(Stdio::null())
        .output()
        .expect("running tapebuf probe");
    assert!(
        out.status.success(),
        "tapebuf probe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let probe: ProbeResults = serde_json::from_slice(&out.stdout).expect("the probe's JSON");
    assert!(!target.exists(), "the probe left its file behind");
    for (i, r) in probe.results.iter().enumerate() {
        assert_eq!(r.block_bytes, sizes[i]);
        assert!(r.verified);
        rates.probe_write[i].push(r.write.median_bytes_per_s);
        rates.probe_read[i].push(r.read.median_bytes_per_s);
    }
}

/// dd at every size: `stream_bytes` from `source` written to `file`, then
/// read back.
fn dd_round(rates: &mut Rates, source: &Path, file: &Path, stream_bytes: u64, sizes: &[u64]) {
    for (i, &size) in sizes.iter().enumerate() {
        let count = stream_bytes / size;
        rates.dd_write[i].push(dd_rate(&[
            format!("if={}", source.display()),
            format!("of={}", file.display()),
            format!("bs={size}"),
            format!("count={count}"),
            "oflag=direct".into(),
        ]));
        rates.dd_read[i].push(dd_rate(&[
            format!("if={}", file.display()),
            "of=/dev/null".into(),
            format!("bs={size}"),
            "iflag=direct".into(),
        ]));
    }
}

/// The table of medians, size by size, and the verdict on the geometric
/// mean of the ratios.
fn print_comparison(rates: &Rates, sizes: &[u64], tolerance_pct: f64) {
    println!(
        "{:>6}  {:>12} {:>12} {:>6}   {:>12} {:>12} {:>6}",
        "size", "probe write", "dd write", "ratio", "probe read", "dd read", "ratio"
    );
    let (mut log_write, mut log_read) = (0.0, 0.0);
    for (i, &size) in sizes.iter().enumerate() {
        let (pw, dw) = (
            median(rates.probe_write[i].clone()),
            median(rates.dd_write[i].clone()),
        );
        let (pr, dr) = (
            median(rates.probe_read[i].clone()),
            median(rates.dd_read[i].clone()),
        );
        log_write += (pw / dw).ln();
        log_read += (pr / dr).ln();
        println!(
            "{:>6}  {:>7.1} MB/s {:>7.1} MB/s {:>6.2}   {:>7.1} MB/s {:>7.1} MB/s {:>6.2}",
            tapebuf::base::size::size_flag(size),
            pw / 1e6,
            dw / 1e6,
            pw / dw,
            pr / 1e6,
            dr / 1e6,
            pr / dr
        );
    }
    let n = sizes.len() as f64;
    let (gw, gr) = ((log_write / n).exp(), (log_read / n).exp());
    let off_pct = ((gw - 1.0).abs().max((gr - 1.0).abs())) * 100.0;
    println!(
        "probe / dd over all sizes (geometric mean): write {gw:.2}, read {gr:.2}; \
         within {tolerance_pct}%: {}",
        verdict(off_pct <= tolerance_pct)
    );
}
