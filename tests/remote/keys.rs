//! `tapebuf key new` and `tapebuf key show` as a user runs them: the one
//! line on stdout, the file's mode, openssl reading the same key and
//! finding the same fingerprint, and every refusal with its line and exit
//! status.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use crate::common::{self, needs};

fn key(args: &[&str]) -> Output {
    common::tapebuf()
        .arg("key")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("tapebuf runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What `openssl ARGS` prints with `input` on its standard input.
fn openssl(args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    use std::process::Stdio;
    let out = common::command(needs::tool("openssl", "openssl"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(input)?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        text(&out.stderr)
    );
    out.stdout
}

/// The fingerprint openssl gives the public key in `file`: the SHA-256 of
/// its SubjectPublicKeyInfo, in base64 without padding.
fn openssl_fingerprint(file: &Path) -> String {
    let file = file.to_str().unwrap();
    let spki = openssl(&["pkey", "-pubout", "-outform", "DER", "-in", file], b"");
    let digest = openssl(&["dgst", "-sha256", "-binary"], &spki);
    assert_eq!(digest.len(), 32);
    let b64 = openssl(&["base64", "-A"], &digest);
    format!("SHA256:{}", text(&b64).trim().trim_end_matches('='))
}

#[test]
fn a_new_key_prints_one_line_that_openssl_agrees_with_and_is_mode_0600() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("vault.key");
    let made = key(&["new", file.to_str().unwrap(), "--name", "vault"]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    assert!(made.stderr.is_empty(), "{}", text(&made.stderr));
    let line = text(&made.stdout);
    let (print, name) = line.trim_end().split_once(' ').unwrap();
    assert_eq!(name, "vault");
    assert_eq!(line.lines().count(), 1);
    assert_eq!(print, openssl_fingerprint(&file));
    let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600);

    let shown = key(&["show", file.to_str().unwrap(), "--name", "vault"]);
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert_eq!(text(&shown.stdout), line);
}

#[test]
fn two_new_keys_differ() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = ["a", "b"]
        .iter()
        .map(|n| {
            let file = dir.path().join(n);
            text(&key(&["new", file.to_str().unwrap(), "--name", n]).stdout)
        })
        .collect();
    assert_ne!(lines[0].split(' ').next(), lines[1].split(' ').next());
}

#[test]
fn a_key_is_never_written_over_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("taken");
    fs::write(&file, b"precious").unwrap();
    let out = key(&["new", file.to_str().unwrap(), "--name", "x"]);
    assert_eq!(out.status.code(), Some(2));
    let line = text(&out.stderr);
    assert!(
        line.starts_with(&format!("tapebuf: key: {}: exists", file.display())),
        "{line}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

#[test]
fn a_key_others_may_read_or_change_is_refused_with_the_chmod_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k");
    assert!(key(&["new", file.to_str().unwrap(), "--name", "x"])
        .status
        .success());
    for (mode, says) in [
        (0o644, "lets others read it"),
        (0o620, "lets others change it"),
    ] {
        fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
        let out = key(&["show", file.to_str().unwrap(), "--name", "x"]);
        assert_eq!(out.status.code(), Some(2));
        let line = text(&out.stderr);
        assert!(line.contains(says) && line.contains("chmod 600"), "{line}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_file_that_holds_no_key_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "text",
            b"hello\n",
            "no \"-----BEGIN PRIVATE KEY-----\" line",
        ),
        (
            "bad64",
            b"-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
            "not base64",
        ),
        (
            "notkey",
            b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "no Ed25519 private key",
        ),
    ];
    for (name, content, says) in cases {
        let file = dir.path().join(name);
        fs::write(&file, content).unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let out = key(&["show", file.to_str().unwrap(), "--name", "x"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let line = text(&out.stderr);
        assert!(
            line.contains("not a tapebuf key") && line.contains(says),
            "{line}"
        );
    }
}

#[test]
fn a_missing_key_file_is_an_io_failure_naming_it() {
    let out = key(&["show", "/nonexistent/k", "--name", "x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("tapebuf: key: /nonexistent/k: cannot open it"));
}

#[test]
fn a_name_unsafe_in_a_file_name_is_a_usage_error_and_no_key_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k");
    let out = key(&["new", file.to_str().unwrap(), "--name", "../etc"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--name \"../etc\""),
        "{}",
        text(&out.stderr)
    );
    assert!(!file.exists());
}

#[test]
fn without_a_name_the_host_name_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k");
    let out = key(&["new", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let host = nix::unistd::gethostname().unwrap();
    let short = host
        .to_str()
        .unwrap()
        .split('.')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        text(&out.stdout).trim_end().split_once(' ').unwrap().1,
        short
    );
}

#[test]
fn a_key_openssl_made_is_read_with_the_fingerprint_openssl_gives() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("openssl.key");
    let out = file.to_str().unwrap();
    openssl(&["genpkey", "-algorithm", "ed25519", "-out", out], b"");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    let shown = key(&["show", file.to_str().unwrap(), "--name", "peer"]);
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert_eq!(
        text(&shown.stdout),
        format!("{} peer\n", openssl_fingerprint(&file))
    );
}
