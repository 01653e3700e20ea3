//! The manifest's and `--verify`'s cost, side by side in one run (issue 20).
//!
//! 1. Write path: the tapebuf binary writes a stream at `-s 256k` to a file
//!    on tmpfs, with and without `--manifest`, and with `--manifest
//!    --verify` (reported apart: its wall time includes the read-back). The
//!    input is a pattern file on tmpfs read with `-i`, and a `dd
//!    if=/dev/zero` pipe. Variants are interleaved run by run; medians of
//!    wall time and of tapebuf's own CPU time (wait4) are compared, with
//!    the best wall time beside the median for a noisy machine. Target:
//!    `--manifest` costs at most 3% more wall time. A `--hash xxh3` row
//!    (the same hashing, in a tap thread off the write path) shows what
//!    hashing off the writer's thread costs.
//! 2. Read-back: on a disk file (not tmpfs), the `--verify` read-back's
//!    speed, from the seconds the manifest records, against `cmp` of the
//!    file with itself after its cache is dropped; once after a buffered
//!    write (the read-back then waits for the dirty pages' writeback) and
//!    once after a `--direct` write (the read alone). `cmp FILE FILE` returns
//!    at once for one inode without reading, so it is `cat FILE | cmp FILE
//!    -`: the disk is read once, as by the read-back. A plain `dd` read of
//!    the dropped file shows the disk's own speed. Target: read-back at
//!    least at cmp's speed.
//!
//!     cargo bench --bench verify
//!
//! Environment: TAPEBUF_BENCH_GIB (write path, default 4),
//! TAPEBUF_BENCH_DISK_GIB (read-back, default 1), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_DISK_DIR (default target/tmp),
//! TAPEBUF_BENCH_BLOCK (default 256k), TAPEBUF_BENCH_EXTRA (more tapebuf
//! flags for every write, e.g. `--hash xxh3`).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::files::{drop_cached, filesystem_type, pattern_file};
use common::{env_number, env_or, median, reap, wall_and_cpu_medians, zero_producer, Sample};
use tapebuf::manifest::schema::Manifest;

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");
/// The most extra wall time `--manifest` may cost.
const WRITE_TARGET: f64 = 1.03;

/// One way of running the write: from a pipe or the file, and the flags
/// (`--manifest` is given a path).
struct Variant {
    pipe: bool,
    flags: &'static str,
}

impl Variant {
    fn name(&self) -> String {
        let flags = if self.flags.is_empty() {
            "plain"
        } else {
            self.flags
        };
        format!("{:<5} {flags}", if self.pipe { "pipe" } else { "file" })
    }
}

/// The variants; the first of each input is its plain run, the second its
/// `--manifest` run. `--hash xxh3` hashes the stream as the manifest does,
/// but in its own thread, off the write path (a comparison, not a target).
const VARIANTS: [Variant; 6] = [
    Variant {
        pipe: false,
        flags: "",
    },
    Variant {
        pipe: false,
        flags: "--manifest",
    },
    Variant {
        pipe: false,
        flags: "--hash xxh3",
    },
    Variant {
        pipe: false,
        flags: "--manifest --verify",
    },
    Variant {
        pipe: true,
        flags: "",
    },
    Variant {
        pipe: true,
        flags: "--manifest",
    },
];

fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let disk_gib: u64 = env_number("TAPEBUF_BENCH_DISK_GIB", "1");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let block = env_or("TAPEBUF_BENCH_BLOCK", "256k");
    let disk = PathBuf::from(env_or(
        "TAPEBUF_BENCH_DISK_DIR",
        env!("CARGO_TARGET_TMPDIR"),
    ));
    let shm = PathBuf::from(format!(
        "/dev/shm/tapebuf-bench-verify-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&shm).expect("a scratch folder on /dev/shm");
    let input = shm.join("in.bin");
    pattern_file(&input, gib << 30);
    write_path(&input, &shm, gib, runs, &block);
    std::fs::remove_file(&input).unwrap();
    let disk = disk.join(format!("tapebuf-bench-verify-{}", std::process::id()));
    std::fs::create_dir_all(&disk).expect("a scratch folder on disk");
    let source = shm.join("disk-in.bin");
    pattern_file(&source, disk_gib << 30);
    read_back(&source, &disk, disk_gib, runs, &block);
    std::fs::remove_dir_all(&shm).unwrap();
    std::fs::remove_dir_all(&disk).unwrap();
}

/// Part 1: the write path with and without the manifest.
fn write_path(input: &Path, shm: &Path, gib: u64, runs: usize, block: &str) {
    let variants = &VARIANTS;
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); variants.len()];
    for run in 0..runs {
        for k in 0..variants.len() {
            let i = (run + k) % variants.len();
            samples[i].push(write_once(&variants[i], input, shm, gib, block));
        }
    }
    println!(
        "# write path: {gib} GiB at -s {block} to a file on /dev/shm ({}), {runs} runs per variant, interleaved",
        filesystem_type(shm)
    );
    println!("# medians; cpu is tapebuf's own user+sys (wait4); ratios against the same input's plain run");
    println!(
        "{:<26} {:>8} {:>8} {:>8} {:>9} {:>11} {:>10}",
        "variant", "wall s", "min s", "cpu s", "MB/s", "wall ratio", "cpu ratio"
    );
    let medians: Vec<(f64, f64)> = wall_and_cpu_medians(&samples);
    for (i, v) in variants.iter().enumerate() {
        let (wall, cpu) = medians[i];
        let (base_wall, base_cpu) = medians[if v.pipe { 4 } else { 0 }];
        let min = samples[i].iter().map(|x| x.wall_s).fold(f64::MAX, f64::min);
        println!(
            "{:<26} {:>8.3} {:>8.3} {:>8.3} {:>9.0} {:>11.3} {:>10.3}",
            v.name(),
            wall,
            min,
            cpu,
            (gib << 30) as f64 / wall / 1e6,
            wall / base_wall,
            cpu / base_cpu
        );
    }
    for (name, with, without) in [("file", 1, 0), ("pipe", 5, 4)] {
        let ratio = medians[with].0 / medians[without].0;
        println!(
            "target ({name}): --manifest wall <= {WRITE_TARGET:.2} x plain at -s {block} on tmpfs: {} ({ratio:.3})",
            if ratio <= WRITE_TARGET { "PASS" } else { "FAIL" }
        );
    }
    println!();
}

/// One write of `gib` GiB to `dir/out.bin`, measured; the output's size
/// is checked.
#[allow(clippy::zombie_processes)]
fn write_once(v: &Variant, input: &Path, dir: &Path, gib: u64, block: &str) -> Sample {
    let out = dir.join("out.bin");
    let manifest = dir.join("m.json");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&manifest);
    let mut cmd = Command::new(TAPEBUF);
    cmd.args(["-q", "-s", block, "-o"]).arg(&out);
    cmd.args(env_or("TAPEBUF_BENCH_EXTRA", "").split_whitespace());
    for flag in v.flags.split_whitespace() {
        cmd.arg(flag);
        if flag == "--manifest" {
            cmd.arg(&manifest);
        }
    }
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let started = Instant::now();
    let producer = if v.pipe {
        let mut producer = zero_producer(gib);
        cmd.stdin(producer.stdout.take().unwrap());
        Some(producer)
    } else {
        cmd.arg("-i").arg(input).stdin(Stdio::null());
        None
    };
    let child = cmd.spawn().expect("spawning tapebuf");
    let sample = reap(&child, &v.name(), started);
    if let Some(mut p) = producer {
        assert!(p.wait().unwrap().success(), "producer dd failed");
    }
    let written = std::fs::metadata(&out).unwrap().len();
    assert_eq!(written, gib << 30, "{}: bytes written", v.name());
    Sample {
        wall_s: started.elapsed().as_secs_f64(),
        ..sample
    }
}

/// Part 2: the `--verify` read-back of a disk file against `cmp`.
fn read_back(source: &Path, disk: &Path, gib: u64, runs: usize, block: &str) {
    let out = disk.join("out.bin");
    let mut verify = Vec::new();
    let mut direct = Vec::new();
    let mut cmp = Vec::new();
    let mut dd = Vec::new();
    let mut method = String::new();
    let mut dropped_all = true;
    for _ in 0..runs {
        let m = disk.join("m.json");
        let (seconds, how) = verified_seconds(source, &out, &m, block, false);
        verify.push(seconds);
        method = how;
        direct.push(verified_seconds(source, &out, &m, block, true).0);
        dropped_all &= drop_cached(&out);
        cmp.push(timed_shell(&format!(
            "cat '{0}' | cmp '{0}' -",
            out.display()
        )));
        dropped_all &= drop_cached(&out);
        dd.push(timed_shell(&format!(
            "dd if='{}' of=/dev/null bs=1M status=none",
            out.display()
        )));
    }
    let mb = |s: f64| (gib << 30) as f64 / s / 1e6;
    let (v, o, c, d) = (median(verify), median(direct), median(cmp), median(dd));
    println!(
        "# read-back: {gib} GiB file on {} ({}), -s {block}, {runs} runs, medians",
        disk.display(),
        filesystem_type(disk)
    );
    println!(
        "# cache dropped before cmp and dd by fsync + POSIX_FADV_DONTNEED{}",
        if dropped_all {
            " and /proc/sys/vm/drop_caches"
        } else {
            " (drop_caches not writable)"
        }
    );
    println!("# --verify's seconds are the manifest's; after a buffered write they include");
    println!("# the writeback of its dirty pages, which the O_DIRECT read waits for");
    println!("{:<42} {:>8} {:>9}", "reader", "s", "MB/s");
    let verify_row = format!("--verify ({method})");
    println!("{verify_row:<42} {v:>8.3} {:>9.0}", mb(v));
    let direct_row = "--verify, written with --direct";
    println!("{direct_row:<42} {o:>8.3} {:>9.0}", mb(o));
    println!("{:<42} {c:>8.3} {:>9.0}", "cat FILE | cmp FILE -", mb(c));
    println!("{:<42} {d:>8.3} {:>9.0}", "dd bs=1M of=/dev/null", mb(d));
    for (what, s) in [("after a buffered write", v), ("after a --direct write", o)] {
        println!(
            "target: read-back >= cmp's speed, {what}: {} ({:.2}x cmp)",
            if s <= c { "PASS" } else { "FAIL" },
            c / s
        );
    }
}

/// Writes `source` to `out` with `--verify --manifest` (and `--direct`,
/// so that no dirty pages are left to write back), and returns the
/// read-back's seconds and method as the manifest records them.
fn verified_seconds(
    source: &Path,
    out: &Path,
    manifest: &Path,
    block: &str,
    direct: bool,
) -> (f64, String) {
    let _ = std::fs::remove_file(out);
    let run = Command::new(TAPEBUF)
        .args(["-q", "-s", block, "--verify"])
        .args(direct.then_some("--direct"))
        .arg("-i")
        .arg(source)
        .arg("-o")
        .arg(out)
        .arg("--manifest")
        .arg(manifest)
        .output()
        .expect("spawning tapebuf");
    assert!(
        run.status.success(),
        "tapebuf --verify failed: {}: {}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let m = Manifest::load(manifest).expect("the manifest");
    let v = m.volumes[0].verified.clone().expect("a verified volume");
    assert!(v.ok, "the read-back failed: {:?}", v.problem);
    (v.seconds, v.method)
}

/// The wall seconds of `sh -c script`, which must succeed.
fn timed_shell(script: &str) -> f64 {
    let started = Instant::now();
    let status = Command::new("sh").args(["-c", script]).status().unwrap();
    assert!(status.success(), "{script}: {status}");
    started.elapsed().as_secs_f64()
}
