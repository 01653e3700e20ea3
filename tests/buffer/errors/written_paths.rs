//! Every path a run writes is checked before the first byte against every
//! path it reads or writes: a report file (`--manifest`, `--hash-file`,
//! `--summary-json`, `--stats`, `-l`) that is the input, the backup, a
//! later volume or another report, and an output volume that is a volume
//! of the input under another name, are refused with status 2, and every
//! file is left as it was.

use std::path::Path;
use std::process::Stdio;

use crate::common::*;
use crate::errors::run_in;

/// A directory holding `src.bin`, 3,000,000 pattern bytes.
fn with_input() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("src.bin"), pattern(3_000_000, 30)).unwrap();
    dir
}

/// Runs `args` in `dir` and asserts the refusal `line`, with status 2 and
/// every file in `dir` as it was.
fn assert_refused_in(dir: &Path, args: &[&str], line: &str) {
    let before = crate::errors::file_sums(dir);
    let (code, stderr) = run_in(dir, args);
    assert_eq!(code, Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end(), line, "{args:?}");
    assert_eq!(
        crate::errors::file_sums(dir),
        before,
        "{args:?} changed a file"
    );
}

#[test]
fn a_report_file_that_is_the_backup_or_the_input_is_refused_before_any_byte() {
    let to_backup = "writing it there would destroy the backup";
    let to_input = "writing it there would destroy what the run reads";
    let cases: &[(&[&str], String)] = &[
        (
            &["-q", "-i", "src.bin", "-o", "out.bin", "--manifest", "out.bin"],
            format!("--manifest out.bin: is the same file as -o out.bin; {to_backup}"),
        ),
        (
            &["-i", "src.bin", "-o", "out.bin", "--stats", "src.bin"],
            format!("--stats src.bin: is the same file as -i src.bin; {to_input}"),
        ),
        (
            &["-i", "src.bin", "-o", "out.bin", "--summary-json", "src.bin"],
            format!("--summary-json src.bin: is the same file as -i src.bin; {to_input}"),
        ),
        (
            &["-q", "-i", "src.bin", "-o", "out.bin", "--hash", "xxh3", "--hash-file", "out.bin"],
            format!("--hash-file out.bin: is the same file as -o out.bin; {to_backup}"),
        ),
        (
            &["-q", "-i", "src.bin", "-o", "out.bin", "-l", "./src.bin"],
            format!("-l ./src.bin: is the same file as -i src.bin; {to_input}"),
        ),
        (
            &["-q", "-i", "src.bin", "-o", "out.bin", "--stats", "s.txt", "--summary-json", "./s.txt"],
            "--stats s.txt: is the same file as --summary-json ./s.txt; one would overwrite the other"
                .to_string(),
        ),
    ];
    let dir = with_input();
    for (args, why) in cases {
        assert_refused_in(dir.path(), args, &format!("tapebuf: {why}"));
        assert!(
            !dir.path().join("out.bin").exists(),
            "{args:?} made out.bin"
        );
    }
    // With the backup already there and -f, it is not taken for a
    // manifest to check against.
    std::fs::write(dir.path().join("out.bin"), pattern(1000, 31)).unwrap();
    let args = [
        "-q",
        "-f",
        "-i",
        "src.bin",
        "-o",
        "out.bin",
        "--manifest",
        "./out.bin",
    ];
    let line =
        format!("tapebuf: --manifest ./out.bin: is the same file as -o out.bin; {to_backup}");
    assert_refused_in(dir.path(), &args, &line);
    // A file the run only creates is compared by its directory and name.
    let args = [
        "-q", "-f", "-i", "src.bin", "-o", "new.bin", "--hash", "xxh3",
    ];
    let line =
        format!("tapebuf: --hash-file ./new.bin: is the same file as -o new.bin; {to_backup}");
    assert_refused_in(
        dir.path(),
        &[&args[..], &["--hash-file", "./new.bin"]].concat(),
        &line,
    );
}

#[test]
fn a_manifest_named_like_a_later_volume_is_refused_before_volume_1() {
    let dir = with_input();
    let args = [
        "-s",
        "64k",
        "-i",
        "src.bin",
        "-o",
        "v.%02d",
        "-D",
        "1M",
        "--verify",
        "--manifest",
        "v.02",
    ];
    assert_refused_in(
        dir.path(),
        &args,
        "tapebuf: --manifest v.02: is the same file as volume 2 of -o v.%02d (v.02); \
         writing it there would destroy the backup",
    );
    assert!(!dir.path().join("v.01").exists());
}

/// Three 1 MiB volumes `v.01`..`v.03` of `src.bin` in `dir`, with their
/// manifest `m.json`.
fn back_up_in_volumes(dir: &Path) {
    let args = [
        "-q", "-s", "64k", "-i", "src.bin", "-o", "v.%02d", "-D", "1M",
    ];
    let (code, stderr) = run_in(dir, &[&args[..], &["--manifest", "m.json"]].concat());
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn an_output_volume_that_links_to_a_later_input_volume_is_refused() {
    let dir = with_input();
    back_up_in_volumes(dir.path());
    std::os::unix::fs::symlink("v.03", dir.path().join("w.02")).unwrap();
    let args = [
        "-s", "64k", "-i", "v.%02d", "-o", "w.%02d", "-D", "1M", "-f",
    ];
    assert_refused_in(
        dir.path(),
        &args,
        "tapebuf: volume 2 of -o w.%02d (w.02): is the same file as volume 3 of -i v.%02d (v.03); \
         writing it there would destroy what the run reads",
    );
    assert!(!dir.path().join("w.01").exists());
}

#[test]
fn a_restore_refuses_a_report_over_the_manifest_it_checks_against() {
    let dir = with_input();
    back_up_in_volumes(dir.path());
    let args = [
        "-q",
        "-i",
        "v.%02d",
        "-o",
        "back.bin",
        "--manifest",
        "m.json",
    ];
    assert_refused_in(
        dir.path(),
        &[&args[..], &["--summary-json", "m.json"]].concat(),
        "tapebuf: --summary-json m.json: is the same file as --manifest m.json, which this \
         restore checks against; writing it there would destroy what the run reads",
    );
    assert!(!dir.path().join("back.bin").exists());
}

#[test]
fn a_volume_that_becomes_an_input_volume_during_the_run_is_refused_before_its_first_byte() {
    use std::io::Write;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first = pattern(1 << 20, 34);
    std::fs::write(d.join("v.01"), &first).unwrap();
    // Volume 2 of the input is a FIFO, so the test says when the run goes on.
    let fifo = std::ffi::CString::new(d.join("v.02").as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    // Output volume 2 links to an input volume that is not there at start.
    std::os::unix::fs::symlink("v.03", d.join("w.02")).unwrap();
    let child = tapebuf()
        .current_dir(d)
        .args(["-q", "-s", "64k", "-i", "v.%02d", "-n", "3"])
        .args(["-o", "w.%02d", "-D", "1M", "-f"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening the FIFO waits for the run to have read all of volume 1.
    let mut second = std::fs::OpenOptions::new()
        .write(true)
        .open(d.join("v.02"))
        .unwrap();
    let third = pattern(300_000, 35);
    std::fs::write(d.join("v.03"), &third).unwrap();
    let _ = second.write_all(&pattern(500_000, 36));
    drop(second);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        crate::errors::error_lines(&stderr),
        [
            "tapebuf: w.%02d: end of volume 1 after 1048576 bytes: cannot open volume 2 (w.02): \
          volume 2 (w.02) is the same file as input volume 3 (v.03); refused before writing \
          to it; 1048576 bytes are safe on volume 1"
        ]
    );
    assert_eq!(sha256_file(&d.join("v.03")), sha256(&third));
    assert_eq!(sha256_file(&d.join("w.01")), sha256(&first));
}
