//! Names as tar sees them, through the binary: a member a size hides is
//! never catalogued (issue 45 finding 7), names that are not UTF-8 stay
//! apart and a hard link brings exactly its target (finding 8), and `ls`
//! shows every name on one line, escaped as tar escapes it.

use std::fs;
use std::process::{Output, Stdio};

use super::backup::{said, stderr, Backup};
use crate::archive::differential::gen_tar::{extension, header, padded, record, POSIX};
use crate::common;

fn ls(b: &Backup, args: &[&str]) -> Output {
    common::tapebuf()
        .current_dir(b.dir.path())
        .args(["ls", "--manifest", "home.json"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The paths (and `-> target`) `ls` lists: what follows the kind, size,
/// time, volume and barcode columns (49 bytes).
fn listed(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "{}", stderr(out));
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| l[49..].to_string())
        .collect()
}

// issue 45 finding 7: a pax size on a symbolic link is skipped, as GNU tar
// and bsdtar skip it, so the member inside its "data" is neither listed
// nor extracted.
#[test]
fn a_member_hidden_in_a_symbolic_links_pax_size_is_not_listed_or_extracted() {
    let mut hidden = header(b"hidden", b'0', 512, b"", POSIX);
    hidden.extend(padded(b"HIDDEN\n".to_vec()));
    let archive = [
        extension(b'x', &record("size", b"1024"), POSIX),
        header(b"m", b'2', 0, b"t", POSIX),
        hidden,
        header(b"after", b'0', 6, b"", POSIX),
        padded(b"after\n".to_vec()),
        vec![0; 10240],
    ]
    .concat();
    let b = Backup::of(&archive);
    let tar = common::command("tar")
        .args(["tf", "full.tar"])
        .current_dir(b.dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&tar.stdout), "m\nafter\n");
    assert_eq!(listed(&ls(&b, &[])), ["m -> t", "after"]);
    let out = b.extract(&["hidden"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        said(&out),
        ["tapebuf: extract: 'hidden': matches no member"]
    );
    let out = b.extract(&["after"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        b.unpacked("out.tar", &[]),
        b.unpacked("full.tar", &["after"])
    );
}

// issue 45 finding 8: `x\377` and `x\376` are two names; extracting a hard
// link to the first brings the first, and tar then extracts both names of
// that file.
#[test]
fn a_hard_link_to_a_name_that_is_not_utf8_brings_exactly_its_target() {
    let b = Backup::made_with(
        r#"mkdir e && ff=$(printf 'e/x\377') && fe=$(printf 'e/x\376') && printf one > "$ff" && printf two > "$fe" && ln "$ff" e/hl && tar --format=gnu -cf full.tar "$ff" "$fe" e/hl"#,
    );
    assert_eq!(
        listed(&ls(&b, &["e/*"])),
        ["e/x\\377", "e/x\\376", "e/hl -> e/x\\377"]
    );
    let out = b.extract(&["e/hl"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        said(&out)[0],
        "tapebuf: extract: also e/x\\377: e/hl needs it (a hard link's target, or the data of its cpio link group)"
    );
    let into = b.path("x-out");
    fs::create_dir(&into).unwrap();
    let tar = common::command("tar")
        .args(["xf", "../out.tar"])
        .current_dir(&into)
        .output()
        .unwrap();
    assert!(
        tar.status.success(),
        "{}",
        String::from_utf8_lossy(&tar.stderr)
    );
    let mut names: Vec<Vec<u8>> = fs::read_dir(into.join("e"))
        .unwrap()
        .map(|e| {
            std::os::unix::ffi::OsStrExt::as_bytes(e.unwrap().file_name().as_os_str()).to_vec()
        })
        .collect();
    names.sort();
    assert_eq!(names, [b"hl".to_vec(), b"x\xff".to_vec()]);
    assert_eq!(fs::read(into.join("e/hl")).unwrap(), b"one");
}

// issue 45, minor: `ls --json` keeps a name that is not UTF-8 exactly.
#[test]
fn ls_json_gives_the_bytes_of_a_name_that_is_not_utf8() {
    let b = Backup::made_with(
        r#"mkdir e && printf one > "$(printf 'e/x\377')" && printf two > "$(printf 'e/b\342\200\256c')" && tar --format=pax -cf full.tar e"#,
    );
    let out = ls(&b, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members = json["members"].as_array().unwrap();
    let x = members.iter().find(|m| m["path"] == "e/x\\377").unwrap();
    assert_eq!(x["path_bytes"], serde_json::json!([101, 47, 120, 255]));
    let bidi = members
        .iter()
        .find(|m| m["path"] == "e/b\u{202e}c")
        .unwrap();
    assert_eq!(bidi["path_bytes"], serde_json::Value::Null);
    let text = listed(&ls(&b, &[]));
    assert!(
        text.contains(&"e/b\\342\\200\\256c".to_string()),
        "{text:?}"
    );
}
