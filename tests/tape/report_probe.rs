//! `tapebuf report` on a `tapebuf probe --json` file: the table and the
//! recommendation on stdout, the rate-against-block-size SVG, and one-line
//! errors naming the file and line for a probe file it cannot read.

use crate::common;

use std::path::{Path, PathBuf};

use common::tapebuf;

const SIZES: [u64; 5] = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

/// One direction at one size: three runs around `median_mb` MB/s, spread
/// by `spread_pct` of the median.
fn measured(median_mb: f64, spread_pct: f64) -> String {
    let m = median_mb * 1e6;
    let half = m * spread_pct / 200.0;
    format!(
        r#"{{"rates_bytes_per_s":[{lo},{m},{hi}],"median_bytes_per_s":{m},"min_bytes_per_s":{lo},"max_bytes_per_s":{hi},"spread_pct":{spread_pct},"startup_s":0.8,"stream_rate_bytes_per_s":{s}}}"#,
        lo = m - half,
        hi = m + half,
        s = m * 1.2
    )
}

/// A handcrafted sweep of a tape, one line as the probe writes it, with
/// `version` and the `results` field given by the caller. Its best write
/// is at 256k and read at 1M; 64k did not verify and 16k's write runs
/// spread 14%.
fn probe_line(version: &str, results_field: &str) -> String {
    let write = [30.0, 80.0, 158.0, 160.0, 161.0];
    let read = [35.0, 90.0, 140.0, 170.0, 171.0];
    let results: Vec<String> = SIZES
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            format!(
                r#"{{"block_bytes":{bytes},"write":{},"read":{},"verified":{}}}"#,
                measured(write[i], if i == 0 { 14.0 } else { 2.0 }),
                measured(read[i], 1.5),
                i != 1
            )
        })
        .collect();
    format!(
        concat!(
            r#"{{"schema":"tapebuf-probe","version":{},"tapebuf":"0.1.0","target":"vault:/dev/nst0","#,
            r#""target_kind":"remote","data":"random","stream_bytes":268435456,"runs":3,"direct":false,"#,
            r#""{}":[{}],"recommend":{{"write_block_bytes":262144,"read_block_bytes":1048576,"#,
            r#""write_why":"the smallest size within 3% of the best write rate","#,
            r#""read_why":"the smallest size within 3% of the best read rate"}}}}"#,
            "\n"
        ),
        version,
        results_field,
        results.join(",")
    )
}

fn write_probe(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn report(args: &[&Path]) -> (std::process::Output, String, String) {
    let out = tapebuf().arg("report").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out, stdout, stderr)
}

#[test]
fn report_draws_write_and_read_rates_against_block_size_with_a_dot_per_size() {
    let dir = tempfile::tempdir().unwrap();
    let probe = write_probe(dir.path(), "probe.json", &probe_line("1", "results"));
    let svg = dir.path().join("probe.svg");
    let (out, _, stderr) = report(&[&probe, Path::new("-o"), &svg]);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");

    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("invalid SVG: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "text")
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    let has = |want: &str| texts.iter().any(|t| t.contains(want));
    for want in [
        "block size",
        "rate (MB/s)",
        "write: median of 3 runs",
        "read: median of 3 runs",
        "recommended for backups (write): -s 256k",
        "recommended for restores (read): -s 1M",
        "read back did not match",
        "vault:/dev/nst0",
        "random data",
    ] {
        assert!(has(want), "no '{want}' in the SVG texts: {texts:?}");
    }
    for label in ["16k", "64k", "256k", "1M", "4M"] {
        assert!(
            texts.contains(&label),
            "no x label '{label}' in the SVG texts: {texts:?}"
        );
    }
    let dots = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "circle")
        .filter(|n| n.attribute("fill").is_some_and(|f| f != "none"))
        .count();
    assert_eq!(dots, 2 * SIZES.len(), "one write and one read dot per size");
}

#[test]
fn report_prints_the_table_the_recommendation_and_warnings_for_doubtful_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let probe = write_probe(dir.path(), "probe.json", &probe_line("1", "results"));
    let (out, stdout, stderr) = report(&[&probe]);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].contains("vault:/dev/nst0 (remote tape)"),
        "{stdout}"
    );
    assert!(lines[1].contains("write MB/s"), "{stdout}");
    let row_256k = lines
        .iter()
        .find(|l| l.trim_start().starts_with("256k "))
        .unwrap_or_else(|| panic!("no 256k row: {stdout}"));
    // The probe's own table: 16k's spread of 14.0% widens the write
    // column, and every row lines up under the headings.
    assert!(row_256k.contains("158.0 ± 2.0%"), "{row_256k}");
    assert!(row_256k.contains("140.0 ±1.5%"), "{row_256k}");
    let figures: Vec<&str> = row_256k.split_whitespace().rev().take(4).collect();
    assert_eq!(figures, ["168.0", "0.800", "189.6", "0.800"], "{row_256k}");
    let plus_minus = |l: &str| l.chars().position(|c| c == '±');
    for row in &lines[2..2 + SIZES.len()] {
        assert_eq!(plus_minus(row), plus_minus(row_256k), "{stdout}");
    }
    assert_eq!(
        lines.iter().filter(|l| l.contains('±')).count(),
        SIZES.len(),
        "{stdout}"
    );
    assert!(
        stdout.contains("backups: -s 256k (the smallest size within 3% of the best write rate)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("restores: -s 1M (the smallest size within 3% of the best read rate)"),
        "{stdout}"
    );
    let warnings: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(warnings.len(), 2, "{stdout}");
    assert!(
        warnings[0].contains("16k: write rates spread 14.0%"),
        "{stdout}"
    );
    assert!(
        warnings[1].contains("64k: the data read back did not match"),
        "{stdout}"
    );
}

#[test]
fn report_rejects_a_probe_file_of_an_unknown_version_or_without_results_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("never.svg");
    for (name, text, why) in [
        (
            "newer.json",
            probe_line("2", "results"),
            "probe schema version 2 is newer than this tapebuf reads (1)",
        ),
        (
            "older.json",
            probe_line("0", "results"),
            "unknown probe schema version 0",
        ),
        (
            "missing.json",
            probe_line("1", "sizes"),
            "missing field `results`",
        ),
        (
            "blank-first.json",
            format!("\n{}", probe_line("7", "results")),
            "version 7",
        ),
    ] {
        let probe = write_probe(dir.path(), name, &text);
        let (out, stdout, stderr) = report(&[&probe, Path::new("-o"), &svg]);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(stdout, "", "{name}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        let line = if name.starts_with("blank") { 2 } else { 1 };
        assert!(
            stderr.starts_with(&format!("tapebuf: report: {}: ", probe.display())),
            "{stderr}"
        );
        assert!(stderr.contains(why), "{name}: {stderr}");
        assert!(
            stderr.trim_end().ends_with(&format!("(line {line})")),
            "{name}: {stderr}"
        );
        assert!(!svg.exists(), "{name}: an SVG was written for bad input");
    }
}

#[test]
fn report_on_a_tar_file_says_it_is_not_a_stats_or_probe_file() {
    let dir = tempfile::tempdir().unwrap();
    // One archive of binary data (not UTF-8), one of plain text.
    let binary: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    std::fs::write(dir.path().join("data.bin"), binary).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "plain text\n").unwrap();
    for member in ["data.bin", "notes.txt"] {
        let tar = dir.path().join(format!("{member}.tar"));
        let made = crate::common::command("tar")
            .arg("-cf")
            .arg(&tar)
            .arg("-C")
            .arg(dir.path())
            .arg(member)
            .status()
            .unwrap();
        assert!(made.success());
        let (out, stdout, stderr) = report(&[&tar]);
        assert_eq!(out.status.code(), Some(1), "{member}: {stderr}");
        assert_eq!(stdout, "", "{member}");
        assert_eq!(stderr.lines().count(), 1, "{member}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "tapebuf: report: {}: not a tapebuf stats, probe or manifest file",
                tar.display()
            )),
            "{member}: {stderr}"
        );
        assert!(!stderr.contains("UTF-8"), "{member}: {stderr}");
    }
}

#[test]
fn report_survives_sigusr1_and_still_reads_its_file() {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    use nix::sys::signal::{kill, Signal};
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    // The recording is a regular file (a FIFO is refused, issue 45
    // finding 13); the report is held at its summary's write instead, by
    // a standard output pipe filled to the brim before it starts.
    let file = dir.path().join("probe.json");
    std::fs::write(&file, format!("{}\n", probe_line("1", "results"))).unwrap();
    let (read, write) = nix::unistd::pipe().unwrap();
    let size = fcntl(&write, FcntlArg::F_SETPIPE_SZ(4096)).unwrap() as usize;
    fcntl(&write, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).unwrap();
    let filler = vec![b'#'; size];
    let filled = nix::unistd::write(&write, &filler).unwrap();
    assert_eq!(filled, size, "the pipe is full");
    fcntl(&write, FcntlArg::F_SETFL(OFlag::empty())).unwrap();
    let child = tapebuf()
        .arg("report")
        .arg(&file)
        .stdout(std::process::Stdio::from(write))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_until_caught(child.id(), Signal::SIGUSR1);
    kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        Signal::SIGUSR1,
    )
    .unwrap();
    let mut stdout = Vec::new();
    std::fs::File::from(read).read_to_end(&mut stdout).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with(&filler));
    assert!(
        String::from_utf8_lossy(&stdout[size..]).contains("256k"),
        "{stderr}"
    );
}
