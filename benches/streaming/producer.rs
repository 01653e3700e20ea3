//! The streaming benchmark's producer: deterministic pseudo-random bytes
//! written into the contender's stdin on a rate schedule. Its work clock
//! stands still while the pipe is full, as a tar that cannot write does
//! not advance.

use std::io::{ErrorKind, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::process::ChildStdin;
use std::thread;
use std::time::{Duration, Instant};

use xxhash_rust::xxh3::Xxh3;

use crate::schedule::Schedule;

/// What the producer writes at once.
const CHUNK_BYTES: usize = 256 * 1024;
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// xorshift64*: the producer's bytes, the same in every run.
struct Fill(u64);

impl Fill {
    fn next(&mut self, out: &mut [u8]) {
        for word in out.chunks_mut(8) {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let v = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
            word.copy_from_slice(&v[..word.len()]);
        }
    }
}

fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a pipe end we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
}

/// Writes all of `data`; returns the seconds spent waiting for room in the
/// pipe, the time the producer's work clock stands still.
fn write_waiting(pipe: &mut ChildStdin, mut data: &[u8]) -> Result<f64, String> {
    let mut waited_s = 0.0;
    while !data.is_empty() {
        match pipe.write(data) {
            Ok(0) => return Err("the contender's stdin took nothing".into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let t = Instant::now();
                let mut p = libc::pollfd {
                    fd: pipe.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                unsafe { libc::poll(&mut p, 1, 100) };
                waited_s += t.elapsed().as_secs_f64();
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("writing to the contender's stdin: {e}")),
        }
    }
    Ok(waited_s)
}

/// The producer: `total` bytes on `schedule`; returns their count and xxh3.
pub fn produce(
    mut pipe: ChildStdin,
    schedule: &Schedule,
    total: u64,
    started: Instant,
) -> Result<(u64, u64), String> {
    set_nonblocking(pipe.as_raw_fd());
    let mut fill = Fill(SEED);
    let mut hash = Xxh3::new();
    let mut chunk = vec![0u8; CHUNK_BYTES];
    let mut written = 0u64;
    let mut blocked_s = 0.0;
    while written < total {
        let n = CHUNK_BYTES.min((total - written) as usize);
        let work_s = started.elapsed().as_secs_f64() - blocked_s;
        let short = (written + n as u64) as f64 - schedule.due(work_s);
        if short > 0.0 {
            let wait_s = short / schedule.rate_at(work_s);
            thread::sleep(Duration::from_secs_f64(wait_s.clamp(0.0002, 0.02)));
            continue;
        }
        fill.next(&mut chunk[..n]);
        hash.update(&chunk[..n]);
        blocked_s += write_waiting(&mut pipe, &chunk[..n])?;
        written += n as u64;
    }
    Ok((written, hash.digest()))
}
