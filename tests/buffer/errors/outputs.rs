//! Outputs that fail: an existing file is left alone without `--force`, a
//! full device names the byte offset, one failed output does not stop the
//! others, and a closed stdout is an error, never a success. A device
//! that is not there, and a directory, are refused as usage errors.

use std::io::Read;
use std::path::Path;

use crate::common::*;
use crate::errors::error_lines;

#[test]
fn existing_output_file_is_refused_without_force_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home.tar");
    std::fs::write(&path, b"yesterday's backup").unwrap();
    let out = run(&["-o", path.to_str().unwrap()], pattern(1000, 1));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "tapebuf: -o/--output: {}: already exists; use -f/--force to overwrite it or --append to add to it",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"yesterday's backup");
}

#[test]
fn harmless_devices_are_accepted_as_outputs() {
    // Other character devices are refused: see tests/devices.rs.
    let out = run(&["-o", "/dev/null", "-o", "/dev/zero"], pattern(100_000, 1));
    assert!(out.status.success(), "{}", out.stderr);
}

#[test]
fn output_to_dev_full_fails_with_the_byte_offset() {
    let out = run(&["-s", "64k", "-o", "/dev/full"], pattern(1 << 20, 1));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let errors = error_lines(&out.stderr);
    assert_eq!(
        errors,
        vec!["tapebuf: /dev/full: write failed at byte 0: No space left on device (os error 28)"]
    );
    let line = summary_line(&out.stderr);
    assert!(line.contains("FAILED /dev/full"), "{line}");
    assert!(line.contains("bytes read but not committed"), "{line}");
}

#[test]
fn one_failed_output_does_not_stop_the_others_and_out_counts_what_every_output_holds() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good");
    let input = pattern(2 << 20, 4);
    let out = run(
        &[
            "-s",
            "64k",
            "-b",
            "4",
            "-o",
            "/dev/full",
            "-o",
            good.to_str().unwrap(),
        ],
        input.clone(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert_eq!(sha256_file(&good), sha256(&input));
    let line = summary_line(&out.stderr);
    assert!(
        line.contains("FAILED /dev/full: write failed at byte 0"),
        "{line}"
    );
    // "out" is what every output holds: /dev/full took nothing, however
    // complete the other output is.
    assert_eq!(summary_number(&out.stderr, "out "), 0);
    assert!(
        line.ends_with(&format!("; {} bytes read but not committed", input.len())),
        "{line}"
    );
}

#[test]
fn stdout_closed_early_is_an_error_not_a_success_on_both_rings() {
    for ring in RINGS {
        let mut child = spawn_piped(&on_ring(ring, &["-s", "4k", "-b", "4"]));
        let feeder = feed_stdin(&mut child, pattern(8 << 20, 3), Feed::Fast);
        let mut stdout = child.stdout.take().unwrap();
        let mut first = vec![0u8; 8192];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout); // like `head -c 8192` exiting
        let (status, stderr) = finish(&mut child);
        feeder.join().unwrap();
        assert_eq!(status.code(), Some(1), "{stderr}");
        let errors = error_lines(&stderr);
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(
            errors[0].starts_with("tapebuf: stdout: output closed after ")
                && errors[0].ends_with(" bytes"),
            "{stderr}"
        );
        assert!(
            summary_line(&stderr).contains("bytes read but not committed"),
            "{stderr}"
        );
    }
}

#[test]
fn a_missing_device_under_dev_is_refused_and_not_created() {
    for name in ["/dev/nst0", "/dev/tapebuf-no-such-device"] {
        if Path::new(name).exists() {
            continue;
        }
        let out = run(&["-o", name], pattern(100_000, 2));
        assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
        assert_eq!(
            out.stderr.trim_end(),
            format!(
                "tapebuf: -o {name}: no such device; tapebuf writes only to a device that is \
                 there (is the drive attached and its driver loaded?)"
            )
        );
        assert!(!Path::new(name).exists(), "{name} was created");
    }
}

#[test]
fn a_directory_as_output_or_manifest_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let out = run(&["-o", &d.to_string()], pattern(1000, 3));
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        format!("tapebuf: -o {d}: is a directory; name a file in it")
    );
    let backup = format!("{d}/out.bin");
    let out = run(
        &["-o", &backup, "--manifest", &d.to_string()],
        pattern(1000, 3),
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert_eq!(
        out.stderr.trim_end(),
        format!("tapebuf: --manifest {d}: is a directory; name a file in it")
    );
    assert!(!Path::new(&backup).exists());
}
