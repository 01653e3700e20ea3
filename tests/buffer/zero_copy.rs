//! The zero-copy ring as a user meets it: which endpoints get it, what the
//! summary says, the fallbacks and their reasons, the kernel's limits for
//! root and for an ordinary user, and byte-exact output on every kind of
//! endpoint it serves (pipes, sockets, files, several outputs by tee).

use crate::common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

fn as_nobody() -> Command {
    needs::root("setpriv drops to nobody, whose pipe memory the kernel limits");
    needs::tool("setpriv", "util-linux");
    let mut cmd = crate::common::command("setpriv");
    cmd.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=-all",
        BIN,
        "--verbose",
    ]);
    cmd
}

/// Runs tapebuf with `--verbose`, whose summary names the ring and why.
fn run(args: &[&str], input: Vec<u8>) -> Outcome {
    common::run(&[&["--verbose"], args].concat(), input)
}

#[test]
fn a_pipe_to_a_pipe_runs_zero_copy_and_the_summary_says_how_much_pipe_memory() {
    let input = pattern(3 << 20, 1);
    let out = run(&["-s", "64k", "-m", "1M"], input.clone());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    let line = summary_line(&out.stderr);
    assert!(
        line.contains("; zero-copy ring: 16 pipes, 1.00 MiB of kernel pipe memory, peak "),
        "{line}"
    );
    assert_eq!(summary_number(&out.stderr, "out "), input.len() as u64);
}

#[test]
fn files_in_and_out_run_zero_copy_byte_exact() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("in"), dir.path().join("out"));
    let input = pattern((5 << 20) + 12345, 2);
    std::fs::write(&src, &input).unwrap();
    let out = run(
        &[
            "--zero-copy=on",
            "-s",
            "256k",
            "-m",
            "2M",
            "-i",
            src.to_str().unwrap(),
            "-o",
            dst.to_str().unwrap(),
        ],
        vec![],
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256_file(&dst), sha256(&input));
    assert!(
        summary_line(&out.stderr).contains("; zero-copy ring: 8 pipes"),
        "{}",
        out.stderr
    );
}

#[test]
fn several_outputs_each_get_every_byte_through_tee() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let input = pattern(4 << 20, 3);
    let out = run_with(
        &[
            "--verbose",
            "--zero-copy=on",
            "-s",
            "16k",
            "-b",
            "6",
            "-o",
            a.to_str().unwrap(),
            "-o",
            b.to_str().unwrap(),
            "-o",
            "-",
        ],
        input.clone(),
        Feed::Fast,
        Drain::Slow {
            chunk: 50_000,
            pause: Duration::from_millis(1),
        },
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let want = sha256(&input);
    assert_eq!(sha256_file(&a), want);
    assert_eq!(sha256_file(&b), want);
    assert_eq!(sha256(&out.stdout), want);
    // Six blocks, and one pipe for each of the three outputs to tee into.
    assert!(
        summary_line(&out.stderr).contains("; zero-copy ring: 9 pipes"),
        "{}",
        out.stderr
    );
}

#[test]
fn sockets_as_input_and_output_splice_byte_exact() {
    let (mut feed, stdin) = UnixStream::pair().unwrap();
    let (stdout, mut drain) = UnixStream::pair().unwrap();
    let mut child = crate::common::command(BIN)
        .args(["--verbose", "--zero-copy=on", "-s", "64k", "-b", "4"])
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(stdin)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(stdout)))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = pattern(2 << 20, 4);
    let sent = input.clone();
    let feeder = std::thread::spawn(move || {
        feed.write_all(&sent).unwrap();
        feed.shutdown(std::net::Shutdown::Write).unwrap();
    });
    let mut got = Vec::new();
    drain.read_to_end(&mut got).unwrap();
    let (status, stderr) = finish(&mut child);
    feeder.join().unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(sha256(&got), sha256(&input));
    assert!(
        summary_line(&stderr).contains("; zero-copy ring: 4 pipes"),
        "{stderr}"
    );
}

#[test]
fn a_trickle_of_small_pieces_arrives_exactly_though_blocks_end_at_the_pipe_slots() {
    // 300-byte pieces, each spliced before the next: a 16 KiB block's pipe
    // has 4 slots, so blocks end after a few pieces, not at 16 KiB.
    let input = pattern(60_000, 5);
    let out = run_with(
        &["--zero-copy=on", "-s", "16k", "-b", "4"],
        input.clone(),
        Feed::Slow {
            chunk: 300,
            pause: Duration::from_micros(200),
        },
        Drain::Fast,
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    assert_eq!(summary_number(&out.stderr, "out "), input.len() as u64);
}

#[test]
fn an_output_opened_for_appending_falls_back_and_says_why_and_on_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    std::fs::write(&log, b"before\n").unwrap();
    let path = log.to_str().unwrap();
    let out = run(
        &["--append", "-s", "64k", "-b", "4", "-o", path],
        b"after\n".to_vec(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(std::fs::read(&log).unwrap(), b"before\nafter\n");
    assert!(
        summary_line(&out.stderr).ends_with(&format!(
            "; copying ring, because -o {path} is open for appending, which splice(2) refuses"
        )),
        "{}",
        out.stderr
    );
    let out = run(
        &[
            "--zero-copy=on",
            "--append",
            "-s",
            "64k",
            "-b",
            "4",
            "-o",
            path,
        ],
        b"more\n".to_vec(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "tapebuf: --zero-copy=on: -o {path} is open for appending, which splice(2) refuses"
        )
    );
    assert_eq!(
        std::fs::read(&log).unwrap(),
        b"before\nafter\n",
        "nothing was written"
    );
}

#[test]
fn zero_copy_on_with_a_flag_that_reads_the_bytes_is_a_usage_error() {
    for (flag, why) in [
        (vec!["--hash", "sha256"], "--hash reads every byte"),
        (vec!["--pad"], "--pad writes zeros after the last byte"),
    ] {
        let mut args = vec!["--zero-copy=on"];
        args.extend(flag);
        let out = run(&args, b"x".to_vec());
        assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
        assert_eq!(
            out.stderr.trim_end(),
            format!("tapebuf: --zero-copy=on: {why}, so the bytes must pass through tapebuf")
        );
    }
}

#[test]
fn a_hash_keeps_the_copying_ring_and_the_digest_covers_every_byte() {
    let input = pattern(1 << 20, 6);
    let out = run(&["--hash", "sha256", "-s", "64k", "-b", "4"], input.clone());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&input));
    assert!(
        out.stderr.contains(&format!("sha256: {}", sha256(&input))),
        "{}",
        out.stderr
    );
    assert!(summary_line(&out.stderr).ends_with("; copying ring, because --hash reads every byte"));
}

#[test]
fn a_file_of_proc_and_an_odd_block_size_keep_the_copying_ring_with_their_reasons() {
    let out = run(&["-s", "64k", "-b", "4", "-i", "/proc/self/status"], vec![]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert!(
        summary_line(&out.stderr).ends_with(
            "; copying ring, because -i /proc/self/status is a file of /proc or /sys, which splice(2) does not serve"
        ),
        "{}",
        out.stderr
    );
    let out = run(&["-s", "96k", "-b", "4"], pattern(300_000, 7));
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert!(summary_line(&out.stderr).contains(
        "; copying ring, because a block of 98304 bytes (-s) is not a power of two pages"
    ));
    let out = run(&["--zero-copy=on", "-s", "96k", "-b", "4"], pattern(10, 7));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert!(out
        .stderr
        .starts_with("tapebuf: --zero-copy=on: a block of 98304 bytes (-s) is not"));
}

#[test]
fn the_summary_json_names_the_ring_and_its_pipe_memory() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    let out = run(
        &[
            "-q",
            "-s",
            "64k",
            "-b",
            "8",
            "--summary-json",
            json.to_str().unwrap(),
        ],
        pattern(1 << 20, 8),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["ring"]["kind"], "zero-copy");
    assert_eq!(v["ring"]["why"], serde_json::Value::Null);
    assert_eq!(v["ring"]["pipe_bytes"], 8 * 65536);
    assert_eq!(v["ring"]["pipes"], 8);
    let peak = v["ring"]["peak_held_bytes"].as_u64().unwrap();
    assert!((65536..=8 * 65536).contains(&peak), "{v}");
}

#[test]
fn an_ordinary_user_gets_the_ring_under_the_pipe_limit_and_the_copying_ring_over_it() {
    let input = pattern(3 << 20, 9);
    let within = ["-s", "1M", "-m", "16M"];
    let over = ["-s", "1M", "-m", "256M"];
    let mut runs = Vec::new();
    for (args, on) in [(&within, false), (&over, false), (&over, true)] {
        let mut cmd = as_nobody();
        cmd.args(args);
        if on {
            cmd.arg("--zero-copy=on");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let feeder = feed_stdin(&mut child, input.clone(), Feed::Fast);
        let drainer = drain_stdout(&mut child, Drain::Fast);
        let (status, stderr) = finish(&mut child);
        feeder.join().unwrap();
        runs.push((status, stderr, drainer.join().unwrap()));
    }
    let (status, stderr, out) = &runs[0];
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(sha256(out), sha256(&input));
    assert!(
        summary_line(stderr).contains("; zero-copy ring: 16 pipes"),
        "{stderr}"
    );
    let (status, stderr, out) = &runs[1];
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(sha256(out), sha256(&input));
    assert!(
        summary_line(stderr).contains("; copying ring, because the ring (-m) needs 256.00 MiB of pipes, more than this user may hold in pipes (fs.pipe-user-pages-soft"),
        "{stderr}"
    );
    let (status, stderr, out) = &runs[2];
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(out.is_empty());
    assert!(
        stderr.starts_with(
            "tapebuf: --zero-copy=on: the ring (-m) needs 256.00 MiB of pipes, more than this user may hold"
        ),
        "{stderr}"
    );
}
