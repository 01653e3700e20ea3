//! The create module's rules, one file operation at a time. The planted
//! links of another user (which need root) are tested end to end in
//! `tests/buffer/created_files/`.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_new_file_is_never_made_through_anything_already_at_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(dir.path().join("target"), &link).unwrap();
    let e = create_new(&link, DATA_MODE).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert!(!dir.path().join("target").exists());
    std::fs::write(dir.path().join("file"), b"kept").unwrap();
    let e = open_output(&dir.path().join("file"), Existing::Refuse, DATA_MODE).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(dir.path().join("file")).unwrap(), b"kept");
}

#[test]
fn a_replaced_symlink_is_replaced_itself_and_its_target_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("target"), b"earlier").unwrap();
    std::os::unix::fs::symlink("target", dir.path().join("m.json")).unwrap();
    replace_with(&dir.path().join("m.json"), b"new", RECORD_MODE).unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("target")).unwrap(),
        b"earlier"
    );
    let meta = std::fs::symlink_metadata(dir.path().join("m.json")).unwrap();
    assert!(meta.is_file());
    assert_eq!(std::fs::read(dir.path().join("m.json")).unwrap(), b"new");
    assert_eq!(names(dir.path()), ["m.json", "target"]);
}

#[test]
fn a_replacement_dropped_uncommitted_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.json"), b"earlier").unwrap();
    let replacement = Replacement::begin(&dir.path().join("m.json"), RECORD_MODE).unwrap();
    replacement.file().write_all(b"half").unwrap();
    drop(replacement);
    assert_eq!(names(dir.path()), ["m.json"]);
    assert_eq!(
        std::fs::read(dir.path().join("m.json")).unwrap(),
        b"earlier"
    );
}

#[test]
fn a_fifo_is_never_replaced_but_a_record_is_written_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let e = replace_with(&fifo, b"x", RECORD_MODE).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    write_record(&fifo, b"summary\n", RECORD_MODE).unwrap();
    assert_eq!(reader.join().unwrap(), "summary\n");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
}

#[test]
fn own_links_and_descriptor_links_are_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("real"), b"old").unwrap();
    std::os::unix::fs::symlink("real", dir.path().join("mine")).unwrap();
    let mut file = open_output(&dir.path().join("mine"), Existing::Truncate, DATA_MODE).unwrap();
    file.write_all(b"new").unwrap();
    assert_eq!(std::fs::read(dir.path().join("real")).unwrap(), b"new");
    let (read, write) = nix::unistd::pipe().unwrap();
    let name = format!("/proc/self/fd/{}", write.as_raw_fd());
    open_existing(Path::new(&name), libc::O_WRONLY)
        .unwrap()
        .write_all(b"through /proc")
        .unwrap();
    drop(write);
    let mut text = String::new();
    std::fs::File::from(read).read_to_string(&mut text).unwrap();
    assert_eq!(text, "through /proc");
}

#[test]
fn an_append_creates_once_and_then_appends() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    append(&log, RECORD_MODE)
        .unwrap()
        .write_all(b"one\n")
        .unwrap();
    append(&log, RECORD_MODE)
        .unwrap()
        .write_all(b"two\n")
        .unwrap();
    assert_eq!(std::fs::read(&log).unwrap(), b"one\ntwo\n");
}

#[test]
fn scratch_data_has_no_name_in_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = scratch(dir.path(), std::ffi::OsStr::new("m.catalog.sums")).unwrap();
    file.write_all(b"sums").unwrap();
    assert!(names(dir.path()).is_empty());
}

#[test]
fn nothing_is_created_through_a_link_to_nothing_even_when_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("missing", &link).unwrap();
    for existing in [Existing::Truncate, Existing::Append] {
        let e = open_output(&link, existing, DATA_MODE).unwrap_err();
        assert_eq!(
            e.to_string(),
            "is a symbolic link to nothing; tapebuf creates no file through a link"
        );
    }
    assert_eq!(names(dir.path()), ["link"]);
}
