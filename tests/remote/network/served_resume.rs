//! Served streams resumed (`--senders` with `--resume-timeout` on both
//! ends), between real tapebuf processes on loopback, each sender with
//! its own key and its own relay that cuts its connection: every stream
//! comes back to its own stream and file, byte-exact, while the others go
//! on; a stream whose sender does not come back fails alone at the end of
//! its window; a service stopped by SIGTERM while a stream waits ends at
//! once, by the signal; a connection that names a session the service
//! does not hold is refused. Both sides' exit codes are asserted, and each stream's
//! "out N bytes" against what its file holds.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use tapebuf::net::frame;

use crate::common::sha256_file;
use crate::faults::cutter::{cut_points, Cutter, Then};
use crate::network::harness::*;
use crate::network::service_rig::*;

const WINDOW: &[&str] = &["--resume-timeout", "10"];

/// The stream number in a stream file's name, `dbN-SEQ.dat`.
fn seq_in(file: &str) -> u64 {
    let digits = file.trim_end_matches(".dat").rsplit('-').next().unwrap();
    digits.parse().unwrap()
}

#[test]
fn three_served_streams_each_cut_five_times_are_resumed_byte_exact_into_their_own_files() {
    let vault = Vault::new(3);
    let flags = [&["--senders", "3", "--streams", "3", "-m", "24M"], WINDOW].concat();
    let (mut service, port, lines) = vault.serve(&flags);
    let receiver: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut running = Vec::new();
    for i in 0..3 {
        let seed = 0x5e7e_0048 + i as u64;
        eprintln!("sender {i}: cut points from seed {seed:#x}");
        let cutter = Cutter::start(
            receiver,
            cut_points(5, seed, 200 * 1024, 800 * 1024),
            Then::Pass,
        );
        let mut sender = vault.sender(i, cutter.addr().port(), WINDOW);
        let digest = send(&mut sender, 6, 70 + i as u64);
        running.push((cutter, sender, digest));
    }
    let mut ended = Vec::new();
    for (cutter, mut sender, digest) in running {
        let status = exit_within(&mut sender, LIMIT);
        ended.push((
            cutter.cut(),
            status,
            stderr_of(&mut sender),
            digest.join().unwrap(),
        ));
    }
    let (status, said) = service_end(&mut service, lines);
    let mut sent = Vec::new();
    for (i, (cut, sender_status, err, digest)) in ended.into_iter().enumerate() {
        assert_eq!(
            sender_status.code(),
            Some(0),
            "sender {i}: {err}\nservice: {said}"
        );
        assert_eq!(cut, 5, "sender {i}: every cut point was reached");
        // A quiet sender (-q) says nothing of its resumes; its stream's
        // summary on the service does (below).
        assert_eq!(err, "", "sender {i}");
        sent.push(digest);
    }
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(
        said.contains("3 streams ended: 3 whole, 0 failed"),
        "{said}"
    );
    let streams = vault.streams();
    assert_eq!(
        streams.len(),
        3,
        "one file per stream, none for a resume: {streams:?}"
    );
    for (file, digest) in &streams {
        let i = (sent.iter().position(|d| d == digest))
            .unwrap_or_else(|| panic!("{file} holds no sender's whole stream"));
        assert!(
            file.starts_with(&format!("db{}-", i + 1)),
            "{file} from sender {i}"
        );
        let seq = seq_in(file);
        assert_eq!(stream_out_bytes(&said, seq), (6 * MIB) as u64, "{file}");
        let summary = format!("tapebuf: stream {seq}: summary:");
        let line = said.lines().find(|l| l.starts_with(&summary)).unwrap();
        assert!(line.contains("resumed 5 times"), "{line}");
    }
}

#[test]
fn a_served_stream_whose_sender_does_not_come_back_fails_alone_at_the_end_of_its_window() {
    let vault = Vault::new(2);
    let flags = [
        "--senders",
        "2",
        "--streams",
        "2",
        "-m",
        "16M",
        "--resume-timeout",
        "2",
    ];
    let (mut service, port, mut lines) = vault.serve(&flags);
    let mut doomed = vault.sender(0, port, &["--resume-timeout", "2"]);
    let _held = send_and_hold(&mut doomed, 2, 1);
    let begun = lines.until(&["sender db1 (", " to "]);
    let doomed_seq: u64 = begun
        .split("stream ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let file = vault.out().join(format!("db1-{doomed_seq}.dat"));
    wait_for_len(&file, 2 * MIB);
    doomed.kill().unwrap();
    let _ = doomed.wait();
    lines.until(&[
        &format!("stream {doomed_seq}:"),
        "waiting up to 2 s for the sender to resume",
    ]);
    // Another sender comes and goes whole while the first stream waits.
    let digest = send_whole(&vault, 1, port, 3, 9);
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(
        said.contains("2 streams ended: 1 whole, 1 failed"),
        "{said}"
    );
    assert!(
        said.contains("did not resume within --resume-timeout (2 s)"),
        "{said}"
    );
    assert!(
        said.contains(&format!("FAILED: stream {doomed_seq} (db1 at ")),
        "{said}"
    );
    assert_eq!(
        stream_out_bytes(&said, doomed_seq),
        (2 * MIB) as u64,
        "{said}"
    );
    assert_eq!(std::fs::metadata(&file).unwrap().len(), (2 * MIB) as u64);
    let whole = vault
        .streams()
        .into_iter()
        .find(|(f, _)| f.starts_with("db2-"))
        .unwrap();
    assert_eq!(whole.1, digest);
    assert_eq!(sha256_file(&vault.out().join(&whole.0)), digest);
}

#[test]
fn a_connection_naming_a_session_the_service_does_not_hold_is_refused_and_the_service_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("{seq}.dat");
    let args = [
        "-I",
        "127.0.0.1:0",
        "--plain",
        "--senders",
        "2",
        "--streams",
        "1",
        "-s",
        "256k",
    ];
    let mut args = args.to_vec();
    args.extend(["--resume-timeout", "5", "-o", template.to_str().unwrap()]);
    let mut service = crate::common::spawn_piped(&args);
    let port = listening_port(&mut service);
    let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.write_all(&frame::header_with(256 << 10, frame::RESUMABLE))
        .unwrap();
    let mut record = [7u8; 16].to_vec();
    record.extend_from_slice(&(1u64 << 20).to_be_bytes());
    conn.write_all(&record).unwrap();
    let mut reply = [0u8; frame::REPLY_LEN];
    conn.read_exact(&mut reply).unwrap();
    assert_eq!(
        frame::parse_reply(&reply).unwrap(),
        frame::Reply::Refused(frame::Refused::UnknownSession)
    );
    // A real sender is taken after it, and is the one stream.
    let to = format!("127.0.0.1:{port}");
    let mut sender =
        crate::common::spawn_piped(&["-O", &to, "--plain", "-q", "--resume-timeout", "5"]);
    let sent = feed(&mut sender, Some(2));
    assert_eq!(
        exit_within(&mut sender, LIMIT).code(),
        Some(0),
        "{}",
        stderr_of(&mut sender)
    );
    let status = exit_within(&mut service, LIMIT);
    let said = stderr_of(&mut service);
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(said.contains("which this service does not hold"), "{said}");
    assert!(said.contains("1 stream ended: 1 whole, 0 failed"), "{said}");
    let (bytes, digest) = sent.join().unwrap();
    assert_eq!(bytes, (2 * MIB) as u64);
    assert_eq!(sha256_file(&dir.path().join("1.dat")), digest);
}

#[test]
fn a_service_stopped_while_a_stream_waits_for_its_sender_ends_at_once_by_the_signal() {
    let vault = Vault::new(1);
    // A window far longer than the test: only the signal may end the wait.
    let flags = ["--senders", "1", "-m", "8M", "--resume-timeout", "600"];
    let (mut service, port, mut lines) = vault.serve(&flags);
    let mut doomed = vault.sender(0, port, &["--resume-timeout", "600"]);
    let _held = send_and_hold(&mut doomed, 2, 3);
    let begun = lines.until(&["sender db1 (", " to "]);
    let seq = begun
        .split("stream ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    let seq: u64 = seq.parse().unwrap();
    let file = vault.out().join(format!("db1-{seq}.dat"));
    wait_for_len(&file, 2 * MIB);
    doomed.kill().unwrap();
    let _ = doomed.wait();
    lines.until(&[
        &format!("stream {seq}:"),
        "waiting up to 600 s for the sender",
    ]);
    kill(&service, "-TERM");
    let (status, said) = service_end(&mut service, lines);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "{said}");
    assert!(said.contains("1 stream ended: 0 whole, 1 failed"), "{said}");
    let summary = format!("tapebuf: stream {seq}: summary:");
    let line = said.lines().find(|l| l.starts_with(&summary)).unwrap();
    assert!(line.contains("SIGTERM"), "{line}");
    assert_eq!(stream_out_bytes(&said, seq), (2 * MIB) as u64, "{said}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), (2 * MIB) as u64);
}
