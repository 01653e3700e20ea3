//! `tapebuf probe` as a user runs it: a sweep on a file that leaves nothing
//! behind, the refusals that protect data, Ctrl-C in the middle, and a
//! remote probe against the real GNU rmt server through a stand-in rsh.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{sha256_file, tapebuf};
use tapebuf::probe::schema::{DataKind, ProbeResults, TargetKind, SCHEMA};

const GNU_RMT: &str = "/usr/sbin/rmt";

fn probe(args: &[&str]) -> Output {
    tapebuf()
        .arg("probe")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running tapebuf probe")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one line of JSON on standard output.
fn results(out: &Output) -> ProbeResults {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text:?}");
    assert!(text.ends_with('\n'));
    serde_json::from_str(&text).expect("the JSON parses into the shared schema")
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_sweep_on_a_directory_verifies_every_size_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = probe(&[
        d,
        "--sizes",
        "16k..256k",
        "--size",
        "4M",
        "--runs",
        "3",
        "--json",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r = results(&out);
    assert_eq!(r.schema, SCHEMA);
    assert_eq!(r.version, 1);
    assert_eq!(r.target, d);
    assert_eq!(r.target_kind, TargetKind::File);
    assert_eq!(r.data, DataKind::Random);
    assert_eq!((r.stream_bytes, r.runs, r.direct), (4 << 20, 3, false));
    let sizes: Vec<u64> = r.results.iter().map(|s| s.block_bytes).collect();
    assert_eq!(sizes, vec![16384, 32768, 65536, 131072, 262144]);
    for s in &r.results {
        assert!(s.verified, "{} bytes not verified", s.block_bytes);
        for m in [&s.write, &s.read] {
            assert_eq!(m.rates_bytes_per_s.len(), 3);
            assert!(m.min_bytes_per_s > 0.0);
            assert!(m.min_bytes_per_s <= m.median_bytes_per_s);
            assert!(m.median_bytes_per_s <= m.max_bytes_per_s);
            assert!(m.stream_rate_bytes_per_s > 0.0 && m.startup_s >= 0.0);
        }
    }
    assert!(sizes.contains(&r.recommend.write_block_bytes));
    assert!(sizes.contains(&r.recommend.read_block_bytes));
    // The table and the recommendation go to standard error with --json.
    assert!(err.contains("write MB/s"), "{err}");
    assert!(err.contains("backups: -s "), "{err}");
    assert!(err.contains("restores: -s "), "{err}");
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
    // The JSON round-trips: what is read is what is written.
    let again: ProbeResults = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(again, r);
}

#[test]
fn a_new_file_is_removed_and_an_empty_one_is_left_empty() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("probe-me");
    let out = probe(&[
        new.to_str().unwrap(),
        "--sizes",
        "64k",
        "--size",
        "1M",
        "--runs",
        "1",
        "--data",
        "zeros",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!new.exists());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("zeros data"), "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("backups: -s 64k (")),
        "{table}"
    );

    let empty = dir.path().join("empty");
    std::fs::write(&empty, b"").unwrap();
    let out = probe(&[
        empty.to_str().unwrap(),
        "--sizes",
        "64k",
        "--size",
        "1M",
        "--runs",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
}

#[test]
fn a_file_holding_data_is_refused_without_force_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("precious");
    std::fs::write(&file, b"last night's backup").unwrap();
    let before = sha256_file(&file);
    let f = file.to_str().unwrap();
    let out = probe(&[f, "--sizes", "64k", "--size", "1M"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(
        err.trim_end(),
        format!("tapebuf: probe: {f}: holds 19 bytes, which the probe would overwrite; give --force to go on (the file is left empty afterwards)")
    );
    assert_eq!(sha256_file(&file), before);
    assert!(out.stdout.is_empty());

    let forced = probe(&[
        f, "--sizes", "64k", "--size", "1M", "--runs", "1", "--force",
    ]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
}

#[test]
fn a_device_is_refused_without_yes_when_no_terminal_can_ask() {
    let out = probe(&["/dev/null", "--sizes", "64k", "--size", "1M"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("tapebuf: probe: /dev/null: is a device: "),
        "{err}"
    );
    assert!(err.contains("give --yes"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A remote target too.
    let out = probe(&["vault:/dev/nst0", "--rsh-command", "/bin/false"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("tapebuf: probe: vault:/dev/nst0: is a remote target"));
}

#[test]
fn bad_command_lines_exit_2_and_name_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for (args, flag) in [
        (
            vec![d, "--sizes", "64k..100k"],
            "--sizes: '100k' is not a power of two",
        ),
        (vec![d, "--sizes", "lots"], "--sizes: 'lots' is not a size"),
        (vec![d, "--sizes", "1M", "--size", "2M"], "--size: "),
        (vec![d, "--runs", "0"], "--runs: must be 1 to 1000"),
        (vec![d, "--rmt-command", "/etc/rmt"], "--rmt-command: "),
        (vec![d, "--data", "ones"], "invalid value 'ones'"),
        (vec!["/dev/null", "--direct", "--yes"], "--direct: "),
    ] {
        let out = probe(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("tapebuf: probe: "), "{err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(entries(dir.path()).is_empty());
}

/// Waits for `cond` by polling, up to `limit`.
fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    cond()
}

/// Starts a file probe in a fresh directory on disk, and returns once it
/// has begun writing (the file holds a block) and catches `sig`.
fn probe_mid_sweep(
    size: &str,
    sig: nix::sys::signal::Signal,
) -> (tempfile::TempDir, std::process::Child) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let child = tapebuf()
        .args(["probe", dir.path().to_str().unwrap()])
        .args(["--sizes", "1M", "--size", size, "--runs", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = wait_for(Duration::from_secs(60), || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().metadata().is_ok_and(|m| m.len() > 0))
    });
    assert!(started, "the probe never started writing");
    common::wait_until_caught(child.id(), sig);
    (dir, child)
}

fn send(child: &std::process::Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
}

#[test]
fn sigusr1_mid_sweep_prints_a_status_line_and_the_probe_completes() {
    let (dir, child) = probe_mid_sweep("256M", nix::sys::signal::Signal::SIGUSR1);
    send(&child, nix::sys::signal::Signal::SIGUSR1);
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.signal(), None, "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    let status = err
        .lines()
        .find(|l| l.starts_with("tapebuf: probe: status: "))
        .unwrap_or_else(|| panic!("no status line: {err}"));
    assert!(status.contains(" of 1 runs done after "), "{status}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1M"));
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

/// A probe stopped by `sig` mid-sweep removes its file, says so, and dies
/// of the signal.
fn assert_stops_cleanly(sig: nix::sys::signal::Signal) {
    // On disk (not tmpfs), with a stream far longer than the test lasts.
    let (dir, mut child) = probe_mid_sweep("16G", sig);
    send(&child, sig);
    let ended = wait_for(Duration::from_secs(60), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    if !ended {
        let _ = child.kill();
        panic!("the probe did not stop on {sig:?}");
    }
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.signal(), Some(sig as i32), "{err}");
    assert!(
        err.contains(&format!("interrupted by {}; removed ", sig.as_str())),
        "{err}"
    );
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn ctrl_c_during_a_file_probe_removes_the_file_and_dies_of_sigint() {
    assert_stops_cleanly(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn sighup_mid_sweep_removes_the_file_and_dies_of_sighup() {
    assert_stops_cleanly(nix::sys::signal::Signal::SIGHUP);
}

#[test]
fn a_remote_probe_through_gnu_rmt_verifies_and_leaves_the_file_empty() {
    common::needs::tool(GNU_RMT, "tar");
    let dir = tempfile::tempdir().unwrap();
    let remote = dir.path().join("on-the-tape-host");
    let target = format!("localhost:{}", remote.display());
    let rsh = format!("{}/tests/fixtures/rsh", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(common::BIN)
        .args([
            "probe",
            &target,
            "--rsh-command",
            &rsh,
            "--rmt-command",
            GNU_RMT,
        ])
        .args([
            "--sizes", "16k..64k", "--size", "1M", "--runs", "2", "--yes", "--json",
        ])
        .args(["--timeout", "30"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r = results(&out);
    assert_eq!(r.target, target);
    assert_eq!(r.target_kind, TargetKind::Remote);
    assert_eq!(r.results.len(), 3);
    assert!(r.results.iter().all(|s| s.verified), "{r:?}");
    assert_eq!(std::fs::metadata(&remote).unwrap().len(), 0);
}

/// The issue's own pipeline: `tapebuf probe ... --json > probe.json &&
/// tapebuf report probe.json -o probe.svg`. The report reads the probe's
/// real output (not a handcrafted file), draws a dot per size and
/// direction, and names the recommended sizes the probe chose.
#[test]
fn probe_json_goes_straight_into_report_as_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let out = probe(&[
        work.to_str().unwrap(),
        "--sizes",
        "16k..128k",
        "--size",
        "2M",
        "--runs",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let found = results(&out);
    let json = dir.path().join("probe.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let svg = dir.path().join("probe.svg");
    let report = tapebuf()
        .args([
            "report",
            json.to_str().unwrap(),
            "-o",
            svg.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout).into_owned();
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    assert!(report.stderr.is_empty(), "{}", stderr(&report));
    let picture = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&picture).expect("the report is valid SVG");
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    for label in ["block size", "16K", "128K"] {
        assert!(
            texts.iter().any(|t| t.contains(label)),
            "no '{label}' in {texts:?}"
        );
    }
    let kib = |b: u64| format!("{}K", b >> 10);
    let write = kib(found.recommend.write_block_bytes);
    assert!(
        text.contains(&write),
        "the recommended {write} is not in:\n{text}"
    );
}

#[test]
fn a_remote_shell_that_does_not_exist_is_named_once() {
    let out = probe(&["--rsh-command", "nosuchrsh", "--yes", "host:/tmp/never"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("nosuchrsh").count(), 1, "{err}");
    assert!(
        err.starts_with("tapebuf: probe: host:/tmp/never: ")
            && err.contains("cannot start the remote shell 'nosuchrsh'"),
        "{err}"
    );
}
