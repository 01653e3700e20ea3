//! Volumes on files, with the real binary: `--volume-size`, numbered
//! names, change commands, a full disk, multi-volume input, `--pad`, and
//! the refusals. The runs that must fail for want of a terminal are
//! started in a new session (setsid), so they have no controlling terminal
//! whoever runs the tests.

use crate::common;

mod markers;
mod reruns;
mod trailers;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{pattern, sha256, summary_line, summary_number, tapebuf};

/// Runs tapebuf with no controlling terminal and no stdin.
fn run_detached(args: &[&str]) -> (Output, String) {
    let mut cmd = tapebuf();
    cmd.args(args).stdin(Stdio::null());
    // SAFETY: setsid(2) is async-signal-safe and touches no Rust state.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let out = cmd.output().expect("running tapebuf");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out, stderr)
}

fn write_input(dir: &Path, len: usize, seed: u64) -> (String, Vec<u8>) {
    let data = pattern(len, seed);
    let path = dir.join("input");
    std::fs::write(&path, &data).unwrap();
    (path.display().to_string(), data)
}

fn concat(paths: &[std::path::PathBuf]) -> Vec<u8> {
    paths
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect()
}

#[test]
fn volume_size_splits_numbered_files_that_read_back_as_one_stream() {
    let dir = tempfile::tempdir().unwrap();
    let (input, data) = write_input(dir.path(), 3_500_000, 1);
    let pattern_name = format!("{}/v.%03d", dir.path().display());
    // --verbose: the summary lists every volume's bytes, not just how many.
    let (out, stderr) = run_detached(&[
        "-s",
        "64k",
        "-D",
        "1M",
        "--verbose",
        "-i",
        &input,
        "-o",
        &pattern_name,
    ]);
    assert!(out.status.success(), "{stderr}");
    let vols: Vec<_> = (1..=4)
        .map(|n| dir.path().join(format!("v.{n:03}")))
        .collect();
    for v in &vols[..3] {
        assert_eq!(
            std::fs::metadata(v).unwrap().len(),
            1 << 20,
            "{}",
            v.display()
        );
    }
    assert!(!dir.path().join("v.005").exists());
    assert_eq!(sha256(&concat(&vols)), sha256(&data));
    let line = summary_line(&stderr);
    assert!(
        line.contains(&format!(
            "-o {pattern_name} volumes: #1 1048576 bytes, #2 1048576 bytes, #3 1048576 bytes, #4 {} bytes",
            3_500_000 - 3 * (1 << 20)
        )),
        "{line}"
    );

    let back = dir.path().join("back");
    let back_s = back.display().to_string();
    let (out, stderr) =
        run_detached(&["-s", "64k", "--verbose", "-i", &pattern_name, "-o", &back_s]);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(sha256(&std::fs::read(&back).unwrap()), sha256(&data));
    assert!(summary_line(&stderr).contains(&format!("-i {pattern_name} volumes: #1 1048576 bytes")));
}

#[test]
fn numbered_volumes_refuse_an_existing_later_file_before_starting() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = write_input(dir.path(), 100_000, 2);
    std::fs::write(dir.path().join("v.002"), b"keep me").unwrap();
    let name = format!("{}/v.%03d", dir.path().display());
    let (out, stderr) = run_detached(&["-D", "1M", "-i", &input, "-o", &name]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("v.002: already exists"), "{stderr}");
    assert!(!dir.path().join("v.001").exists(), "nothing was started");
    assert_eq!(std::fs::read(dir.path().join("v.002")).unwrap(), b"keep me");
}

#[test]
fn a_rerun_over_existing_numbered_volumes_names_the_first_one() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = write_input(dir.path(), 100_000, 2);
    for n in 1..=3 {
        std::fs::write(dir.path().join(format!("v.{n:03}")), b"keep me").unwrap();
    }
    let name = format!("{}/v.%03d", dir.path().display());
    let (out, stderr) = run_detached(&["-D", "1M", "-i", &input, "-o", &name]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("v.001: already exists"), "{stderr}");
    assert!(!stderr.contains("v.002"), "{stderr}");
    for n in 1..=3 {
        let kept = std::fs::read(dir.path().join(format!("v.{n:03}"))).unwrap();
        assert_eq!(kept, b"keep me", "v.{n:03}");
    }
}

#[test]
fn change_command_swaps_the_medium_between_volumes() {
    let dir = tempfile::tempdir().unwrap();
    let (input, data) = write_input(dir.path(), 2_500_000, 3);
    let target = dir.path().join("backup.tar");
    let log = dir.path().join("log");
    // "Swapping the disk" moves the full volume aside.
    let cmd = format!(
        "mv \"$TAPEBUF_DEVICE\" \"$TAPEBUF_DEVICE.$((TAPEBUF_VOLUME - 1))\" && echo \"$TAPEBUF_VOLUME $TAPEBUF_MODE $TAPEBUF_VOLUME_BYTES\" >> {}",
        log.display()
    );
    let target_s = target.display().to_string();
    let (out, stderr) = run_detached(&[
        "-s", "64k", "-D", "1M", "-A", &cmd, "-i", &input, "-o", &target_s,
    ]);
    assert!(out.status.success(), "{stderr}");
    let parts = vec![
        dir.path().join("backup.tar.1"),
        dir.path().join("backup.tar.2"),
        target.clone(),
    ];
    assert_eq!(sha256(&concat(&parts)), sha256(&data));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "2 write 1048576\n3 write 1048576\n"
    );
}

#[test]
fn failing_change_command_without_a_terminal_exits_1_and_says_what_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let (input, data) = write_input(dir.path(), 2_500_000, 4);
    let target = dir.path().join("backup.tar");
    let target_s = target.display().to_string();
    let (out, stderr) = run_detached(&[
        "-s", "64k", "-D", "1M", "-A", "exit 4", "-i", &input, "-o", &target_s,
    ]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tapebuf: {target_s}: end of volume 1 after 1048576 bytes: -A/--change-command: 'exit 4' exited with status 4 when asked for volume 2 of {target_s}; 1048576 bytes are safe on volume 1\n"
        )),
        "{stderr}"
    );
    let line = summary_line(&stderr);
    assert!(line.contains("out 1048576 bytes"), "{line}");
    // The reader may not have read all of the input when the run ends, so
    // the loss is what was read beyond volume 1, whatever that was.
    let read = summary_number(&stderr, "in ");
    assert!(read > 1 << 20 && read <= 2_500_000, "{line}");
    assert!(
        line.contains(&format!(
            "{} bytes read but not committed",
            read - (1 << 20)
        )),
        "{line}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), data[..1 << 20]);
}

#[test]
fn without_change_command_or_terminal_a_full_volume_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = write_input(dir.path(), 1_500_000, 5);
    let target = dir.path().join("one.tar").display().to_string();
    let (out, stderr) = run_detached(&["-s", "64k", "-D", "1M", "-i", &input, "-o", &target]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "volume 2 of {target} is needed, but there is no -A/--change-command and no terminal to ask; 1048576 bytes are safe on volume 1"
        )),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_ends_the_volume_and_the_rest_goes_to_the_next() {
    common::needs::root("unshare --mount and mount a small tmpfs");
    common::needs::tool("unshare", "util-linux");
    // A 1 MiB tmpfs in a private mount namespace is the small disk; the
    // change command "swaps" it by moving the full volume off it.
    let dir = tempfile::tempdir().unwrap();
    let (input, data) = write_input(dir.path(), 2_500_000, 6);
    let mnt = dir.path().join("disk");
    std::fs::create_dir(&mnt).unwrap();
    let script = format!(
        "mount -t tmpfs -o size=1m none {mnt} && exec {bin} -s 64k --verbose -A 'mv \"$TAPEBUF_DEVICE\" {dir}/part$((TAPEBUF_VOLUME - 1))' -i {input} -o {mnt}/backup",
        mnt = mnt.display(),
        bin = common::BIN,
        dir = dir.path().display(),
    );
    let out = crate::common::command("unshare")
        .args(["--mount", "sh", "-c", &script])
        .stdin(Stdio::null())
        .output()
        .expect("unshare(1) from util-linux");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let p1 = std::fs::read(dir.path().join("part1")).unwrap();
    let p2 = std::fs::read(dir.path().join("part2")).unwrap();
    assert!(p1.len() <= 1 << 20 && p1.len() > 900_000, "{}", p1.len());
    // The last volume stayed on the tmpfs, which is gone with the
    // namespace, so check what was moved off it against the input.
    assert_eq!(p1[..], data[..p1.len()]);
    assert_eq!(p2[..], data[p1.len()..p1.len() + p2.len()]);
    let line = summary_line(&stderr);
    assert!(
        line.contains("in 2500000 bytes, out 2500000 bytes"),
        "{line}"
    );
    assert!(
        line.contains(&format!(
            "#1 {} bytes, #2 {} bytes, #3 ",
            p1.len(),
            p2.len()
        )),
        "{line}"
    );
}

#[test]
fn multi_volume_input_changes_volumes_with_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(3_000_000, 7);
    for (i, part) in data.chunks(1_000_000).enumerate() {
        std::fs::write(dir.path().join(format!("p{}", i + 1)), part).unwrap();
    }
    let current = dir.path().join("current");
    std::fs::copy(dir.path().join("p1"), &current).unwrap();
    let cmd = format!(
        "test \"$TAPEBUF_MODE\" = read && cp {dir}/p$TAPEBUF_VOLUME \"$TAPEBUF_DEVICE\"",
        dir = dir.path().display()
    );
    let out_path = dir.path().join("restored");
    let (out, stderr) = run_detached(&[
        "-s",
        "64k",
        "-n",
        "3",
        "-A",
        &cmd,
        "-i",
        &current.display().to_string(),
        "-o",
        &out_path.display().to_string(),
    ]);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(sha256(&std::fs::read(&out_path).unwrap()), sha256(&data));
}

#[test]
fn pad_fills_the_final_block_of_a_file_with_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let (input, data) = write_input(dir.path(), 100_000, 8);
    let target = dir.path().join("padded");
    let (out, stderr) = run_detached(&[
        "-s",
        "64k",
        "--pad",
        "-i",
        &input,
        "-o",
        &target.display().to_string(),
    ]);
    assert!(out.status.success(), "{stderr}");
    let written = std::fs::read(&target).unwrap();
    assert_eq!(written.len(), 2 * 65536);
    assert_eq!(written[..data.len()], data[..]);
    assert!(written[data.len()..].iter().all(|&b| b == 0));
    assert!(summary_line(&stderr).contains("final block padded with 31072 zero bytes"));
}

#[test]
fn eject_without_a_tape_is_refused_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = write_input(dir.path(), 1000, 9);
    let target = dir.path().join("out");
    let (out, stderr) =
        run_detached(&["--eject", "-i", &input, "-o", &target.display().to_string()]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "tapebuf: --eject: neither the input nor any output is a tape drive\n"
    );
    assert!(!target.exists());
}
