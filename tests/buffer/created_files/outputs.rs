//! Outputs the user names, against planted symlinks and existing files:
//! `report -o` overwrote an existing file without -f and followed links
//! (issue 45 finding 11); the buffer's `-o`, `-l`, `--stats`,
//! `--summary-json` and `extract -o` follow the same rule. A symlink in
//! the last component is followed only when the caller or root owns it.

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{plant, tar_input, Secret, OTHER_UID};
use crate::common;

fn run(dir: &Path, args: &[&str]) -> Output {
    common::tapebuf()
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Exit status 2 and exactly `line` on stderr.
fn assert_refused(out: &Output, line: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr, format!("{line}\n"));
}

/// The refusal's words for a link planted at `name`.
fn planted_line(prefix: &str, name: &str) -> String {
    format!(
        "tapebuf: {prefix}{name}: {name} is a symbolic link owned by uid {OTHER_UID}, \
         neither you nor root; tapebuf follows no link another user could have planted"
    )
}

/// A recording of a short run, `st.json`, for `report` to draw.
fn recording(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("in.bin"), vec![7u8; 300_000]).unwrap();
    let out = run(
        dir,
        &["-q", "-i", "in.bin", "-o", "out.bin", "--stats", "st.json"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("st.json")
}

// issue 45 finding 11
#[test]
fn report_never_overwrites_an_existing_picture_without_force() {
    let dir = tempfile::tempdir().unwrap();
    recording(dir.path());
    std::fs::write(dir.path().join("pic.svg"), b"an earlier picture").unwrap();
    let out = run(dir.path(), &["report", "st.json", "-o", "pic.svg"]);
    assert_refused(
        &out,
        "tapebuf: report: -o pic.svg: exists; give -f to overwrite it",
    );
    assert_eq!(
        std::fs::read(dir.path().join("pic.svg")).unwrap(),
        b"an earlier picture"
    );
    let out = run(dir.path(), &["report", "st.json", "-o", "pic.svg", "-f"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(dir.path().join("pic.svg")).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
}

// issue 45 finding 11
#[test]
fn report_follows_no_planted_link_with_or_without_force() {
    common::needs::root("planting a link as another uid");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    recording(dir.path());
    plant(&dir.path().join("pic.svg"), &secret.path);
    let out = run(dir.path(), &["report", "st.json", "-o", "pic.svg"]);
    assert_refused(
        &out,
        "tapebuf: report: -o pic.svg: exists; give -f to overwrite it",
    );
    let out = run(dir.path(), &["report", "st.json", "-o", "pic.svg", "-f"]);
    assert_refused(&out, &planted_line("report: -o ", "pic.svg"));
    // A link to nothing is there too: nothing is created through it.
    plant(&dir.path().join("new.svg"), &dir.path().join("made.svg"));
    let out = run(dir.path(), &["report", "st.json", "-o", "new.svg"]);
    assert_refused(
        &out,
        "tapebuf: report: -o new.svg: exists; give -f to overwrite it",
    );
    assert!(!dir.path().join("made.svg").exists());
    secret.assert_untouched();
}

// issue 45 finding 11 (the same rule for the buffer's outputs)
#[test]
fn the_buffer_follows_no_planted_link_at_an_output_or_a_report_file() {
    common::needs::root("planting a link as another uid");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    std::fs::write(dir.path().join("in.bin"), vec![7u8; 100_000]).unwrap();
    plant(&dir.path().join("planted"), &secret.path);
    let base = ["-q", "-i", "in.bin"];
    for (extra, prefix) in [
        (&["-o", "planted", "-f"][..], "-o "),
        (&["-o", "planted", "--append"][..], "-o "),
    ] {
        let out = run(dir.path(), &[&base[..], extra].concat());
        assert_refused(&out, &planted_line(prefix, "planted"));
    }
    // Report files that cannot be opened fail the run (status 1), before
    // any byte.
    for (flag, shown, verb) in [
        ("-l", "-l/--log", "cannot open"),
        ("--stats", "--stats", "cannot create"),
    ] {
        let out = run(
            dir.path(),
            &[&base[..], &["-o", "out.bin", "-f", flag, "planted"]].concat(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let line = planted_line("", "planted");
        let why = line.strip_prefix("tapebuf: planted: ").unwrap();
        assert_eq!(stderr, format!("tapebuf: {shown} planted: {verb}: {why}\n"));
        assert!(!dir.path().join("out.bin").exists());
    }
    // Written whole at the end, the summary replaces the link itself.
    let out = run(
        dir.path(),
        &[
            &base[..],
            &["-o", "out.bin", "-f", "--summary-json", "planted"],
        ]
        .concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = std::fs::symlink_metadata(dir.path().join("planted")).unwrap();
    assert!(meta.is_file(), "the link was replaced by the summary");
    secret.assert_untouched();
}

/// A link the caller (here root) owns keeps working, as `/dev/tape` to
/// `/dev/nst0` does: followed, with -f, to the file it names.
#[test]
fn an_output_link_the_caller_owns_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let data = vec![9u8; 100_000];
    std::fs::write(dir.path().join("in.bin"), &data).unwrap();
    std::fs::write(dir.path().join("real.bin"), b"old").unwrap();
    std::os::unix::fs::symlink("real.bin", dir.path().join("link.bin")).unwrap();
    let out = run(dir.path(), &["-q", "-i", "in.bin", "-o", "link.bin", "-f"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.path().join("real.bin")).unwrap(), data);
    let out = run(dir.path(), &["-q", "-i", "in.bin", "-o", "link.bin"]);
    assert_refused(
        &out,
        "tapebuf: -o/--output: link.bin: already exists; use -f/--force to overwrite it or \
         --append to add to it",
    );
}

// issue 45 finding 11 (extract -o under the same rule)
#[test]
fn extract_follows_no_planted_link_at_its_output() {
    common::needs::root("planting a link as another uid");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    let input = tar_input(dir.path());
    let out = run(
        dir.path(),
        &[
            "-q",
            "-i",
            input.to_str().unwrap(),
            "-o",
            "b.tar",
            "--manifest",
            "m.json",
            "--catalog",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    plant(&dir.path().join("x.tar"), &secret.path);
    let extract = ["extract", "--manifest", "m.json", "-o", "x.tar", "a"];
    let out = run(dir.path(), &extract);
    assert_refused(
        &out,
        "tapebuf: extract: -o x.tar: exists; give -f to overwrite it",
    );
    let out = run(dir.path(), &[&extract[..], &["-f"]].concat());
    assert_refused(&out, &planted_line("extract: -o ", "x.tar"));
    secret.assert_untouched();
}

// issue 45 finding 11 (probe's file target under the same rule)
#[test]
fn probe_writes_through_no_planted_link() {
    common::needs::root("planting a link as another uid");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    plant(&dir.path().join("target"), &secret.path);
    let out = run(
        dir.path(),
        &[
            "probe", "target", "--force", "--sizes", "16k", "--runs", "1",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let why = format!("target is a symbolic link owned by uid {OTHER_UID}, neither you nor root");
    assert!(
        stderr.starts_with(&format!(
            "tapebuf: probe: target: opening to write at byte offset 0 (block size 16k, run 1): {why}"
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    secret.assert_untouched();
}

// issue 45 finding 11: a later volume's file is checked before volume 1
#[test]
fn a_planted_link_at_a_later_volume_is_refused_before_any_byte() {
    common::needs::root("planting a link as another uid");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    std::fs::write(dir.path().join("in.bin"), vec![7u8; 200_000]).unwrap();
    plant(&dir.path().join("vol.002"), &secret.path);
    let args = ["-q", "-i", "in.bin", "-o", "vol.%03d", "-s", "16k"];
    let out = run(
        dir.path(),
        &[&args[..], &["--volume-size", "64k", "-f"]].concat(),
    );
    assert_refused(&out, &planted_line("-o ", "vol.002"));
    assert!(!dir.path().join("vol.001").exists());
    secret.assert_untouched();
}
