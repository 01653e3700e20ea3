//! Shared by the benchmarks: reaping a child with its resource usage,
//! a tool measured between two dd processes, medians, settings from the
//! environment, and a source of endless blocks.

#![allow(dead_code)]

pub mod endless;
pub mod files;
pub mod relay;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One measured run.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub wall_s: f64,
    pub cpu_s: f64,
    pub max_rss_kib: u64,
}

/// Waits for `child` with wait4(2), which also returns its CPU time and
/// peak RSS (including the children it reaped itself, such as a shell's
/// pipeline), and asserts that it succeeded.
pub fn reap(child: &Child, what: &str, started: Instant) -> Sample {
    reap_ending(child, what, started, &[0])
}

/// The same, for a child whose normal ends are the exit codes `ok`.
#[allow(clippy::zombie_processes)]
pub fn reap_ending(child: &Child, what: &str, started: Instant, ok: &[i32]) -> Sample {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && ok.contains(&libc::WEXITSTATUS(status)),
        "{what} failed with status {status:#x}"
    );
    let wall_s = started.elapsed().as_secs_f64();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Sample {
        wall_s,
        cpu_s: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss as u64,
    }
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// A number from the environment, or `default`.
pub fn env_number<T: std::str::FromStr>(name: &str, default: &str) -> T {
    env_or(name, default)
        .parse()
        .unwrap_or_else(|_| panic!("{name} must be a number"))
}

pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

/// `dd if=/dev/zero bs=1M` producing `gib` GiB on a pipe (its stdout).
pub fn zero_producer(gib: u64) -> Child {
    Command::new("dd")
        .args([
            "if=/dev/zero",
            "bs=1M",
            &format!("count={}", gib * 1024),
            "status=none",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawning the producer dd")
}

/// Runs `dd if=/dev/zero | TOOL | dd of=/dev/null`, the tool's stderr to
/// /dev/null, and measures the tool, reaped by wait4 in `reap` so that its
/// own CPU time and peak RSS are known; the wall time is the pipeline's.
#[allow(clippy::zombie_processes)]
pub fn between_zero_and_null(tool: &[String], gib: u64) -> Sample {
    let started = Instant::now();
    let mut producer = zero_producer(gib);
    let mut middle = Command::new(&tool[0])
        .args(&tool[1..])
        .stdin(producer.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {}: {e} (is it installed?)", tool[0]));
    let mut consumer = Command::new("dd")
        .args(["of=/dev/null", "bs=1M", "status=none"])
        .stdin(middle.stdout.take().unwrap())
        .spawn()
        .expect("spawning the consumer dd");
    let sample = reap(&middle, &tool[0], started);
    assert!(consumer.wait().unwrap().success(), "consumer dd failed");
    assert!(producer.wait().unwrap().success(), "producer dd failed");
    Sample {
        wall_s: started.elapsed().as_secs_f64(),
        ..sample
    }
}

/// The median wall and CPU seconds of each contender's samples.
pub fn wall_and_cpu_medians(samples: &[Vec<Sample>]) -> Vec<(f64, f64)> {
    samples
        .iter()
        .map(|s| {
            (
                median(s.iter().map(|x| x.wall_s).collect()),
                median(s.iter().map(|x| x.cpu_s).collect()),
            )
        })
        .collect()
}

/// Waits until something listens on `port` (as `listens` in
/// tests/common/ports.rs reads it).
pub fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let needle = format!(":{port:04X}");
    while !["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|t| {
        std::fs::read_to_string(t)
            .unwrap_or_default()
            .lines()
            .any(|l| {
                let c: Vec<&str> = l.split_whitespace().collect();
                c.len() > 3 && c[1].ends_with(&needle) && c[3] == "0A"
            })
    }) {
        assert!(Instant::now() < deadline, "the receiver never listened");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Makes the key `name` as `dir/NAME.key` with `tapebuf key new`; its
/// file and its fingerprint.
pub fn new_key(tapebuf: &str, dir: &std::path::Path, name: &str) -> (String, String) {
    let file = dir.join(format!("{name}.key"));
    let out = Command::new(tapebuf)
        .args(["key", "new", file.to_str().unwrap(), "--name", name])
        .output()
        .expect("tapebuf key new runs");
    assert!(out.status.success(), "tapebuf key new {name}");
    let line = String::from_utf8_lossy(&out.stdout).into_owned();
    let print = line.split_whitespace().next().unwrap_or_default();
    (file.display().to_string(), print.to_string())
}
