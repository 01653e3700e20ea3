//! What logical block protection costs the host (issue 49): CPU seconds
//! per GiB of 256 KiB blocks with a CRC32C or a Reed-Solomon CRC against
//! none, written through the real pipeline, volume sink and tape medium
//! from a source that writes every byte of each block as read(2) would
//! (the CRC meets the data where a real run leaves it, not cold in
//! memory) into a drive that takes every record and keeps none (st's
//! direct I/O does not touch it either), and read through
//! the real pipeline, tape reader and volume source from a drive that
//! gives the same record every time, into /dev/null. The drive's copy of
//! each record into the caller's buffer stands for the kernel's; the CRC
//! is written and read in the room the ring leaves after each block. The
//! contenders alternate, 5 rounds of each (TAPEBUF_BENCH_RUNS); CPU of
//! the whole process and of the thread that computes the CRC (the one
//! calling the drive), medians, and the extra as the median of each
//! round's difference from the run without. The `crc` rows are the CRC
//! alone over one block again and again, in cache, on one thread: the
//! floor under what either path can add, and the one figure that the two
//! pipeline threads' waiting does not blur on 2 cores.
//!
//!     TAPEBUF_BENCH_RUNS=9 cargo bench --bench lbp
//!     TAPEBUF_BENCH_GIB=1 TAPEBUF_BENCH_RUNS=3 cargo bench --bench lbp   # quicker
//!
//! In the tape lab the same costs are measured on the real st driver by
//! `tests/tapelab/lab.sh bench lbp` (docs/performance.md).

mod common;

use common::endless::Filling;
use common::median;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tapebuf::pipeline::{Params, Running};
use tapebuf::sink::{FdSink, TapeMedium, VolumeSettings, VolumeSink};
use tapebuf::source::{ReadVolumes, Source, TapeReader, VolumeSource};
use tapebuf::tape::protection::crc::crc;
use tapebuf::tape::protection::Protected;
use tapebuf::tape::scsi::pages::protection::Method;
use tapebuf::tape::{AtEnd, Drive, DriveStatus, TapeOp};
use tapebuf::volume::ChangePolicy;

const BLOCK: usize = 256 << 10;

/// A drive that takes every record and keeps none; reads give `record`,
/// `left` times, then a filemark. At every call it notes in `thread_cpu`
/// the CPU time of the thread calling it (the pipeline's writer, writing;
/// its reader, reading), the thread that also computes or checks the CRC
/// just before: what that thread cost, without the other thread's noise.
struct NullDrive {
    record: Vec<u8>,
    left: u64,
    thread_cpu: Arc<AtomicU64>,
}

/// CPU nanoseconds of the calling thread so far.
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Drive for NullDrive {
    fn write_record(&mut self, record: &[u8]) -> io::Result<usize> {
        std::hint::black_box(record.as_ptr());
        self.thread_cpu.store(thread_cpu_ns(), Relaxed);
        Ok(record.len())
    }
    fn read_record(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.thread_cpu.store(thread_cpu_ns(), Relaxed);
        if self.left == 0 {
            return Ok(0);
        }
        self.left -= 1;
        let n = self.record.len();
        if buf.len() < n {
            return Err(io::Error::from_raw_os_error(libc::ENOMEM));
        }
        buf[..n].copy_from_slice(&self.record);
        Ok(n)
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

fn drive(
    method: Option<Method>,
    record: Vec<u8>,
    left: u64,
    thread_cpu: &Arc<AtomicU64>,
) -> Box<dyn Drive> {
    let null = Box::new(NullDrive {
        record,
        left,
        thread_cpu: Arc::clone(thread_cpu),
    });
    match method {
        Some(m) => Box::new(Protected::assuming(null, m)),
        None => null,
    }
}

/// One run: CPU seconds of the whole process and of the thread that
/// computes the CRC, and wall seconds.
struct Run {
    process: f64,
    thread: f64,
    wall: Duration,
}

/// CPU seconds and wall seconds to write `blocks` blocks.
fn write(method: Option<Method>, blocks: u64) -> Run {
    let thread_cpu = Arc::new(AtomicU64::new(0));
    let sink = VolumeSink::new(
        Box::new(TapeMedium::new(drive(method, Vec::new(), 0, &thread_cpu))),
        "null",
        VolumeSettings::default(),
    );
    let params = Params {
        high_pct: Some(0),
        ..Params::ring(64, BLOCK)
    };
    let source = Filling {
        pattern: (0..BLOCK as u32).map(|i| (i * 17) as u8).collect(),
        blocks_left: blocks,
    };
    pipeline(Box::new(source), Box::new(sink), params, &thread_cpu)
}

/// Runs a pipeline from `source` to `sink` to its end, timed.
fn pipeline(
    source: Box<dyn Source>,
    sink: Box<dyn tapebuf::sink::Sink>,
    params: Params,
    thread_cpu: &AtomicU64,
) -> Run {
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let running = Running::start(source, vec![sink], params).unwrap();
    assert!(running.wait(None));
    Run {
        process: cpu_seconds() - cpu,
        thread: thread_cpu.load(Relaxed) as f64 / 1e9,
        wall: wall.elapsed(),
    }
}

/// CPU seconds and wall seconds to read and check `blocks` blocks.
fn read(method: Option<Method>, blocks: u64) -> Run {
    let thread_cpu = Arc::new(AtomicU64::new(0));
    let data: Vec<u8> = (0..BLOCK as u32).map(|i| (i * 31) as u8).collect();
    let mut record = data.clone();
    if let Some(m) = method {
        record.extend(crc(m, &data));
    }
    let plan = ReadVolumes {
        policy: ChangePolicy::default(),
        count: Some(1),
        numbered: false,
        at_end: AtEnd::Stay,
    };
    let source = VolumeSource::new(
        Box::new(TapeReader::new(drive(method, record, blocks, &thread_cpu))),
        "null",
        plan,
    );
    let null = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let sink = Box::new(FdSink::from_file(null, "/dev/null"));
    pipeline(Box::new(source), sink, Params::ring(64, BLOCK), &thread_cpu)
}

/// CPU seconds and wall seconds of the CRC alone over `blocks` blocks,
/// on this thread: the floor under what either path adds.
fn crc_only(method: Option<Method>, blocks: u64) -> Run {
    let data: Vec<u8> = (0..BLOCK as u32).map(|i| (i * 31) as u8).collect();
    let (cpu, thread, wall) = (cpu_seconds(), thread_cpu_ns(), Instant::now());
    if let Some(m) = method {
        for _ in 0..blocks {
            std::hint::black_box(crc(m, std::hint::black_box(&data)));
        }
    }
    Run {
        process: cpu_seconds() - cpu,
        thread: (thread_cpu_ns() - thread) as f64 / 1e9,
        wall: wall.elapsed(),
    }
}

fn main() {
    let setting = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let gib = setting("TAPEBUF_BENCH_GIB", 4);
    let runs = setting("TAPEBUF_BENCH_RUNS", 5) as usize;
    let blocks = gib * (1 << 30) / BLOCK as u64;
    let contenders = [None, Some(Method::Crc32c), Some(Method::ReedSolomon)];
    let name = |m: Option<Method>| m.map_or("none", Method::name);
    println!("# {gib} GiB of 256 KiB blocks; CPU s/GiB of the whole process (user+sys) and of the thread that does the CRC, medians of {runs} rounds, alternating; extra: the median of the rounds' differences in the thread's CPU");
    println!(
        "{:<6} {:<8} {:>11} {:>11} {:>8} {:>12}",
        "path", "lbp", "process s", "thread s", "GiB/s", "extra s/GiB"
    );
    for (path, run) in [
        ("crc", crc_only as fn(Option<Method>, u64) -> Run),
        ("write", write),
        ("read", read),
    ] {
        let mut process = vec![Vec::new(); contenders.len()];
        let mut thread = vec![Vec::new(); contenders.len()];
        let mut rate = vec![Vec::new(); contenders.len()];
        for _ in 0..runs {
            for (i, &m) in contenders.iter().enumerate() {
                let r = run(m, blocks);
                process[i].push(r.process / gib as f64);
                thread[i].push(r.thread / gib as f64);
                rate[i].push(gib as f64 / r.wall.as_secs_f64());
            }
        }
        for (i, &m) in contenders.iter().enumerate() {
            // The extra is the median of each round's difference from the
            // run without, which were run side by side: the machine's
            // drift over the rounds cancels out.
            let extra: Vec<f64> = (thread[i].iter().zip(&thread[0]))
                .map(|(c, none)| c - none)
                .collect();
            println!(
                "{:<6} {:<8} {:>11.4} {:>11.4} {:>8.2} {:>12.4}",
                path,
                name(m),
                median(process[i].clone()),
                median(thread[i].clone()),
                median(rate[i].clone()),
                median(extra)
            );
        }
    }
}
