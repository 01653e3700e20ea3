//! Character devices that are not tapes, rewinding tape nodes and drives
//! that ask to be cleaned.
//!
//! The refusals run the real binary against device nodes made here with
//! mknod (the tests run as root): SCSI generic's major (21) and a major no
//! driver has registered, which tapebuf must refuse before it opens them,
//! so nothing is ever written to them; the old code opened them. The
//! harmless devices (null, full, a pseudo-terminal) must still be taken.
//! The cleaning warnings run the real pipeline against the emulated drive
//! (`devices/cleaning.rs`).

use crate::common;

mod cleaning;
mod health;

use std::ffi::CString;
use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::*;

/// Makes a character device node `name` in `dir`.
#[track_caller]
fn mknod(dir: &Path, name: &str, major: u32, minor: u32) -> PathBuf {
    needs::root("mknod makes character device nodes");
    let path = dir.join(name);
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path; mknod only creates a node.
    let r = unsafe {
        libc::mknod(
            c.as_ptr(),
            libc::S_IFCHR | 0o600,
            libc::makedev(major, minor),
        )
    };
    assert_eq!(
        r,
        0,
        "mknod {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn scsi_generic_and_driverless_devices_are_refused_as_outputs_before_opening() {
    let dir = tempfile::tempdir().unwrap();
    let sg = mknod(dir.path(), "sg9", 21, 255);
    let nodrv = mknod(dir.path(), "mystery", 240, 7);
    for (node, numbers) in [(&sg, "21:255"), (&nodrv, "240:7")] {
        let out = run(&["-o", s(node)], pattern(100_000, 1));
        assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        let line = out.stderr.trim_end();
        assert!(line.starts_with("tapebuf: -o/--output: "), "{line}");
        for part in [s(node), numbers, "--any-device", "neither a tape drive"] {
            assert!(line.contains(part), "{part}: {line}");
        }
        // Never opened: the open of a driverless node would fail with ENXIO.
        assert!(!line.contains("No such device"), "{line}");
    }
}

#[test]
fn a_refused_device_leaves_the_other_outputs_uncreated() {
    let dir = tempfile::tempdir().unwrap();
    let sg = mknod(dir.path(), "sg0", 21, 254);
    let file = dir.path().join("copy.tar");
    let out = run(&["-o", s(&file), "-o", s(&sg)], pattern(100_000, 2));
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(!file.exists(), "the file output was created");
}

#[test]
fn a_later_numbered_volume_on_an_unknown_device_is_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    mknod(dir.path(), "vol1", 1, 3);
    mknod(dir.path(), "vol2", 21, 253);
    let pattern_name = dir.path().join("vol%d");
    let out = run(&["-o", s(&pattern_name), "-f"], pattern(10_000, 10));
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("vol2 is a character device 21:253"),
        "{}",
        out.stderr
    );
}

#[test]
fn memory_and_driverless_devices_are_refused_as_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let mem = mknod(dir.path(), "mem", 1, 1);
    let nodrv = mknod(dir.path(), "mystery", 240, 3);
    for (node, about) in [(&mem, "1:1 (driver mem"), (&nodrv, "240:3")] {
        let out = run(&["-i", s(node)], vec![]);
        assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
        assert!(out.stdout.is_empty(), "{} bytes read", out.stdout.len());
        let line = out.stderr.trim_end();
        assert!(line.starts_with("tapebuf: -i/--input: "), "{line}");
        for part in [s(node), about, "--any-device to read from it anyway"] {
            assert!(line.contains(part), "{part}: {line}");
        }
    }
}

#[test]
fn any_device_lets_an_unknown_device_through_to_its_open() {
    let dir = tempfile::tempdir().unwrap();
    let nodrv = mknod(dir.path(), "mystery", 240, 5);
    let out = run(&["-i", s(&nodrv), "--any-device"], vec![]);
    // Opened, and the open fails as the kernel says: an I/O failure.
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains("No such device or address"),
        "{}",
        out.stderr
    );
}

#[test]
fn harmless_devices_are_taken_by_their_numbers_not_their_names() {
    let dir = tempfile::tempdir().unwrap();
    // /dev/null's numbers under a tape's name.
    let null = mknod(dir.path(), "nst0", 1, 3);
    let data = pattern(300_000, 3);
    let out = run(
        &["-o", "/dev/null", "-o", s(&null), "-o", "-"],
        data.clone(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert_eq!(sha256(&out.stdout), sha256(&data));
    let out = run(&["-i", "/dev/null"], vec![]);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    // /dev/full is taken too, and fails as an I/O error, not a refusal.
    let out = run(&["-o", "/dev/full"], data);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
}

#[test]
fn a_pseudo_terminal_is_taken_as_output() {
    let (master, slave) = openpty_raw();
    let slave_name = std::fs::read_link(format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(&slave)
    ))
    .unwrap();
    let data = pattern(2_000, 4);
    let want = data.len();
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let mut master = File::from(master);
        let mut got = vec![0u8; want];
        let r = master.read_exact(&mut got).map(|_| got);
        let _ = tx.send(r);
    });
    let out = run(&["-q", "-o", s(&slave_name)], data.clone());
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let got = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the terminal got nothing")
        .unwrap();
    assert_eq!(sha256(&got), sha256(&data));
    drop(slave);
}

/// A pseudo-terminal pair with the slave in raw mode, so bytes pass as
/// they are.
fn openpty_raw() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors into the two ints; the other
    // arguments may be null.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: termios is plain data; tcgetattr fills it from the open slave.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(
            libc::tcgetattr(std::os::fd::AsRawFd::as_raw_fd(&slave), &mut t),
            0
        );
        libc::cfmakeraw(&mut t);
        assert_eq!(
            libc::tcsetattr(std::os::fd::AsRawFd::as_raw_fd(&slave), libc::TCSANOW, &t),
            0
        );
    }
    (master, slave)
}

#[test]
fn an_inherited_stdout_or_stdin_on_an_unknown_device_is_refused() {
    // /dev/kmsg (1:11), opened read-only and non-blocking, so that even a
    // tapebuf that took it could neither write to it nor wait on it.
    let kmsg = || {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/kmsg")
            .expect("/dev/kmsg")
    };
    let out = output_within(tapebuf().stdin(Stdio::null()).stdout(kmsg()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("tapebuf: -o/--output: stdout is a character device 1:11"),
        "{stderr}"
    );
    let out = output_within(tapebuf().stdin(kmsg()).stdout(Stdio::piped()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("tapebuf: -i/--input: stdin is a character device 1:11"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Runs `command` with stderr piped, killing it after 20 s: a tapebuf that
/// took the kernel log as its input would wait on it for ever.
fn output_within(command: &mut std::process::Command) -> std::process::Output {
    let child = command.stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: kill only sends a signal to the child started here.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let out = rx.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
            panic!("tapebuf did not end within 20 s: {out:?}");
        }
    }
}

/// Runs tapebuf with a rewinding and a no-rewind st node (st's major is
/// fixed at 9; bit 7 of the minor means no rewind) behind a first output
/// that cannot be created, so the run fails before any tape node is
/// opened and nothing is written to a real drive that has these numbers.
fn run_before_st_nodes(extra: &[&str]) -> (Outcome, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let st = mknod(dir.path(), "st31", 9, 31);
    let nst = mknod(dir.path(), "nst31", 9, 31 | 0x80);
    let blocked = dir.path().join("no-such-dir").join("copy");
    let mut args = vec!["-o", s(&blocked), "-o", s(&st), "-o", s(&nst)];
    args.extend_from_slice(extra);
    let out = run(&args, pattern(10_000, 5));
    let _keep = dir.keep();
    (out, st, nst)
}

#[test]
fn a_rewinding_tape_node_is_warned_of_when_the_tape_is_to_stay() {
    let (out, st, nst) = run_before_st_nodes(&["-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("warning: a rewinding tape node"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", out.stderr);
    let w = warnings[0];
    assert!(w.starts_with(&format!("tapebuf: -o {}: ", s(&st))), "{w}");
    assert!(w.contains("overwrites this backup"), "{w}");
    assert!(w.contains(&format!("no-rewind node {}", s(&nst))), "{w}");
    assert!(w.contains("--rewind"), "{w}");
    // The run failed on the first output; no tape node was opened.
    assert!(out.stderr.contains("no-such-dir"), "{}", out.stderr);
    let _ = std::fs::remove_dir_all(st.parent().unwrap());
}

#[test]
fn saying_rewind_or_eject_silences_the_rewinding_node_warning() {
    for flag in ["--rewind", "--eject"] {
        let (out, st, _) = run_before_st_nodes(&[flag]);
        assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
        assert!(!out.stderr.contains("rewinding"), "{flag}: {}", out.stderr);
        let _ = std::fs::remove_dir_all(st.parent().unwrap());
    }
}

#[test]
fn a_remote_rewinding_node_is_warned_of_by_its_name() {
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let rmt = format!("{BIN} rmt");
    // A by-id name without -nst rewinds; it does not exist, so the remote
    // open fails after the warning and nothing is written anywhere.
    let out = run(
        &[
            "-o",
            "vault:/dev/tape/by-id/tapebuf-test-absent",
            "--rsh-command",
            &rsh,
            "--rmt-command",
            &rmt,
        ],
        pattern(10_000, 6),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let first = out.stderr.lines().next().unwrap_or("");
    assert!(
        first.starts_with(
            "tapebuf: -o vault:/dev/tape/by-id/tapebuf-test-absent: warning: a rewinding tape node"
        ),
        "{}",
        out.stderr
    );
    assert!(
        first.contains("vault:/dev/tape/by-id/tapebuf-test-absent-nst"),
        "{first}"
    );
}
