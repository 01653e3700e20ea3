//! TCP streams between real tapebuf processes on loopback: byte-exact
//! transfers over IPv4 and IPv6, several receivers, late receivers, killed
//! and stalled peers, `--allow`, framing damage caught in transit, raw
//! streams to and from mbuffer, and `--hash` against coreutils.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::{pattern, run, sha256, spawn_piped};
use sha2::{Digest, Sha256};

const MIB: usize = 1 << 20;

/// A port that was free a moment ago, on IPv4 and IPv6 loopback alike.
fn free_port() -> u16 {
    let l = TcpListener::bind("[::]:0").expect("binding a probe port");
    l.local_addr().unwrap().port()
}

/// Feeds `mib` MiB of a fixed pattern (for ever if None) and returns the
/// sha256 and byte count of what the child took.
fn feed(child: &mut Child, mib: Option<usize>) -> JoinHandle<(u64, String)> {
    let mut stdin = child.stdin.take().expect("piped stdin");
    std::thread::spawn(move || {
        let chunk = pattern(MIB, 7);
        let mut hash = Sha256::new();
        let mut sent = 0u64;
        let mut n = 0;
        while mib.is_none_or(|m| n < m) {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
            hash.update(&chunk);
            sent += chunk.len() as u64;
            n += 1;
        }
        (sent, format!("{:x}", hash.finalize()))
    })
}

/// Drains standard output, hashing it; returns the byte count and sha256.
fn drain(child: &mut Child) -> JoinHandle<(u64, String)> {
    let mut stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut hash = Sha256::new();
        let mut got = 0u64;
        let mut buf = vec![0u8; MIB];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    hash.update(&buf[..n]);
                    got += n as u64;
                }
            }
        }
        (got, format!("{:x}", hash.finalize()))
    })
}

/// Reads stderr line by line until a line contains `needle`; returns the
/// reader and the lines so far. Panics if stderr ends first.
fn stderr_until(child: &mut Child, needle: &str) -> (BufReader<ChildStderr>, String) {
    let mut reader = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "stderr ended before {needle:?}: {seen:?}");
        seen += &line;
        if line.contains(needle) {
            return (reader, seen);
        }
    }
}

fn rest_of(mut reader: BufReader<ChildStderr>, mut seen: String) -> String {
    reader.read_to_string(&mut seen).unwrap();
    seen
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
    s
}

/// Waits for the child to exit, failing the test if it takes longer.
fn exit_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tapebuf did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

/// Sends `mib` MiB from one tapebuf to another and checks every byte.
fn transfer(listen: &str, connect: &str, mib: usize) {
    let mut receiver = spawn_piped(&["-I", listen, "-s", "1M", "-m", "32M"]);
    let received = drain(&mut receiver);
    let mut sender = spawn_piped(&["-O", connect, "-s", "1M", "-m", "32M", "-q"]);
    let sent = feed(&mut sender, Some(mib));
    let sender_err = stderr_of(&mut sender);
    assert!(sender.wait().unwrap().success(), "sender: {sender_err}");
    let receiver_err = stderr_of(&mut receiver);
    assert!(
        receiver.wait().unwrap().success(),
        "receiver: {receiver_err}"
    );
    let (sent, received) = (sent.join().unwrap(), received.join().unwrap());
    assert_eq!(sent.0, (mib * MIB) as u64);
    assert_eq!(received, sent, "receiver: {receiver_err}");
    assert!(
        receiver_err.contains(&format!("out {} bytes", mib * MIB)),
        "{receiver_err}"
    );
    assert!(!receiver_err.contains("raw stream"), "{receiver_err}");
}

#[test]
fn a_gib_arrives_byte_exact_over_ipv4() {
    let port = free_port();
    transfer(
        &format!("127.0.0.1:{port}"),
        &format!("127.0.0.1:{port}"),
        1024,
    );
}

#[test]
fn a_gib_arrives_byte_exact_over_ipv6() {
    let port = free_port();
    transfer(&format!("[::1]:{port}"), &format!("[::1]:{port}"), 1024);
}

#[test]
fn a_dual_stack_listener_takes_an_ipv4_sender() {
    let port = free_port();
    transfer(&port.to_string(), &format!("127.0.0.1:{port}"), 16);
}

#[test]
fn a_name_that_resolves_to_several_addresses_reaches_the_listener() {
    // localhost has ::1 and 127.0.0.1; whichever is tried first, the
    // dual-stack listener answers.
    let port = free_port();
    transfer(&port.to_string(), &format!("localhost:{port}"), 16);
}

#[test]
fn two_receivers_get_the_same_stream() {
    let (p1, p2) = (free_port(), free_port());
    let mut r1 = spawn_piped(&["-I", &format!("127.0.0.1:{p1}")]);
    let mut r2 = spawn_piped(&["-I", &format!("[::1]:{p2}")]);
    let (got1, got2) = (drain(&mut r1), drain(&mut r2));
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{p1}"),
        "-O",
        &format!("[::1]:{p2}"),
    ]);
    let sent = feed(&mut sender, Some(64));
    let err = stderr_of(&mut sender);
    assert!(sender.wait().unwrap().success(), "{err}");
    assert!(r1.wait().unwrap().success());
    assert!(r2.wait().unwrap().success());
    let sent = sent.join().unwrap();
    assert_eq!(got1.join().unwrap(), sent);
    assert_eq!(got2.join().unwrap(), sent);
}

#[test]
fn a_receiver_started_after_the_sender_is_reached_by_the_retries() {
    let port = free_port();
    let mut sender = spawn_piped(&[
        "-O",
        &format!("127.0.0.1:{port}"),
        "--connect-timeout",
        "60",
    ]);
    let sent = feed(&mut sender, Some(8));
    // The sender says when its first attempt was refused; only then does
    // the receiver start.
    let (reader, seen) = stderr_until(&mut sender, "retrying for up to 60 s");
    assert!(seen.contains("Connection refused"), "{seen}");
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}")]);
    let received = drain(&mut receiver);
    let status = exit_within(&mut sender, Duration::from_secs(30));
    let err = rest_of(reader, seen);
    assert!(status.success(), "{err}");
    assert!(receiver.wait().unwrap().success());
    assert_eq!(received.join().unwrap(), sent.join().unwrap());
}

#[test]
fn a_killed_sender_fails_the_receiver_with_the_bytes_it_got() {
    let port = free_port();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--timeout", "10"]);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "-q"]);
    let _feeder = feed(&mut sender, None);
    // Once data flows, kill the sender mid-stream.
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&sender, "-KILL");
    let _ = sender.wait();
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = exit_within(&mut receiver, Duration::from_secs(10));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(1), "{err}");
    let total = (got.len() + rest.len()) as u64;
    assert!(
        err.contains(&format!(
            "the connection ended after {total} bytes without tapebuf's end-of-stream trailer"
        )),
        "{total}: {err}"
    );
    assert!(err.contains("INPUT FAILED"), "{err}");
}

#[test]
fn a_raw_sender_stopped_early_resets_the_connection_so_a_raw_receiver_fails() {
    let port = free_port();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--raw"]);
    let mut stdout = receiver.stdout.take().unwrap();
    wait_listening(port);
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"]);
    let _feeder = feed(&mut sender, None);
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&sender, "-INT");
    let status = sender.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT));
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let status = exit_within(&mut receiver, Duration::from_secs(10));
    let err = stderr_of(&mut receiver);
    // Without framing nothing can be proved, but a reset is no clean end.
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("Connection reset by peer"), "{err}");
}

#[test]
fn a_stalled_sender_fails_the_receiver_after_the_timeout() {
    let port = free_port();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--timeout", "2"]);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "-q"]);
    let mut stdin = sender.stdin.take().unwrap();
    stdin.write_all(&pattern(MIB, 3)).unwrap();
    // Once the first block has come through, the sender stops, but lives:
    // only the timeout can end the receiver's wait.
    let mut first = vec![0u8; 256 * 1024];
    stdout.read_exact(&mut first).unwrap();
    kill(&sender, "-STOP");
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    kill(&sender, "-KILL");
    let _ = sender.wait();
    let total = first.len() + rest.len();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("the peer sent nothing for 2 s (--timeout)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("read failed at byte {total}")),
        "{err}"
    );
}

#[test]
fn a_killed_receiver_fails_the_sender() {
    let port = free_port();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}")]);
    let mut stdout = receiver.stdout.take().unwrap();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--timeout", "10"]);
    let _feeder = feed(&mut sender, None);
    let mut got = vec![0u8; 4 * MIB];
    stdout.read_exact(&mut got).unwrap();
    kill(&receiver, "-KILL");
    let _ = receiver.wait();
    let status = exit_within(&mut sender, Duration::from_secs(15));
    let err = stderr_of(&mut sender);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("FAILED receiver 127.0.0.1:{port}")),
        "{err}"
    );
    assert!(err.contains("bytes read but not committed"), "{err}");
}

#[test]
fn a_sender_outside_allow_is_refused_and_the_listener_keeps_waiting() {
    let port = free_port();
    // Dual stack: the IPv4 sender is refused, the IPv6 one allowed.
    let mut receiver = spawn_piped(&["-I", &port.to_string(), "--allow", "::1"]);
    let received = drain(&mut receiver);
    let mut intruder = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--timeout", "10"]);
    let _ = feed(&mut intruder, Some(1));
    let status = exit_within(&mut intruder, Duration::from_secs(20));
    let intruder_err = stderr_of(&mut intruder);
    assert_eq!(status.code(), Some(1), "{intruder_err}");
    let (reader, seen) = stderr_until(&mut receiver, "refused a connection from 127.0.0.1:");
    assert!(seen.contains("not covered by --allow"), "{seen}");

    let mut sender = spawn_piped(&["-O", &format!("[::1]:{port}")]);
    let sent = feed(&mut sender, Some(4));
    assert!(
        sender.wait().unwrap().success(),
        "{}",
        stderr_of(&mut sender)
    );
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = rest_of(reader, seen);
    assert!(status.success(), "{err}");
    assert_eq!(received.join().unwrap(), sent.join().unwrap());
}

#[test]
fn a_port_nobody_listens_on_fails_within_the_connect_timeout() {
    let port = free_port();
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--connect-timeout", "1"]);
    drop(sender.stdin.take());
    let status = exit_within(&mut sender, Duration::from_secs(10));
    let err = stderr_of(&mut sender);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "tapebuf: -O 127.0.0.1:{port}: cannot connect within 1 s"
        )),
        "{err}"
    );
    assert!(err.contains("Connection refused"), "{err}");
}

/// Relays one connection from `from` to `to`, flipping the byte at `flip`
/// of the sender's stream, and carries the receiver's reply back.
fn damaging_relay(from: TcpListener, to: u16, flip: usize) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let (mut a, _) = from.accept().unwrap();
        // The receiver may still be starting: retry as a sender would.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut b = loop {
            match TcpStream::connect(("127.0.0.1", to)) {
                Ok(b) => break b,
                Err(e) => assert!(Instant::now() < deadline, "relay: {e}"),
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let (mut a_back, mut b_back) = (a.try_clone().unwrap(), b.try_clone().unwrap());
        let back = std::thread::spawn(move || {
            let _ = std::io::copy(&mut b_back, &mut a_back);
            let _ = a_back.shutdown(std::net::Shutdown::Write);
        });
        let mut buf = vec![0u8; 64 * 1024];
        let mut at = 0usize;
        loop {
            let n = match a.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if (at..at + n).contains(&flip) {
                buf[flip - at] ^= 0x01;
            }
            at += n;
            if b.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = b.shutdown(std::net::Shutdown::Write);
        let _ = back.join();
    })
}

#[test]
fn damage_in_transit_fails_both_ends_and_names_the_frame() {
    let port = free_port();
    let relay = TcpListener::bind("127.0.0.1:0").unwrap();
    let relay_port = relay.local_addr().unwrap().port();
    // Header 16 bytes, then frames of 12 + 65536 bytes: this byte is in
    // the third frame's data, which starts at stream byte 131072.
    let flip = 16 + 2 * (12 + 65536) + 12 + 100;
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "-s", "64k"]);
    let _received = drain(&mut receiver);
    let relay = damaging_relay(relay, port, flip);
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{relay_port}"), "-s", "64k"]);
    let _ = feed(&mut sender, Some(1));
    let sender_status = exit_within(&mut sender, Duration::from_secs(20));
    let sender_err = stderr_of(&mut sender);
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    relay.join().unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("the 65536-byte frame at byte 131072 fails its checksum"),
        "{err}"
    );
    assert_eq!(sender_status.code(), Some(1), "{sender_err}");
    assert!(
        sender_err.contains("the receiver found the stream damaged at byte 131072"),
        "{sender_err}"
    );
}

/// Waits until something listens on `port`, by reading the kernel's socket
/// tables (connecting to find out would take the listener's one sender).
fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let needle = format!(":{port:04X} ");
    loop {
        let listening = ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|table| {
            std::fs::read_to_string(table)
                .unwrap_or_default()
                .lines()
                .any(|l| {
                    let cols: Vec<&str> = l.split_whitespace().collect();
                    cols.len() > 3 && format!("{} ", cols[1]).ends_with(&needle) && cols[3] == "0A"
                })
        });
        if listening {
            return;
        }
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `input` with mbuffer to `port`; returns mbuffer's status.
fn mbuffer_sends(input: &std::path::Path, port: u16) -> std::process::ExitStatus {
    common::needs::tool("mbuffer", "mbuffer");
    Command::new("mbuffer")
        .args([
            "-q",
            "-i",
            input.to_str().unwrap(),
            "-O",
            &format!("127.0.0.1:{port}"),
        ])
        .stderr(Stdio::null())
        .status()
        .expect("running mbuffer (.ci/run installs it)")
}

#[test]
fn an_mbuffer_sender_is_refused_without_raw_and_the_receiver_does_not_succeed() {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, pattern(MIB, 3)).unwrap();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--connect-timeout", "3"]);
    let received = drain(&mut receiver);
    wait_listening(port);
    // mbuffer's own status depends on when it notices the hang-up.
    let _ = mbuffer_sends(&input, port);
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("ignored a connection from 127.0.0.1:")
            && err.contains("did not begin with a tapebuf stream header (to take a raw stream from mbuffer, nc or socat, start the receiver with --raw)"),
        "{err}"
    );
    assert!(err.contains("no sender connected in time"), "{err}");
    assert_eq!(received.join().unwrap().0, 0);
}

#[test]
fn an_mbuffer_sender_is_read_raw_with_a_warning() {
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let data = pattern(3 * MIB + 77, 9);
    std::fs::write(&input, &data).unwrap();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--raw"]);
    let received = drain(&mut receiver);
    wait_listening(port);
    assert!(mbuffer_sends(&input, port).success());
    let status = exit_within(&mut receiver, Duration::from_secs(20));
    let err = stderr_of(&mut receiver);
    assert!(status.success(), "{err}");
    let (n, hash) = received.join().unwrap();
    assert_eq!((n, hash), (data.len() as u64, sha256(&data)));
    assert!(
        err.contains("no tapebuf header: reading a raw stream (--raw), in which a truncated stream cannot be detected"),
        "{err}"
    );
    assert!(err.contains("raw stream, truncation undetectable"), "{err}");
}

#[test]
fn raw_mode_sends_plain_bytes_an_mbuffer_receiver_stores_exactly() {
    common::needs::tool("mbuffer", "mbuffer");
    let port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let mut mbuffer = Command::new("mbuffer")
        .args([
            "-q",
            "-I",
            &format!("127.0.0.1:{port}"),
            "-o",
            output.to_str().unwrap(),
        ])
        .stderr(Stdio::null())
        .spawn()
        .expect("running mbuffer (.ci/run installs it)");
    let data = pattern(2 * MIB + 5, 4);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--raw", "-q"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut mbuffer, Duration::from_secs(20)).success());
    assert_eq!(std::fs::read(&output).unwrap(), data);
}

#[test]
fn bad_network_options_are_usage_errors_naming_the_flag() {
    let cases: [(&[&str], &str); 7] = [
        (&["-O", "fd00::7:9090"], "tapebuf: -O/--connect: 'fd00::7:9090': put an IPv6 address in brackets, as [fd00::7]:9090"),
        (&["-I", "99999"], "tapebuf: -I/--listen: '99999' is not a port number (1 to 65535)"),
        (&["--allow", "10.0.0.1"], "tapebuf: --allow: only applies to -I/--listen"),
        (&["-I", "9", "--allow", "10.0.0.0/40"], "tapebuf: --allow: '/40' is not a prefix length (0 to 32)"),
        (&["--raw"], "tapebuf: --raw: only applies to -I and -O"),
        (&["-O", "h:1", "--timeout", "0"], "tapebuf: --timeout: must be at least 1 second"),
        (&["-O", "h:1", "--tcp-buffer", "1k"], "tapebuf: --tcp-buffer: 1.00 KiB is outside 4 KiB to 1 GiB"),
    ];
    for (args, line) in cases {
        let r = run(args, Vec::new());
        assert_eq!(r.status.code(), Some(2), "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with(line), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn a_busy_port_is_named_at_start() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let r = run(&["-I", &format!("127.0.0.1:{port}")], Vec::new());
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "tapebuf: -I 127.0.0.1:{port}: cannot listen: Address already in use"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn tcp_buffer_sizes_are_applied_and_the_stream_still_arrives() {
    let port = free_port();
    let mut receiver = spawn_piped(&["-I", &format!("127.0.0.1:{port}"), "--tcp-buffer", "128k"]);
    let received = drain(&mut receiver);
    let data = pattern(5 * MIB, 8);
    let r = run(
        &["-O", &format!("127.0.0.1:{port}"), "--tcp-buffer", "128k"],
        data.clone(),
    );
    assert!(r.status.success(), "{}", r.stderr);
    assert!(exit_within(&mut receiver, Duration::from_secs(20)).success());
    assert_eq!(received.join().unwrap(), (data.len() as u64, sha256(&data)));
}
