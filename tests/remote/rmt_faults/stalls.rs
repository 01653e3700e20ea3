//! A server that stands still: the timeout, the watchdog or a signal
//! ends the run, which reports only the bytes the server acknowledged and
//! leaves no remote shell (nor its children) behind.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::common::{self, pattern, summary_number, tapebuf, wait};
use crate::rmt_faults::fake::{fake, Fault};
use crate::rmt_faults::{write_case, BLOCK, MIB};

/// A server that acknowledges three blocks and then stands still, ended
/// by `flag`: exit 1, the three blocks committed, `expected` said, and no
/// remote shell left behind.
fn a_stall_ends_with_the_acknowledged_prefix(flag: &[&str], expected: &str) {
    let started = Instant::now();
    let w = write_case(
        Fault::StallAfterWrites(3),
        "vault:/srv/b.tar",
        8 * MIB,
        flag,
        1,
    );
    assert_eq!(w.committed, 3 * BLOCK as u64, "{}", w.stderr);
    assert!(w.stderr.contains(expected), "{}", w.stderr);
    assert!(started.elapsed() < Duration::from_secs(20));
    let shell = pid_in(&w.fake.pid_file, Duration::from_secs(1));
    assert!(
        gone(shell, Duration::from_secs(5)),
        "the remote shell {shell} outlived tapebuf"
    );
}

#[test]
fn a_stalled_server_times_out_with_its_acknowledged_prefix() {
    a_stall_ends_with_the_acknowledged_prefix(
        &["--timeout", "2"],
        "no reply from the rmt server for 2 s (--timeout)",
    );
}
/// Waits for the process `pid` to be gone (or a zombie nobody reaps).
fn gone(pid: i32, within: Duration) -> bool {
    let alive = || {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        state.is_some_and(|s| {
            let after = s
                .rsplit_once(')')
                .map(|(_, rest)| rest.trim_start())
                .unwrap_or("");
            !after.starts_with('Z')
        })
    };
    wait::within(within, || (!alive()).then_some(())).is_some()
}

/// Waits for `path` to hold a number.
fn pid_in(path: &Path, within: Duration) -> i32 {
    wait::until(within, "the remote shell's start", || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
    })
}

/// Sends `signal` to tapebuf, waits (bounded) for it to end, and reads
/// what it said on standard error.
fn signal_and_finish(child: &mut Child, signal: Signal) -> (ExitStatus, String) {
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let status = wait::exit_within(child, Duration::from_secs(10));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

#[test]
fn an_interrupt_while_the_server_stalls_reports_only_acknowledged_bytes() {
    for (signal, name) in [(Signal::SIGINT, "SIGINT"), (Signal::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let fake = fake(dir.path(), Fault::StallAfterWrites(3), vec![]);
        let json = dir.path().join("summary.json");
        let mut child = tapebuf()
            .args(["-o", "vault:/srv/b.tar", "-s", "256k", "-m", "4M"])
            .args(["--rsh-command", &fake.rsh, "--rmt-command", "rmt"])
            .args(["--summary-json", json.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let feeder = common::feed_stdin(&mut child, pattern(16 << 20, 13), common::Feed::Fast);
        // Blocks beyond the three acknowledged ones have reached the server.
        let deadline = Instant::now() + Duration::from_secs(20);
        while fake
            .writes
            .recv_deadline(deadline)
            .expect("writes reach the server")
            < 6
        {}
        let shell = pid_in(&fake.pid_file, Duration::from_secs(5));
        let (status, stderr) = signal_and_finish(&mut child, signal);
        drop(feeder);
        assert_eq!(status.signal(), Some(signal as i32), "{stderr}");
        let acked = 3 * (256 << 10) as u64;
        assert_eq!(summary_number(&stderr, "out "), acked, "{stderr}");
        assert!(
            stderr.contains(&format!("interrupted by {name}")),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("volumes: #1 {acked} bytes")),
            "{stderr}"
        );
        let json = std::fs::read_to_string(&json).unwrap();
        assert!(json.contains(&format!("\"out_bytes\":{acked}")), "{json}");
        assert!(
            gone(shell, Duration::from_secs(5)),
            "the remote shell {shell} outlived tapebuf"
        );
    }
}

#[test]
fn the_watchdog_ends_a_stalled_server_with_its_acknowledged_prefix() {
    // The watchdog's own line counts acknowledged bytes too, not blocks
    // merely sent.
    a_stall_ends_with_the_acknowledged_prefix(
        &["-W", "2"],
        &format!(
            "no data moved for 2 s (read 8388608 bytes, committed {} bytes)",
            3 * BLOCK
        ),
    );
}

#[test]
fn an_interrupt_while_opening_ends_the_remote_shell_and_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let hang = dir.path().join("hang");
    std::fs::write(
        &hang,
        format!(
            "#!/bin/sh\nsleep 600 &\necho $! > {p}.child\necho $$ > {p}\nwait\n",
            p = pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = crate::common::command(common::BIN)
        .args([
            "-o",
            "vault:/dev/nst0",
            "--rsh-command",
            hang.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let shell = pid_in(&pids, Duration::from_secs(10));
    let grandchild = pid_in(&dir.path().join("pids.child"), Duration::from_secs(10));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait::exit_within(&mut child, Duration::from_secs(10));
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    assert!(
        gone(shell, Duration::from_secs(5)),
        "the remote shell {shell} outlived tapebuf"
    );
    assert!(
        gone(grandchild, Duration::from_secs(5)),
        "its child {grandchild} outlived tapebuf"
    );
}

/// The processes of group `pgid` still running (zombies are not).
fn group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let rest = stat
            .rsplit_once(')')
            .map(|(_, r)| r.trim_start())
            .unwrap_or("");
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            members.push(pid);
        }
    }
    members
}

/// The process group of `pid`, from /proc.
fn pgid_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = stat.rsplit_once(')').unwrap().1.trim_start();
    rest.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// A server that starts a child and answers nothing, ever: its script,
/// which writes its pid to `pids` and its child's to `pids.child`.
fn stalling_server(dir: &Path) -> std::path::PathBuf {
    let pids = dir.join("pids");
    let stall = dir.join("stall");
    let script = format!(
        "#!/bin/sh\nsleep 600 &\necho $! > {p}.child\necho $$ > {p}\nwait\n",
        p = pids.display()
    );
    std::fs::write(&stall, script).unwrap();
    std::fs::set_permissions(&stall, std::fs::Permissions::from_mode(0o755)).unwrap();
    stall
}

/// Starts `tapebuf ARGS` against the stalling server in `dir` through
/// tests/fixtures/rsh, sends `signal` once the server runs, and asserts
/// that tapebuf dies of it saying exactly `said`, and that no process of
/// the remote shell's group survives.
fn interrupted_while_the_server_stalls(dir: &Path, args: &[&str], signal: Signal, said: &str) {
    let stall = stalling_server(dir);
    let rsh = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rsh");
    let mut child = tapebuf()
        .args(args)
        .args([
            "--rsh-command",
            rsh,
            "--rmt-command",
            stall.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let server = pid_in(&dir.join("pids"), Duration::from_secs(10));
    let grandchild = pid_in(&dir.join("pids.child"), Duration::from_secs(10));
    let group = pgid_of(server);
    assert_ne!(
        group,
        pgid_of(child.id() as i32),
        "the shell leads its own group"
    );
    let (status, stderr) = signal_and_finish(&mut child, signal);
    assert_eq!(status.signal(), Some(signal as i32), "{stderr}");
    assert_eq!(stderr, said);
    assert!(
        gone(grandchild, Duration::from_secs(5)),
        "{grandchild} outlived tapebuf"
    );
    assert!(
        gone(server, Duration::from_secs(5)),
        "{server} outlived tapebuf"
    );
    assert_eq!(
        group_members(group),
        Vec::<i32>::new(),
        "group {group} survives"
    );
}

#[test]
fn an_interrupted_verify_ends_its_remote_shell_and_every_process_of_its_group() {
    for (signal, name) in [(Signal::SIGINT, "SIGINT"), (Signal::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        // A manifest from a good local backup, for verify to check against.
        let source = dir.path().join("source");
        std::fs::write(&source, pattern(1 << 20, 41)).unwrap();
        let manifest = dir.path().join("m.json");
        let out = tapebuf()
            .args(["-q", "-s", "64k", "-i", source.to_str().unwrap()])
            .args(["-o", dir.path().join("b.tar").to_str().unwrap()])
            .args(["--manifest", manifest.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let args = ["verify", "--manifest", manifest.to_str().unwrap()];
        interrupted_while_the_server_stalls(
            dir.path(),
            &[&args[..], &["-i", "vault:/srv/b.tar"]].concat(),
            signal,
            &format!("tapebuf: verify: interrupted by {name}\n"),
        );
    }
}

#[test]
fn an_interrupted_remote_probe_ends_its_remote_shell_and_every_process_of_its_group() {
    for (signal, name) in [(Signal::SIGINT, "SIGINT"), (Signal::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        interrupted_while_the_server_stalls(
            dir.path(),
            &[
                "probe",
                "vault:/srv/p.img",
                "--sizes",
                "64k",
                "--size",
                "1M",
                "--yes",
            ],
            signal,
            &format!("tapebuf: probe: vault:/srv/p.img: interrupted by {name} while opening\n"),
        );
    }
}
