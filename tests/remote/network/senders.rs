//! Many senders on one port (`-I --senders N`), between real tapebuf
//! processes on loopback, each sender with its own key: every stream
//! arrives byte-exact in its own file named from the template, and a
//! stream that is killed, stalled or never says what it is costs only
//! itself. Each case asserts both sides' exit codes and that what each
//! stream's summary says it wrote is what its file holds.

use std::net::TcpStream;
use std::process::{Child, ChildStdin};
use std::thread::JoinHandle;

use crate::common::sha256_file;
use crate::network::harness::*;
use crate::network::service_rig::*;

#[test]
fn sixteen_senders_at_once_each_arrive_byte_exact_in_a_file_named_by_their_key() {
    let vault = Vault::new(4);
    let (mut service, port, lines) =
        vault.serve(&["--senders", "16", "--streams", "16", "-m", "64M"]);
    let mut senders: Vec<Child> = (0..16).map(|i| vault.sender(i % 4, port, &[])).collect();
    let sent: Vec<JoinHandle<String>> = (senders.iter_mut().enumerate())
        .map(|(i, s)| send(s, 4, 100 + i as u64))
        .collect();
    for (i, s) in senders.iter_mut().enumerate() {
        assert_eq!(exit_within(s, LIMIT).code(), Some(0), "sender {i}");
    }
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(
        said.contains("served -I 127.0.0.1:0: 16 streams ended: 16 whole, 0 failed"),
        "{said}"
    );
    let sent: Vec<String> = sent.into_iter().map(|h| h.join().unwrap()).collect();
    let streams = vault.streams();
    assert_eq!(streams.len(), 16, "{streams:?}");
    for (file, digest) in &streams {
        // Sender i used key db{i % 4 + 1}: its file carries that name.
        let i = (sent.iter().position(|d| d == digest))
            .unwrap_or_else(|| panic!("{file} holds no sender's stream"));
        assert!(
            file.starts_with(&format!("db{}-", i % 4 + 1)),
            "{file} from sender {i}"
        );
        let seq: u64 = file
            .trim_end_matches(".dat")
            .rsplit('-')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(stream_out_bytes(&said, seq), (4 * MIB) as u64, "{file}");
    }
    let mut digests: Vec<&String> = streams.iter().map(|(_, d)| d).collect();
    digests.dedup();
    assert_eq!(digests.len(), 16, "every stream in a file of its own");
}

#[test]
fn a_killed_sender_fails_only_its_own_stream_and_the_service_names_it() {
    let vault = Vault::new(3);
    let (mut service, port, mut lines) =
        vault.serve(&["--senders", "4", "--streams", "3", "-m", "32M"]);
    let mut doomed = vault.sender(0, port, &[]);
    let _held = send_and_hold(&mut doomed, 3, 1);
    let begun = lines.until(&["sender db1 (", " to "]);
    let doomed_seq = seq_of(&begun);
    // Two whole streams come and go while the first is still open.
    for i in [1, 2] {
        let digest = send_whole(&vault, i, port, 5, 10 + i as u64);
        let whole = lines.until(&[&format!("sender db{} (", i + 1), "summary:"]);
        let seq = seq_of(&whole);
        let file = vault.out().join(format!("db{}-{seq}.dat", i + 1));
        assert_eq!(sha256_file(&file), digest, "{whole}");
    }
    // Its 3 MiB went to the ring: wait for the file to hold them.
    let file = vault.out().join(format!("db1-{doomed_seq}.dat"));
    wait_for_len(&file, 3 * MIB);
    doomed.kill().unwrap();
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(1), "{said}");
    let last = said.lines().last().unwrap();
    assert!(
        last.contains("3 streams ended: 2 whole, 1 failed")
            && last.contains(&format!("FAILED: stream {doomed_seq} (db1 at 127.0.0.1:")),
        "{last}"
    );
    let held = std::fs::metadata(&file).unwrap().len();
    assert_eq!(stream_out_bytes(&said, doomed_seq), held, "{said}");
    assert!(
        said.contains("without tapebuf's end-of-stream trailer"),
        "{said}"
    );
    assert!(
        doomed.wait().unwrap().code().is_none(),
        "killed by its signal"
    );
}

#[test]
fn a_connection_that_never_speaks_and_a_sender_that_stalls_cost_only_themselves() {
    let vault = Vault::new(2);
    let (mut service, port, mut lines) = vault.serve(&[
        "--senders",
        "3",
        "--streams",
        "2",
        "-m",
        "32M",
        "--timeout",
        "2",
    ]);
    // Connects and says nothing: dropped at --timeout, not a stream.
    let silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Sends 2 MiB and then nothing more, its input left open.
    let mut stalled = vault.sender(0, port, &[]);
    let input = send_and_hold(&mut stalled, 2, 3);
    let stalled_seq = seq_of(&lines.until(&["sender db1 (", " to "]));
    // A whole stream goes through while both wait.
    let digest = send_whole(&vault, 1, port, 6, 4);
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(1), "{said}");
    assert!(
        said.contains("ignored a connection from 127.0.0.1:"),
        "{said}"
    );
    let last = said.lines().last().unwrap();
    assert!(
        last.contains("2 streams ended: 1 whole, 1 failed")
            && last.contains(&format!("FAILED: stream {stalled_seq} (db1 at")),
        "{last}"
    );
    let whole_file = (vault.streams().into_iter())
        .find(|(name, _)| name.starts_with("db2-"))
        .expect("db2's file");
    assert_eq!(whole_file.1, digest);
    let stalled_file = vault.out().join(format!("db1-{stalled_seq}.dat"));
    let held = std::fs::metadata(&stalled_file).unwrap().len();
    assert_eq!(held, (2 * MIB) as u64, "{said}");
    assert_eq!(stream_out_bytes(&said, stalled_seq), held, "{said}");
    drop(silent);
    // The stalled sender learns at its next write (here the end of its
    // input) that its stream was given up.
    drop(input);
    assert_eq!(exit_within(&mut stalled, LIMIT).code(), Some(1));
}

#[test]
fn sigusr1_says_each_stream_s_status_and_sigterm_stops_every_stream_and_the_service_by_it() {
    let vault = Vault::new(2);
    let (mut service, port, mut lines) = vault.serve(&["--senders", "2", "-m", "32M"]);
    let mut senders: Vec<Child> = (0..2).map(|i| vault.sender(i, port, &[])).collect();
    let held: Vec<ChildStdin> = (senders.iter_mut().enumerate())
        .map(|(i, s)| send_and_hold(s, 1, 20 + i as u64))
        .collect();
    // The streams begin in either order: stream numbers by key.
    let mut seqs = [0u64; 2];
    for _ in 0..2 {
        let line = lines.until(&["sender db", " to "]);
        let key = line.split("sender db").nth(1).unwrap();
        let i: usize = key.split(' ').next().unwrap().parse().unwrap();
        seqs[i - 1] = seq_of(&line);
    }
    // Each file holds its 1 MiB (a stream stopped before its first byte
    // leaves no file, as a lone run does).
    for (i, seq) in seqs.iter().enumerate() {
        wait_for_len(&vault.out().join(format!("db{}-{seq}.dat", i + 1)), MIB);
    }
    // SIGUSR1 first: a line for the service, then one per stream.
    kill(&service, "-USR1");
    lines.until(&["status: -I 127.0.0.1:0: 2 streams running, 0 streams ended"]);
    let mut said_status: Vec<u64> = (0..2)
        .map(|_| seq_of(&lines.until(&[": status: in 1048576 bytes"])))
        .collect();
    said_status.sort_unstable();
    let mut expected = seqs.to_vec();
    expected.sort_unstable();
    assert_eq!(said_status, expected, "each stream's status, once");
    kill(&service, "-TERM");
    let (status, said) = service_end(&mut service, lines);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "{said}");
    // A stream stopped before its sender's end is not whole.
    let last = said.lines().last().unwrap();
    assert!(
        last.contains("2 streams ended: 0 whole, 2 failed (FAILED: stream "),
        "{last}"
    );
    for (i, seq) in seqs.into_iter().enumerate() {
        let line = (said.lines())
            .find(|l| l.starts_with(&format!("tapebuf: stream {seq}: summary:")))
            .unwrap_or_else(|| panic!("no summary of stream {seq}: {said}"));
        assert!(line.contains("SIGTERM"), "{line}");
        let file = vault.out().join(format!("db{}-{seq}.dat", i + 1));
        let held = std::fs::metadata(&file).unwrap().len();
        assert_eq!(stream_out_bytes(&said, seq), held, "{line}");
    }
    // Each sender learns at its next write (here the end of its input)
    // that its receiver is gone.
    drop(held);
    for (i, s) in senders.iter_mut().enumerate() {
        assert_eq!(exit_within(s, LIMIT).code(), Some(1), "sender {i}");
    }
}

#[test]
fn a_service_started_by_socket_activation_takes_the_socket_systemd_bound() {
    let activate = crate::common::needs::tool("systemd-socket-activate", "systemd");
    let vault = Vault::new(1);
    // A port found free, bound by the launcher (not by tapebuf) for it.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let template = vault.out().join("{name}-{seq}.dat");
    let allowed = vault.dir.path().join("allowed");
    let listen = format!("127.0.0.1:{port}");
    let mut service = crate::common::command(&activate)
        .args(["-l", &listen])
        .arg(crate::common::tapebuf().get_program())
        .args(["-I", &port.to_string(), "--senders", "2", "--streams", "1"])
        .args(["-o", template.to_str().unwrap()])
        .args(["--key", vault.key.file.to_str().unwrap()])
        .args(["--allow-keys", allowed.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Lines::of(&mut service);
    lines.until(&["Listening on ", " as 3."]);
    let digest = send_whole(&vault, 0, port, 3, 30);
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "tapebuf: -I {port}: listening on descriptor 3, passed by systemd (socket activation)"
        )),
        "{said}"
    );
    assert_eq!(vault.streams(), vec![("db1-1.dat".to_string(), digest)]);
}

#[test]
fn a_stranger_s_key_is_refused_before_a_stream_and_the_service_takes_the_next_sender() {
    let vault = Vault::new(1);
    let stranger = crate::common::keys::new_key(vault.dir.path(), "stranger");
    let (mut service, port, mut lines) = vault.serve(&["--senders", "2", "--streams", "1"]);
    let to = format!("127.0.0.1:{port}");
    let key = stranger.file.to_str().unwrap();
    let mut refused = crate::common::spawn_piped(&[
        "-O",
        &to,
        "-q",
        "--key",
        key,
        "--pin",
        &vault.key.print,
        "--connect-timeout",
        "5",
    ]);
    drop(refused.stdin.take());
    assert_eq!(exit_within(&mut refused, LIMIT).code(), Some(1));
    lines.until(&["ignored a connection from 127.0.0.1:", &stranger.print]);
    let digest = send_whole(&vault, 0, port, 2, 40);
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(said.contains("1 stream ended: 1 whole, 0 failed"), "{said}");
    assert_eq!(vault.streams(), vec![("db1-1.dat".to_string(), digest)]);
}

#[test]
fn a_stream_the_watchdog_stops_fails_alone_keeping_what_it_committed() {
    let vault = Vault::new(2);
    let (mut service, port, mut lines) =
        vault.serve(&["--senders", "2", "--streams", "2", "-m", "32M", "-W", "2"]);
    let mut idle = vault.sender(0, port, &[]);
    let input = send_and_hold(&mut idle, 1, 50);
    let idle_seq = seq_of(&lines.until(&["sender db1 (", " to "]));
    let digest = send_whole(&vault, 1, port, 3, 51);
    let (status, said) = service_end(&mut service, lines);
    assert_eq!(status.code(), Some(1), "{said}");
    let summary = (said.lines())
        .find(|l| l.starts_with(&format!("tapebuf: stream {idle_seq}: summary:")))
        .unwrap_or_else(|| panic!("no summary of stream {idle_seq}: {said}"));
    assert!(summary.ends_with("; STALLED"), "{summary}");
    let watchdog = format!("tapebuf: stream {idle_seq}: -W/--watchdog: no data moved for 2 s");
    assert!(said.contains(&watchdog), "{said}");
    let file = vault.out().join(format!("db1-{idle_seq}.dat"));
    let held = std::fs::metadata(&file).unwrap().len();
    assert_eq!(held, MIB as u64, "{said}");
    assert_eq!(stream_out_bytes(&said, idle_seq), held, "{said}");
    let whole = (vault.streams().into_iter()).find(|(n, _)| n.starts_with("db2-"));
    assert_eq!(whole.map(|w| w.1), Some(digest));
    drop(input);
    assert_eq!(exit_within(&mut idle, LIMIT).code(), Some(1));
}
