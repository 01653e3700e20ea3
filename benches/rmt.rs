//! rmt benchmark: writing to an rmt server through a link with a round
//! trip of a few milliseconds. tapebuf's pipelined client runs side by
//! side with its own lock-step mode (`--rmt-window 1`), with GNU tar's rmt
//! client (`tar cf HOST:PATH -b 20`, lock-step with 10 KiB records) and
//! with the raw stream through the same link, the ceiling: `dd | relay`, and
//! `tapebuf -o - | relay`, which has the buffer's cost and not the
//! protocol's, so the two raw contenders tell those costs apart.
//!
//! The link is this binary. Run as `rmt relay HOST [-l USER] CMD...`, it
//! stands in for ssh: it runs `sh -c CMD` here and passes bytes both ways,
//! each after a one-way delay, like a link with latency (and, if asked, a
//! bandwidth cap). The server is GNU rmt (/usr/sbin/rmt). By default it
//! writes to a FIFO that a thread of this benchmark drains and counts,
//! which takes each write with one copy and keeps nothing, as a drive
//! does; on a file, the page cache that fills behind the writes makes the
//! runs on this VM alternate between fast and slow (its memory is handed
//! back to the host as it is freed, and taken back slowly). The inputs are
//! pseudo-random and in RAM (/dev/shm). Before the timed runs, each
//! contender writes once to a file that is checked byte for byte; every
//! timed run is checked for its byte count, so a broken run cannot look
//! fast.
//!
//! A lock-step client moves one block per round trip (tar would need
//! minutes for 1 GiB), so tar and lock-step tapebuf write a smaller file
//! and all contenders are compared by throughput, not wall time. Runs are
//! interleaved so that machine noise hits every contender alike; medians
//! and ratios are reported.
//!
//!     cargo bench --bench rmt
//!
//! Environment: TAPEBUF_BENCH_DELAY_MS (one way; default 1, a 2 ms round
//! trip), TAPEBUF_BENCH_MIB (default 1024), TAPEBUF_BENCH_SLOW_MIB (the
//! lock-step contenders' size, default 64), TAPEBUF_BENCH_RUNS (default 3),
//! TAPEBUF_BENCH_BLOCK (default 256k), TAPEBUF_BENCH_MEMORY (default 64M),
//! TAPEBUF_BENCH_WINDOW (--rmt-window for the first contender; default: it
//! adapts), TAPEBUF_BENCH_LINK_MBPS (a bandwidth cap on the link; default
//! none), TAPEBUF_BENCH_OUT (where the server writes: `drive`, the
//! default, the drained FIFO; `disk`, a file under /tmp; `ram`, a file on
//! /dev/shm).
//!
//! Besides the table, it prints the relay's round trip as a client sees
//! it (one byte there and back) and the time per request of the lock-step
//! contenders, which should be that round trip plus a little.

mod common;

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use common::{env_number, env_or, median, reap, verdict, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");
/// The real server, GNU tar's rmt.
const RMT_SERVER: &str = "/usr/sbin/rmt";
/// tar's record with `-b 20`.
const TAR_RECORD_BYTES: u64 = 20 * 512;

/// What writes the stream to the far end.
enum Client {
    /// tapebuf, with these arguments besides the common ones.
    Tapebuf(Vec<String>),
    /// GNU tar's own rmt client, `-b 20`.
    Tar,
    /// No rmt at all: `dd | relay HOST 'cat > OUT'`, or with tapebuf
    /// writing to its standard output in place of dd.
    Raw(Sender),
}

/// What feeds the raw stream.
#[derive(Clone, Copy)]
enum Sender {
    /// dd, with the same block size: the stream with no buffer at all.
    Dd,
    /// tapebuf with the same ring, to its standard output: the stream with
    /// the buffer's own cost and none of the protocol's.
    Tapebuf,
}

struct Contender {
    name: String,
    client: Client,
    input: PathBuf,
    input_bytes: u64,
}

/// What every run shares.
struct Setup {
    /// This binary, which is also the relay.
    exe: String,
    /// A one-word remote shell for tar, which execs the relay.
    tar_rsh: PathBuf,
    memory: String,
    block: String,
}

impl Contender {
    /// The bytes the server must have written.
    fn output_bytes(&self) -> u64 {
        match self.client {
            // A header block, the data padded to 512, two zero blocks, all
            // padded to whole records.
            Client::Tar => (512 + self.input_bytes.next_multiple_of(512) + 1024)
                .next_multiple_of(TAR_RECORD_BYTES),
            _ => self.input_bytes,
        }
    }

    /// The command line that writes `out`, as a shell would read it.
    fn shown(&self, setup: &Setup, out: &Path) -> String {
        let quote = |words: &[String]| -> String {
            let quoted: Vec<String> = words
                .iter()
                .map(|w| {
                    if w.contains(|c: char| c.is_whitespace() || "'>|;&$".contains(c)) {
                        format!("'{w}'")
                    } else {
                        w.clone()
                    }
                })
                .collect();
            quoted.join(" ")
        };
        match self.client {
            Client::Raw(sender) => {
                let (dd, relay) = self.raw_commands(sender, setup, out);
                format!("{} | {}", quote(&dd), quote(&relay))
            }
            _ => quote(&self.command(setup, out)),
        }
    }

    /// The command line that writes `out` (not for the raw stream, which
    /// is two: see `raw_commands`).
    fn command(&self, setup: &Setup, out: &Path) -> Vec<String> {
        let input = self.input.display().to_string();
        let remote = format!("localhost:{}", out.display());
        match &self.client {
            Client::Tapebuf(extra) => {
                let common = [
                    TAPEBUF,
                    "-q",
                    "-f",
                    "-i",
                    &input,
                    "-o",
                    &remote,
                    "-m",
                    &setup.memory,
                    "--rsh-command",
                    &format!("{} relay", setup.exe),
                    "--rmt-command",
                    RMT_SERVER,
                ];
                common
                    .iter()
                    .map(|s| s.to_string())
                    .chain(extra.clone())
                    .collect()
            }
            Client::Tar => {
                let (dir, name) = split_path(&self.input);
                [
                    "tar",
                    "cf",
                    &remote,
                    &format!("--rsh-command={}", setup.tar_rsh.display()),
                    &format!("--rmt-command={RMT_SERVER}"),
                    "-b",
                    "20",
                    "-C",
                    &dir,
                    &name,
                ]
                .iter()
                .map(|s| s.to_string())
                .collect()
            }
            Client::Raw(_) => unreachable!("the raw stream is two commands"),
        }
    }

    /// For the raw stream: the sender's and the relay's command lines.
    fn raw_commands(
        &self,
        sender: Sender,
        setup: &Setup,
        out: &Path,
    ) -> (Vec<String>, Vec<String>) {
        let input = self.input.display().to_string();
        let words: &[&str] = match sender {
            Sender::Dd => &[
                "dd",
                &format!("if={input}"),
                &format!("bs={}", setup.block),
                "status=none",
            ],
            Sender::Tapebuf => &[
                TAPEBUF,
                "-q",
                "-i",
                &input,
                "-m",
                &setup.memory,
                "-s",
                &setup.block,
            ],
        };
        let dd = words.iter().map(|w| w.to_string()).collect();
        let relay = vec![
            setup.exe.clone(),
            "relay".to_string(),
            "localhost".to_string(),
            format!("cat > {}", out.display()),
        ];
        (dd, relay)
    }
}

fn split_path(path: &Path) -> (String, String) {
    let dir = path.parent().unwrap().display().to_string();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (dir, name)
}

/// Where the server writes.
#[derive(Clone, Copy, PartialEq)]
enum Output {
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
    fn parse(word: &str) -> Output {
        match word {
            "drive" => Output::Drive,
            "disk" => Output::Disk,
            "ram" => Output::Ram,
            other => panic!("TAPEBUF_BENCH_OUT is drive, disk or ram, not {other}"),
        }
    }

    fn describe(self) -> &'static str {
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
fn measure(setup: &Setup, c: &Contender, out: &Path, output: Output, compare: bool) -> Sample {
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

/// Writes `bytes` of pseudo-random data (xorshift64*, the same stream for
/// every file, so a smaller file is a prefix of a larger one).
fn write_input(path: &Path, bytes: u64) {
    let mut file = BufWriter::with_capacity(1 << 20, File::create(path).expect("creating input"));
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut block = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        for word in block.chunks_exact_mut(8) {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            word.copy_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
        }
        let n = left.min(block.len() as u64) as usize;
        file.write_all(&block[..n]).expect("writing input");
        left -= n as u64;
    }
    file.flush().expect("writing input");
}

/// The round trip through the relay, as a client sees it: one byte to
/// `cat` at the far end and back, median of 20, in ms.
fn round_trip_ms(exe: &str) -> f64 {
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

/// A temporary directory in `parent`, removed when it is dropped and
/// also on a panic: benchmarks abort on panic (the release profile), which
/// would leave a gigabyte or more behind.
fn scratch_dir(parent: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("tapebuf-rmt-bench.")
        .tempdir_in(parent)
        .unwrap_or_else(|e| panic!("creating a temporary directory in {parent}: {e}"));
    let scratch = dir.path().to_path_buf();
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = std::fs::remove_dir_all(&scratch);
        report(info);
    }));
    dir
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("relay") {
        relay::main(&args[2..]);
    }
    // Otherwise cargo bench passes `--bench`, which changes nothing here.
    bench();
}

fn bench() {
    let delay_ms: f64 = env_number("TAPEBUF_BENCH_DELAY_MS", "1");
    let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "1024");
    let slow_mib: u64 = env_number("TAPEBUF_BENCH_SLOW_MIB", "64");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "3");
    let block = env_or("TAPEBUF_BENCH_BLOCK", "256k");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
    let window = env_or("TAPEBUF_BENCH_WINDOW", "");
    let link_mbps = env_or("TAPEBUF_BENCH_LINK_MBPS", "");
    let output = Output::parse(&env_or("TAPEBUF_BENCH_OUT", "drive"));
    let block_bytes = tapebuf::base::size::parse_size(&block).expect("TAPEBUF_BENCH_BLOCK");
    assert!(
        Path::new(RMT_SERVER).exists(),
        "{RMT_SERVER} is missing (Debian: apt-get install tar)"
    );

    let exe = std::env::current_exe().unwrap().display().to_string();
    // tapebuf splits --rsh-command into words on white space.
    assert!(
        !exe.contains(char::is_whitespace),
        "the benchmark's path has a space in it: {exe}"
    );
    let dir = scratch_dir("/tmp");
    let tar_rsh = dir.path().join("rsh");
    std::fs::write(&tar_rsh, format!("#!/bin/sh\nexec '{exe}' relay \"$@\"\n")).unwrap();
    std::fs::set_permissions(
        &tar_rsh,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    // The inputs are in RAM, on /dev/shm, where nothing can evict them
    // (tmpfs, and no swap here). Read from the page cache instead, parts
    // of them went back to disk between runs (this VM reclaims cold page
    // cache with DAMON), and every contender read at a different speed.
    let shm = scratch_dir("/dev/shm");
    let (full, slow) = (shm.path().join("full.bin"), shm.path().join("slow.bin"));
    write_input(&full, mib << 20);
    write_input(&slow, slow_mib << 20);
    let out = match output {
        Output::Drive => dir.path().join("out.fifo"),
        Output::Disk => dir.path().join("out"),
        Output::Ram => shm.path().join("out"),
    };
    // Each contender's first run writes a file on disk, which is checked
    // byte for byte and not timed.
    let checked = dir.path().join("checked");
    let setup = Setup {
        exe: exe.clone(),
        tar_rsh,
        memory: memory.clone(),
        block: block.clone(),
    };

    let mut pipelined = vec!["-s".to_string(), block.clone()];
    let mut name = "tapebuf".to_string();
    if !window.is_empty() {
        pipelined.extend(["--rmt-window".to_string(), window.clone()]);
        name = format!("tapebuf w{window}");
    }
    let tapebuf = |name: &str, args: &[String], input: &Path, mib: u64| Contender {
        name: name.to_string(),
        client: Client::Tapebuf(args.to_vec()),
        input: input.to_path_buf(),
        input_bytes: mib << 20,
    };
    let contenders = vec![
        tapebuf(&name, &pipelined, &full, mib),
        tapebuf("tb -s 10k", &["-s".into(), "10k".into()], &full, mib),
        tapebuf(
            "lock-step",
            &[
                "-s".into(),
                block.clone(),
                "--rmt-window".into(),
                "1".into(),
            ],
            &slow,
            slow_mib,
        ),
        Contender {
            name: "tar -b 20".into(),
            client: Client::Tar,
            input: slow.clone(),
            input_bytes: slow_mib << 20,
        },
        Contender {
            name: "raw relay".into(),
            client: Client::Raw(Sender::Dd),
            input: full.clone(),
            input_bytes: mib << 20,
        },
        Contender {
            name: "raw tapebuf".into(),
            client: Client::Raw(Sender::Tapebuf),
            input: full.clone(),
            input_bytes: mib << 20,
        },
    ];
    let (tb, lock_step, tar, raw, raw_tapebuf) = (0, 2, 3, 4, 5);

    let measured_rtt_ms = round_trip_ms(&exe);
    let cap = if link_mbps.is_empty() {
        "no bandwidth cap".to_string()
    } else {
        format!("capped at {link_mbps} MB/s")
    };
    println!(
        "# rmt to {RMT_SERVER} through a relay delaying each direction {delay_ms} ms \
         ({} ms round trip set, {measured_rtt_ms:.2} ms measured), {cap}",
        2.0 * delay_ms
    );
    println!(
        "# {mib} MiB for the pipelined and raw contenders, {slow_mib} MiB for the lock-step \
         ones (one block per round trip): compare MB/s, not wall time"
    );
    println!(
        "# medians of {runs} interleaved runs after one checked run each; the output goes to {}",
        output.describe()
    );
    for c in &contenders {
        println!("#   {:<10} {}", c.name, c.shown(&setup, &out));
    }

    for c in &contenders {
        measure(&setup, c, &checked, Output::Disk, true);
    }
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); contenders.len()];
    for run in 0..runs {
        for k in 0..contenders.len() {
            let i = (run + k) % contenders.len();
            let sample = measure(&setup, &contenders[i], &out, output, false);
            walls[i].push(sample.wall_s);
        }
    }
    // MB/s of every run, then the median; the spread shows the noise.
    let rates: Vec<Vec<f64>> = contenders
        .iter()
        .zip(&walls)
        .map(|(c, w)| w.iter().map(|w| c.input_bytes as f64 / w / 1e6).collect())
        .collect();
    let wall: Vec<f64> = walls.into_iter().map(median).collect();
    let rate: Vec<f64> = contenders
        .iter()
        .zip(&wall)
        .map(|(c, w)| c.input_bytes as f64 / w / 1e6)
        .collect();

    println!(
        "{:<11} {:>5} {:>8} {:>8} {:>15} {:>11}",
        "contender", "MiB", "wall s", "MB/s", "runs' MB/s", "tapebuf is"
    );
    for (i, c) in contenders.iter().enumerate() {
        let low = rates[i].iter().copied().fold(f64::INFINITY, f64::min);
        let high = rates[i].iter().copied().fold(0.0, f64::max);
        println!(
            "{:<11} {:>5} {:>8.3} {:>8.1} {:>15} {:>10.2}x",
            c.name,
            c.input_bytes >> 20,
            wall[i],
            rate[i],
            format!("{low:.1}-{high:.1}"),
            rate[tb] / rate[i]
        );
    }
    let blocks = (slow_mib << 20).div_ceil(block_bytes);
    let records = contenders[tar].output_bytes() / TAR_RECORD_BYTES;
    println!(
        "per request in lock-step: {:.2} ms for {block} (tapebuf), {:.2} ms for 10k (tar); \
         round trip {measured_rtt_ms:.2} ms",
        wall[lock_step] / blocks as f64 * 1e3,
        wall[tar] / records as f64 * 1e3,
    );
    let at = if delay_ms == 1.0 {
        String::new()
    } else {
        format!(
            " (measured at {} ms; the target is for 2 ms)",
            2.0 * delay_ms
        )
    };
    println!(
        "target: tapebuf >= 10x tar at 2 ms RTT: {} ({:.1}x){at}",
        verdict(rate[tb] >= 10.0 * rate[tar]),
        rate[tb] / rate[tar]
    );
    println!(
        "target: tapebuf >= 80% of the raw relay: {} ({:.0}%)",
        verdict(rate[tb] >= 0.8 * rate[raw]),
        100.0 * rate[tb] / rate[raw]
    );
    println!(
        "the protocol's own cost: tapebuf over rmt moves {:.0}% of what tapebuf moves as a raw \
         stream through the same relay",
        100.0 * rate[tb] / rate[raw_tapebuf]
    );
    println!(
        "reproduce: TAPEBUF_BENCH_DELAY_MS={delay_ms} TAPEBUF_BENCH_MIB={mib} \
         TAPEBUF_BENCH_SLOW_MIB={slow_mib} TAPEBUF_BENCH_RUNS={runs} TAPEBUF_BENCH_BLOCK={block} \
         TAPEBUF_BENCH_MEMORY={memory}{}{}{} cargo bench --bench rmt",
        if window.is_empty() {
            String::new()
        } else {
            format!(" TAPEBUF_BENCH_WINDOW={window}")
        },
        if link_mbps.is_empty() {
            String::new()
        } else {
            format!(" TAPEBUF_BENCH_LINK_MBPS={link_mbps}")
        },
        match output {
            Output::Drive => "",
            Output::Disk => " TAPEBUF_BENCH_OUT=disk",
            Output::Ram => " TAPEBUF_BENCH_OUT=ram",
        },
    );
}

/// The delaying remote shell: `relay HOST [-l USER] CMD...`.
///
/// Each direction is a reader thread and a writer thread joined by a
/// bounded channel. The reader stamps every chunk with the time it may
/// arrive (now plus the delay, later under a bandwidth cap); the writer
/// sleeps until then and writes it. Chunks keep their order, so the due
/// times only grow. End of file travels on: when our standard input ends,
/// the channel closes and the writer closes the command's standard input.
/// The relay exits once the command's output has ended, every byte of it
/// has been delivered and the command has exited, with its status.
mod relay {
    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::os::fd::AsFd;
    use std::process::{Command, Stdio};
    use std::sync::mpsc::{channel, sync_channel};
    use std::thread::{self, JoinHandle};
    use std::time::{Duration, Instant};

    use super::common::{env_number, env_or};

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
}
