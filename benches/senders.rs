//! Many senders benchmark: N tapebuf senders at once (default 16) into
//! one tapebuf port (`-I --senders N`, each stream to its own file in
//! /dev/shm), side by side in one run with what users do without it: N
//! receivers on N ports, mbuffer's and tapebuf's. Every sender is fed
//! `dd if=/dev/zero`; every stream's file is checked for its size. Runs
//! are interleaved; medians are reported. CPU is every process's own
//! (wait4), senders and receivers, per GiB moved; rx rss is the sum of the
//! receivers' peaks.
//!
//! Two more contenders time resumed served streams: `tb 1p relay` (one
//! port, `--resume-timeout` on both ends, each sender through a relay of
//! its own) and `tb 1p cut5` (the same relays, each cutting its connection
//! 5 times at points drawn from TAPEBUF_BENCH_SEED, printed).
//!
//!     cargo bench --bench senders
//!
//! Environment: TAPEBUF_BENCH_SENDERS (default 16), TAPEBUF_BENCH_MIB
//! per sender (default 256), TAPEBUF_BENCH_RUNS (default 3),
//! TAPEBUF_BENCH_MEMORY for each receiving port (default 256M: the
//! service shares it out, -m/N per stream, and each lone receiver gets
//! -m/N too, so every contender holds the same memory), TAPEBUF_BENCH_BLOCK
//! (default 1M).

mod common;
#[allow(dead_code)]
#[path = "../tests/remote/faults/cutter.rs"]
mod cutter;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use common::{env_number, env_or, median, reap, wait_listening, Sample};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// How one contender receives: one port for all, or a port each.
#[derive(Clone, Copy, PartialEq)]
enum Contender {
    /// One tapebuf, `--senders N`, plain framed streams.
    OnePort,
    /// The same, every stream private (`--key`, TLS 1.3).
    OnePortTls,
    /// N tapebuf receivers, one per port.
    PortEach,
    /// N mbuffer receivers, one per port, mbuffer senders.
    Mbuffer,
    /// One tapebuf, plain, `--resume-timeout` on both ends, each sender
    /// through a relay of its own that cuts its connection `CUTS` times
    /// (0: the relay alone, what the cuts are measured against).
    OnePortResume { cuts: usize },
}

/// How many times each sender's connection is cut in the cut contender.
const CUTS: usize = 5;

const CONTENDERS: [(&str, Contender); 6] = [
    ("tb 1 port", Contender::OnePort),
    ("tb 1 port tls", Contender::OnePortTls),
    ("tb N ports", Contender::PortEach),
    ("mbuffer N", Contender::Mbuffer),
    ("tb 1p relay", Contender::OnePortResume { cuts: 0 }),
    ("tb 1p cut5", Contender::OnePortResume { cuts: CUTS }),
];

/// The resume window both ends of the cut contenders get.
const WINDOW: &str = "60";

struct Setup {
    senders: usize,
    mib: u64,
    block: String,
    /// Each stream's share of the memory, in MiB.
    share_mib: u64,
    memory: String,
    keys: Keys,
    /// Where the cut contender's relays cut (`cutter::cut_points`).
    seed: u64,
}

/// `tapebuf key new` pairs for the private contender.
struct Keys {
    dir: tempfile::TempDir,
    receiver_print: String,
    sender_print: String,
}

impl Keys {
    fn new() -> Keys {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let make = |name: &str| common::new_key(TAPEBUF, dir.path(), name).1;
        let receiver_print = make("vault");
        let sender_print = make("db");
        Keys {
            dir,
            receiver_print,
            sender_print,
        }
    }

    fn file(&self, name: &str) -> String {
        self.dir
            .path()
            .join(format!("{name}.key"))
            .display()
            .to_string()
    }
}

fn free_port() -> u16 {
    let probe = TcpListener::bind("127.0.0.1:0").expect("a free port");
    probe.local_addr().unwrap().port()
}

fn spawn(args: &[String]) -> Child {
    Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawning {}: {e} (is it installed?)", args[0]))
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The receivers of one contender, and the port each sender sends to.
fn receivers(s: &Setup, c: Contender, out: &Path) -> (Vec<Child>, Vec<u16>) {
    let n = s.senders.to_string();
    let share = format!("{}M", s.share_mib);
    let tool = if c == Contender::Mbuffer {
        "mbuffer"
    } else {
        TAPEBUF
    };
    let file = |name: &str| out.join(name).display().to_string();
    match c {
        Contender::OnePort | Contender::OnePortTls | Contender::OnePortResume { .. } => {
            let port = free_port();
            let listen = format!("127.0.0.1:{port}");
            let mut args = strings(&[TAPEBUF, "-q", "-I", &listen, "--senders", &n]);
            args.extend(strings(&["--streams", &n, "-s", &s.block, "-m", &s.memory]));
            args.extend(strings(&["-o", &file("{seq}.dat")]));
            if c == Contender::OnePortTls {
                let allow = format!("{}=db", s.keys.sender_print);
                args.extend(strings(&[
                    "--key",
                    &s.keys.file("vault"),
                    "--allow-key",
                    &allow,
                ]));
            } else {
                args.push("--plain".into());
            }
            if let Contender::OnePortResume { .. } = c {
                args.extend(strings(&["--resume-timeout", WINDOW]));
            }
            let child = spawn(&args);
            wait_listening(port);
            (vec![child], vec![port; s.senders])
        }
        Contender::PortEach | Contender::Mbuffer => {
            let ports: Vec<u16> = (0..s.senders).map(|_| free_port()).collect();
            let children = (ports.iter().enumerate())
                .map(|(i, port)| {
                    let listen = format!("127.0.0.1:{port}");
                    let name = file(&format!("{i}.dat"));
                    let mut args = strings(&[
                        tool, "-q", "-I", &listen, "-s", &s.block, "-m", &share, "-o", &name,
                    ]);
                    if c == Contender::PortEach {
                        args.push("--plain".into());
                    }
                    spawn(&args)
                })
                .collect();
            for port in &ports {
                wait_listening(*port);
            }
            (children, ports)
        }
    }
}

/// One sender: `dd if=/dev/zero` into the tool, to `port`.
fn sender(s: &Setup, c: Contender, port: u16) -> (Child, Child) {
    let mut dd = Command::new("dd")
        .args([
            "if=/dev/zero",
            "bs=1M",
            &format!("count={}", s.mib),
            "status=none",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawning dd");
    let tool = if c == Contender::Mbuffer {
        "mbuffer"
    } else {
        TAPEBUF
    };
    let to = format!("127.0.0.1:{port}");
    let mut args = strings(&[tool, "-q", "-O", &to, "-s", &s.block, "-m", "16M"]);
    if c == Contender::OnePortTls {
        args.extend(strings(&[
            "--key",
            &s.keys.file("db"),
            "--pin",
            &s.keys.receiver_print,
        ]));
    } else if c != Contender::Mbuffer {
        args.push("--plain".into());
    }
    if let Contender::OnePortResume { .. } = c {
        args.extend(strings(&["--resume-timeout", WINDOW]));
    }
    let child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(dd.stdout.take().unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning a sender");
    (dd, child)
}

/// One run of a contender: wall s, CPU s of every process, the sum of
/// the receivers' peak RSS in KiB.
fn measure(s: &Setup, c: Contender) -> (f64, f64, u64) {
    let out = tempfile::Builder::new()
        .prefix("tapebuf-senders-")
        .tempdir_in("/dev/shm")
        .expect("a folder in /dev/shm");
    let (rx, mut ports) = receivers(s, c, out.path());
    // The cut contenders' senders each go through a relay of their own.
    let relays: Vec<(usize, cutter::Cutter)> = match c {
        Contender::OnePortResume { cuts } => (ports.iter_mut().enumerate())
            .map(|(i, port)| {
                let to = format!("127.0.0.1:{port}").parse().unwrap();
                let span = (s.mib << 20) * 3 / 4 / cuts.max(1) as u64;
                let at = match cuts {
                    0 => Vec::new(),
                    n => cutter::cut_points(n, s.seed + i as u64, span / 2, span),
                };
                let relay = cutter::Cutter::start(to, at, cutter::Then::Pass);
                *port = relay.addr().port();
                (cuts, relay)
            })
            .collect(),
        _ => Vec::new(),
    };
    let started = Instant::now();
    let tx: Vec<(Child, Child)> = ports.iter().map(|p| sender(s, c, *p)).collect();
    let mut samples: Vec<Sample> = Vec::new();
    for (mut dd, child) in tx {
        samples.push(reap(&child, "a sender", started));
        assert!(dd.wait().unwrap().success(), "dd failed");
    }
    let rx_samples: Vec<Sample> = rx.iter().map(|r| reap(r, "a receiver", started)).collect();
    let wall = started.elapsed().as_secs_f64();
    let files: Vec<u64> = (std::fs::read_dir(out.path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .collect();
    assert_eq!(files.len(), s.senders, "a file per stream");
    assert!(
        files.iter().all(|l| *l == s.mib << 20),
        "every stream whole: {files:?}"
    );
    for (cuts, relay) in &relays {
        assert_eq!(relay.cut(), *cuts, "every cut point was reached");
    }
    let cpu = (samples.iter().chain(&rx_samples)).map(|x| x.cpu_s).sum();
    let rss = rx_samples.iter().map(|x| x.max_rss_kib).sum();
    (wall, cpu, rss)
}

fn main() {
    let senders: usize = env_number("TAPEBUF_BENCH_SENDERS", "16");
    let mib: u64 = env_number("TAPEBUF_BENCH_MIB", "256");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "3");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "256M");
    let block = env_or("TAPEBUF_BENCH_BLOCK", "1M");
    let memory_mib: u64 = memory
        .trim_end_matches('M')
        .parse()
        .expect("TAPEBUF_BENCH_MEMORY in M");
    let setup = Setup {
        senders,
        mib,
        block: block.clone(),
        share_mib: memory_mib / senders as u64,
        memory: memory.clone(),
        keys: Keys::new(),
        seed: env_number("TAPEBUF_BENCH_SEED", &clock_seed().to_string()),
    };
    let gib = (senders as u64 * mib) as f64 / 1024.0;
    println!("# {senders} senders x {mib} MiB ({gib:.2} GiB) over loopback, -s {block}, -m {memory} per receiving port ({}M a stream), {runs} runs", setup.share_mib);
    println!("# medians; cpu is every sender and receiver (wait4), per GiB moved; rx rss sums the receivers' peaks");
    println!("# tb 1p cut5: each sender's connection cut {CUTS} times by its own relay, from TAPEBUF_BENCH_SEED={} (replays it); tb 1p relay: the same relays, no cut", setup.seed);
    let mut samples: Vec<Vec<(f64, f64, u64)>> = vec![Vec::new(); CONTENDERS.len()];
    for run in 0..runs {
        for k in 0..CONTENDERS.len() {
            let i = (run + k) % CONTENDERS.len();
            samples[i].push(measure(&setup, CONTENDERS[i].1));
        }
    }
    println!(
        "{:<14} {:>8} {:>9} {:>10} {:>11} {:>11}",
        "contender", "wall s", "MB/s", "cpu s/GiB", "rx rss MiB", "wall ratio"
    );
    let walls: Vec<f64> = samples
        .iter()
        .map(|s| median(s.iter().map(|x| x.0).collect()))
        .collect();
    for (i, (name, _)) in CONTENDERS.iter().enumerate() {
        let s = &samples[i];
        let cpu = median(s.iter().map(|x| x.1).collect()) / gib;
        let rss = median(s.iter().map(|x| x.2 as f64).collect()) / 1024.0;
        println!(
            "{:<14} {:>8.3} {:>9.0} {:>10.3} {:>11.1} {:>11.2}",
            name,
            walls[i],
            gib * 1073.741824 / walls[i],
            cpu,
            rss,
            walls[3] / walls[i]
        );
    }
    println!(
        "resume: {:.3} s lost per drop of one stream (tb 1p cut5 less tb 1p relay, over {CUTS}; the {senders} streams drop at once and together)",
        (walls[5] - walls[4]) / CUTS as f64
    );
}

/// A seed from the clock, for a fresh run.
fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    now.as_secs() % 100_000
}
