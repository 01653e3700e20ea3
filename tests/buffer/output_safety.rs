//! Outputs that would destroy or double data are refused before anything is
//! opened, and a refused or failed start leaves no files behind. O_DIRECT
//! falls back to the page cache where it cannot be used.

use crate::common;

use std::process::Stdio;

use common::*;

fn assert_refused(out: &Outcome, expected: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert_eq!(out.stderr.trim_end(), expected);
}

#[test]
fn output_that_is_the_input_under_another_name_is_refused_and_left_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.bin");
    let data = pattern(100_000, 1);
    std::fs::write(&path, &data).unwrap();
    let other_name = format!("{}/./same.bin", dir.path().display());
    let out = run(
        &["-f", "-i", path.to_str().unwrap(), "-o", &other_name],
        vec![],
    );
    assert_refused(
        &out,
        &format!(
            "tapebuf: -o/--output: {other_name} is the input; writing it while reading it would destroy it"
        ),
    );
    let out = run(
        &["--append", "-i", path.to_str().unwrap(), "-o", &other_name],
        vec![],
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), data);
}

#[test]
fn stdin_and_stdout_on_the_same_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.bin");
    let data = pattern(50_000, 2);
    std::fs::write(&path, &data).unwrap();
    // Like `tapebuf < same.bin >> same.bin`.
    let input = std::fs::File::open(&path).unwrap();
    let output = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    let out = crate::common::command(BIN)
        .stdin(Stdio::from(input))
        .stdout(Stdio::from(output))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "tapebuf: -o/--output: stdout is the input; writing it while reading it would destroy it"
    );
    assert_eq!(std::fs::read(&path).unwrap(), data);
}

#[test]
fn the_same_output_named_twice_is_refused() {
    let out = run(&["-o", "-", "-o", "/dev/stdout"], pattern(1000, 3));
    assert_refused(
        &out,
        "tapebuf: -o/--output: /dev/stdout is the same file as stdout; every output would get the data twice",
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_new_file_named_twice_is_refused_and_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let also_a = format!("{}/./a", dir.path().display());
    let out = run(
        &["-o", a.to_str().unwrap(), "-o", &also_a],
        pattern(1000, 4),
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("is the same file as"), "{}", out.stderr);
    assert!(!a.exists(), "a refused start must not leave files behind");
}

#[test]
fn a_refused_second_output_leaves_the_first_uncreated() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new");
    let existing = dir.path().join("existing");
    std::fs::write(&existing, b"keep").unwrap();
    let out = run(
        &[
            "-o",
            new.to_str().unwrap(),
            "-o",
            existing.to_str().unwrap(),
        ],
        pattern(1000, 5),
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(!new.exists());
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep");
}

#[test]
fn a_failed_open_removes_the_files_this_run_created() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new");
    let out = run(
        &["-o", new.to_str().unwrap(), "-o", "/nonexistent/dir/out"],
        pattern(1000, 6),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -o /nonexistent/dir/out: cannot open: No such file or directory (os error 2)"
    );
    assert!(!new.exists());
}

#[test]
fn direct_falls_back_where_the_filesystem_refuses_it() {
    needs::root("unshare --mount and mount a ramfs");
    needs::tool("unshare", "util-linux");
    // ramfs has no O_DIRECT. Mount one in a private mount namespace.
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().display().to_string();
    let input = dir.path().with_extension("in");
    let data = pattern(200_000, 7);
    std::fs::write(&input, &data).unwrap();
    let script = format!(
        "mount -t ramfs none {mnt} && {BIN} --direct -s 64k -i {inp} -o {mnt}/new.out && sha256sum {mnt}/new.out",
        inp = input.display()
    );
    let out = crate::common::command("unshare")
        .args(["--mount", "sh", "-c", &script])
        .output()
        .expect("unshare(1) from util-linux");
    let stderr = String::from_utf8_lossy(&out.stderr);
    std::fs::remove_file(&input).unwrap();
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tapebuf: -o {mnt}/new.out: the filesystem refuses O_DIRECT; writing through the page cache\n"
        )),
        "{stderr}"
    );
    let sum = String::from_utf8_lossy(&out.stdout);
    assert_eq!(sum.split_whitespace().next(), Some(sha256(&data).as_str()));
}

#[test]
fn direct_append_to_an_unaligned_file_falls_back_and_keeps_every_byte() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let path = dir.path().join("d");
    std::fs::write(&path, b"abc").unwrap();
    let data = pattern(100_000, 8);
    let out = run(
        &[
            "--direct",
            "--append",
            "-s",
            "64k",
            "-o",
            path.to_str().unwrap(),
        ],
        data.clone(),
    );
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("is not a multiple of 4096, so O_DIRECT cannot append"),
        "{}",
        out.stderr
    );
    let mut expected = b"abc".to_vec();
    expected.extend_from_slice(&data);
    assert_eq!(std::fs::read(&path).unwrap(), expected);
}
