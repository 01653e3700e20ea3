//! The policy as a specification: what a confined server lets a client
//! open, and the refusal each escape attempt gets.

use std::fs;
use std::os::unix::fs::symlink;

use super::*;

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("backup")).unwrap();
        fs::create_dir(root.join("private")).unwrap();
        fs::write(root.join("private/secret"), b"x").unwrap();
        fs::write(root.join("backup/old.tar"), b"x").unwrap();
        Tree { _dir: dir, root }
    }

    fn path(&self, rest: &str) -> PathBuf {
        self.root.join(rest)
    }

    fn policy(&self) -> Policy {
        Policy::new([format!("{}/backup/**", self.root.display())]).unwrap()
    }
}

#[test]
fn admits_existing_and_new_files_inside_the_allowed_directory() {
    let t = Tree::new();
    let p = t.policy();
    assert_eq!(
        p.admit(&t.path("backup/old.tar"), OpenFlags::READ),
        Ok(t.path("backup/old.tar"))
    );
    assert_eq!(
        p.admit(&t.path("backup/new.tar"), OpenFlags::WRITE_NEW),
        Ok(t.path("backup/new.tar"))
    );
}

#[test]
fn refuses_paths_outside_with_permission_denied_naming_them() {
    let t = Tree::new();
    let secret = t.path("private/secret");
    let r = t.policy().admit(&secret, OpenFlags::READ).unwrap_err();
    assert_eq!(r.errno, libc::EACCES);
    assert_eq!(
        r.message,
        format!(
            "Permission denied: {} is outside the allowed paths",
            secret.display()
        )
    );
}

#[test]
fn dot_dot_and_symbolic_links_cannot_escape() {
    let t = Tree::new();
    let p = t.policy();
    let r = p
        .admit(&t.path("backup/../private/secret"), OpenFlags::READ)
        .unwrap_err();
    assert_eq!(r.errno, libc::EACCES);
    assert!(!r.message.contains("resolves to"), "{}", r.message);
    assert!(r.detail.contains("resolves to"), "{}", r.detail);
    symlink(t.path("private/secret"), t.path("backup/link")).unwrap();
    assert_eq!(
        p.admit(&t.path("backup/link"), OpenFlags::READ)
            .unwrap_err()
            .errno,
        libc::EACCES
    );
    symlink(t.path("private/new"), t.path("backup/dangling")).unwrap();
    assert_eq!(
        p.admit(&t.path("backup/dangling"), OpenFlags::WRITE_NEW)
            .unwrap_err()
            .errno,
        libc::EACCES,
        "creating through a dangling link"
    );
    symlink(t.path("private"), t.path("backup/dir")).unwrap();
    assert_eq!(
        p.admit(&t.path("backup/dir/new.tar"), OpenFlags::WRITE_NEW)
            .unwrap_err()
            .errno,
        libc::EACCES
    );
}

#[test]
fn missing_directories_outside_are_not_revealed() {
    let t = Tree::new();
    let p = t.policy();
    let r = p
        .admit(&t.path("private/nowhere/x"), OpenFlags::READ)
        .unwrap_err();
    assert_eq!(r.errno, libc::EACCES);
    let r = p
        .admit(&t.path("backup/nowhere/x"), OpenFlags::READ)
        .unwrap_err();
    assert_eq!(r.errno, libc::ENOENT, "inside, the real reason is given");
    assert_eq!(
        r.message,
        format!(
            "No such file or directory: {}",
            t.path("backup/nowhere/x").display()
        )
    );
}

/// The refusal of `rest` (under the tree) with everything that varies
/// with the path as sent replaced by `PATH`, as the client sees it.
fn refusal_seen(t: &Tree, p: &Policy, rest: &str) -> (i32, String) {
    let asked = t.path(rest);
    let r = p.admit(&asked, OpenFlags::READ).unwrap_err();
    let asked = asked.display().to_string();
    assert!(r.message.contains(&asked), "{}", r.message);
    (r.errno, r.message.replace(&asked, "PATH"))
}

#[test]
fn every_refusal_outside_reads_the_same_whatever_the_path_leads_to() {
    let t = Tree::new();
    let p = t.policy();
    fs::create_dir(t.path("private/dir")).unwrap();
    symlink(t.path("private"), t.path("backup/to-private")).unwrap();
    symlink(t.path("private/secret"), t.path("backup/to-secret")).unwrap();
    symlink(t.path("private/missing/x"), t.path("backup/dangling")).unwrap();
    let expected = (
        libc::EACCES,
        "Permission denied: PATH is outside the allowed paths".to_string(),
    );
    for rest in [
        "private/secret",
        "private/./secret",
        "private/./zzz",
        "nonexist/./zzz",
        "private/secret/x",
        "private/dir/../secret",
        "backup/../private/secret",
        "backup/../private/zzz",
        "backup/../nonexist/zzz",
        "backup/to-secret",
        "backup/to-private/zzz",
        "backup/to-private/nonexist/zzz",
        "backup/to-private/secret/zzz",
        "backup/to-private/dir/zzz",
        "backup/dangling",
        "backup/../backup/nowhere/x",
    ] {
        assert_eq!(refusal_seen(&t, &p, rest), expected, "{rest}");
    }
}

#[test]
fn the_detail_of_a_refusal_is_for_the_log_only() {
    let t = Tree::new();
    let p = t.policy();
    symlink(t.path("private/secret"), t.path("backup/to-secret")).unwrap();
    let r = p
        .admit(&t.path("backup/to-secret"), OpenFlags::READ)
        .unwrap_err();
    assert_eq!(
        r.detail,
        format!(
            "{} resolves to {}, which is outside the allowed paths",
            t.path("backup/to-secret").display(),
            t.path("private/secret").display()
        )
    );
    assert!(!r.message.contains("private"), "{}", r.message);
    let r = p
        .admit(&t.path("nonexist/./zzz"), OpenFlags::READ)
        .unwrap_err();
    assert_eq!(
        r.detail,
        format!(
            "{} cannot be resolved (No such file or directory) and is outside the allowed paths",
            t.path("nonexist/./zzz").display()
        )
    );
}

#[test]
fn the_default_allows_tape_devices_and_never_plain_files() {
    let p = Policy::tape_devices();
    for device in [
        "/dev/st0",
        "/dev/nst0",
        "/dev/nst1l",
        "/dev/tape/by-id/scsi-1-nst",
        "/dev/nsa0",
        "/dev/sa0",
    ] {
        assert!(p.allows(Path::new(device)), "{device}");
    }
    let t = Tree::new();
    for refused in [
        t.path("backup/old.tar"),
        "/dev/stdin".into(),
        "/dev/sda".into(),
        "/etc/passwd".into(),
        "/dev/null".into(),
    ] {
        assert!(!p.allows(&refused), "{}", refused.display());
    }
    assert!(p.to_string().starts_with("tape devices only (default)"));
}

#[test]
fn a_read_only_policy_refuses_opens_that_modify() {
    let t = Tree::new();
    let p = t.policy().read_only(true);
    assert!(p.admit(&t.path("backup/old.tar"), OpenFlags::READ).is_ok());
    let r = p
        .admit(&t.path("backup/old.tar"), OpenFlags::WRITE_NEW)
        .unwrap_err();
    assert_eq!(r.errno, libc::EACCES);
    assert!(r.message.contains("read-only"), "{}", r.message);
}

#[test]
fn patterns_through_a_linked_directory_match_its_real_path() {
    let t = Tree::new();
    symlink(t.path("backup"), t.path("alias")).unwrap();
    let p = Policy::new([format!("{}/alias/*.tar", t.root.display())]).unwrap();
    assert!(p
        .admit(&t.path("alias/new.tar"), OpenFlags::WRITE_NEW)
        .is_ok());
    assert!(p.admit(&t.path("backup/old.tar"), OpenFlags::READ).is_ok());
    assert!(p.admit(&t.path("private/secret"), OpenFlags::READ).is_err());
}

#[test]
fn an_empty_list_allows_nothing_and_allow_all_allows_everything() {
    let t = Tree::new();
    let none = Policy::new(Vec::<String>::new()).unwrap();
    assert!(none
        .admit(&t.path("backup/old.tar"), OpenFlags::READ)
        .is_err());
    let all = Policy::allow_all();
    assert_eq!(
        all.admit(&t.path("private/secret"), OpenFlags::READ),
        Ok(t.path("private/secret"))
    );
    assert!(Policy::new(["relative/*"])
        .unwrap_err()
        .contains("absolute"));
}

#[test]
fn the_root_to_open_beneath_is_the_matching_patterns_literal_directories() {
    let t = Tree::new();
    assert_eq!(
        t.policy().root_of(&t.path("backup/a/b.tar")),
        t.path("backup")
    );
    let devices = Policy::tape_devices();
    assert_eq!(devices.root_of(Path::new("/dev/nst0")), Path::new("/dev"));
    assert_eq!(
        devices.root_of(Path::new("/dev/tape/by-id/x")),
        Path::new("/dev/tape")
    );
    assert_eq!(Policy::allow_all().root_of(&t.path("x")), Path::new("/"));
    // A device is opened beneath /dev like any file.
    let null = Policy::new(["/dev/null"]).unwrap();
    let root = null.root_of(Path::new("/dev/null"));
    assert_eq!(root, Path::new("/dev"));
    use crate::rmt_server::target::{FileOpener, Opener};
    let mut opener = FileOpener;
    let target = opener.open_beneath(&root, Path::new("/dev/null"), OpenFlags::READ);
    target.unwrap().close().unwrap();
}
