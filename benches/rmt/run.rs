//! One timed run of an rmt contender: where the server writes (a FIFO
//! drained like a drive, or a file), the run itself, and the checks after
//! it. Every run's byte count is checked, so a broken run cannot look
//! fast; a checked run also compares the contents byte for byte.

use std::fs::File;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use crate::common::{reap, Sample};
use crate::contender::{split_path, Client, Contender, Setup};

/// Where the server writes.
#[derive(Clone, Copy, PartialEq)]
pub enum Output {
    /// A FIFO drained by a thread of this benchmark, which counts the
    /// bytes and keeps none: like a tape drive, it takes each write with
    /// one copy, and no page cache fills behind it.
    Drive,
    /// A file in the temporary directory under /tmp, on disk.
    Disk,
    /// A file on /dev/shm, in RAM.
    Ram,
}

impl Output {
    pub fn parse(word: &str) -> Output {
        match word {
            "drive" => Output::Drive,
            "disk" => Output::Disk,
            "ram" => Output::Ram,
            other => panic!("TAPEBUF_BENCH_OUT is drive, disk or ram, not {other}"),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Output::Drive => "a FIFO drained and counted by the benchmark, like a drive",
            Output::Disk => "a file on disk under /tmp",
            Output::Ram => "a file in RAM (/dev/shm)",
        }
    }
}

/// Drains the FIFO at `path` in a thread: returns the thread, which
/// returns the bytes it read once every writer has closed the FIFO.
fn drain(path: &Path) -> JoinHandle<u64> {
    let path = path.to_path_buf();
    thread::spawn(move || {
        let mut fifo = File::open(&path).expect("opening the FIFO to drain it");
        // A drive takes a whole record per write; so does a FIFO this size.
        tapebuf::base::pipe_size::grow_to(fifo.as_fd(), 1 << 20);
        let mut buf = vec![0u8; 1 << 20];
        let mut bytes = 0u64;
        loop {
            match fifo.read(&mut buf) {
                Ok(0) => return bytes,
                Ok(n) => bytes += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("draining the FIFO: {e}"),
            }
        }
    })
}

/// One run of `c` writing `out`, which is a FIFO (`Output::Drive`) or a
/// file. Checks the bytes that arrived, and with `compare` the contents,
/// byte for byte, which needs a file; removes the file.
#[allow(clippy::zombie_processes)]
pub fn measure(setup: &Setup, c: &Contender, out: &Path, output: Output, compare: bool) -> Sample {
    assert!(
        !compare || output != Output::Drive,
        "comparing needs a file"
    );
    let _ = std::fs::remove_file(out);
    match output {
        Output::Drive => nix::unistd::mkfifo(out, nix::sys::stat::Mode::from_bits_truncate(0o600))
            .expect("making the FIFO"),
        // A remote name under /dev/ is opened as it is, not created.
        Output::Ram => drop(File::create(out).expect("creating the output in /dev/shm")),
        Output::Disk => {}
    }
    let drained = (output == Output::Drive).then(|| drain(out));
    // Nothing left from the last run is still being written back.
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
    let started = Instant::now();
    let mut sample = match c.client {
        Client::Raw(sender) => {
            let (dd, relay) = c.raw_commands(sender, setup, out);
            let mut dd = Command::new(&dd[0])
                .args(&dd[1..])
                .stdout(Stdio::piped())
                .spawn()
                .expect("spawning the raw sender");
            let relay = Command::new(&relay[0])
                .args(&relay[1..])
                .stdin(dd.stdout.take().unwrap())
                .spawn()
                .expect("spawning the relay");
            let sample = reap(&relay, &c.name, started);
            assert!(dd.wait().unwrap().success(), "the raw sender failed");
            sample
        }
        _ => {
            let words = c.command(setup, out);
            let child = Command::new(&words[0])
                .args(&words[1..])
                .stdin(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("spawning {}: {e}", words[0]));
            reap(&child, &c.name, started)
        }
    };
    let written = match drained {
        Some(drained) => {
            // If the server never opened the FIFO, the drain still waits
            // in open(2): a writer that comes and goes lets it see the end.
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(out);
            let bytes = drained.join().expect("the drain panicked");
            // The run ends when the last byte is in the drive.
            sample.wall_s = started.elapsed().as_secs_f64();
            bytes
        }
        None => std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
    };
    assert_eq!(written, c.output_bytes(), "{}: the bytes written", c.name);
    if compare {
        check_contents(c, out);
    }
    std::fs::remove_file(out).expect("removing the output");
    sample
}

/// Compares the output with the input (for tar, the file in the archive).
fn check_contents(c: &Contender, out: &Path) {
    let (_, name) = split_path(&c.input);
    let same = match c.client {
        Client::Tar => {
            let mut tar = Command::new("tar")
                .arg("xOf")
                .arg(out)
                .arg(&name)
                .stdout(Stdio::piped())
                .spawn()
                .expect("spawning tar");
            let cmp = Command::new("cmp")
                .arg("-")
                .arg(&c.input)
                .stdin(tar.stdout.take().unwrap())
                .status()
                .expect("running cmp");
            tar.wait().unwrap().success() && cmp.success()
        }
        _ => Command::new("cmp")
            .arg(&c.input)
            .arg(out)
            .status()
            .expect("running cmp")
            .success(),
    };
    assert!(same, "{}: the output differs from the input", c.name);
}
