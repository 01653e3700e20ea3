//! Inputs that fail: a missing file, a read error and a file that shrinks
//! while it is read are each named with the offset reached, and the run fails.

use std::io::Read;
use std::process::Stdio;

use crate::common::*;
use crate::errors::error_lines;

#[test]
fn missing_input_file_is_an_io_error_naming_the_path() {
    let out = run(&["-i", "/nonexistent/home.tar"], vec![]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out.stderr.trim_end(),
        "tapebuf: -i /nonexistent/home.tar: cannot open: No such file or directory (os error 2)"
    );
}

#[test]
fn input_read_error_names_the_input_and_offset() {
    // Reading a process's memory at address 0 fails with EIO.
    let out = run(&["-i", "/proc/self/mem"], vec![]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(
        error_lines(&out.stderr),
        vec!["tapebuf: /proc/self/mem: read failed at byte 0: Input/output error (os error 5)"]
    );
    assert!(
        summary_line(&out.stderr).ends_with("; INPUT FAILED"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_file_that_shrinks_while_it_is_read_fails_and_says_so() {
    // tapebuf grows a FIFO output to /proc/sys/fs/pipe-max-size, so until
    // this test reads past its first block, tapebuf can have read at most
    // that, the ring (16 KiB) and the blocks in hand. The file is cut to
    // twice that, well beyond what the reader can have reached.
    let pipe_max: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let cut = 2 * pipe_max;
    let total = 4 * pipe_max;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.log");
    std::fs::write(&path, pattern(total, 33)).unwrap();
    let fifo = dir.path().join("out");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let mut child = tapebuf()
        .args(["-s", "4k", "-m", "16k", "-i"])
        .arg(&path)
        .arg("-o")
        .arg(&fifo)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::fs::File::open(&fifo).unwrap();
    let mut first = vec![0u8; 4096];
    reader.read_exact(&mut first).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    let (status, stderr) = finish(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(first.len() + rest.len(), cut);
    assert!(
        stderr.contains(&format!(
            "the file shrank while it was read: it had {total} bytes to read when the run \
             started, and ended after {cut}"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("INPUT FAILED"), "{stderr}");
}
