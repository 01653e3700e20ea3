//! Private streams (`--key`, `--pin`, `--allow-key`): TLS 1.3 between
//! tapebuf keys, between real processes on loopback. A stream between the
//! right keys arrives byte-exact; every refusal (a stranger's key, an
//! impostor receiver, a plain peer on either side, a stalled handshake)
//! fails the side that cannot go on, says who and why in one line, and
//! leaves a listener waiting for the right sender.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use crate::common::keys::{new_key, Key};
use crate::common::{self, spawn_piped};
use crate::network::harness::*;

struct Keys {
    _dir: tempfile::TempDir,
    receiver: Key,
    sender: Key,
    stranger: Key,
}

fn keys() -> Keys {
    let dir = tempfile::tempdir().unwrap();
    Keys {
        receiver: new_key(dir.path(), "vault"),
        sender: new_key(dir.path(), "db1"),
        stranger: new_key(dir.path(), "stranger"),
        _dir: dir,
    }
}

/// A receiver with `key` that allows `allowed` as db1, and its port.
fn keyed_receiver(key: &Key, allowed: &Key, extra: &[&str]) -> (std::process::Child, u16) {
    let allow = format!("{}=db1", allowed.print);
    let mut args = vec!["-I", "127.0.0.1:0", "-s", "1M", "-m", "32M"];
    args.extend(["--key", key.file.to_str().unwrap(), "--allow-key", &allow]);
    args.extend(extra);
    let mut receiver = spawn_piped(&args);
    let port = listening_port(&mut receiver);
    (receiver, port)
}

/// A sender with `key` that pins `pin`, to `port`.
fn keyed_sender(key: &Key, pin: &str, port: u16) -> std::process::Child {
    keyed_sender_with(key, pin, port, &[])
}

/// The same, with `extra` flags.
fn keyed_sender_with(key: &Key, pin: &str, port: u16, extra: &[&str]) -> std::process::Child {
    let to = format!("127.0.0.1:{port}");
    let mut args = vec!["-O", &to, "-s", "1M", "-m", "32M", "-q"];
    args.extend(["--key", key.file.to_str().unwrap(), "--pin", pin]);
    args.extend(extra);
    spawn_piped(&args)
}

/// Sends 16 MiB from `sender` to a waiting `receiver` and checks both
/// exit 0 and every byte arrived; the receiver's stderr.
fn transfer_between(receiver: std::process::Child, sender: std::process::Child) -> String {
    transfer_16_mib(receiver, sender).0
}

#[test]
fn peers_with_each_other_s_keys_move_the_stream_byte_exact_over_tls() {
    let k = keys();
    let (receiver, port) = keyed_receiver(&k.receiver, &k.sender, &[]);
    let sender = keyed_sender(&k.sender, &k.receiver.print, port);
    let err = transfer_between(receiver, sender);
    let named = format!("sender db1 ({}) at 127.0.0.1:", k.sender.print);
    assert!(err.contains(&named), "{err}");
    // In user space here; in the kernel where it has its tls module.
    assert!(err.contains(": over TLS 1.3 in "), "{err}");
}

#[test]
fn a_sender_with_a_key_not_allowed_is_refused_and_the_listener_takes_the_next() {
    let k = keys();
    let (mut receiver, port) = keyed_receiver(&k.receiver, &k.sender, &[]);
    let mut stranger = keyed_sender(&k.stranger, &k.receiver.print, port);
    let _fed = feed(&mut stranger, Some(4));
    let stranger_err = stderr_of(&mut stranger);
    let status = exit_within(&mut stranger, Duration::from_secs(30));
    assert_eq!(status.code(), Some(1), "{stranger_err}");
    assert!(
        stranger_err.contains(&format!(
            "did not allow this sender's key {}",
            k.stranger.print
        )),
        "{stranger_err}"
    );
    let why = format!(
        "the sender's key is not allowed (it showed {})",
        k.stranger.print
    );
    let (reader, seen) = stderr_until(&mut receiver, &why);
    assert!(seen.contains("still waiting for the sender"), "{seen}");
    receiver.stderr = Some(reader.into_inner());
    let sender = keyed_sender(&k.sender, &k.receiver.print, port);
    transfer_between(receiver, sender);
}

#[test]
fn both_summaries_say_the_stream_was_private_and_name_the_peer_s_key() {
    let k = keys();
    let json = |name: &str| k._dir.path().join(name).display().to_string();
    let (rx_json, tx_json) = (json("rx.json"), json("tx.json"));
    let (receiver, port) = keyed_receiver(&k.receiver, &k.sender, &["--summary-json", &rx_json]);
    let sender = keyed_sender_with(
        &k.sender,
        &k.receiver.print,
        port,
        &["--summary-json", &tx_json],
    );
    transfer_between(receiver, sender);
    let network = |file: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(file).unwrap();
        let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
        summary["network"][0].clone()
    };
    let (rx, tx) = (network(&rx_json), network(&tx_json));
    assert_eq!(rx["endpoint"], "-I 127.0.0.1:0", "{rx}");
    assert_eq!(rx["privacy"], "tls", "{rx}");
    let made = |v: &serde_json::Value| matches!(v.as_str(), Some("user space" | "kernel"));
    assert!(made(&rx["records"]), "{rx}");
    assert_eq!(rx["peer_key"], k.sender.print.as_str(), "{rx}");
    assert_eq!(rx["peer_name"], "db1", "{rx}");
    assert_eq!(tx["endpoint"], format!("-O 127.0.0.1:{port}"), "{tx}");
    assert_eq!(tx["privacy"], "tls", "{tx}");
    assert!(made(&tx["records"]), "{tx}");
    assert_eq!(tx["peer_key"], k.receiver.print.as_str(), "{tx}");
    assert!(tx["peer_name"].is_null(), "{tx}");
    let line = std::fs::read_to_string(&tx_json).unwrap();
    let said = format!("-O 127.0.0.1:{port}: over TLS 1.3 in ");
    assert!(line.contains(&said), "the sender's summary line: {line}");
}

#[test]
fn a_receiver_that_is_not_the_pinned_one_is_refused_before_a_byte_is_sent() {
    let k = keys();
    // The receiver holds the stranger's key: an impostor for the pin.
    let (mut receiver, port) = keyed_receiver(&k.stranger, &k.sender, &["--connect-timeout", "3"]);
    let received = drain(&mut receiver);
    let mut sender = keyed_sender(&k.sender, &k.receiver.print, port);
    let _fed = feed(&mut sender, Some(4));
    let sender_err = stderr_of(&mut sender);
    assert_eq!(sender.wait().unwrap().code(), Some(1), "{sender_err}");
    let why = format!(
        "the receiver's key is not the pinned {} (it showed {})",
        k.receiver.print, k.stranger.print
    );
    assert!(sender_err.contains(&why), "{sender_err}");
    let receiver_err = stderr_of(&mut receiver);
    assert_ne!(receiver.wait().unwrap().code(), Some(0), "{receiver_err}");
    assert!(
        receiver_err.contains("the TLS handshake failed"),
        "{receiver_err}"
    );
    assert!(
        receiver_err.contains("no sender connected in time"),
        "{receiver_err}"
    );
    assert_eq!(received.join().unwrap().0, 0, "nothing was output");
}

#[test]
fn a_plain_sender_to_a_keyed_receiver_is_refused() {
    let k = keys();
    let (mut receiver, port) = keyed_receiver(&k.receiver, &k.sender, &["--connect-timeout", "3"]);
    let received = drain(&mut receiver);
    let mut sender = spawn_piped(&["-O", &format!("127.0.0.1:{port}"), "--plain", "-q"]);
    let _fed = feed(&mut sender, Some(4));
    let sender_err = stderr_of(&mut sender);
    assert_eq!(sender.wait().unwrap().code(), Some(1), "{sender_err}");
    let receiver_err = stderr_of(&mut receiver);
    assert_ne!(receiver.wait().unwrap().code(), Some(0), "{receiver_err}");
    assert!(
        receiver_err.contains(
            "it sent a plain tapebuf stream, but this receiver takes only senders with a key"
        ),
        "{receiver_err}"
    );
    assert_eq!(received.join().unwrap().0, 0, "nothing was output");
}

#[test]
fn a_keyed_sender_to_a_plain_receiver_is_refused() {
    let k = keys();
    let mut receiver = spawn_piped(&["-I", "127.0.0.1:0", "--plain", "--connect-timeout", "3"]);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let mut sender = keyed_sender(&k.sender, &k.receiver.print, port);
    let _fed = feed(&mut sender, Some(4));
    let sender_err = stderr_of(&mut sender);
    assert_eq!(sender.wait().unwrap().code(), Some(1), "{sender_err}");
    assert!(
        sender_err.contains("the TLS handshake failed"),
        "{sender_err}"
    );
    let receiver_err = stderr_of(&mut receiver);
    assert_ne!(receiver.wait().unwrap().code(), Some(0), "{receiver_err}");
    assert!(
        receiver_err
            .contains("it began a TLS handshake, but this receiver takes clear text (--plain)"),
        "{receiver_err}"
    );
    assert_eq!(received.join().unwrap().0, 0, "nothing was output");
}

#[test]
fn a_stalled_handshake_is_dropped_after_the_timeout_and_the_sender_after_it_gets_through() {
    let k = keys();
    let (mut receiver, port) = keyed_receiver(
        &k.receiver,
        &k.sender,
        &["--timeout", "2", "--connect-timeout", "60"],
    );
    // The start of a TLS record, then nothing.
    let mut staller = TcpStream::connect(("127.0.0.1", port)).unwrap();
    staller.write_all(&[0x16, 0x03, 0x01]).unwrap();
    let (reader, seen) = stderr_until(&mut receiver, "the TLS handshake stood still for 2 s");
    assert!(seen.contains("still waiting for the sender"), "{seen}");
    receiver.stderr = Some(reader.into_inner());
    let sender = keyed_sender(&k.sender, &k.receiver.print, port);
    transfer_between(receiver, sender);
    drop(staller);
}

#[test]
fn the_allowed_keys_file_is_read_again_for_each_connection() {
    let k = keys();
    let list = k._dir.path().join("senders");
    std::fs::write(&list, format!("{} stranger\n", k.stranger.print)).unwrap();
    let mut receiver = spawn_piped(&[
        "-I",
        "127.0.0.1:0",
        "-s",
        "1M",
        "-m",
        "32M",
        "--key",
        k.receiver.file.to_str().unwrap(),
        "--allow-keys",
        list.to_str().unwrap(),
    ]);
    let port = listening_port(&mut receiver);
    let mut early = keyed_sender(&k.sender, &k.receiver.print, port);
    let _fed = feed(&mut early, Some(1));
    let early_err = stderr_of(&mut early);
    assert_eq!(early.wait().unwrap().code(), Some(1), "{early_err}");
    let (reader, _) = stderr_until(&mut receiver, "the sender's key is not allowed");
    receiver.stderr = Some(reader.into_inner());
    let mut text = std::fs::read_to_string(&list).unwrap();
    text += &format!("{} db1\n", k.sender.print);
    std::fs::write(&list, text).unwrap();
    let sender = keyed_sender(&k.sender, &k.receiver.print, port);
    let err = transfer_between(receiver, sender);
    assert!(err.contains("sender db1 ("), "{err}");
}

/// Each misuse of the key options, and the one line it gets (exit 2).
#[test]
fn each_misuse_of_the_key_options_is_refused_with_one_line_before_anything_starts() {
    let k = keys();
    let key = k.sender.file.to_str().unwrap();
    let open = k._dir.path().join("open.key");
    std::fs::copy(&k.sender.file, &open).unwrap();
    std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["-O", "127.0.0.1:9", "--key", key],
            "tapebuf: -O 127.0.0.1:9: private by default, and the receiver's key is not pinned: give --pin",
        ),
        (
            &["-O", "127.0.0.1:9", "--plain", "--pin", &k.receiver.print],
            "tapebuf: --pin: only applies to -O, without --plain or --raw",
        ),
        (
            &["-I", "0", "--key", key],
            "tapebuf: -I 0: private by default, and no sender is allowed: ",
        ),
        (
            &["-I", "0", "--plain", "--allow-key", &k.sender.print],
            "tapebuf: --allow-key: only applies to -I, without --plain or --raw",
        ),
        (
            &[
                "-O",
                "127.0.0.1:9",
                "--key",
                key,
                "--pin",
                &k.receiver.print,
                "--raw",
            ],
            "tapebuf: --key: a raw stream (--raw) has no framing",
        ),
        (&["--key", key], "tapebuf: --key: only applies to -I and -O"),
        (
            &["-O", "127.0.0.1:9", "--plain", "--ktls", "on"],
            "tapebuf: --ktls: only applies to -I and -O, without --plain or --raw",
        ),
        (
            &["-I", "0", "--key", key, "--allow-key", "SHA256:nope"],
            "tapebuf: --allow-key: ",
        ),
        (
            &["-O", "127.0.0.1:9", "--key", key, "--pin", "nope"],
            "tapebuf: --pin: ",
        ),
        (
            &[
                "-O",
                "127.0.0.1:9",
                "--key",
                open.to_str().unwrap(),
                "--pin",
                &k.receiver.print,
            ],
            "tapebuf: --key: ",
        ),
        (
            &[
                "-I",
                "0",
                "--key",
                key,
                "--allow-keys",
                "/nonexistent/senders",
            ],
            "tapebuf: --allow-keys: ",
        ),
    ];
    for (args, line) in cases {
        refused_with_one_line(args, line);
    }
}

/// tapebuf with `args` exits 2 with one line that starts with `line`.
fn refused_with_one_line(args: &[&str], line: &str) {
    let out = common::tapebuf()
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with(line), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
}
