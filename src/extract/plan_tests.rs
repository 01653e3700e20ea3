//! The plan against the real tools: GNU tar (gnu, pax) and GNU cpio
//! (newc, crc, odc) archive a tree with long names, hard links (one
//! long-named), an empty file, a symbolic link and directories; the
//! archive is parsed and catalogued, and the plan's pieces, copied out of
//! the archive's bytes, must be an archive that `tar tf` lists and `tar
//! xf` / `cpio -i` extract cleanly, each member equal to what the whole
//! archive gives.
//!
//! Length: one tree, its helpers and the drained plan (`Laid`) serve
//! every format's case; split, each file would need them all.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::archive::{Format, Member, MemberKind, Parser};
use crate::catalog::{globs::build, Catalog, CatalogExtras, CatalogWriter, Patterns};

use super::plan::{
    made_trailer, plan, plan_with, Missing, Needed, Piece, Plan, PlanError, Tail, KEEP_MEMBERS,
};

/// Runs `script` with sh in `dir`, `stdin` fed from a file: its status,
/// standard output and standard error.
fn sh(dir: &Path, script: &str, stdin: &[u8]) -> (bool, Vec<u8>, String) {
    let input = tempfile::NamedTempFile::new().unwrap();
    fs::write(input.path(), stdin).unwrap();
    let mut sh = Command::new("sh");
    sh.args(["-c", script])
        .current_dir(dir)
        .stderr(Stdio::piped());
    let out = sh
        .stdin(fs::File::open(input.path()).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), out.stdout, stderr)
}

const LONG_LINK: &str = "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL";

/// `d/` with a directory and file under names over 100 bytes, a file
/// with three names (the first, sorted, over 100 bytes), an empty file
/// and a symbolic link with a target over 100 bytes.
fn tree(root: &Path) {
    let deep = root.join("d").join("x".repeat(120));
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("deep"), b"deep\n").unwrap();
    let d = root.join("d");
    fs::write(d.join("n".repeat(110)), b"long name\n").unwrap();
    fs::write(d.join(LONG_LINK), b"three names\n").unwrap();
    fs::hard_link(d.join(LONG_LINK), d.join("hl")).unwrap();
    fs::hard_link(d.join(LONG_LINK), d.join("small")).unwrap();
    fs::write(d.join("empty"), b"").unwrap();
    std::os::unix::fs::symlink("t".repeat(200), d.join("sl")).unwrap();
}

/// An archive of `tree` made by `script` (run in the tree's root).
struct Made {
    _dir: tempfile::TempDir,
    root: PathBuf,
    archive: Vec<u8>,
    catalog: Catalog,
    tail: Tail,
}

fn made(script: &str) -> Made {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    fs::create_dir(&root).unwrap();
    tree(&root);
    let (ok, archive, stderr) = sh(&root, script, b"");
    assert!(ok, "{script}: {stderr}");
    let mut parser = Parser::new();
    parser.feed(&archive);
    parser.finish().unwrap();
    let format = parser.format().unwrap();
    let globals = parser.globals().to_vec();
    let trailer = parser.trailer();
    let path = dir.path().join("a.catalog");
    let mut writer = CatalogWriter::create(&path, format).unwrap();
    for m in parser.take_members() {
        writer.add(&m).unwrap();
    }
    let extras = CatalogExtras {
        globals: globals.clone(),
        trailer,
        end: parser.end(),
        volumes: Vec::new(),
    };
    writer.finish_with(&extras, &mut std::io::empty()).unwrap();
    Made {
        catalog: Catalog::open(&path).unwrap(),
        _dir: dir,
        root,
        archive,
        tail: Tail { globals, trailer },
    }
}

fn globs(patterns: &[&str]) -> Patterns {
    let typed: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
    build(&typed).unwrap()
}

/// A plan drained: its members and pieces, in order, and what it says.
#[derive(Debug)]
struct Laid {
    members: Vec<Member>,
    pieces: Vec<Piece>,
    unmatched: Vec<usize>,
    needed: Vec<Needed>,
    missing: Vec<Missing>,
}

impl Laid {
    fn bytes(&self) -> u64 {
        self.pieces.iter().map(Piece::len).sum()
    }

    fn stream_bytes(&self) -> u64 {
        (self.pieces.iter())
            .filter(|p| matches!(p, Piece::Stream { .. }))
            .map(Piece::len)
            .sum()
    }
}

fn laid(plan: Result<Plan<'_>, PlanError>) -> Laid {
    let plan = plan.unwrap();
    let members: Vec<Member> = plan.output_members().map(Result::unwrap).collect();
    assert_eq!(members.len() as u64, plan.members);
    Laid {
        pieces: plan.pieces().map(Result::unwrap).collect(),
        members,
        unmatched: plan.unmatched.clone(),
        needed: plan.needed.clone(),
        missing: plan.missing.clone(),
    }
}

/// The plan's output, copied from the archive's bytes.
fn assemble(archive: &[u8], plan: &Laid) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in &plan.pieces {
        match piece {
            Piece::Stream { start, end } => {
                out.extend_from_slice(&archive[*start as usize..*end as usize])
            }
            Piece::Made(bytes) => out.extend_from_slice(bytes),
        }
    }
    assert_eq!(out.len() as u64, plan.bytes());
    out
}

/// Every path under `root`, relative, sorted.
fn walk(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            paths.push(path.strip_prefix(root).unwrap().display().to_string());
            if path.is_dir() && !path.is_symlink() {
                dirs.push(path);
            }
        }
    }
    paths.sort();
    paths
}

/// `part` (extracted from the plan's output) holds what `whole` holds
/// under the same names: the same kinds, files' bytes and links'
/// targets, and two names are one file in `part` when they are in `whole`.
fn same_members(part: &Path, whole: &Path) {
    let paths = walk(part);
    let mut files = Vec::new();
    for p in &paths {
        let (a, b) = (part.join(p), whole.join(p));
        let (ma, mb) = (
            fs::symlink_metadata(&a).unwrap(),
            fs::symlink_metadata(&b).unwrap(),
        );
        assert_eq!(ma.file_type(), mb.file_type(), "{p}");
        if ma.is_file() {
            assert_eq!(fs::read(&a).unwrap(), fs::read(&b).unwrap(), "{p}");
            files.push((p, ma.ino(), mb.ino()));
        } else if ma.is_symlink() {
            assert_eq!(
                fs::read_link(&a).unwrap(),
                fs::read_link(&b).unwrap(),
                "{p}"
            );
        }
    }
    for (p, part_p, whole_p) in &files {
        for (q, part_q, whole_q) in &files {
            assert_eq!(part_p == part_q, whole_p == whole_q, "{p} and {q}");
        }
    }
}

/// Extracts `archive` with `extract` (a command reading stdin) into a
/// fresh directory `name` beside the tree: it must succeed silently.
fn extract(m: &Made, name: &str, extract: &str, archive: &[u8]) -> PathBuf {
    let dir = m.root.parent().unwrap().join(name);
    fs::create_dir(&dir).unwrap();
    let (ok, _, stderr) = sh(&dir, extract, archive);
    let quiet = stderr.lines().all(|l| l.ends_with(" blocks"));
    assert!(ok && quiet, "{extract}: {stderr}");
    dir
}

/// The names `tar tf` lists in `archive`.
fn tar_list(m: &Made, archive: &[u8]) -> Vec<String> {
    let (ok, out, stderr) = sh(&m.root, "tar tf -", archive);
    assert!(ok && stderr.is_empty(), "tar tf: {stderr}");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

const CHOSEN: &[&str] = &["d/small", "d/empty", "d/sl", "d/x*", "d/nothing*"];

fn tar_case(script: &str) {
    let m = made(script);
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(CHOSEN)));
    let from_file = laid(super::plan::plan(&m.catalog, &globs(CHOSEN)));
    assert_eq!(
        from_file.pieces, plan.pieces,
        "the catalog file keeps what the plan needs"
    );
    assert_eq!(plan.unmatched, vec![4], "d/nothing* chose nothing");
    assert_eq!(plan.needed.len(), 1);
    assert_eq!(plan.needed[0].path, format!("d/{LONG_LINK}"));
    assert_eq!(plan.needed[0].by, "d/small");
    assert_eq!(plan.missing, []);
    let out = assemble(&m.archive, &plan);
    assert_eq!(out.len() % 10240, 0);
    // In stream order: the link's target first, as tar wrote it.
    let (x, long) = ("x".repeat(120), format!("d/{LONG_LINK}"));
    let want = [&long, "d/empty", "d/sl", "d/small", &format!("d/{x}/")];
    assert_eq!(
        tar_list(&m, &out),
        [&want[..], &[&format!("d/{x}/deep")]].concat()
    );
    let whole = extract(&m, "whole", "tar xf -", &m.archive);
    let part = extract(&m, "part", "tar xf -", &out);
    same_members(&part, &whole);
    assert!(!part.join("d/hl").exists());
    assert_eq!(fs::read(part.join("d/small")).unwrap(), b"three names\n");
}

#[test]
fn a_gnu_tar_subset_with_a_hard_link_to_a_long_name_outside_it_extracts_as_the_whole() {
    tar_case("tar --sort=name --format=gnu -cf - d");
}

#[test]
fn a_pax_subset_with_a_global_header_extracts_as_the_whole() {
    let script = "tar --sort=name --format=pax --pax-option=comment=hi -cf - d";
    tar_case(script);
    let m = made(script);
    assert_eq!(m.tail.globals.len(), 1);
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(&["d/sl"])));
    let out = assemble(&m.archive, &plan);
    let (g_start, g_end) = m.tail.globals[0];
    let global = &m.archive[g_start as usize..g_end as usize];
    assert_eq!(
        &out[..global.len()],
        global,
        "the global header comes first"
    );
    assert_eq!(tar_list(&m, &out), ["d/sl"]);
}

#[test]
fn choosing_everything_copies_the_members_as_one_range_and_ends_like_tar() {
    let m = made("tar --sort=name --format=gnu -cf - d");
    let plan = laid(plan_with(&m.catalog, m.tail.clone(), &globs(&["d"])));
    let last = plan.members.last().unwrap().end_offset;
    assert_eq!(
        plan.pieces[0],
        Piece::Stream {
            start: 0,
            end: last
        }
    );
    assert_eq!(plan.pieces.len(), 2);
    assert!(plan.needed.is_empty() && plan.unmatched.is_empty());
    assert_eq!(plan.stream_bytes(), last);
    // GNU tar ends its own archive the same way: the same bytes.
    assert_eq!(assemble(&m.archive, &plan), m.archive);
}

fn cpio_case(format: &str, data_carrier: bool) {
    let script = format!("find d | sort | cpio -o --quiet -H {format}");
    let m = made(&script);
    // In newc and crc only the last name of a file carries its data.
    let plan = laid(plan_with(
        &m.catalog,
        m.tail.clone(),
        &globs(&["d/hl", "d/empty", "d/sl"]),
    ));
    let added: Vec<&str> = plan
        .needed
        .iter()
        .map(|n| n.path.to_str().unwrap())
        .collect();
    assert_eq!(
        added,
        if data_carrier {
            vec!["d/small"]
        } else {
            vec![]
        }
    );
    for tail in [m.tail.clone(), Tail::default()] {
        let plan = laid(plan_with(
            &m.catalog,
            tail.clone(),
            &globs(&["d/hl", "d/empty", "d/sl"]),
        ));
        let out = assemble(&m.archive, &plan);
        assert_eq!(out.len() % 512, 0);
        let name = format!("part{}", tail.trailer.is_some());
        let part = extract(&m, &name, "cpio -idm --quiet", &out);
        let whole = m.root.parent().unwrap().join("whole");
        if !whole.exists() {
            extract(&m, "whole", "cpio -idm --quiet", &m.archive);
        }
        same_members(&part, &whole);
        assert_eq!(fs::read(part.join("d/hl")).unwrap(), b"three names\n");
    }
}

#[test]
fn a_newc_subset_brings_the_member_of_a_link_group_that_carries_the_data() {
    cpio_case("newc", true);
}

#[test]
fn a_crc_subset_brings_the_member_of_a_link_group_that_carries_the_data() {
    cpio_case("crc", true);
}

#[test]
fn an_odc_subset_needs_no_other_member_each_link_carries_the_data() {
    cpio_case("odc", false);
}

#[test]
fn a_made_trailer_is_byte_for_byte_what_gnu_cpio_writes() {
    for name in ["newc", "crc", "odc"] {
        let m = made(&format!("find d | sort | cpio -o --quiet -H {name}"));
        let (start, end) = m.tail.trailer.unwrap();
        let original = &m.archive[start as usize..end as usize];
        assert_eq!(made_trailer(m.catalog.format()), original, "{name}");
    }
}

#[test]
fn no_member_chosen_is_an_error_naming_every_glob() {
    let m = made("tar --format=gnu -cf - d");
    match plan(&m.catalog, &globs(&["nope", "d/zz*"])).map(|p| p.members) {
        Err(PlanError::NoMatch { unmatched }) => assert_eq!(unmatched, vec![0, 1]),
        other => panic!("{other:?}"),
    }
    match plan(&m.catalog, &Patterns::default()).map(|p| p.members) {
        Err(PlanError::NoMatch { unmatched }) => assert!(unmatched.is_empty()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_glob_on_a_directory_counts_as_matched_by_what_is_under_it() {
    let m = made("tar --format=gnu -cf - d");
    let x = format!("d/{}", "x".repeat(120));
    let plan = laid(plan(&m.catalog, &globs(&[&x, "d/x*/deep"])));
    assert!(plan.unmatched.is_empty());
    assert_eq!(plan.members.len(), 2);
}

/// A catalog of `members` (path, header offset, end offset), tar-like.
fn synthetic(dir: &Path, members: &[(&str, u64, u64)]) -> Catalog {
    let path = dir.join("s.catalog");
    let mut w = CatalogWriter::create(&path, Format::Pax).unwrap();
    for &(p, start, end) in members {
        w.add(&Member {
            path: p.into(),
            kind: MemberKind::File,
            size: 0,
            mtime: 0,
            link: None,
            header_offset: start,
            end_offset: end,
            inode: None,
        })
        .unwrap();
    }
    w.finish().unwrap();
    Catalog::open(&path).unwrap()
}

#[test]
fn a_global_header_comes_before_the_first_chosen_member_after_it_and_never_after_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let members = [
        ("a", 0, 1024),
        ("b", 2048, 3072),
        ("c", 3072, 4096),
        ("d", 5120, 6144),
    ];
    let catalog = synthetic(dir.path(), &members);
    let tail = Tail {
        globals: vec![(1024, 2048), (4096, 5120)],
        trailer: None,
    };
    let stream = |start, end| Piece::Stream { start, end };
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["b", "d"])));
    assert_eq!(p.pieces[..2], [stream(1024, 3072), stream(4096, 6144)]);
    assert_eq!(p.bytes(), 10240);
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["a"])));
    assert_eq!(p.pieces[..1], [stream(0, 1024)]);
    assert_eq!(p.pieces.len(), 2);
    let p = laid(plan_with(&catalog, tail.clone(), &globs(&["c"])));
    assert_eq!(p.pieces[..2], [stream(1024, 2048), stream(3072, 4096)]);
}

#[test]
fn a_member_that_ends_before_it_starts_is_a_damaged_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = synthetic(dir.path(), &[("a", 0, 1024), ("b", 2048, 1536)]);
    match plan(&catalog, &globs(&["*"])).map(|p| p.members) {
        Err(PlanError::Catalog(e)) => assert!(e.to_string().contains("member b ends at byte 1536")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_choice_past_what_the_plan_keeps_is_read_again_from_the_catalog_alike() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..KEEP_MEMBERS + 10).map(|i| format!("m{i:05}")).collect();
    let members: Vec<(&str, u64, u64)> = (names.iter().enumerate())
        .map(|(i, n)| (n.as_str(), i as u64 * 1024, i as u64 * 1024 + 512))
        .collect();
    let catalog = synthetic(dir.path(), &members);
    let all = laid(plan_with(&catalog, Tail::default(), &globs(&["m*"])));
    assert_eq!(all.members.len(), members.len());
    assert_eq!(all.pieces.len(), members.len() + 1);
    let few = laid(plan_with(&catalog, Tail::default(), &globs(&["m0000*"])));
    assert_eq!(few.pieces.len(), 11);
    assert_eq!(few.pieces[..10], all.pieces[..10]);
}
