//! Network benchmark: tapebuf to tapebuf over loopback TCP, side by side
//! with mbuffer to mbuffer, same block size and memory, in one run.
//!
//! `dd if=/dev/zero` feeds the sender; the receiver writes to /dev/null.
//! tapebuf runs framed in clear text (`--plain`: checked frames, trailer,
//! reply), once more with `--hash sha256` on the sender, and once private
//! (`--key`, TLS 1.3 in user space; `tb+tls`), and beside them ssh with
//! AES-128-GCM into an sshd of its own (`network/ssh.rs`). `tb+resume`
//! is the plain pair with `--resume-timeout` (acknowledgements, blocks
//! kept until then); `tb+relay` the same through a relay in this process
//! (`tests/remote/faults/cutter.rs`), and `tb+cut20` through the same
//! relay cutting the connection at 20 random points (the seed is printed,
//! TAPEBUF_BENCH_SEED replays it): the time lost per drop is the cut
//! pair's wall time less the relayed pair's, over 20. Runs are
//! interleaved so that machine noise hits every pair alike; medians and
//! ratios are reported. CPU is both ends' own (wait4), per GiB moved.
//!
//!     cargo bench --bench network
//!
//! Environment: TAPEBUF_BENCH_GIB (default 4), TAPEBUF_BENCH_RUNS
//! (default 5), TAPEBUF_BENCH_MEMORY (default 64M), TAPEBUF_BENCH_BLOCK
//! (default 1M), TAPEBUF_BENCH_SEED (default: the clock).

mod common;
#[allow(dead_code)]
#[path = "../tests/remote/faults/cutter.rs"]
mod cutter;
#[path = "network/ssh.rs"]
mod ssh;

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{
    env_number, env_or, median, reap, reap_ending, verdict, wait_listening, zero_producer, Sample,
};

const TAPEBUF: &str = env!("CARGO_BIN_EXE_tapebuf");

/// One transfer; returns wall time and both ends' CPU and peak RSS. The
/// receiver listens on `port`, the sender sends to `send_to`.
#[allow(clippy::zombie_processes)]
fn measure(
    receiver: &[String],
    sender: &[String],
    gib: u64,
    (port, send_to): (u16, u16),
) -> (Sample, Sample) {
    let fill = |args: &[String], port: u16| -> Vec<String> {
        args.iter()
            .map(|a| a.replace("PORT", &port.to_string()))
            .collect()
    };
    let (receiver, sender) = (fill(receiver, port), fill(sender, send_to));
    let rx = Command::new(&receiver[0])
        .args(&receiver[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning the receiver");
    wait_listening(port);
    let started = Instant::now();
    let mut producer = zero_producer(gib);
    let tx = Command::new(&sender[0])
        .args(&sender[1..])
        .stdin(producer.stdout.take().unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning the sender");
    let s = reap(&tx, &sender[0], started);
    let r = reap_ending(&rx, &receiver[0], started, ssh::normal_ends(&receiver[0]));
    assert!(producer.wait().unwrap().success());
    (s, r)
}

/// The receiver's and the sender's command lines.
type Commands = (Vec<String>, Vec<String>);

/// What the private pairs need, in a directory removed at the end: a
/// `tapebuf key new` key pair for each side of `tb+tls` (file, print),
/// and the ssh pair's keys and sshd configuration, or why it cannot run.
struct Fixtures {
    _dir: tempfile::TempDir,
    receiver: (String, String),
    sender: (String, String),
    ssh: Result<ssh::Ssh, String>,
}

impl Fixtures {
    fn new() -> Fixtures {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let make = |name: &str| common::new_key(TAPEBUF, dir.path(), name);
        let (receiver, sender) = (make("receiver"), make("sender"));
        let ssh = ssh::Ssh::new(dir.path());
        Fixtures {
            _dir: dir,
            receiver,
            sender,
            ssh,
        }
    }
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The pairs compared, each as the receiver's and the sender's command
/// lines: tapebuf, mbuffer, tapebuf hashing, tapebuf private, and ssh
/// when this machine has an sshd.
fn pairs(b: &str, m: &str, fx: &Fixtures) -> Vec<(&'static str, Commands)> {
    // The receiver's and the sender's command lines for one tool.
    let pair = |tool: &str, receiver_extra: &[&str], sender_extra: &[&str]| {
        let common = [tool, "-q", "-s", b, "-m", m];
        let listen = ["-I", "127.0.0.1:PORT", "-o", "/dev/null"];
        let rx = args(&[&common[..], &listen, receiver_extra].concat());
        let tx = args(&[&common[..], &["-O", "127.0.0.1:PORT"], sender_extra].concat());
        (rx, tx)
    };
    let (rx_key, tx_key) = (fx.receiver.0.as_str(), fx.sender.0.as_str());
    let allow = format!("{}=sender", fx.sender.1);
    let mut pairs = vec![
        ("tapebuf", pair(TAPEBUF, &["--plain"], &["--plain"])),
        ("mbuffer", pair("mbuffer", &[], &[])),
        (
            "tb+sha256",
            pair(TAPEBUF, &["--plain"], &["--plain", "--hash", "sha256"]),
        ),
        (
            "tb+tls",
            pair(
                TAPEBUF,
                &["--key", rx_key, "--allow-key", &allow],
                &["--key", tx_key, "--pin", &fx.receiver.1],
            ),
        ),
    ];
    if let Ok(ssh) = &fx.ssh {
        pairs.push(("ssh", ssh.commands()));
    }
    let resume = ["--plain", "--resume-timeout", "60"];
    pairs.push(("tb+resume", pair(TAPEBUF, &resume, &resume)));
    pairs.push(("tb+relay", pair(TAPEBUF, &resume, &resume)));
    pairs.push(("tb+cut20", pair(TAPEBUF, &resume, &resume)));
    pairs
}

/// Where each of 20 connections is cut, in bytes from its sender: spread
/// so that the 20 cuts fall across the first three quarters of `gib`.
fn spread(gib: u64, seed: u64) -> Vec<u64> {
    let span = (gib << 30) * 3 / 4 / 20;
    cutter::cut_points(20, seed, span / 2, span)
}

/// A pair's medians: wall s, CPU s per GiB (both ends), and the peak RSS
/// of the sender and the receiver in MiB.
type Medians = (f64, f64, f64, f64);

/// Runs every pair `runs` times, interleaved, and gives each one's medians.
fn run_all(pairs: &[(&str, Commands)], runs: usize, gib: u64, seed: u64) -> Vec<Medians> {
    let mut samples: Vec<Vec<(Sample, Sample)>> = vec![Vec::new(); pairs.len()];
    for run in 0..runs {
        for k in 0..pairs.len() {
            let i = (run + k) % pairs.len();
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            // The relayed pairs send through a relay, which cuts one 20
            // times.
            let cuts = match pairs[i].0 {
                "tb+relay" => Some(Vec::new()),
                "tb+cut20" => Some(spread(gib, seed + run as u64)),
                _ => None,
            };
            let relay = cuts.map(|cuts| {
                let to = std::net::SocketAddr::from(([127, 0, 0, 1], port));
                let n = cuts.len();
                (n, cutter::Cutter::start(to, cuts, cutter::Then::Pass))
            });
            let send_to = relay.as_ref().map_or(port, |(_, r)| r.addr().port());
            let (rx, tx) = (&pairs[i].1 .0, &pairs[i].1 .1);
            samples[i].push(measure(rx, tx, gib, (port, send_to)));
            if let Some((n, r)) = relay {
                assert_eq!(r.cut(), n, "every cut point was reached");
            }
        }
    }
    samples
        .iter()
        .map(|s| {
            let rss = |f: fn(&(Sample, Sample)) -> u64| {
                s.iter().map(f).max().unwrap_or(0) as f64 / 1024.0
            };
            (
                median(s.iter().map(|(tx, rx)| tx.wall_s.max(rx.wall_s)).collect()),
                median(s.iter().map(|(tx, rx)| tx.cpu_s + rx.cpu_s).collect()) / gib as f64,
                rss(|(tx, _)| tx.max_rss_kib),
                rss(|(_, rx)| rx.max_rss_kib),
            )
        })
        .collect()
}

/// The targets: against mbuffer (throughput and CPU), and for the private
/// pair against the plain one (0.8x its throughput) and ssh (2x).
fn print_targets(names: &[&str], medians: &[Medians]) {
    let of = |name: &str| names.iter().position(|n| *n == name).map(|i| medians[i]);
    let (Some(tb), Some(mb)) = (of("tapebuf"), of("mbuffer")) else {
        return;
    };
    println!(
        "targets: throughput >= mbuffer {} ({:.2}x mbuffer's wall), cpu/GiB <= mbuffer {} ({:.2}x)",
        verdict(tb.0 <= mb.0),
        tb.0 / mb.0,
        verdict(tb.1 <= mb.1),
        tb.1 / mb.1
    );
    if let Some(tls) = of("tb+tls") {
        let plain = tb.0 / tls.0;
        println!(
            "targets: tb+tls throughput >= 0.8x tapebuf's {} ({plain:.2}x)",
            verdict(plain >= 0.8)
        );
        if let Some(ssh) = of("ssh") {
            let over = ssh.0 / tls.0;
            println!(
                "targets: tb+tls throughput >= 2x ssh's {} ({over:.2}x)",
                verdict(over >= 2.0)
            );
        }
    }
    if let (Some(whole), Some(relayed), Some(cut)) =
        (of("tb+resume"), of("tb+relay"), of("tb+cut20"))
    {
        println!(
            "resume: {:.3} s lost per drop (tb+cut20 less tb+relay, over 20); tb+resume has {:.2}x tapebuf's throughput",
            (cut.0 - relayed.0) / 20.0,
            tb.0 / whole.0
        );
    }
}

fn main() {
    let gib: u64 = env_number("TAPEBUF_BENCH_GIB", "4");
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let memory = env_or("TAPEBUF_BENCH_MEMORY", "64M");
    let block = env_or("TAPEBUF_BENCH_BLOCK", "1M");
    let (b, m) = (block.as_str(), memory.as_str());
    let seed: u64 = std::env::var("TAPEBUF_BENCH_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(1, |d| d.as_secs())
        });
    let fixtures = Fixtures::new();
    let pairs = pairs(b, m, &fixtures);
    println!("# {gib} GiB over loopback TCP, -s {block} -m {memory}, {runs} runs per pair");
    println!("# medians; cpu is sender + receiver (wait4), per GiB moved");
    println!("# cut points from TAPEBUF_BENCH_SEED={seed} (run k adds k)");
    if let Err(why) = &fixtures.ssh {
        println!("# no ssh pair: {why}");
    }
    println!(
        "{:<10} {:>8} {:>9} {:>10} {:>10} {:>9} {:>11}",
        "pair", "wall s", "MB/s", "cpu s/GiB", "tx rss MiB", "rx rss", "wall ratio"
    );
    let medians = run_all(&pairs, runs, gib, seed);
    let tapebuf_wall = medians[0].0;
    for (i, (name, _)) in pairs.iter().enumerate() {
        let (wall, cpu, tx, rx) = medians[i];
        println!(
            "{:<10} {:>8.3} {:>9.0} {:>10.3} {:>10.1} {:>9.1} {:>11.2}",
            name,
            wall,
            (gib << 30) as f64 / wall / 1e6,
            cpu,
            tx,
            rx,
            tapebuf_wall / wall
        );
    }
    let names: Vec<&str> = pairs.iter().map(|(n, _)| *n).collect();
    print_targets(&names, &medians);
}
