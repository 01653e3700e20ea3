//! A backup written over or onto an older one (issue 45 findings 4 and
//! 15): a `-f` rerun on a filesystem without user attributes, and
//! `--append` onto another backup's volumes.

use std::path::Path;

use super::common::{self, sha256, sha256_file, summary_line};
use super::{run_detached, write_input};

#[test]
fn a_shorter_rerun_with_f_on_ramfs_restores_only_itself() {
    // issue 45 finding 4 (measured): on ramfs, a -f rerun that wrote 1
    // volume over an older 4-volume backup restored 35,514,240 bytes
    common::needs::root("unshare --mount and mount a ramfs");
    common::needs::tool("unshare", "util-linux");
    let dir = tempfile::tempdir().unwrap();
    let (old, _) = write_input(dir.path(), 3_500_000, 41);
    let new_data = common::pattern(600_000, 42);
    let new = dir.path().join("new");
    std::fs::write(&new, &new_data).unwrap();
    let mnt = dir.path().join("ramfs");
    std::fs::create_dir(&mnt).unwrap();
    let d = dir.path().display();
    let script = format!(
        "mount -t ramfs none {m} && \
         {bin} -s 64k -D 1M -i {old} -o {m}/v.%03d 2>{d}/first.err && \
         {bin} -f -s 64k -D 1M -i {new} -o {m}/v.%03d 2>{d}/rerun.err && \
         ls {m} > {d}/listing && \
         {bin} -s 64k -i {m}/v.%03d -o {d}/restored 2>{d}/restore.err",
        m = mnt.display(),
        bin = common::BIN,
        new = new.display(),
    );
    let out = common::command("unshare")
        .args(["--mount", "sh", "-c", &script])
        .output()
        .expect("unshare(1) from util-linux");
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap_or_default();
    assert!(
        out.status.success(),
        "{}{}{}",
        read("first.err"),
        read("rerun.err"),
        read("restore.err")
    );
    let listing = read("listing");
    assert_eq!(
        listing.lines().filter(|l| l.contains(".tbt-")).count(),
        4,
        "{listing}"
    );
    let first = read("first.err");
    assert!(
        summary_line(&first).contains(
            "keeps no user attributes, so the trailer of volume 1,2,3,4 is only in its marker file"
        ),
        "{first}"
    );
    let restored = std::fs::read(dir.path().join("restored")).unwrap();
    assert_eq!(restored.len(), 600_000, "{}", read("restore.err"));
    assert_eq!(sha256(&restored), sha256(&new_data));
    assert!(
        summary_line(&read("restore.err"))
            .contains("volume 1's trailer was read from its marker file"),
        "{}",
        read("restore.err")
    );
}

/// What `--append` is tried onto: another backup's numbered volumes (with
/// or without -D), and a single file that carries a trailer.
const APPEND_ONTO: [(&str, &[&str]); 3] = [
    ("v.%03d", &["-D", "1M"]),
    ("v.%03d", &[]),
    ("single.bin", &["--manifest", "MANIFEST"]),
];

#[test]
fn append_onto_another_backups_volumes_is_refused_before_any_byte() {
    // issue 45 finding 15
    for (pattern, writes) in APPEND_ONTO {
        let dir = tempfile::tempdir().unwrap();
        let (input, data) = write_input(dir.path(), 2_500_000, 43);
        let name = dir.path().join(pattern).display().to_string();
        let manifest = dir.path().join("m.json").display().to_string();
        let writes: Vec<&str> = (writes.iter())
            .map(|a| {
                if *a == "MANIFEST" {
                    manifest.as_str()
                } else {
                    a
                }
            })
            .collect();
        let first = [&["-s", "64k", "-i", &input, "-o", &name][..], &writes].concat();
        let (out, stderr) = run_detached(&first);
        assert!(out.status.success(), "{stderr}");
        let files = volume_sums(dir.path());
        let append = [
            &["-s", "64k", "-i", &input, "-o", &name, "--append"][..],
            &writes,
        ]
        .concat()
        .into_iter()
        .filter(|a| *a != "--manifest" && *a != manifest)
        .collect::<Vec<_>>();
        let (out, stderr) = run_detached(&append);
        assert_eq!(out.status.code(), Some(2), "{pattern}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        let vol1 = match pattern {
            "v.%03d" => dir.path().join("v.001"),
            _ => dir.path().join(pattern),
        };
        assert_eq!(
            stderr,
            format!(
                "tapebuf: -o {name}: --append: {} is volume 1 of another tapebuf backup (its trailer says it ends {} after {} bytes); appending would grow it and replace that trailer, and that backup would no longer restore; write to a new name\n",
                vol1.display(),
                if writes.contains(&"-D") { "continues" } else { "last" },
                if writes.contains(&"-D") { 1 << 20 } else { 2_500_000 },
            )
        );
        assert_eq!(
            volume_sums(dir.path()),
            files,
            "{pattern}: nothing was touched"
        );
        let restored = dir.path().join("restored");
        let (out, stderr) = run_detached(&["-i", &name, "-o", restored.to_str().unwrap()]);
        assert!(out.status.success(), "{pattern}: {stderr}");
        assert_eq!(sha256(&std::fs::read(&restored).unwrap()), sha256(&data));
    }
}

#[test]
fn append_under_a_volume_size_onto_a_volume_that_is_not_empty_is_refused() {
    // issue 45 finding 15: volume 1 grew past -D
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = write_input(dir.path(), 500_000, 44);
    let first = dir.path().join("v.001");
    std::fs::write(&first, vec![1u8; 700_000]).unwrap();
    let name = dir.path().join("v.%03d").display().to_string();
    let (out, stderr) = run_detached(&[
        "-s", "64k", "-D", "1M", "-i", &input, "-o", &name, "--append",
    ]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "tapebuf: -o {name}: --append: volume 1 ({}) already holds 700000 bytes, and -D/--volume-size 1048576 counts the bytes of a volume from its start; appending would grow it past the volume size\n",
            first.display()
        )
    );
    assert_eq!(std::fs::metadata(&first).unwrap().len(), 700_000);
}

/// The digest of every file in `dir` but the input, by name.
fn volume_sums(dir: &Path) -> Vec<(String, String)> {
    let mut sums: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "input")
        .map(|n| (n.clone(), sha256_file(&dir.join(&n))))
        .collect();
    sums.sort();
    sums
}
