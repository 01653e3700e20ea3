//! One run of a streaming contender: the contender started between the
//! producer and the drive thread, a timeout, and the checks that every
//! byte arrived unchanged; also the probe that leaves out a contender
//! that cannot run.

use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tapebuf::pace::drive_model::DriveTally;

use crate::drive::drive;
use crate::grid::Cell;
use crate::inputs::MB;
use crate::producer::produce;

/// Both pipes are enlarged to this (the default pipe-max-size), so that
/// neither side wakes for every 64 KiB; it is the same for every contender.
const PIPE_BYTES: i32 = 1 << 20;

/// A buffer under test: its name in the table and its command line.
pub struct Contender {
    pub name: &'static str,
    pub argv: Vec<String>,
}

impl Contender {
    /// Starts the contender with `extra` arguments, its stderr piped.
    pub fn spawn(&self, extra: &[String], stdin: Stdio, stdout: Stdio) -> Result<Child, String> {
        Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .args(extra)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.argv[0]))
    }
}

/// What one run measured, all of it checked.
#[derive(Clone)]
pub struct Measured {
    pub elapsed_s: f64,
    /// Seconds until the contender passed on its first byte (its start
    /// watermark); the drive stands still meanwhile.
    pub first_byte_s: f64,
    pub tally: DriveTally,
    pub bytes: u64,
}

impl Measured {
    /// "3 stops, 24.1 s (first byte 0.4 s; 12:5% ... 40:60% stop:5%; ...)": the
    /// share of the drive's time from the first byte to the end at each
    /// speed (MB/s of `speeds`), under 0.5% left out.
    pub fn describe(&self, speeds: &[f64]) -> String {
        let at_speed_s = &self.tally.seconds_at_speed;
        let stopped_s = self.tally.seconds_stopped - self.first_byte_s;
        let total: f64 = at_speed_s.iter().sum::<f64>() + stopped_s;
        let mut parts: Vec<String> = speeds
            .iter()
            .zip(at_speed_s)
            .filter(|(_, s)| **s / total >= 0.005)
            .map(|(v, s)| format!("{:.0}:{:.0}%", v / MB, 100.0 * s / total))
            .collect();
        parts.push(format!("stop:{:.0}%", 100.0 * stopped_s / total));
        format!(
            "{} stops, {:.1} s (first byte {:.1} s; {}; {} bytes, count and xxh3 ok)",
            self.tally.stops(),
            self.elapsed_s,
            self.first_byte_s,
            parts.join(" "),
            self.bytes
        )
    }
}

fn set_pipe_size(fd: RawFd) {
    // SAFETY: fcntl on a pipe we own; failure only leaves the default size.
    unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES) };
}

/// Waits for `child` until `deadline`, then kills it.
fn wait_or_kill(child: &mut Child, deadline: Instant) -> Result<ExitStatus, String> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("did not exit in time; killed".into());
            }
            Err(e) => return Err(format!("waiting for it: {e}")),
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

/// Whether the contender runs at all: with empty input it must exit 0.
pub fn probe(contender: &Contender) -> Result<(), String> {
    let mut child = contender.spawn(&[], Stdio::null(), Stdio::null())?;
    let mut stderr = child.stderr.take().expect("piped stderr");
    let status = wait_or_kill(&mut child, Instant::now() + Duration::from_secs(20))?;
    let mut text = String::new();
    let _ = stderr.read_to_string(&mut text);
    if status.success() {
        Ok(())
    } else {
        Err(format!("{status}: {}", first_line(&text)))
    }
}

/// One run of `contender` on `cell`, every byte checked.
pub fn run_once(cell: &Cell, contender: &Contender, extra: &[String]) -> Result<Measured, String> {
    let mut child = contender.spawn(extra, Stdio::piped(), Stdio::piped())?;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    set_pipe_size(stdin.as_raw_fd());
    set_pipe_size(stdout.as_raw_fd());
    let timeout = Duration::from_secs_f64(3.0 * cell.expected_s() + 30.0);

    let started = Instant::now();
    let (done_tx, done_rx) = mpsc::channel();
    thread::scope(|s| {
        let total = cell.total_bytes;
        let schedule = &cell.input.schedule;
        let producer = s.spawn(move || produce(stdin, schedule, total, started));
        let spec = cell.drive.spec.clone();
        let drive_thread = s.spawn(move || {
            let driven = drive(stdout, spec, started);
            let _ = done_tx.send(());
            driven
        });
        let stderr_thread = s.spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let timed_out = matches!(
            done_rx.recv_timeout(timeout),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        if timed_out {
            let _ = child.kill();
        }
        let driven = drive_thread.join().expect("the drive thread panicked");
        let produced = producer.join().expect("the producer thread panicked");
        let status = wait_or_kill(&mut child, Instant::now() + Duration::from_secs(30));
        let stderr_text = stderr_thread.join().expect("the stderr thread panicked");
        if timed_out {
            return Err(format!(
                "timed out after {:.0} s; killed",
                timeout.as_secs_f64()
            ));
        }
        let status = status?;
        if !status.success() {
            return Err(format!("{status}: {}", first_line(&stderr_text)));
        }
        let driven = driven?;
        let (produced_bytes, produced_digest) = produced?;
        if driven.bytes != produced_bytes || driven.digest != produced_digest {
            return Err(format!(
                "LOST DATA: produced {produced_bytes} bytes (xxh3 {produced_digest:016x}), \
                 the drive got {} (xxh3 {:016x})",
                driven.bytes, driven.digest
            ));
        }
        Ok(Measured {
            elapsed_s: driven.eof_s,
            first_byte_s: driven.first_byte_s,
            tally: driven.tally,
            bytes: driven.bytes,
        })
    })
}
