//! Restoring one file near the end of a backup (issue 35): `tapebuf
//! extract`, which seeks to the member through the catalog, against `tar
//! xf` of the whole archive, side by side in one run, on file volumes.
//!
//! A tree of files (1 MiB each, TAPEBUF_BENCH_MIB of them, default 1024)
//! and one small file last in the archive is archived once by GNU tar
//! (`--sort=name`) through tapebuf into file volumes of 256 MiB with
//! `--manifest --catalog`. Then, alternating run by run, with every
//! volume's cached pages dropped first so that the disk is read:
//!
//! - tapebuf: `tapebuf extract --manifest M -i vol.%03d zz/last.bin | tar xf -`
//! - peer:    `cat vol.001 vol.002 ... | tar xf - --occurrence zz/last.bin`
//!   (tar must read up to the member; `--occurrence` lets it stop there)
//!
//! Each run's file is checked byte for byte against the original. Wall
//! time and the bytes read from disk (wait4's ru_inblock, of the whole
//! pipeline) are reported as medians, with the ratio. Both programs'
//! binaries are read into the cache first, so that only data is counted.
//!
//! Then what `--catalog` costs the backup: the archive, read from a file
//! in /dev/shm, written into volumes in /dev/shm with `--manifest` and
//! with `--manifest --catalog`, alternating, medians of wall and CPU time.
//!
//! Then what `--catalog` costs the backup: the archive, read from a file
//! in /dev/shm, written into volumes in /dev/shm with `--manifest` and
//! with `--manifest --catalog`, alternating, medians of wall and CPU time.
//!
//!     cargo bench --bench extract
//!
//! Environment: TAPEBUF_BENCH_MIB (default 1024), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_DISK_DIR (default target/tmp; a disk, not
//! tmpfs, so that dropping the cache means reading the disk).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::files::{drop_cached, filesystem_type, pattern_file};
use common::{env_number, env_or, median};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");
const VOLUME_BYTES: &str = "256M";
const TARGET: &str = "zz/last.bin";
const TARGET_BYTES: u64 = 300_000;

/// One run: its wall time and the bytes its pipeline read from disk.
struct Run {
    wall_s: f64,
    disk_bytes: u64,
}

fn main() {
    let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "1024");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let base = PathBuf::from(env_or("TAPEBUF_BENCH_DISK_DIR", "target/tmp")).join("extract-bench");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(base.join("tree/a")).unwrap();
    std::fs::create_dir_all(base.join("tree/zz")).unwrap();
    println!(
        "extract benchmark: {mib} files of 1 MiB and {TARGET} ({TARGET_BYTES} bytes), in {} ({})",
        base.display(),
        filesystem_type(&base)
    );
    let (manifest, pattern) = back_up(&base, mib);
    let volumes = volume_files(&base);
    let archive_bytes: u64 = volumes
        .iter()
        .map(|v| std::fs::metadata(v).unwrap().len())
        .sum();
    println!(
        "archive: {archive_bytes} bytes in {} volumes of {VOLUME_BYTES}; runs: {runs}, alternating",
        volumes.len()
    );
    let want = std::fs::read(base.join("tree").join(TARGET)).unwrap();
    let cat = volumes
        .iter()
        .map(|v| v.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let mut ours = Vec::new();
    let mut peer = Vec::new();
    for i in 0..runs {
        for tool in ["tapebuf", "tar"] {
            let out = base.join(format!("out-{tool}"));
            let _ = std::fs::remove_dir_all(&out);
            std::fs::create_dir_all(&out).unwrap();
            for v in &volumes {
                assert!(drop_cached(v), "could not drop {}'s cache", v.display());
            }
            shell(&format!("cat {TAPEBUF} \"$(command -v tar)\" >/dev/null"));
            let line = if tool == "tapebuf" {
                format!(
                    "{TAPEBUF} extract -q --manifest {m} -i {p} {TARGET} | tar -xf - -C {o}",
                    m = manifest.display(),
                    p = pattern.display(),
                    o = out.display()
                )
            } else {
                format!(
                    "cat {cat} | tar -xf - -C {o} --occurrence {TARGET}",
                    o = out.display()
                )
            };
            let run = shell(&line);
            let got = std::fs::read(out.join(TARGET)).unwrap();
            assert!(
                got == want,
                "{tool} run {i}: {TARGET} differs from the original"
            );
            println!(
                "run {i} {tool:<7}: {:.3} s, {:.1} MiB read from disk",
                run.wall_s,
                run.disk_bytes as f64 / (1u64 << 20) as f64
            );
            if tool == "tapebuf" {
                ours.push(run)
            } else {
                peer.push(run)
            }
        }
    }
    report(
        "tapebuf extract",
        &ours,
        "tar xf of the whole archive",
        &peer,
        archive_bytes,
    );
    catalog_cost(&base, runs);
    let _ = std::fs::remove_dir_all(&base);
}

/// The backup's cost of `--catalog`: the same archive written with and
/// without it, in memory, alternating.
#[allow(clippy::zombie_processes)] // reaped by common::reap
fn catalog_cost(base: &Path, runs: usize) {
    let shm =
        PathBuf::from("/dev/shm").join(format!("tapebuf-extract-bench-{}", std::process::id()));
    std::fs::create_dir_all(&shm).unwrap();
    let tar = shm.join("full.tar");
    shell(&format!(
        "tar -C {tree} --sort=name --hard-dereference -cf {tar} a zz",
        tree = base.join("tree").display(),
        tar = tar.display()
    ));
    let mut times: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (i, extra) in ["", "--catalog"].iter().enumerate() {
            let line = format!(
                "{TAPEBUF} -q -f -s 256k -i {tar} -o {out}/vol.%03d -D {VOLUME_BYTES} --manifest {out}/m.json {extra}",
                tar = tar.display(),
                out = shm.display()
            );
            let started = Instant::now();
            let child = Command::new("sh").arg("-c").arg(&line).spawn().unwrap();
            let sample = common::reap(&child, &line, started);
            times[i].push((sample.wall_s, sample.cpu_s));
        }
    }
    let _ = std::fs::remove_dir_all(&shm);
    let med = |v: &[(f64, f64)], f: fn(&(f64, f64)) -> f64| median(v.iter().map(f).collect());
    let (pw, pc) = (med(&times[0], |t| t.0), med(&times[0], |t| t.1));
    let (cw, cc) = (med(&times[1], |t| t.0), med(&times[1], |t| t.1));
    println!("backup --manifest           : median {pw:.3} s wall, {pc:.3} s CPU");
    println!("backup --manifest --catalog : median {cw:.3} s wall, {cc:.3} s CPU");
    println!(
        "ratio (--catalog / without): wall {:.3}x, CPU {:.3}x",
        cw / pw,
        cc / pc
    );
}

/// The tree of `mib` files of 1 MiB and the target, archived by tar
/// through tapebuf into volumes with `--manifest --catalog`: the manifest
/// and the volumes' pattern.
fn back_up(base: &Path, mib: u64) -> (PathBuf, PathBuf) {
    let one = base.join("one-mib");
    pattern_file(&one, 1 << 20);
    for i in 0..mib {
        std::fs::hard_link(&one, base.join(format!("tree/a/f{i:05}"))).unwrap();
    }
    pattern_file(&base.join("tree").join(TARGET), TARGET_BYTES);
    let manifest = base.join("home.json");
    let pattern = base.join("vol.%03d");
    // --hard-dereference: every file is archived with its data, not as a
    // link to the first (they share an inode here only to save the disk).
    shell(&format!(
        "tar -C {tree} --sort=name --hard-dereference -cf - a zz | {TAPEBUF} -q -s 256k -o {pattern} -D {VOLUME_BYTES} --manifest {manifest} --catalog",
        tree = base.join("tree").display(),
        pattern = pattern.display(),
        manifest = manifest.display(),
    ));
    (manifest, pattern)
}

/// The numbered volume files tapebuf wrote, in order.
fn volume_files(base: &Path) -> Vec<PathBuf> {
    (1..)
        .map(|n| base.join(format!("vol.{n:03}")))
        .take_while(|p| p.exists())
        .collect()
}

/// Runs `line` through sh, asserts it succeeded, and measures it.
#[allow(clippy::zombie_processes)] // reaped by wait4 below
fn shell(line: &str) -> Run {
    let started = Instant::now();
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("set -e; {line}"))
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "`{line}` failed with status {status:#x}"
    );
    Run {
        wall_s: started.elapsed().as_secs_f64(),
        disk_bytes: usage.ru_inblock as u64 * 512,
    }
}

fn report(ours_name: &str, ours: &[Run], peer_name: &str, peer: &[Run], archive: u64) {
    let med = |v: &[Run], f: fn(&Run) -> f64| median(v.iter().map(f).collect());
    let (tw, pw) = (med(ours, |r| r.wall_s), med(peer, |r| r.wall_s));
    let (tb, pb) = (
        med(ours, |r| r.disk_bytes as f64),
        med(peer, |r| r.disk_bytes as f64),
    );
    let mib = |b: f64| b / (1u64 << 20) as f64;
    println!(
        "{ours_name:<28}: median {tw:.3} s, {:.1} MiB read ({:.2}% of the archive)",
        mib(tb),
        100.0 * tb / archive as f64
    );
    println!(
        "{peer_name:<28}: median {pw:.3} s, {:.1} MiB read ({:.2}% of the archive)",
        mib(pb),
        100.0 * pb / archive as f64
    );
    println!(
        "ratio (tapebuf / tar): time {:.4}x, bytes read {:.4}x",
        tw / pw,
        tb / pb.max(1.0)
    );
}
