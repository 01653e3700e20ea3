//! The delaying remote shell: `relay HOST [-l USER] CMD...`, the link of
//! the rmt benchmark, which stands in for ssh.
//!
//! Each direction is a reader thread and a writer thread joined by a
//! bounded channel. The reader stamps every chunk with the time it may
//! arrive (now plus the delay, later under a bandwidth cap); the writer
//! sleeps until then and writes it. Chunks keep their order, so the due
//! times only grow. End of file travels on: when our standard input ends,
//! the channel closes and the writer closes the command's standard input.
//! The relay exits once the command's output has ended, every byte of it
//! has been delivered and the command has exited, with its status.
//! `round_trip_ms` measures that link as a client sees it.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, sync_channel};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::common::{env_number, env_or, median};

/// The most bytes one read takes (a pipe's default capacity).
const CHUNK_BYTES: usize = 64 << 10;
/// Chunks in flight in one direction: up to 16 MiB, about what a
/// socket buffer holds, far more than 2 ms needs at a few GB/s.
const CHUNKS_IN_FLIGHT: usize = 256;

#[derive(Clone, Copy)]
struct Link {
    delay: Duration,
    rate_bytes_per_s: Option<f64>,
}

pub fn main(args: &[String]) -> ! {
    let link = Link {
        delay: Duration::from_secs_f64(env_number::<f64>("TAPEBUF_BENCH_DELAY_MS", "1") / 1e3),
        rate_bytes_per_s: match env_or("TAPEBUF_BENCH_LINK_MBPS", "").as_str() {
            "" => None,
            mbps => Some(mbps.parse::<f64>().expect("TAPEBUF_BENCH_LINK_MBPS") * 1e6),
        },
    };
    // Ignore the host, and the user if any, as a local stand-in would.
    let mut words = args.get(1..).unwrap_or_default();
    if words.first().map(String::as_str) == Some("-l") {
        words = words.get(2..).unwrap_or_default();
    }
    assert!(!words.is_empty(), "usage: relay HOST [-l USER] COMMAND...");
    // Sleeps end on time, not up to 50 µs late (the default slack).
    // SAFETY: PR_SET_TIMERSLACK takes a number and changes only this
    // thread's timers, which the threads spawned below inherit.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(words.join(" "))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("relay: spawning sh");
    let ours = |fd: io::Result<std::os::fd::OwnedFd>| File::from(fd.expect("relay: dup"));
    let stdin = ours(io::stdin().as_fd().try_clone_to_owned());
    let stdout = ours(io::stdout().as_fd().try_clone_to_owned());
    // Errors sending to the command mean it has exited; its status says why.
    carry(stdin, child.stdin.take().unwrap(), link);
    let down = carry(child.stdout.take().unwrap(), stdout, link);
    if let Err(e) = down.join().expect("relay: the writer panicked") {
        eprintln!("relay: delivering the command's output: {e}");
        let _ = child.kill();
        std::process::exit(1);
    }
    let status = child.wait().expect("relay: waiting for the command");
    std::process::exit(status.code().unwrap_or(1));
}

/// Carries `from` to `to` after the link's delay, until `from` ends;
/// then closes `to`. Returns the writer, which fails if `to` does.
fn carry(
    mut from: impl Read + Send + 'static,
    mut to: impl Write + Send + 'static,
    link: Link,
) -> JoinHandle<io::Result<()>> {
    let (chunks, arrivals) = sync_channel::<(Instant, Vec<u8>, usize)>(CHUNKS_IN_FLIGHT);
    // Delivered chunks go back to the reader, to be filled again. They
    // keep their full length, so a short read costs no clearing.
    let (spare, spares) = channel::<Vec<u8>>();
    thread::spawn(move || {
        let mut link_free = Instant::now();
        loop {
            let mut chunk = spares.try_recv().unwrap_or_else(|_| vec![0; CHUNK_BYTES]);
            let n = match from.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    eprintln!("relay: reading: {e}");
                    break;
                }
            };
            let now = Instant::now();
            let sent = match link.rate_bytes_per_s {
                None => now,
                Some(rate) => {
                    link_free = link_free.max(now) + Duration::from_secs_f64(n as f64 / rate);
                    link_free
                }
            };
            if chunks.send((sent + link.delay, chunk, n)).is_err() {
                break; // the writer failed
            }
        }
    });
    thread::spawn(move || {
        for (due, chunk, n) in arrivals {
            let wait = due.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                thread::sleep(wait);
            }
            to.write_all(&chunk[..n])?;
            let _ = spare.send(chunk);
        }
        Ok(()) // dropping `to` closes it
    })
}

/// The round trip through the relay, as a client sees it: one byte to
/// `cat` at the far end and back, median of 20, in ms.
pub fn round_trip_ms(exe: &str) -> f64 {
    let mut relay = Command::new(exe)
        .args(["relay", "localhost", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawning the relay");
    let (mut to, mut from) = (relay.stdin.take().unwrap(), relay.stdout.take().unwrap());
    let mut times = Vec::new();
    for _ in 0..20 {
        let started = Instant::now();
        to.write_all(b"x").unwrap();
        from.read_exact(&mut [0u8]).unwrap();
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    drop(to);
    assert!(relay.wait().unwrap().success(), "the relay failed");
    median(times)
}
