//! The long proof of resuming: 4 GiB of random bytes through a relay that
//! cuts the connection at 20 random points (the seed is printed;
//! TAPEBUF_TEST_SEED replays it). Both sides exit 0, each says it resumed
//! 20 times, the receiver committed every byte, and the digests of what
//! the sender read and what the receiver got are the same. The same with
//! 512-byte blocks, whose acknowledgements outnumber the data's frames'
//! worth of socket buffer when kept blocks are sent again.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{ports, summary_number, tapebuf};
use crate::faults::cutter::{cut_points, Cutter, Then};
use crate::faults::peer::Peer;

/// What the whole transfer may take, in a debug build on 2 busy cores.
const LONG: Duration = Duration::from_secs(600);

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `n` cut points spread over the first three quarters of `total` bytes.
fn spread(total: u64, n: u64, seed: u64) -> Vec<u64> {
    let span = total * 3 / 4 / n;
    cut_points(n as usize, seed, span / 2, span)
}

/// The digest line `xxh3: HEX` of a run's stderr.
fn digest(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("tapebuf: xxh3: ")
                .or(l.strip_prefix("xxh3: "))
        })
        .unwrap_or_else(|| panic!("no xxh3 digest in: {stderr}"))
        .to_string()
}

/// Sends `total` random bytes in blocks of `block` through a relay that
/// cuts the connection `n` times, and checks the ending.
fn cut_and_resumed(total: u64, block: &str, n: u64) {
    let seed = std::env::var("TAPEBUF_TEST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("cut points from TAPEBUF_TEST_SEED={seed}");
    let common = [
        "-s",
        block,
        "-m",
        "64M",
        "--resume-timeout",
        "10",
        "--hash",
        "xxh3",
    ];
    let receiving = [
        &common[..],
        &["-I", "127.0.0.1:0", "--plain", "-o", "/dev/null"],
    ]
    .concat();
    let mut receiver = Peer::spawn(&strings(&receiving), false);
    let said = receiver.wait_line("tapebuf: -I: listening on ", LONG);
    let port = ports::port_said(&said).expect("the receiver's port");
    let cuts = spread(total, n, seed);
    let cutter = Cutter::start(([127, 0, 0, 1], port).into(), cuts, Then::Pass);
    let mut producer = Command::new("head")
        .args(["-c", &total.to_string(), "/dev/urandom"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("head runs");
    let sender = tapebuf()
        .args(common)
        .args(["-O", &cutter.addr().to_string(), "--plain"])
        .stdin(producer.stdout.take().unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("the sender runs");
    assert!(producer.wait().unwrap().success());
    let received = receiver.exit(LONG);
    let sent = String::from_utf8_lossy(&sender.stderr);
    assert_eq!(sender.status.code(), Some(0), "{sent}");
    assert_eq!(received.code(), Some(0), "{}", received.stderr);
    assert_eq!(cutter.cut() as u64, n, "every cut point was reached");
    for stderr in [&*sent, &received.stderr] {
        assert!(stderr.contains(&format!("resumed {n} times")), "{stderr}");
    }
    assert_eq!(summary_number(&received.stderr, "out "), total);
    assert_eq!(digest(&sent), digest(&received.stderr));
}

#[test]
fn four_gib_cut_at_twenty_random_points_arrive_whole_and_both_sides_exit_0() {
    cut_and_resumed(4 << 30, "1M", 20);
}

#[test]
fn a_stream_of_512_byte_blocks_cut_five_times_arrives_whole() {
    cut_and_resumed(64 << 20, "512", 5);
}
