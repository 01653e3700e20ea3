//! One tool measured between its neighbours: stdin from a `dd` of zeros
//! or nothing (the tool opens a file itself), stdout to a `dd` that
//! discards, into a file, or nowhere. The tool is reaped with wait4 for its
//! own CPU time and peak RSS; the wall time is the whole pipeline's.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::{reap, zero_producer, Sample};

/// Where the tool's standard output goes.
#[derive(Clone, Debug)]
pub enum Out {
    /// A pipe to `dd of=/dev/null bs=1M`.
    Drain,
    /// This file, created or truncated (for a tool that writes stdout).
    File(PathBuf),
    /// Nowhere: the tool writes its output file itself.
    Null,
}

/// Runs `tool` with `gib` GiB of zeros from `dd` on its stdin when
/// `zeros` is true (else stdin is /dev/null), its stdout as `out` says,
/// and its stderr discarded.
#[allow(clippy::zombie_processes)]
pub fn relay(tool: &[String], zeros: bool, out: &Out, gib: u64) -> Sample {
    let started = Instant::now();
    let mut producer = zeros.then(|| zero_producer(gib));
    let stdin = match producer.as_mut() {
        Some(p) => Stdio::from(p.stdout.take().expect("the producer's stdout")),
        None => Stdio::null(),
    };
    let stdout = match out {
        Out::Drain => Stdio::piped(),
        Out::File(path) => Stdio::from(File::create(path).expect("creating the output file")),
        Out::Null => Stdio::null(),
    };
    let mut middle = Command::new(&tool[0])
        .args(&tool[1..])
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {}: {e} (is it installed?)", tool[0]));
    let consumer = middle.stdout.take().map(|s| {
        Command::new("dd")
            .args(["of=/dev/null", "bs=1M", "status=none"])
            .stdin(s)
            .spawn()
            .expect("spawning the consumer dd")
    });
    let sample = reap(&middle, &tool[0], started);
    if let Some(mut c) = consumer {
        assert!(c.wait().unwrap().success(), "consumer dd failed");
    }
    if let Some(mut p) = producer {
        assert!(p.wait().unwrap().success(), "producer dd failed");
    }
    Sample {
        wall_s: started.elapsed().as_secs_f64(),
        ..sample
    }
}
