//! The streaming benchmark's drive thread: it reads the contender's
//! stdout only while the drive model has room, advancing the model with
//! the wall clock, so the contender sees the back-pressure a drive would
//! give it; every byte is counted and hashed.

use std::io::{ErrorKind, Read};
use std::process::ChildStdout;
use std::thread;
use std::time::{Duration, Instant};

use tapebuf::pace::drive_model::{DriveModel, DriveSpec, DriveTally};
use xxhash_rust::xxh3::Xxh3;

/// The drive thread reads nothing smaller than this unless the stream ends.
const MIN_READ_BYTES: usize = 64 * 1024;
const READ_BYTES: usize = 1 << 20;

/// What the drive thread saw.
pub struct Driven {
    pub bytes: u64,
    pub digest: u64,
    pub first_byte_s: f64,
    pub eof_s: f64,
    pub tally: DriveTally,
}

/// How long to sleep before the drive has room for a read again.
fn room_wait(model: &DriveModel) -> Duration {
    let need = MIN_READ_BYTES as f64 - model.room();
    let wait_s = if model.speed() > 0.0 {
        need / model.speed()
    } else {
        model.next_event().map_or(0.001, |t| t - model.now())
    };
    Duration::from_secs_f64(wait_s.clamp(0.0005, 0.05))
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
                thread::sleep(room_wait(&model));
                continue;
            }
            pending = 0.0;
        }
        let room = model.room();
        if room < MIN_READ_BYTES as f64 {
            thread::sleep(room_wait(&model));
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
