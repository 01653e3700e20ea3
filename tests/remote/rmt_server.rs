//! `tapebuf rmt` end to end: GNU tar as a real client through the rsh
//! stand-in, and sessions of well-formed requests sent straight to the
//! binary's standard input. Every test asserts exact replies, bytes or
//! checksums and a clean exit status (0 or 1, never a signal or a panic).
//! Malformed requests, the policy and the log, and signals have their own
//! rmt_server_*.rs suites.

use crate::common;
pub mod support;

use std::path::Path;

use common::{pattern, sha256, sha256_file, BIN};
use support::{Scratch, E9, RSH};

// ---- GNU tar as the client ----------------------------------------------

const TAR_OPTIONS: &[&str] = &[
    "--format=gnu",
    "--sort=name",
    "--mtime=@1000000000",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
];

fn source_tree(root: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let files = vec![
        ("big.bin", pattern(3 * 1024 * 1024 + 1234, 7)),
        ("empty", Vec::new()),
        ("notes.txt", b"rmt test\n".to_vec()),
        ("sub/deeper/small.bin", pattern(10_000, 8)),
    ];
    for (name, data) in &files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }
    files
}

/// `tar ARGS` with the rsh stand-in and `tapebuf rmt SERVER_ARGS` as
/// the remote command (the pattern quoted, as a remote shell needs).
fn remote_tar(args: &[&str], server_args: &str) -> std::process::Output {
    common::needs::tool("tar", "tar");
    crate::common::command("tar")
        .args(args)
        .arg(format!("--rsh-command={RSH}"))
        .arg(format!(
            "--rmt-command={BIN} rmt --config /dev/null {server_args}"
        ))
        .output()
        .expect("running tar")
}

#[test]
fn gnu_tar_archives_and_extracts_through_the_server_byte_exact() {
    let s = Scratch::new();
    let src = s.path("src");
    let files = source_tree(&src);
    let archive = s.path("allowed/backup.tar");
    let allow = format!("--allow '{}/**'", s.s("allowed"));
    let remote = format!("localhost:{}", archive.display());

    let mut create = vec!["cf", remote.as_str()];
    create.extend_from_slice(TAR_OPTIONS);
    let src_s = src.display().to_string();
    create.extend_from_slice(&["-C", &src_s, "."]);
    let out = remote_tar(&create, &allow);
    assert!(
        out.status.success(),
        "tar cf: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same archive as tar makes locally.
    let local = s.path("local.tar");
    let local_s = local.display().to_string();
    let mut local_args = vec!["cf", local_s.as_str()];
    local_args.extend_from_slice(TAR_OPTIONS);
    local_args.extend_from_slice(&["-C", &src_s, "."]);
    assert!(crate::common::command("tar")
        .args(&local_args)
        .status()
        .unwrap()
        .success());
    assert_eq!(sha256_file(&archive), sha256_file(&local));

    let listed = remote_tar(&["tf", &remote], &allow);
    assert!(listed.status.success());
    let names = String::from_utf8(listed.stdout).unwrap();
    for (name, _) in &files {
        assert!(
            names.lines().any(|l| l == format!("./{name}")),
            "{name} in {names}"
        );
    }

    let dest = s.path("dest");
    std::fs::create_dir(&dest).unwrap();
    let dest_s = dest.display().to_string();
    let out = remote_tar(&["xf", &remote, "-C", &dest_s], &allow);
    assert!(
        out.status.success(),
        "tar xf: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, data) in &files {
        assert_eq!(sha256_file(&dest.join(name)), sha256(data), "{name}");
    }
}

#[test]
fn gnu_tar_is_refused_outside_the_allowed_paths() {
    let s = Scratch::new();
    std::fs::write(s.path("file"), b"x").unwrap();
    let outside = s.path("elsewhere.tar");
    let remote = format!("localhost:{}", outside.display());
    let allow = format!("--allow '{}/**'", s.s("allowed"));
    let out = remote_tar(&["cf", &remote, "-C", &s.s(""), "file"], &allow);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Cannot open: Permission denied"),
        "{stderr}"
    );
    assert!(!outside.exists());
}

// ---- the session --------------------------------------------------------

#[test]
fn writes_then_reads_back_and_keeps_serving_after_close() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    let input = format!(
        "O{f}\n577 O_WRONLY|O_CREAT|O_TRUNC\nW6\nabcdefC\nO{f}\n0 O_RDONLY\nR4\nR4\nR4\nL0\n0\nR2\nC\n"
    );
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(
        served.text(),
        "A0\nA6\nA0\nA0\nA4\nabcdA2\nefA0\nA0\nA2\nabA0\n"
    );
    assert_eq!(served.stderr, "", "stderr stays clean");
}

#[test]
fn large_pipelined_writes_arrive_intact() {
    let s = Scratch::new();
    let f = s.s("allowed/big.tar");
    let data = pattern(32 << 20, 3);
    let mut input = format!("O{f}\n65 O_WRONLY|O_CREAT\n").into_bytes();
    let mut expected = b"A0\n".to_vec();
    for record in data.chunks(256 * 1024) {
        input.extend_from_slice(format!("W{}\n", record.len()).as_bytes());
        input.extend_from_slice(record);
        expected.extend_from_slice(format!("A{}\n", record.len()).as_bytes());
    }
    input.extend_from_slice(b"C\n");
    expected.extend_from_slice(b"A0\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), String::from_utf8(expected).unwrap());
    assert_eq!(sha256_file(Path::new(&f)), sha256(&data));
}

#[test]
fn write_before_open_is_refused_and_the_stream_stays_in_step() {
    let s = Scratch::new();
    let f = s.s("allowed/a.tar");
    // The data of the first W looks like requests; it must not be read as such.
    let input = format!("W10\nX\nW1\nI6\n1\nO{f}\n65 O_WRONLY|O_CREAT\nW2\nokC\n");
    let served = s.serve(&[], input);
    served.exited(0);
    assert_eq!(served.text(), format!("{E9}A0\nA2\nA0\n"));
    assert_eq!(std::fs::read(&f).unwrap(), b"ok");
}
