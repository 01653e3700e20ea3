//! Private by default: `-I` and `-O` with no key flag, each end with its
//! own tapebuf directory (`XDG_CONFIG_HOME`), as a user sets them up with
//! `tapebuf key new` and two lines. Between real processes on loopback:
//! the stream arrives private and byte-exact; without the files each end
//! fails at start in one line, before it listens or connects; with
//! `--plain` on both ends the stream is clear and both summaries say so.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Stdio};

use crate::common;
use crate::network::harness::*;

/// One host's tapebuf directory, under its own XDG_CONFIG_HOME.
struct Host {
    config: tempfile::TempDir,
}

impl Host {
    fn new() -> Host {
        Host {
            config: tempfile::tempdir().unwrap(),
        }
    }

    fn dir(&self) -> std::path::PathBuf {
        self.config.path().join("tapebuf")
    }

    /// `tapebuf key new --name NAME` with no FILE: the line it printed.
    fn key_new(&self, name: &str) -> String {
        let out = self
            .tapebuf(&["key", "new", "--name", name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert_eq!(err, "");
        String::from_utf8(out.stdout)
            .unwrap()
            .trim_end()
            .to_string()
    }

    fn add_line(&self, file: &str, line: &str) {
        let path = self.dir().join(file);
        let mut text = fs::read_to_string(&path).unwrap_or_default();
        text.push_str(line);
        text.push('\n');
        fs::write(path, text).unwrap();
    }

    fn tapebuf(&self, args: &[&str]) -> std::process::Command {
        let mut c = common::tapebuf();
        c.args(args).env("XDG_CONFIG_HOME", self.config.path());
        c
    }

    fn spawn(&self, args: &[&str]) -> Child {
        (self.tapebuf(args))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_stream_between_keys_in_their_default_places_arrives_private_and_byte_exact() {
    let (vault, db1) = (Host::new(), Host::new());
    let vault_line = vault.key_new("vault");
    let db1_line = db1.key_new("db1");
    assert_eq!(mode(&vault.dir()), 0o700);
    assert_eq!(mode(&vault.dir().join("key")), 0o600);
    let shown = vault
        .tapebuf(&["key", "show", "--name", "vault"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout).trim_end(),
        vault_line
    );
    vault.add_line("allowed_keys", &db1_line);
    let mut receiver = vault.spawn(&["-I", "127.0.0.1:0", "-s", "1M", "-m", "32M"]);
    let port = listening_port(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let vault_print = vault_line.split_whitespace().next().unwrap();
    db1.add_line("receivers", &format!("# the vault\n{to} {vault_print}"));
    let sender = db1.spawn(&["-O", &to, "-s", "1M", "-m", "32M"]);
    let (receiver_err, sender_err) = transfer_16_mib(receiver, sender);
    assert!(receiver_err.contains("over TLS 1.3"), "{receiver_err}");
    assert!(sender_err.contains("over TLS 1.3"), "{sender_err}");
    assert!(receiver_err.contains("db1"), "{receiver_err}");
    assert!(!receiver_err.contains("clear text"), "{receiver_err}");
}

#[test]
fn without_key_files_each_end_fails_at_start_in_one_line_before_it_listens_or_connects() {
    let host = Host::new();
    let key = host.dir().join("key");
    // A port that is listening: the sender must not even connect to it.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let to = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    for (endpoint, args) in [
        (
            format!("-I {to}"),
            vec!["-I", to.as_str(), "-o", "/dev/null"],
        ),
        (format!("-O {to}"), vec!["-O", to.as_str()]),
    ] {
        let out = host.tapebuf(&args).stdin(Stdio::null()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let begins = format!("tapebuf: {endpoint}: private by default, and this end has no key: ");
        assert!(err.starts_with(&begins), "{err}");
        assert!(
            err.contains(&format!("{} does not exist", key.display())),
            "{err}"
        );
        assert!(
            err.contains("'tapebuf key new'") && err.contains("--plain"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    // The -I above used the same port: had it bound, it would have failed
    // on the port in use, not on the key.
    let e = listener.accept().expect_err("no connection was made");
    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
}

#[test]
fn a_sender_with_a_key_but_no_pin_names_the_line_to_add_and_connects_to_nothing() {
    let host = Host::new();
    host.key_new("db1");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let to = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    let out = host
        .tapebuf(&["-O", &to])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let receivers = host.dir().join("receivers");
    assert!(
        err.starts_with(&format!("tapebuf: -O {to}: private by default")),
        "{err}"
    );
    assert!(
        err.contains(&format!("'{to} FINGERPRINT' to {}", receivers.display())),
        "{err}"
    );
    let e = listener.accept().expect_err("no connection was made");
    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
}

#[test]
fn a_plain_pair_sends_in_clear_text_and_both_summaries_say_so() {
    let host = Host::new();
    let mut receiver = host.spawn(&["-I", "127.0.0.1:0", "--plain", "-s", "1M", "-m", "32M"]);
    let port = listening_port(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let sender = host.spawn(&["-O", &to, "--plain", "-s", "1M", "-m", "32M"]);
    let (receiver_err, sender_err) = transfer_16_mib(receiver, sender);
    let said = "in clear text (--plain)";
    assert!(receiver_err.contains(said), "{receiver_err}");
    assert!(
        sender_err.contains(&format!("-O {to}: {said}")),
        "{sender_err}"
    );
}

#[test]
fn a_plain_sender_and_a_default_private_receiver_refuse_each_other() {
    let (vault, db1) = (Host::new(), Host::new());
    vault.key_new("vault");
    let db1_line = db1.key_new("db1");
    vault.add_line("allowed_keys", &db1_line);
    let args = [
        "-I",
        "127.0.0.1:0",
        "--connect-timeout",
        "2",
        "-s",
        "1M",
        "-m",
        "32M",
    ];
    let mut receiver = vault.spawn(&args);
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let mut sender = db1.spawn(&["-O", &to, "--plain", "-s", "1M", "-m", "32M"]);
    let _fed = feed(&mut sender, Some(1));
    let (status, sender_err) = common::finish(&mut sender);
    assert_eq!(status.code(), Some(1), "{sender_err}");
    let (status, receiver_err) = common::finish(&mut receiver);
    assert_eq!(status.code(), Some(1), "{receiver_err}");
    let why = "it sent a plain tapebuf stream, but this receiver takes only senders with a key";
    assert!(receiver_err.contains(why), "{receiver_err}");
    assert_eq!(received.join().unwrap().0, 0, "nothing was output");
}
