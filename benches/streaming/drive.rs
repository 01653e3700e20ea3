//! The streaming benchmark's drive thread: it reads the contender's
//! stdout only while the drive model has room, advancing the model with
//! the wall clock, so the contender sees the back-pressure a drive would
//! give it; every byte is counted and hashed.
//!
//! The model is exact between offers (`DriveModel::advance` steps through
//! every speed check, dry buffer and end of a reposition on its own), so
//! what the thread's timing can distort is only when bytes are offered.
//! While the tape moves and the drive has no room, the thread naps at most
//! `NAP_S` before offering again, so a drive that checks its speed every
//! 2 ms is fed as it drains, not in lumps of several checks; bytes of a
//! held write are offered as soon as any room appears. While the pipe is
//! empty the thread blocks in read(2): nothing is there to offer, and the
//! model catches up exactly when the next bytes come.

use std::io::{ErrorKind, Read};
use std::process::ChildStdout;
use std::thread;
use std::time::{Duration, Instant};

use tapebuf::pace::drive_model::{DriveModel, DriveSpec, DriveTally};
use xxhash_rust::xxh3::Xxh3;

/// The drive thread reads nothing smaller than this unless the stream ends.
const MIN_READ_BYTES: usize = 64 * 1024;
const READ_BYTES: usize = 1 << 20;
/// The longest nap while the tape moves (a millisecond: half the fastest
/// speed check), and the shortest nap at all.
const NAP_S: f64 = 0.001;
const MIN_NAP_S: f64 = 0.0002;
/// The longest nap while the tape stands still with writes held.
const STILL_NAP_S: f64 = 0.05;

/// What the drive thread saw.
pub struct Driven {
    pub bytes: u64,
    pub digest: u64,
    pub first_byte_s: f64,
    pub eof_s: f64,
    pub tally: DriveTally,
}

/// How long to nap before the drive has room for `need` bytes: while the
/// tape moves, at most `NAP_S`; while it repositions (holding writes),
/// until it is done.
fn room_wait(model: &DriveModel, need: f64) -> Duration {
    let need = need - model.room();
    let wait_s = if model.speed() > 0.0 {
        (need / model.speed()).min(NAP_S)
    } else {
        model
            .next_event()
            .map_or(NAP_S, |t| t - model.now())
            .min(STILL_NAP_S)
    };
    Duration::from_secs_f64(wait_s.max(MIN_NAP_S))
}

/// The drive: reads the contender's output as the model takes it, with the
/// wall clock (seconds since `started`) as the model's time.
pub fn drive(mut pipe: ChildStdout, spec: DriveSpec, started: Instant) -> Result<Driven, String> {
    let mut model = DriveModel::new(spec, 0.0);
    let mut buf = vec![0u8; READ_BYTES];
    let mut hash = Xxh3::new();
    let mut bytes = 0u64;
    // Read from the pipe but not yet taken: a write(2) the drive holds.
    let mut pending = 0.0f64;
    let mut first_byte_s = None;
    let eof_s = loop {
        model.advance(started.elapsed().as_secs_f64());
        if pending > 0.0 {
            pending -= model.offer(pending);
            if pending > 0.5 {
                thread::sleep(room_wait(&model, pending.min(MIN_READ_BYTES as f64)));
                continue;
            }
            pending = 0.0;
        }
        let room = model.room();
        if room < MIN_READ_BYTES as f64 {
            thread::sleep(room_wait(&model, MIN_READ_BYTES as f64));
            continue;
        }
        let want = (room as usize).min(READ_BYTES);
        let n = match pipe.read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("reading the contender's stdout: {e}")),
        };
        let now = started.elapsed().as_secs_f64();
        if n == 0 {
            break now;
        }
        hash.update(&buf[..n]);
        bytes += n as u64;
        first_byte_s.get_or_insert(now);
        model.advance(now);
        pending = n as f64 - model.offer(n as f64);
    };
    // The rest in model time only: the run's elapsed time ends at EOF.
    model.advance(eof_s);
    let mut t = eof_s;
    while pending > 0.5 {
        t = model.next_event().unwrap_or(t + 0.01).max(t + 0.001);
        model.advance(t);
        pending -= model.offer(pending);
    }
    // Write out the rest; stop the clock when the buffer is empty, so that
    // the time standing still after the end is not counted.
    model.flush();
    while model.buffered() > 0.0 {
        t = model.next_event().unwrap_or(t + 0.01).max(t + 1e-6);
        model.advance(t);
    }
    Ok(Driven {
        bytes,
        digest: hash.digest(),
        first_byte_s: first_byte_s.unwrap_or(eof_s),
        eof_s,
        tally: model.tally().clone(),
    })
}
