//! The volume-change prompt, on a real pseudo-terminal: script(1) gives
//! tapebuf a controlling terminal, the test waits for the prompt to appear
//! on it (no sleeps), swaps the "disk" and answers.

use crate::common;

use std::io::{Read, Write};
use std::process::{Child, Stdio};
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver};

use common::{pattern, sha256};

/// Starts `tapebuf ARGS` under script(1), and a thread that forwards what
/// appears on the terminal.
fn start_on_a_terminal(args: &str) -> (Child, Receiver<Vec<u8>>) {
    common::needs::tool("script", "bsdutils");
    let mut child = crate::common::command("script")
        .args([
            "-q",
            "-e",
            "-f",
            "-c",
            &format!("{} {args}", common::BIN),
            "/dev/null",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script(1) from util-linux");
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = unbounded();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Collects terminal output until `want` appears; panics after 60 s.
fn wait_for(rx: &Receiver<Vec<u8>>, seen: &mut String, want: &str) {
    while !seen.contains(want) {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(chunk) => seen.push_str(&String::from_utf8_lossy(&chunk)),
            Err(_) => panic!("'{want}' never appeared; the terminal showed:\n{seen}"),
        }
    }
}

fn drain(rx: &Receiver<Vec<u8>>, seen: &mut String) {
    while let Ok(chunk) = rx.recv_timeout(Duration::from_secs(60)) {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// A 1.5 MB input split into 1 MiB volumes of one file name, so that the
/// second volume needs a change; returns the directory, the input, the
/// target, and the running tapebuf.
fn start_a_two_volume_run(
    seed: u64,
) -> (
    tempfile::TempDir,
    Vec<u8>,
    std::path::PathBuf,
    Child,
    Receiver<Vec<u8>>,
) {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(1_500_000, seed);
    let input = dir.path().join("input");
    std::fs::write(&input, &data).unwrap();
    let target = dir.path().join("disk.tar");
    let (child, rx) = start_on_a_terminal(&format!(
        "-s 64k -D 1M -i {} -o {}",
        input.display(),
        target.display()
    ));
    (dir, data, target, child, rx)
}

/// The operator moves the first "disk" aside and presses Enter; the run
/// then completes and both volumes together are the input.
fn swap_and_finish(
    dir: &tempfile::TempDir,
    data: &[u8],
    target: &std::path::Path,
    child: &mut Child,
    rx: &Receiver<Vec<u8>>,
    seen: &mut String,
) {
    std::fs::rename(target, dir.path().join("first")).unwrap();
    child.stdin.as_mut().unwrap().write_all(b"\n").unwrap();
    drain(rx, seen);
    let status = child.wait().unwrap();
    assert!(status.success(), "{seen}");
    let mut joined = std::fs::read(dir.path().join("first")).unwrap();
    joined.extend(std::fs::read(target).unwrap());
    assert_eq!(sha256(&joined), sha256(data));
    assert!(
        seen.contains("tapebuf: summary: in 1500000 bytes, out 1500000 bytes"),
        "{seen}"
    );
}

#[test]
fn on_a_terminal_the_operator_is_asked_for_the_next_volume() {
    let (dir, data, target, mut child, rx) = start_a_two_volume_run(1);
    let mut seen = String::new();
    wait_for(
        &rx,
        &mut seen,
        &format!(
            "load volume 2 to write on {} and press Enter",
            target.display()
        ),
    );
    // The operator swaps the disk, then presses Enter.
    swap_and_finish(&dir, &data, &target, &mut child, &rx, &mut seen);
}

/// The run ends with exit status 1 and says that volume 1 is safe.
fn fails_with_volume_1_safe(child: &mut Child, rx: &Receiver<Vec<u8>>, seen: &mut String) {
    drain(rx, seen);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{seen}");
    assert!(
        seen.contains("1048576 bytes are safe on volume 1"),
        "{seen}"
    );
}

#[test]
fn on_a_terminal_q_declines_the_change_and_fails() {
    let (_dir, _, _, mut child, rx) = start_a_two_volume_run(2);
    let mut seen = String::new();
    wait_for(&rx, &mut seen, "press Enter (q to stop)");
    child.stdin.as_mut().unwrap().write_all(b"q\n").unwrap();
    fails_with_volume_1_safe(&mut child, &rx, &mut seen);
    assert!(
        seen.contains("the operator declined to load volume 2"),
        "{seen}"
    );
}

#[test]
fn on_a_terminal_enter_without_a_swap_asks_again_and_the_swap_then_completes() {
    let (dir, data, target, mut child, rx) = start_a_two_volume_run(3);
    let mut seen = String::new();
    let prompt = format!(
        "load volume 2 to write on {} and press Enter",
        target.display()
    );
    wait_for(&rx, &mut seen, &prompt);
    // Enter without swapping: volume 1 must not be overwritten.
    child.stdin.as_mut().unwrap().write_all(b"\n").unwrap();
    wait_for(&rx, &mut seen, "; asking for another");
    while seen.matches(&prompt).count() < 2 {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(chunk) => seen.push_str(&String::from_utf8_lossy(&chunk)),
            Err(_) => panic!("the prompt never came again:\n{seen}"),
        }
    }
    assert!(
        seen.contains(&format!("already holds {}", target.display())),
        "{seen}"
    );
    assert_eq!(
        std::fs::read(&target).unwrap(),
        &data[..1 << 20],
        "volume 1 kept"
    );
    // Now the operator swaps the disk and presses Enter again.
    swap_and_finish(&dir, &data, &target, &mut child, &rx, &mut seen);
}

#[test]
fn on_a_terminal_enter_without_a_swap_is_refused_a_bounded_number_of_times() {
    let (_dir, data, target, mut child, rx) = start_a_two_volume_run(4);
    let mut seen = String::new();
    wait_for(&rx, &mut seen, "press Enter (q to stop)");
    // Enter, never swapping: after the bound the run ends, volume 1 kept.
    for _ in 0..4 {
        child.stdin.as_mut().unwrap().write_all(b"\n").unwrap();
    }
    fails_with_volume_1_safe(&mut child, &rx, &mut seen);
    assert_eq!(seen.matches("; asking for another").count(), 3, "{seen}");
    assert!(seen.contains("giving up"), "{seen}");
    assert_eq!(
        std::fs::read(&target).unwrap(),
        &data[..1 << 20],
        "volume 1 kept"
    );
}
