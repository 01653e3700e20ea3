//! Streaming benchmark: how often a modelled tape drive stops behind each
//! buffer, in real time through real pipes.
//!
//! A producer thread writes deterministic pseudo-random bytes into the
//! contender's stdin following a rate schedule on its own work clock, which
//! stands still while the pipe is full (a tar that cannot write does not
//! advance). A drive thread reads the contender's stdout only while the
//! drive model (`tapebuf::pace::drive_model`) has room, advancing the model
//! with the wall clock, so the contender sees the back-pressure a drive
//! would give it. Every byte is counted and checksummed on both sides.
//! Every contender gets the same bytes, memory and block size; runs are
//! interleaved and medians reported.
//!
//!     cargo bench --bench streaming
//!
//! Environment: TAPEBUF_BENCH_RUNS (default 1), TAPEBUF_BENCH_STREAM_SCALE
//! (multiplies the stream sizes, default 1.0; 0.1 for a quick try). To
//! look into one result: TAPEBUF_BENCH_STREAM_SCENARIOS (comma-separated
//! keys: bursty-matching, bursty-fixed, steady-matching),
//! TAPEBUF_BENCH_STREAM_CONTENDERS (comma-separated names, as in the
//! table), TAPEBUF_BENCH_STREAM_STATS_DIR (tapebuf's runs also write
//! `--stats` and `--summary-json` files there).
//!
//! Longer than most files (about 700 lines) on purpose: a benchmark is one
//! target, and its producer, drive thread and table read best together.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{env_number, median};
use tapebuf::pace::drive_model::{DriveModel, DriveSpec, DriveTally};
use xxhash_rust::xxh3::Xxh3;

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");
const MB: f64 = 1e6;
/// What the producer writes at once.
const CHUNK_BYTES: usize = 256 * 1024;
/// The drive thread reads nothing smaller than this unless the stream ends.
const MIN_READ_BYTES: usize = 64 * 1024;
const READ_BYTES: usize = 1 << 20;
/// Both pipes are enlarged to this (the default pipe-max-size), so that
/// neither side wakes for every 64 KiB; it is the same for every contender.
const PIPE_BYTES: i32 = 1 << 20;
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// A producer: phases of (seconds of work, bytes per second), repeated.
struct Schedule {
    name: &'static str,
    phases: Vec<(f64, f64)>,
}

impl Schedule {
    fn cycle_s(&self) -> f64 {
        self.phases.iter().map(|p| p.0).sum()
    }

    fn mean_rate(&self) -> f64 {
        self.phases.iter().map(|p| p.0 * p.1).sum::<f64>() / self.cycle_s()
    }

    fn rate_at(&self, work_s: f64) -> f64 {
        let mut t = work_s % self.cycle_s();
        for &(len, rate) in &self.phases {
            if t < len {
                return rate;
            }
            t -= len;
        }
        self.phases.last().map_or(1.0, |p| p.1)
    }

    /// Bytes due after `work_s` seconds of work.
    fn due(&self, work_s: f64) -> f64 {
        let cycle = self.cycle_s();
        let cycles = (work_s / cycle).floor();
        let mut bytes = cycles * self.mean_rate() * cycle;
        let mut t = work_s - cycles * cycle;
        for &(len, rate) in &self.phases {
            let d = t.min(len);
            bytes += d * rate;
            t -= d;
        }
        bytes
    }

    fn describe(&self) -> String {
        let phases: Vec<String> = self
            .phases
            .iter()
            .map(|(s, r)| format!("{:.0} MB/s for {s:.0} s", r / MB))
            .collect();
        format!(
            "{}: {} (mean {:.0} MB/s, on the producer's work clock)",
            self.name,
            phases.join(", then "),
            self.mean_rate() / MB
        )
    }
}

struct Scenario {
    key: &'static str,
    schedule: Schedule,
    drive_name: &'static str,
    drive: DriveSpec,
    total_bytes: u64,
}

struct Contender {
    name: &'static str,
    argv: Vec<String>,
}

impl Contender {
    /// Starts the contender with `extra` arguments, its stderr piped.
    fn spawn(&self, extra: &[String], stdin: Stdio, stdout: Stdio) -> Result<Child, String> {
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
struct Measured {
    elapsed_s: f64,
    /// Seconds until the contender passed on its first byte (its start
    /// watermark); the drive stands still meanwhile.
    first_byte_s: f64,
    tally: DriveTally,
    bytes: u64,
}

/// What the drive thread saw.
struct Driven {
    bytes: u64,
    digest: u64,
    first_byte_s: f64,
    eof_s: f64,
    tally: DriveTally,
}

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

fn set_pipe_size(fd: RawFd) {
    // SAFETY: fcntl on a pipe we own; failure only leaves the default size.
    unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES) };
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
fn produce(
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
fn drive(mut pipe: ChildStdout, spec: DriveSpec, started: Instant) -> Result<Driven, String> {
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
fn probe(contender: &Contender) -> Result<(), String> {
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

/// One run of `contender` on `scenario`, every byte checked.
fn run_once(
    scenario: &Scenario,
    contender: &Contender,
    extra: &[String],
) -> Result<Measured, String> {
    let mut child = contender.spawn(extra, Stdio::piped(), Stdio::piped())?;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    set_pipe_size(stdin.as_raw_fd());
    set_pipe_size(stdout.as_raw_fd());
    let expected_s = scenario.total_bytes as f64 / scenario.schedule.mean_rate();
    let timeout = Duration::from_secs_f64(3.0 * expected_s + 30.0);

    let started = Instant::now();
    let (done_tx, done_rx) = mpsc::channel();
    thread::scope(|s| {
        let total = scenario.total_bytes;
        let schedule = &scenario.schedule;
        let producer = s.spawn(move || produce(stdin, schedule, total, started));
        let spec = scenario.drive.clone();
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

/// "40:2% 50:1% ... 120:60% stop:5%": the share of the drive's time from
/// the first byte to the last at each speed (MB/s), under 0.5% left out.
fn shares(speeds: &[f64], at_speed_s: &[f64], stopped_s: f64) -> String {
    let total: f64 = at_speed_s.iter().sum::<f64>() + stopped_s;
    let mut parts: Vec<String> = speeds
        .iter()
        .zip(at_speed_s)
        .filter(|(_, s)| **s / total >= 0.005)
        .map(|(v, s)| format!("{:.0}:{:.0}%", v / MB, 100.0 * s / total))
        .collect();
    parts.push(format!("stop:{:.0}%", 100.0 * stopped_s / total));
    parts.join(" ")
}

/// The medians of one contender's runs.
struct Row {
    stops: f64,
    elapsed_s: f64,
    at_speed_s: Vec<f64>,
    /// Standing still after the first byte.
    stopped_s: f64,
    first_byte_s: f64,
    bytes: u64,
}

fn row(runs: &[Measured]) -> Row {
    let m = |f: &dyn Fn(&Measured) -> f64| median(runs.iter().map(f).collect());
    let speeds = runs[0].tally.seconds_at_speed.len();
    Row {
        stops: m(&|r| r.tally.stops as f64),
        elapsed_s: m(&|r| r.elapsed_s),
        at_speed_s: (0..speeds)
            .map(|i| m(&|r| r.tally.seconds_at_speed[i]))
            .collect(),
        stopped_s: m(&|r| r.tally.seconds_stopped - r.first_byte_s),
        first_byte_s: m(&|r| r.first_byte_s),
        bytes: runs[0].bytes,
    }
}

fn print_table(
    scenario: &Scenario,
    contenders: &[Contender],
    results: &[Vec<Measured>],
    failures: &[Vec<String>],
) {
    let mb = scenario.total_bytes as f64 / MB;
    println!();
    println!(
        "## {} producer, {} drive, {mb:.0} MB",
        scenario.schedule.name, scenario.drive_name
    );
    println!(
        "{:<14} {:>6} {:>9} {:>9} {:>8} {:>7} {:>7} {:>7} {:>7} {:>13}  share of drive time at each speed (MB/s)",
        "contender",
        "stops",
        "stops/mb",
        "elapsed s",
        "el/mb",
        "1st B s",
        "top s",
        "slow s",
        "stop s",
        "bytes ok",
    );
    let rows: Vec<Option<Row>> = results
        .iter()
        .map(|r| (!r.is_empty()).then(|| row(r)))
        .collect();
    let mbuffer = contenders
        .iter()
        .position(|c| c.name == "mbuffer")
        .and_then(|i| rows[i].as_ref());
    let speeds = &scenario.drive.speeds;
    for (i, c) in contenders.iter().enumerate() {
        if let Some(r) = &rows[i] {
            let (stop_ratio, elapsed_ratio) = match mbuffer {
                Some(m) => (
                    if m.stops > 0.0 {
                        format!("{:.2}", r.stops / m.stops)
                    } else {
                        "-".to_string()
                    },
                    format!("{:.3}", r.elapsed_s / m.elapsed_s),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            println!(
                "{:<14} {:>6} {:>9} {:>9.1} {:>8} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>13}  {}",
                c.name,
                r.stops,
                stop_ratio,
                r.elapsed_s,
                elapsed_ratio,
                r.first_byte_s,
                r.at_speed_s.last().copied().unwrap_or(0.0),
                r.at_speed_s.first().copied().unwrap_or(0.0),
                r.stopped_s,
                r.bytes,
                shares(speeds, &r.at_speed_s, r.stopped_s)
            );
        }
        for f in &failures[i] {
            println!("{:<14} FAILED: {f}", c.name);
        }
    }
}

fn describe(spec: &DriveSpec) -> String {
    let speeds: Vec<String> = spec
        .speeds
        .iter()
        .map(|s| format!("{:.0}", s / MB))
        .collect();
    format!(
        "speeds {} MB/s; buffer {:.0} MB; stop = {:.1} s reposition{}, restart at {:.0}% buffer; \
         speed check every {:.2} s on the feed averaged over {:.1} s",
        speeds.join(","),
        spec.buffer_bytes / MB,
        spec.reposition_s,
        if spec.holds_writes_while_repositioning {
            " holding writes"
        } else {
            ""
        },
        spec.restart_fill * 100.0,
        spec.speed_check_s,
        spec.feed_window_s
    )
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn main() {
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "1");
    let scale: f64 = env_number("TAPEBUF_BENCH_STREAM_SCALE", "1.0");
    let common = ["-q", "-m", "512M", "-s", "256k", "-P", "90"];
    let with = |extra: &[&str]| {
        let mut v = vec![TAPEBUF];
        v.extend_from_slice(&common);
        v.extend_from_slice(extra);
        argv(&v)
    };
    // The drive's real range in bytes per second (parse_size's M is MiB).
    let range = format!("--pace={:.0}:{:.0}", 40.0 * MB, 120.0 * MB);
    let contenders = vec![
        Contender {
            name: "tapebuf",
            argv: with(&[]),
        },
        Contender {
            name: "tapebuf pace",
            argv: with(&["--pace"]),
        },
        Contender {
            name: "tapebuf range",
            argv: with(&[&range]),
        },
        Contender {
            name: "mbuffer",
            argv: argv(&[&["mbuffer"][..], &common[..]].concat()),
        },
    ];
    let bursty = || Schedule {
        name: "bursty tar-like",
        phases: vec![(3.0, 200.0 * MB), (6.0, 20.0 * MB)],
    };
    let steady = || Schedule {
        name: "steady",
        phases: vec![(1.0, 75.0 * MB)],
    };
    let matching = || DriveSpec::speed_matching(40.0 * MB, 120.0 * MB, 9);
    let bytes = |gb: f64| (gb * 1e9 * scale).round() as u64;
    let scenarios = vec![
        Scenario {
            key: "bursty-matching",
            schedule: bursty(),
            drive_name: "speed-matching",
            drive: matching(),
            total_bytes: bytes(8.0),
        },
        Scenario {
            key: "bursty-fixed",
            schedule: bursty(),
            drive_name: "fixed-speed",
            drive: DriveSpec::fixed_speed(120.0 * MB),
            total_bytes: bytes(4.0),
        },
        Scenario {
            key: "steady-matching",
            schedule: steady(),
            drive_name: "speed-matching",
            drive: matching(),
            total_bytes: bytes(3.0),
        },
    ];

    println!(
        "# Streaming: a tape drive's timing model behind each buffer, in real time through pipes"
    );
    println!("# reproduce: cargo bench --bench streaming   (TAPEBUF_BENCH_RUNS={runs}, TAPEBUF_BENCH_STREAM_SCALE={scale})");
    println!("# speed-matching drive: {}", describe(&matching()));
    println!(
        "# fixed-speed drive: {}",
        describe(&DriveSpec::fixed_speed(120.0 * MB))
    );
    println!("# producers (MB = 1e6 bytes): {}", bursty().describe());
    println!("#   {}", steady().describe());
    println!("# the drive thread reads only while the model has room; elapsed = start to the contender's EOF;");
    println!("# stops = the model's buffer ran dry mid-stream; medians over {runs} run(s); el/mb, stops/mb = ratio to mbuffer;");
    println!("# 1st B s = until the contender passed on its first byte (its -P fill); top s, slow s, stop s = the drive's");
    println!("# seconds at its top and slowest speed and standing still after the first byte; shares are of that same time");
    let chosen = |var: &str, name: &str| {
        let list = std::env::var(var).unwrap_or_default();
        list.trim().is_empty() || list.split(',').any(|n| n.trim() == name)
    };
    let stats_dir = std::env::var("TAPEBUF_BENCH_STREAM_STATS_DIR").ok();
    let mut available = Vec::new();
    for c in &contenders {
        println!("# {:<14} {}", c.name, c.argv.join(" "));
        if !chosen("TAPEBUF_BENCH_STREAM_CONTENDERS", c.name) {
            println!("#   not chosen (TAPEBUF_BENCH_STREAM_CONTENDERS)");
            available.push(false);
            continue;
        }
        match probe(c) {
            Ok(()) => available.push(true),
            Err(why) => {
                println!("#   UNAVAILABLE, left out: {why}");
                available.push(false);
            }
        }
    }

    let mut failed = false;
    for scenario in &scenarios {
        if !chosen("TAPEBUF_BENCH_STREAM_SCENARIOS", scenario.key) {
            continue;
        }
        let mut results: Vec<Vec<Measured>> = vec![Vec::new(); contenders.len()];
        let mut failures: Vec<Vec<String>> = vec![Vec::new(); contenders.len()];
        for run in 0..runs {
            // Rotate the order so no contender always runs first.
            for k in 0..contenders.len() {
                let i = (run + k) % contenders.len();
                if !available[i] {
                    continue;
                }
                let c = &contenders[i];
                let extra = match &stats_dir {
                    Some(dir) if c.argv[0] == TAPEBUF => {
                        let stem = format!(
                            "{dir}/{}.{}.{}",
                            scenario.key,
                            c.name.replace(' ', "-"),
                            run + 1
                        );
                        argv(&[
                            "--stats",
                            &format!("{stem}.jsonl"),
                            "--summary-json",
                            &format!("{stem}.json"),
                        ])
                    }
                    _ => Vec::new(),
                };
                match run_once(scenario, c, &extra) {
                    Ok(m) => {
                        eprintln!(
                            "# {} / {} / {}: run {}: {} stops, {:.1} s",
                            scenario.schedule.name,
                            scenario.drive_name,
                            c.name,
                            run + 1,
                            m.tally.stops,
                            m.elapsed_s
                        );
                        results[i].push(m);
                    }
                    Err(why) => {
                        eprintln!(
                            "# {} / {}: run {} FAILED: {why}",
                            scenario.schedule.name,
                            c.name,
                            run + 1
                        );
                        failures[i].push(why);
                        failed = true;
                    }
                }
            }
        }
        print_table(scenario, &contenders, &results, &failures);
    }
    let missing: Vec<&str> = contenders
        .iter()
        .zip(&available)
        .filter(|(_, a)| !**a)
        .map(|(c, _)| c.name)
        .collect();
    if !missing.is_empty() {
        println!();
        println!("# not run: {}", missing.join(", "));
    }
    assert!(
        !failed,
        "a contender lost bytes, exited non-zero or hung (see FAILED above)"
    );
}
