//! `tapebuf verify` and restores with `--manifest`, on file volumes, with
//! the real binary: a backup is written in one process, then verified and
//! restored in others with nothing but the manifest, then damaged, swapped
//! or replaced and checked again.

use crate::common;

pub mod backup;

use backup::{verify, Backup, VOLUME};
use common::sha256;

#[test]
fn verify_with_only_the_manifest_passes_a_good_backup() {
    let b = Backup::write(2_500_000, 1);
    let (code, lines) = verify(&b, &[]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    b.assert_ok_line(&lines[0], 1, VOLUME);
    b.assert_ok_line(&lines[1], 2, VOLUME);
    b.assert_ok_line(&lines[2], 3, 2_500_000 - 2 * VOLUME);
    assert!(
        lines[3]
            .starts_with("tapebuf: verify: all 3 volumes match the manifest (2500000 bytes, xxh3 "),
        "{lines:?}"
    );
    assert_eq!(code, 0);
}

#[test]
fn verify_quiet_says_nothing_when_all_match() {
    let b = Backup::write(1_500_000, 2);
    let (code, lines) = verify(&b, &["-q"]);
    assert_eq!((code, lines), (0, vec![]));
}

/// Verifies `b` after `damage` to volume 2, expecting this problem for it.
fn assert_volume_2_fails(b: &Backup, problem: &str) {
    let (code, lines) = verify(b, &[]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    b.assert_ok_line(&lines[0], 1, VOLUME);
    assert_eq!(
        lines[1],
        format!(
            "tapebuf: verify: volume 2 ({}): FAILED: {problem}",
            b.short(2)
        )
    );
    b.assert_ok_line(&lines[2], 3, 2_500_000 - 2 * VOLUME);
    assert_eq!(lines[3], "tapebuf: verify: 2 of 3 volumes ok, 1 FAILED");
    assert_eq!(code, 1);
}

#[test]
fn a_byte_changed_in_the_first_block_is_a_stranger_or_damage() {
    let b = Backup::write(2_500_000, 3);
    b.flip(2, 10);
    assert_volume_2_fails(
        &b,
        "this volume is not part of this backup (or its first 65536 bytes are damaged)",
    );
}

#[test]
fn a_byte_changed_in_a_middle_block_names_the_part_that_differs() {
    let b = Backup::write(2_500_000, 4);
    b.flip(2, 500_000);
    assert_volume_2_fails(&b, "differs between bytes 0 and 1048576 of the volume");
}

#[test]
fn a_byte_changed_in_the_last_block_is_found() {
    let b = Backup::write(2_500_000, 5);
    b.flip(2, VOLUME - 1);
    assert_volume_2_fails(&b, "differs between bytes 0 and 1048576 of the volume");
}

#[test]
fn a_truncated_volume_says_where_it_ends() {
    let b = Backup::write(2_500_000, 6);
    b.truncate(2, 1_000_000);
    assert_volume_2_fails(&b, "ends after 1000000 bytes; 1048576 were written");
}

#[test]
fn swapped_volumes_are_named_for_what_they_are() {
    let b = Backup::write(3_500_000, 7);
    b.swap(2, 3);
    let (code, lines) = verify(&b, &[]);
    assert_eq!(lines.len(), 5, "{lines:?}");
    b.assert_ok_line(&lines[0], 1, VOLUME);
    assert_eq!(
        lines[1],
        format!(
            "tapebuf: verify: volume 2 ({}): FAILED: this is volume 3 of the backup, volume 2 was expected",
            b.short(2)
        )
    );
    assert_eq!(
        lines[2],
        format!(
            "tapebuf: verify: volume 3 ({}): FAILED: this is volume 2 of the backup, volume 3 was expected",
            b.short(3)
        )
    );
    b.assert_ok_line(&lines[3], 4, 3_500_000 - 3 * VOLUME);
    assert_eq!(lines[4], "tapebuf: verify: 2 of 4 volumes ok, 2 FAILED");
    assert_eq!(code, 1);
}

#[test]
fn a_volume_of_another_backup_is_not_part_of_this_one() {
    let b = Backup::write(2_500_000, 8);
    let other = Backup::write(2_500_000, 9);
    std::fs::copy(other.path(2), b.path(2)).unwrap();
    assert_volume_2_fails(
        &b,
        "this volume is not part of this backup (or its first 65536 bytes are damaged)",
    );
}

#[test]
fn a_missing_volume_fails_the_verify() {
    let b = Backup::write(2_500_000, 10);
    std::fs::remove_file(b.path(3)).unwrap();
    let (code, lines) = verify(&b, &[]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[2],
        format!(
            "tapebuf: verify: {}: cannot open volume 3 ({}): No such file or directory (os error 2)",
            b.pattern(),
            b.short(3)
        )
    );
    assert_eq!(lines[3], "tapebuf: verify: 2 of 3 volumes ok, 1 not read");
    assert_eq!(code, 1);
}

#[test]
fn a_backup_that_did_not_end_cleanly_verifies_its_volumes_but_fails() {
    let b = Backup::write(2_500_000, 11);
    b.mark_unclean("interrupted by SIGTERM");
    let (code, lines) = verify(&b, &[]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        lines[3],
        "tapebuf: verify: all 3 volumes match the manifest (2500000 bytes), but the backup itself did not end cleanly (interrupted by SIGTERM): it is not whole"
    );
    assert_eq!(code, 1);
}

#[test]
fn an_unreadable_manifest_is_a_usage_error() {
    let out = common::tapebuf()
        .args(["verify", "--manifest", "/nonexistent/x.json"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tapebuf: --manifest /nonexistent/x.json: cannot read it: No such file or directory (os error 2)\n"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_restore_with_the_manifest_passes_every_byte() {
    let b = Backup::write(2_500_000, 12);
    let (code, out, err) = b.restore(&[]);
    assert_eq!(sha256(&out), sha256(&b.data), "{err}");
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_restore_refuses_a_wrong_volume_before_any_of_its_bytes() {
    let b = Backup::write(3_500_000, 13);
    b.swap(2, 3);
    let (code, out, err) = b.restore(&[]);
    assert_eq!(out.len() as u64, VOLUME, "{err}");
    assert_eq!(sha256(&out), sha256(&b.data[..VOLUME as usize]));
    let first = err.lines().next().unwrap_or("");
    assert_eq!(
        first,
        format!(
            "tapebuf: {}: read failed at byte 1048576: volume 2 ({}): this is volume 3 of the backup, volume 2 was expected; nothing of it was passed on",
            b.pattern(),
            b.name(2)
        )
    );
    assert!(err.contains("INPUT FAILED"), "{err}");
    assert_eq!(code, 1);
}

#[test]
fn blocks_smaller_than_the_fingerprint_still_identify_before_passing_on() {
    let b = Backup::write(2_500_000, 14);
    b.swap(2, 3);
    let (code, out, err) = b.restore(&["-s", "4k"]);
    assert_eq!(out.len() as u64, VOLUME, "{err}");
    assert!(
        err.contains("volume 2 (") && err.contains("this is volume 3 of the backup, volume 2 was expected; nothing of it was passed on"),
        "{err}"
    );
    assert_eq!(code, 1);
    b.swap(2, 3);
    let (code, out, err) = b.restore(&["-s", "4k"]);
    assert_eq!(sha256(&out), sha256(&b.data), "{err}");
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_restore_of_a_damaged_volume_ends_unclean() {
    let b = Backup::write(2_500_000, 15);
    b.flip(2, 500_000);
    let (code, out, err) = b.restore(&[]);
    // The bytes went out before their segment could be judged; the run
    // says so and fails.
    assert_eq!(out.len() as u64, 2 * VOLUME, "{err}");
    assert!(
        err.starts_with(&format!(
            "tapebuf: {}: read failed at byte 2097152: volume 2 ({}): differs between bytes 0 and 1048576 of the volume\n",
            b.pattern(),
            b.name(2)
        )),
        "{err}"
    );
    assert!(err.contains("INPUT FAILED"), "{err}");
    assert_eq!(code, 1);
}

#[test]
fn a_restore_of_a_truncated_volume_fails() {
    let b = Backup::write(2_500_000, 16);
    b.truncate(3, 100_000);
    let (code, out, err) = b.restore(&[]);
    assert_eq!(out.len() as u64, 2 * VOLUME + 100_000, "{err}");
    assert!(
        err.contains(&format!(
            "volume 3 ({}): ends after 100000 bytes; 402848 were written\n",
            b.name(3)
        )),
        "{err}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_volume_cut_short_of_its_fingerprint_passes_nothing_on() {
    let b = Backup::write(2_500_000, 18);
    b.truncate(3, 1000);
    let (code, out, err) = b.restore(&[]);
    assert_eq!(out.len() as u64, 2 * VOLUME, "{err}");
    assert!(
        err.contains(&format!(
            "volume 3 ({}): this volume holds too little to be volume 3 of this backup; nothing of it was passed on\n",
            b.name(3)
        )),
        "{err}"
    );
    assert_eq!(code, 1);
}

// issue 45 finding 3: a restore of a backup its manifest calls unclean
// passes every byte it holds, then exits 1, never 0.
#[test]
fn a_restore_from_an_unclean_backup_passes_what_it_holds_and_fails_at_its_end() {
    let b = Backup::write(2_500_000, 17);
    b.mark_unclean("interrupted by SIGTERM");
    let (code, out, err) = b.restore(&[]);
    assert_eq!(sha256(&out), sha256(&b.data), "{err}");
    let first = err.lines().next().unwrap_or("");
    assert_eq!(
        first,
        "tapebuf: --manifest: the backup it describes did not end cleanly (interrupted by SIGTERM); the 2500000 bytes it committed are checked"
    );
    assert_eq!(err.matches("did not end cleanly").count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "tapebuf: {}: read failed at byte 2500000: {}: the manifest says the backup was not clean (interrupted by SIGTERM): the stream read ends at byte 2500000 and is incomplete\n",
            b.pattern(),
            b.name(3)
        )),
        "{err}"
    );
    assert_eq!(code, 1, "{err}");
}

#[test]
fn verify_from_another_directory_needs_only_the_manifest() {
    // The backup named its volumes relatively; the manifest holds them
    // absolutely, so verify finds them from anywhere.
    let b = Backup::write(1_500_000, 19);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = common::tapebuf()
        .current_dir(elsewhere.path())
        .arg("verify")
        .arg("--manifest")
        .arg(b.manifest())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "tapebuf: verify: volume 1 ({}): ok, 1048576 bytes, ",
            b.name(1)
        )),
        "{err}"
    );
    assert!(
        err.contains("tapebuf: verify: all 2 volumes match the manifest (1500000 bytes, xxh3 "),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn a_one_file_backup_verifies_with_the_manifest_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.bin"), common::pattern(300_000, 20)).unwrap();
    let tapebuf = || {
        let mut c = common::tapebuf();
        c.current_dir(dir.path());
        c
    };
    let out = tapebuf()
        .args(["-q", "-i", "in.bin", "-o", "b.tar", "--manifest", "m.json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = tapebuf()
        .args(["verify", "--manifest", "m.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    let name = dir.path().join("b.tar").display().to_string();
    assert!(
        lines[0].starts_with(&format!(
            "tapebuf: verify: volume 1 ({name}): ok, 300000 bytes, "
        )),
        "{err}"
    );
    assert!(lines[1]
        .starts_with("tapebuf: verify: the 1 volume matches the manifest (300000 bytes, xxh3 "));
    assert_eq!(out.status.code(), Some(0));
}
