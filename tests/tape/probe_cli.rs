//! `tapebuf probe` as a user runs it: a sweep on a file that leaves nothing
//! behind, the refusals that protect data, Ctrl-C in the middle, and a
//! remote probe against the real GNU rmt server through a stand-in rsh.
//!
//! This file holds the helpers and the tests on a file; `probe_cli/`
//! holds the signal tests (`signals`) and the remote and report ones
//! (`remote`).

use crate::common;
mod remote;
mod signals;

use std::path::Path;
use std::process::{Output, Stdio};

use common::{sha256_file, tapebuf};
use tapebuf::probe::schema::{DataKind, ProbeResults, TargetKind, SCHEMA};

const GNU_RMT: &str = "/usr/sbin/rmt-tar";

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
    assert_eq!(r.target_kind, TargetKind::Directory);
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
    // The table and the recommendation go to standard error with --json,
    // naming the target a directory and its sizes as -s takes them.
    assert!(err.contains("write MB/s"), "{err}");
    assert!(
        err.starts_with(&format!(
            "tapebuf probe of {d} (directory), random data, 3 runs of 4M per size\n"
        )),
        "{err}"
    );
    let rows: Vec<&str> = err.lines().skip(3).take(5).collect();
    let sizes: Vec<&str> = rows
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(sizes, ["16k", "32k", "64k", "128k", "256k"], "{err}");
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
