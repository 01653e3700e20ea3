//! Issue 45 finding 2: the manifest's and the catalog's temporaries were
//! `.NAME.PID.tmp`, `.NAME.catalog.PID.tmp` and `.NAME.catalog.PID.sums.tmp`,
//! opened without O_EXCL|O_NOFOLLOW, so another user who can write to the
//! backup directory planted symlinks there and root's tapebuf overwrote a
//! root-only file with the manifest. The run here is PID 1 of a PID
//! namespace of its own, so the old names are known in advance; links are
//! planted at them and at 64 guesses each of the new names, on the disk's
//! filesystem, on tmpfs and on ramfs (which has no O_TMPFILE, so the
//! random named temporaries are used).

use std::path::Path;
use std::process::Stdio;

use tapebuf::catalog::Catalog;
use tapebuf::manifest::Manifest;

use super::{group_writable, tar_input, Secret};
use crate::common;

/// The temporaries' names of 2fa6b59 for a run whose PID is 1.
const OLD_NAMES: [&str; 3] = [".m.json.1.tmp", ".m.catalog.1.tmp", ".m.catalog.1.sums.tmp"];

/// Backs up into the group-writable `backup` under `dir` (with `fs`
/// mounted on it first unless empty), links planted at every name
/// above, and checks what the run left: exit 0, the manifest and its
/// catalog whole, the secret untouched, every link still there and no
/// temporary left behind.
fn backs_up_past_planted_links(fs: &str) {
    common::needs::root("planting links as another uid, unshare --pid and mount");
    common::needs::tool("unshare", "util-linux");
    let dir = tempfile::tempdir().unwrap();
    let secret = Secret::new(dir.path());
    let input = tar_input(dir.path());
    let backup = group_writable(dir.path(), "backup");
    let mount = match fs {
        "" => String::new(),
        fs => format!("mount -t {fs} none \"$D\" && chmod 2775 \"$D\" && "),
    };
    // Planted inside the namespace, after any mount, as the other user.
    let script = format!(
        "set -e; {mount}cd \"$D\"
        plant() {{ ln -s \"$SECRET\" \"$1\"; chown -h 65534:65534 \"$1\"; }}
        for name in {old}; do plant \"$name\"; done
        for i in $(seq 64); do
            for stem in m.json m.catalog m.catalog.sums; do
                plant \".$stem.$(od -An -tx8 -N8 /dev/urandom | tr -d ' ').tmp\"
            done
        done
        ls -A | sort > \"$OUT/planted\"
        set +e
        unshare --pid --fork \"$TAPEBUF\" -q -i \"$INPUT\" -o \"$OUT/backup.tar\" \
            --manifest \"$D/m.json\" --catalog 2> \"$OUT/stderr\"
        echo $? > \"$OUT/status\"
        cp m.json m.catalog \"$OUT/\"
        ls -A | sort > \"$OUT/after\"
        find . -type l | wc -l > \"$OUT/links\"",
        old = OLD_NAMES.join(" "),
    );
    let out = common::command("unshare")
        .args(["--mount", "sh", "-c", &script])
        .env("D", &backup)
        .env("OUT", dir.path())
        .env("SECRET", &secret.path)
        .env("INPUT", &input)
        .env("TAPEBUF", common::BIN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read("status").trim(), "0", "{}", read("stderr"));
    assert_eq!(read("stderr"), "");
    secret.assert_untouched();
    check_backup(dir.path(), &input);
    let planted: Vec<String> = read("planted").lines().map(str::to_string).collect();
    assert_eq!(planted.len(), OLD_NAMES.len() + 3 * 64);
    assert_eq!(read("links").trim(), planted.len().to_string());
    let mut expected = planted.clone();
    expected.extend(["m.catalog".to_string(), "m.json".to_string()]);
    expected.sort();
    let after: Vec<String> = read("after").lines().map(str::to_string).collect();
    assert_eq!(after, expected, "the links and the two files, no temporary");
}

/// The manifest copied out of the namespace names the backup, is clean,
/// and its catalog lists the archive's two members.
fn check_backup(dir: &Path, input: &Path) {
    let manifest = Manifest::load(&dir.join("m.json")).unwrap();
    let reference = manifest.catalog.clone().expect("a catalog entry");
    assert_eq!(reference.file, "m.catalog");
    assert_eq!(reference.off, None);
    assert_eq!(reference.members, 2);
    let catalog = Catalog::open(&dir.join("m.catalog")).unwrap();
    assert_eq!(catalog.len(), 2);
    let written = std::fs::read(dir.join("backup.tar")).unwrap();
    assert_eq!(written, std::fs::read(input).unwrap());
}

// issue 45 finding 2
#[test]
fn planted_links_at_the_temporaries_names_are_never_followed() {
    backs_up_past_planted_links("");
}

// issue 45 finding 2
#[test]
fn planted_links_at_the_temporaries_names_are_never_followed_on_tmpfs() {
    backs_up_past_planted_links("tmpfs");
}

// issue 45 finding 2: no O_TMPFILE on ramfs, so random names are made
#[test]
fn planted_links_at_the_temporaries_names_are_never_followed_on_ramfs() {
    backs_up_past_planted_links("ramfs");
}

/// The manifest and the catalog are replaced by rename inside their
/// directory: a symlink at either name (here to an earlier backup's
/// files, root-only) is itself replaced, and what it pointed at is kept.
#[test]
fn a_manifest_or_catalog_that_is_a_symlink_is_replaced_not_followed() {
    common::needs::root("a root-only target");
    let dir = tempfile::tempdir().unwrap();
    let input = tar_input(dir.path());
    let earlier = dir.path().join("earlier");
    std::fs::create_dir(&earlier).unwrap();
    let run = |manifest: &Path, out: &str| {
        let out = common::tapebuf()
            .args(["-q", "-i"])
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join(out))
            .arg("--manifest")
            .arg(manifest)
            .arg("--catalog")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&earlier.join("m.json"), "first.tar");
    let mut kept = Vec::new();
    for name in ["m.json", "m.catalog"] {
        let target = earlier.join(name);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(name)).unwrap();
        kept.push((target.clone(), std::fs::read(&target).unwrap()));
    }
    run(&dir.path().join("m.json"), "second.tar");
    for (target, bytes) in kept {
        assert_eq!(
            std::fs::read(&target).unwrap(),
            bytes,
            "{}",
            target.display()
        );
        let name = target.file_name().unwrap();
        let now = std::fs::symlink_metadata(dir.path().join(name)).unwrap();
        assert!(now.is_file(), "{name:?} is a file of its own now");
    }
    let manifest = Manifest::load(&dir.path().join("m.json")).unwrap();
    assert!(manifest.volumes[0].name.ends_with("second.tar"));
    assert_eq!(
        Catalog::open(&dir.path().join("m.catalog")).unwrap().len(),
        2
    );
}
