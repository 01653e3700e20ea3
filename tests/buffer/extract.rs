//! `tapebuf extract` on file volumes: a backup made by tapebuf itself
//! from a real `tar cf -`, split into volumes with `--volume-size`, with a
//! manifest; its catalog is written here with `CatalogWriter` over the
//! parser's members (as `--catalog` writes it). The members extracted,
//! read back by the real `tar xf -`, equal what `tar xf` gives from the
//! whole archive; damage, a glob that chooses nothing, remote input and
//! a terminal as the output are each refused with their exit status.
//!
//! A run that fails partway (a damaged record, a volume cut short, an
//! output that goes away or fills) is in `extract/failures.rs`.

mod as_tar;
mod backup;
mod failures;
mod identity;
mod names;

use std::fs;
use std::process::Stdio;

use backup::{said, stderr, summary, Backup};

use crate::common;

#[test]
fn a_member_near_the_end_and_one_spanning_volumes_extract_as_tar_gives_them() {
    let b = Backup::new();
    for (glob, names) in [
        ("d/z_last", vec!["d/z_last"]),
        ("d/mid", vec!["d/mid"]),
        ("d/sub", vec!["d/sub"]),
        ("d/sub/*", vec!["--wildcards", "'d/sub/*'"]),
    ] {
        let out = b.extract(&[glob]);
        assert!(out.status.success(), "{glob}: {}", stderr(&out));
        let expected = b.unpacked("full.tar", &names);
        assert!(!expected.is_empty());
        assert_eq!(b.unpacked("out.tar", &[]), expected, "{glob}");
        let line = stderr(&out);
        assert!(
            line.contains("; a full read would have read 740.00 KiB (the backup took "),
            "{line}"
        );
    }
}

#[test]
fn a_member_near_the_end_reads_a_fraction_of_the_backup() {
    let b = Backup::new();
    let out = b.extract(&["d/z_last"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = summary(&out);
    assert!(
        line.starts_with("tapebuf: extract: 1 member, ") && line.contains(", 1 volume, "),
        "{line}"
    );
    // The last volume's fingerprint and the record holding the member.
    let read: f64 = line
        .split(" read of")
        .next()
        .unwrap()
        .rsplit(", ")
        .next()
        .unwrap()
        .trim_end_matches(" KiB")
        .parse()
        .unwrap();
    assert!(read <= 16.0 + 64.0, "{line}");
}

#[test]
fn the_archive_written_is_a_whole_tar_archive_on_standard_output() {
    let b = Backup::new();
    let out = common::tapebuf()
        .current_dir(b.dir.path())
        .args(["extract", "--manifest", "home.json", "-q", "d/a"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(said(&out), Vec::<String>::new());
    assert_eq!(out.stdout.len() % 10240, 0);
    fs::write(b.path("stdout.tar"), &out.stdout).unwrap();
    assert_eq!(
        b.unpacked("stdout.tar", &[]),
        b.unpacked("full.tar", &["d/a"])
    );
}

#[test]
fn an_output_that_is_a_volume_the_catalog_or_the_manifest_is_refused_even_with_f() {
    let b = Backup::new();
    for (name, what) in [
        ("vol.001", "volume 1"),
        ("home.catalog", "the catalog"),
        ("home.json", "the manifest"),
    ] {
        let before = fs::read(b.path(name)).unwrap();
        let out = b.extract_to(name, &["-f", "d/a"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(
                "extract: -o {name}: is the same file as {what} of the backup being read ("
            )),
            "{}",
            stderr(&out)
        );
        assert_eq!(
            fs::read(b.path(name)).unwrap(),
            before,
            "{name} was changed"
        );
    }
    // Standard output appending to a volume is refused too.
    let out = common::command("sh")
        .current_dir(b.dir.path())
        .arg("-c")
        .arg(format!(
            "{} extract --manifest home.json d/a >>vol.002",
            common::BIN
        ))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(
        "extract: standard output: is the same file as volume 2 of the backup being read ("
    ));
}

#[test]
fn a_glob_matching_nothing_is_named_and_fails_the_run() {
    let b = Backup::new();
    let out = b.extract(&["d/nothing*"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("extract: 'd/nothing*': matches no member"),
        "{}",
        stderr(&out)
    );
    // Another glob still chooses its member, and the run still fails.
    let out = b.extract(&["d/nothing*", "d/a"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("'d/nothing*': matches no member"));
    assert_eq!(b.unpacked("out.tar", &[]), b.unpacked("full.tar", &["d/a"]));
}

#[test]
fn remote_input_and_a_manifest_without_catalog_are_usage_errors() {
    let b = Backup::new();
    let out = b.extract(&["-i", "tapehost:/dev/nst0", "d/a"]);
    assert_eq!(out.status.code(), Some(2));
    let line = stderr(&out);
    assert!(
        line.contains("-i tapehost:/dev/nst0: a remote tape or file cannot be read by seeking"),
        "{line}"
    );
    assert_eq!(line.lines().count(), 1, "{line}");

    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(b.path("home.json")).unwrap()).unwrap();
    manifest.as_object_mut().unwrap().remove("catalog");
    fs::write(b.path("bare.json"), serde_json::to_vec(&manifest).unwrap()).unwrap();
    let out = common::tapebuf()
        .current_dir(b.dir.path())
        .args(["extract", "--manifest", "bare.json", "-o", "x.tar", "d/a"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the backup has no catalog"),
        "{}",
        stderr(&out)
    );
    fs::remove_file(b.path("home.catalog")).unwrap();
    let out = b.extract(&["d/a"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--manifest home.json: its catalog "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn volumes_named_with_a_numbered_input_are_read_from_there() {
    let b = Backup::new();
    fs::create_dir(b.path("moved")).unwrap();
    for n in 1..=3 {
        let name = format!("vol.{n:03}");
        fs::rename(b.path(&name), b.path("moved").join(&name)).unwrap();
    }
    let out = b.extract(&["-i", "moved/vol.%03d", "d/mid"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        b.unpacked("out.tar", &[]),
        b.unpacked("full.tar", &["d/mid"])
    );
    // A volume that is another one is named, not read.
    fs::copy(b.path("moved/vol.001"), b.path("moved/vol.002")).unwrap();
    let out = b.extract(&["-i", "moved/vol.%03d", "d/mid"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("this is volume 1 of the backup, volume 2 was expected"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_terminal_as_standard_output_is_refused() {
    let b = Backup::new();
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
    let (master, slave) = unsafe {
        use std::os::fd::{FromRawFd, OwnedFd};
        (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave))
    };
    let out = common::tapebuf()
        .current_dir(b.dir.path())
        .args(["extract", "--manifest", "home.json", "d/a"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    drop(master);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("extract: standard output is a terminal"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn pax_members_with_long_names_extract_as_tar_gives_them() {
    let b = Backup::made_with("tar --sort=name --format=pax -cf full.tar d");
    let long = format!("d/sub/{}", "l".repeat(150));
    for glob in [long.as_str(), "d/sub", "d/mid"] {
        let out = b.extract(&[glob]);
        assert!(out.status.success(), "{glob}: {}", stderr(&out));
        assert_eq!(
            b.unpacked("out.tar", &[]),
            b.unpacked("full.tar", &[glob]),
            "{glob}"
        );
    }
}

#[test]
fn cpio_members_extract_as_cpio_gives_them() {
    common::needs::tool("cpio", "cpio");
    let b = Backup::made_with("find d | sort | cpio --quiet -o -H newc > full.tar");
    let out = b.extract(&["d/sub/*", "d/z_last"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let full = b.unpacked_by(
        "full.tar",
        "cpio --quiet -id 'd/sub/*' d/z_last < ../full.tar",
    );
    assert_eq!(
        b.unpacked_by("out.tar", "cpio --quiet -id < ../out.tar"),
        full
    );
}

#[test]
fn a_hard_link_chosen_alone_brings_its_target() {
    let b = Backup::new();
    let out = b.extract(&["d/hl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("tapebuf: extract: also d/a: d/hl needs it (a hard link's target"),
        "{}",
        stderr(&out)
    );
    let full = b.unpacked("full.tar", &["d/a", "d/hl"]);
    assert_eq!(b.unpacked("out.tar", &[]), full);
}

#[test]
fn an_output_file_that_exists_is_kept_unless_forced() {
    let b = Backup::new();
    fs::write(b.path("kept.tar"), b"mine").unwrap();
    let run = |extra: &[&str]| {
        common::tapebuf()
            .current_dir(b.dir.path())
            .args(["extract", "--manifest", "home.json", "-o", "kept.tar"])
            .args(extra)
            .arg("d/a")
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("-o kept.tar: exists; give -f"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(b.path("kept.tar")).unwrap(), b"mine");
    let out = run(&["-f", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        b.unpacked("kept.tar", &[]),
        b.unpacked("full.tar", &["d/a"])
    );
}
