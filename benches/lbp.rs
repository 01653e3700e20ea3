//! What logical block protection costs the host (issue 49): CPU seconds
//! per GiB of 256 KiB blocks with a CRC32C or a Reed-Solomon CRC against
//! none, written through the real pipeline, volume sink and tape medium
//! into a drive that takes every record and keeps none, and read back
//! through the protected drive's check (one copy out of its buffer). The
//! contenders alternate, 3 runs each; medians.
//!
//!     cargo bench --bench lbp
//!     TAPEBUF_BENCH_GIB=1 cargo bench --bench lbp     # a quicker run
//!
//! In the tape lab the same costs are measured on the real st driver by
//! `tests/tapelab/lab.sh bench lbp` (docs/performance.md).

mod common;

use common::endless::Endless;
use common::median;
use std::io;
use std::time::{Duration, Instant};

use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::tape::protection::crc::crc;
use tapebuf::tape::protection::Protected;
use tapebuf::tape::scsi::pages::protection::Method;
use tapebuf::tape::{Drive, DriveStatus, TapeOp};

const BLOCK: usize = 256 << 10;

/// A drive that takes every record and keeps none; reads give `record`.
struct NullDrive {
    record: Vec<u8>,
}

impl Drive for NullDrive {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        std::hint::black_box(record.as_ptr());
        Ok(record.len())
    }
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf[..self.record.len()].copy_from_slice(&self.record);
        Ok(self.record.len())
    }
    fn op(&mut self, _op: TapeOp) -> io::Result<()> {
        Ok(())
    }
    fn status(&mut self) -> io::Result<DriveStatus> {
        Ok(DriveStatus {
            online: true,
            ..DriveStatus::default()
        })
    }
    fn close(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn reopen(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn name(&self) -> &str {
        "null"
    }
}

/// User and system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(usage.ru_utime) + s(usage.ru_stime)
}

fn drive(method: Option<Method>) -> Box<dyn Drive> {
    let null = Box::new(NullDrive { record: Vec::new() });
    match method {
        Some(m) => Box::new(Protected::assuming(null, m)),
        None => null,
    }
}

/// CPU seconds and wall seconds to write `blocks` blocks.
fn write(method: Option<Method>, blocks: u64) -> (f64, Duration) {
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(drive(method))),
        "null",
        VolumeSettings::default(),
    );
    let params = Params {
        high_pct: Some(0),
        ..Params::ring(64, BLOCK)
    };
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let running = Running::start(
        Box::new(Endless {
            blocks_left: blocks,
        }),
        vec![Box::new(sink)],
        params,
    )
    .unwrap();
    assert!(running.wait(None));
    (cpu_seconds() - cpu, wall.elapsed())
}

/// CPU seconds and wall seconds to read and check `blocks` blocks.
fn read(method: Option<Method>, blocks: u64) -> (f64, Duration) {
    let data: Vec<u8> = (0..BLOCK as u32).map(|i| (i * 31) as u8).collect();
    let mut record = data.clone();
    if let Some(m) = method {
        record.extend(crc(m, &data));
    }
    let null = Box::new(NullDrive { record });
    let mut d: Box<dyn Drive> = match method {
        Some(m) => Box::new(Protected::assuming(null, m)),
        None => null,
    };
    let mut buf = vec![0u8; BLOCK];
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    for _ in 0..blocks {
        let n = d.read_record(&mut buf).unwrap();
        std::hint::black_box(&buf[..n]);
    }
    (cpu_seconds() - cpu, wall.elapsed())
}

fn main() {
    let gib: u64 = std::env::var("TAPEBUF_BENCH_GIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let blocks = gib * (1 << 30) / BLOCK as u64;
    let contenders = [None, Some(Method::Crc32c), Some(Method::ReedSolomon)];
    let name = |m: Option<Method>| m.map_or("none", Method::name);
    println!("# {gib} GiB of 256 KiB blocks; CPU s/GiB (user+sys, whole process), medians of 3, alternating");
    println!(
        "{:<6} {:<8} {:>10} {:>10} {:>12}",
        "path", "lbp", "cpu s/GiB", "GiB/s", "extra s/GiB"
    );
    for (path, run) in [
        ("write", write as fn(Option<Method>, u64) -> (f64, Duration)),
        ("read", read),
    ] {
        let mut cpu = vec![Vec::new(); contenders.len()];
        let mut rate = vec![Vec::new(); contenders.len()];
        for _ in 0..3 {
            for (i, &m) in contenders.iter().enumerate() {
                let (c, w) = run(m, blocks);
                cpu[i].push(c / gib as f64);
                rate[i].push(gib as f64 / w.as_secs_f64());
            }
        }
        let base = median(cpu[0].clone());
        for (i, &m) in contenders.iter().enumerate() {
            let c = median(cpu[i].clone());
            println!(
                "{:<6} {:<8} {:>10.4} {:>10.2} {:>12.4}",
                path,
                name(m),
                c,
                median(rate[i].clone()),
                c - base
            );
        }
    }
}
