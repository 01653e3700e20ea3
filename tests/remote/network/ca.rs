//! Certificates from a site's own CA (`--ca`, `--cert`), made by the real
//! openssl for keys made by `tapebuf key new`, between real processes on
//! loopback: vouched-for ends stream byte-exact and a service names each
//! stream by its sender's certificate; a sender from another CA, a
//! receiver whose certificate names another host, and a raw-key end
//! facing a CA end are refused in the handshake, before a byte of the
//! stream, each side's exit status asserted; a certificate for another
//! key fails at start.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use crate::common::keys::{new_key, Key};
use crate::common::{self, needs, pattern, spawn_piped};
use crate::network::harness::*;

/// A CA, and certificates it or a stranger CA issues.
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new() -> Site {
        let site = Site {
            dir: tempfile::tempdir().unwrap(),
        };
        site.make_ca("ca");
        site.make_ca("stranger-ca");
        site
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn openssl(&self, args: &[&str]) {
        let out = common::command(needs::tool("openssl", "openssl"))
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "openssl {args:?}: {err}");
    }

    fn make_ca(&self, name: &str) {
        let (key, pem, subject) = (
            format!("{name}.key"),
            format!("{name}.pem"),
            format!("/CN={name}"),
        );
        self.openssl(&[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &pem,
            "-subj",
            &subject,
            "-days",
            "3",
        ]);
    }

    /// A key `name` and its certificate from CA `ca`, naming `alt` (an
    /// openssl subjectAltName list).
    fn end(&self, name: &str, ca: &str, alt: &str) -> (Key, PathBuf) {
        let key = new_key(self.dir.path(), name);
        let (csr, cert) = (format!("{name}.csr"), format!("{name}-{ca}.pem"));
        let (subject, alt) = (format!("/CN={name}"), format!("subjectAltName={alt}"));
        let keyfile = key.file.to_str().unwrap();
        self.openssl(&[
            "req", "-new", "-key", keyfile, "-subj", &subject, "-addext", &alt, "-out", &csr,
        ]);
        let (ca_pem, ca_key) = (format!("{ca}.pem"), format!("{ca}.key"));
        self.openssl(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            &ca_pem,
            "-CAkey",
            &ca_key,
            "-CAcreateserial",
            "-days",
            "2",
            "-copy_extensions",
            "copy",
            "-out",
            &cert,
        ]);
        (key, self.path(&cert))
    }

    /// The flags of an end with `key` and `cert`, trusting the site's CA.
    fn flags(&self, key: &Key, cert: &Path) -> Vec<String> {
        let ca = self.path("ca.pem");
        [
            "--key",
            key.file.to_str().unwrap(),
            "--cert",
            cert.to_str().unwrap(),
            "--ca",
            ca.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    }
}

fn spawn(base: &[&str], flags: &[String]) -> Child {
    let mut args: Vec<&str> = base.to_vec();
    args.extend(flags.iter().map(String::as_str));
    spawn_piped(&args)
}

/// Feeds `bytes` to `child` and closes its input.
fn feed_bytes(child: &mut Child, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    })
}

#[test]
fn a_service_takes_senders_its_ca_vouches_for_each_stream_named_by_its_certificate() {
    let site = Site::new();
    let (vault, vault_cert) = site.end("vault", "ca", "DNS:localhost,IP:127.0.0.1");
    let (db1, db1_cert) = site.end("db1", "ca", "DNS:db1.example");
    let (db2, db2_cert) = site.end("db2", "ca", "DNS:db2.example");
    let out = site.path("out");
    std::fs::create_dir(&out).unwrap();
    let template = out.join("{name}.dat");
    let base = [
        "-I",
        "127.0.0.1:0",
        "-s",
        "256k",
        "-m",
        "8M",
        "--senders",
        "2",
        "--streams",
        "2",
        "-o",
    ];
    let mut base = base.to_vec();
    base.push(template.to_str().unwrap());
    let mut service = spawn(&base, &site.flags(&vault, &vault_cert));
    let port = listening_port(&mut service);
    let to = format!("localhost:{port}");
    let (mut sent, mut senders) = (Vec::new(), Vec::new());
    for (i, (key, cert)) in [(&db1, &db1_cert), (&db2, &db2_cert)]
        .into_iter()
        .enumerate()
    {
        let data = pattern(3 << 20, i as u64 + 1);
        let mut sender = spawn(
            &["-O", &to, "-s", "256k", "-m", "4M", "-q"],
            &site.flags(key, cert),
        );
        senders.push((feed_bytes(&mut sender, data.clone()), sender));
        sent.push(data);
    }
    for (feeding, mut sender) in senders {
        feeding.join().unwrap();
        let (status, err) = common::finish(&mut sender);
        assert_eq!(status.code(), Some(0), "sender: {err}");
    }
    let (status, err) = common::finish(&mut service);
    assert_eq!(status.code(), Some(0), "service: {err}");
    for (name, data) in ["db1.example", "db2.example"].iter().zip(&sent) {
        let got = std::fs::read(out.join(format!("{name}.dat"))).unwrap();
        assert!(
            got == *data,
            "{name}: {} bytes, sent {}",
            got.len(),
            data.len()
        );
        assert!(err.contains(&format!("sender {name} (")), "{err}");
    }
    assert!(err.contains(&format!("out {} bytes", 3 << 20)), "{err}");
}

#[test]
fn a_sender_from_another_ca_is_refused_in_the_handshake_and_the_listener_goes_on() {
    let site = Site::new();
    let (vault, vault_cert) = site.end("vault", "ca", "IP:127.0.0.1");
    let (db1, db1_cert) = site.end("db1", "ca", "DNS:db1.example");
    let (_, stranger_cert) = {
        // db1's own key, certified by a CA the vault does not trust.
        let cert = site.path("db1-stranger-ca.pem");
        site.openssl(&[
            "x509",
            "-req",
            "-in",
            "db1.csr",
            "-CA",
            "stranger-ca.pem",
            "-CAkey",
            "stranger-ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-copy_extensions",
            "copy",
            "-out",
            cert.to_str().unwrap(),
        ]);
        ((), cert)
    };
    let base = ["-I", "127.0.0.1:0", "-s", "256k", "-m", "8M"];
    let mut receiver = spawn(&base, &site.flags(&vault, &vault_cert));
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let mut stranger = spawn(
        &["-O", &to, "-s", "256k", "-q"],
        &site.flags(&db1, &stranger_cert),
    );
    let _fed = feed(&mut stranger, Some(2));
    let (status, stranger_err) = common::finish(&mut stranger);
    assert_eq!(status.code(), Some(1), "{stranger_err}");
    let (reader, seen) = stderr_until(&mut receiver, "ignored a connection");
    assert!(
        seen.contains("the sender's certificate does not pass --ca"),
        "{seen}"
    );
    assert!(seen.contains(&db1.print), "{seen}");
    receiver.stderr = Some(reader.into_inner());
    let json = site.path("sender.json");
    let base = [
        "-O",
        &to,
        "-s",
        "256k",
        "-q",
        "--summary-json",
        json.to_str().unwrap(),
    ];
    let mut sender = spawn(&base, &site.flags(&db1, &db1_cert));
    let sent = feed(&mut sender, Some(4));
    let (status, err) = common::finish(&mut sender);
    assert_eq!(status.code(), Some(0), "{err}");
    let (status, receiver_err) = common::finish(&mut receiver);
    assert_eq!(status.code(), Some(0), "{receiver_err}");
    assert_eq!(received.join().unwrap(), sent.join().unwrap());
    assert!(
        receiver_err.contains(&format!("out {} bytes", 4 * MIB)),
        "{receiver_err}"
    );
    // The sender knows its receiver by the key its certificate carries.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(
        summary["network"][0]["peer_key"],
        vault.print.as_str(),
        "{summary}"
    );
}

/// A CA receiver with `key` and `cert` that waits 2 s for a sender, and a
/// sender with `sender` flags that it refuses: both exit 1 and nothing
/// is output. Both ends' stderr.
fn refused_pair(site: &Site, (key, cert): (&Key, &Path), sender: &[String]) -> (String, String) {
    let base = [
        "-I",
        "127.0.0.1:0",
        "--connect-timeout",
        "2",
        "-s",
        "256k",
        "-m",
        "8M",
    ];
    let mut receiver = spawn(&base, &site.flags(key, cert));
    let port = listening_port(&mut receiver);
    let received = drain(&mut receiver);
    let to = format!("127.0.0.1:{port}");
    let mut sender = spawn(&["-O", &to, "-q"], sender);
    let _fed = feed(&mut sender, Some(2));
    let (status, sender_err) = common::finish(&mut sender);
    assert_eq!(status.code(), Some(1), "{sender_err}");
    let (status, receiver_err) = common::finish(&mut receiver);
    assert_eq!(status.code(), Some(1), "{receiver_err}");
    assert!(
        receiver_err.contains("ignored a connection"),
        "{receiver_err}"
    );
    assert_eq!(received.join().unwrap().0, 0, "nothing was output");
    (sender_err, receiver_err)
}

#[test]
fn a_receiver_whose_certificate_names_another_host_is_refused_before_a_byte() {
    let site = Site::new();
    let (vault, vault_cert) = site.end("vault", "ca", "DNS:vault.example");
    let (db1, db1_cert) = site.end("db1", "ca", "DNS:db1.example");
    let (err, _) = refused_pair(&site, (&vault, &vault_cert), &site.flags(&db1, &db1_cert));
    let why = "the receiver's certificate does not pass --ca for 127.0.0.1";
    assert!(err.contains(why), "{err}");
    assert!(err.contains("not valid for name"), "{err}");
}

#[test]
fn a_raw_key_sender_and_a_ca_receiver_refuse_each_other() {
    let site = Site::new();
    let (vault, vault_cert) = site.end("vault", "ca", "IP:127.0.0.1");
    let db1 = new_key(site.dir.path(), "raw-db1");
    let raw = ["--key", db1.file.to_str().unwrap(), "--pin", &vault.print].map(String::from);
    let (_, receiver_err) = refused_pair(&site, (&vault, &vault_cert), &raw);
    let why = "one end checks certificates from a CA (--ca)";
    assert!(receiver_err.contains(why), "{receiver_err}");
}

#[test]
fn each_misuse_of_the_certificate_options_is_refused_in_one_line_before_anything_starts() {
    let site = Site::new();
    let (db1, db1_cert) = site.end("db1", "ca", "DNS:db1.example");
    let (_, vault_cert) = site.end("vault", "ca", "DNS:vault.example");
    let (key, ca) = (db1.file.to_str().unwrap(), site.path("ca.pem"));
    let (ca, cert, other) = (
        ca.to_str().unwrap(),
        db1_cert.to_str().unwrap(),
        vault_cert.to_str().unwrap(),
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["--key", key, "--cert", other, "--ca", ca],
            "tapebuf: --cert: ",
        ),
        (
            &["--key", key, "--ca", ca],
            "tapebuf: --ca: needs this end's certificate too",
        ),
        (
            &["--key", key, "--cert", cert],
            "tapebuf: --cert: needs the CA",
        ),
        (
            &[
                "--key", key, "--cert", cert, "--ca", ca, "--pin", &db1.print,
            ],
            "tapebuf: --pin: --ca vouches for the peer",
        ),
        (
            &["--key", key, "--cert", cert, "--ca", "/nonexistent/ca.pem"],
            "tapebuf: --ca: /nonexistent/ca.pem: cannot read it",
        ),
        (
            &["--cert", cert, "--ca", ca, "--plain"],
            "tapebuf: --ca: only applies to -I and -O, without --plain or --raw",
        ),
        (
            &["--key", key, "--cert", key, "--ca", ca],
            "tapebuf: --cert: ",
        ),
    ];
    for (flags, says) in cases {
        let mut args = vec!["-O", "127.0.0.1:9"];
        args.extend_from_slice(flags);
        let out = common::tapebuf()
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with(says), "{args:?}: {err}");
    }
}
