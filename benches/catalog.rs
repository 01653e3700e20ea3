//! Catalog benchmark: tapebuf's catalog file (`catalog::CatalogWriter`,
//! `Catalog`) against the naive peer, the same members as JSON lines
//! (serde_json, one object a line), side by side in one run.
//!
//! About a million synthetic members with /home-like paths (deep
//! directories, about 60 bytes, in the order tar walks them: a directory,
//! then what is in it, names sorted) are written in both forms, then read
//! back: every member, and the members a glob chooses (98 of them). Runs
//! are interleaved; medians are reported, with bytes per member. The
//! first run checks that both read back exactly what was written and
//! choose the same members.
//!
//!     cargo bench --bench catalog
//!
//! Environment: TAPEBUF_BENCH_RUNS (default 5), TAPEBUF_BENCH_DIR
//! (default /dev/shm).

mod common;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use common::{env_number, env_or, median, verdict};
use tapebuf::archive::{Format, Member, MemberKind};
use tapebuf::catalog::globs::build;
use tapebuf::catalog::{Catalog, CatalogWriter, Patterns};

const USERS: [&str; 20] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory",
    "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "yolanda",
];
const AREAS: [&str; 10] = [
    ".config",
    "Documents",
    "Downloads",
    "Music",
    "Pictures",
    "mail",
    "photos",
    "projects",
    "src",
    "work",
];
const STEMS: [&str; 10] = [
    "backup", "config", "data", "draft", "image", "index", "main", "notes", "report", "summary",
];
const EXTS: [&str; 5] = ["txt", "rs", "jpg", "tex", "json"];
const FILES_PER_DIR: usize = 49;
/// What the glob chooses: two module directories' files.
const GLOB: &str = "home/alice/Documents/project-07/src/module_0[34]/*";
const GLOB_CHOOSES: usize = 2 * FILES_PER_DIR;

/// The members of a tar of /home: directories before their contents,
/// sizes from a small generator, offsets as a tar would place them.
fn home_tree() -> Vec<Member> {
    let mut members = Vec::new();
    let mut offset = 0u64;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut push = |path: String, kind: MemberKind, seed: &mut u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let size = if kind == MemberKind::File {
            *seed % 200_000
        } else {
            0
        };
        let end = offset + 512 + size.div_ceil(512) * 512;
        members.push(Member {
            path: path.into(),
            kind,
            size,
            mtime: 1_600_000_000 + (*seed % 100_000_000) as i64,
            link: None,
            header_offset: offset,
            end_offset: end,
            inode: None,
        });
        offset = end;
    };
    push("home/".into(), MemberKind::Directory, &mut seed);
    for user in USERS {
        push(format!("home/{user}/"), MemberKind::Directory, &mut seed);
        for area in AREAS {
            let area = format!("home/{user}/{area}");
            push(format!("{area}/"), MemberKind::Directory, &mut seed);
            for project in 0..10 {
                let project = format!("{area}/project-{project:02}");
                push(format!("{project}/"), MemberKind::Directory, &mut seed);
                push(format!("{project}/src/"), MemberKind::Directory, &mut seed);
                for module in 0..10 {
                    let dir = format!("{project}/src/module_{module:02}");
                    push(format!("{dir}/"), MemberKind::Directory, &mut seed);
                    for f in 0..FILES_PER_DIR {
                        let name =
                            format!("{}_v{}_{:05}.{}", STEMS[f % 10], f % 3, f * 37, EXTS[f % 5]);
                        push(format!("{dir}/{name}"), MemberKind::File, &mut seed);
                    }
                }
            }
        }
    }
    members
}

fn write_catalog(members: &[Member], path: &Path) -> u64 {
    let mut w = CatalogWriter::create(path, Format::Gnu).expect("creating the catalog");
    for m in members {
        w.add(m).expect("adding a member");
    }
    w.finish().expect("finishing the catalog").bytes
}

fn write_json(members: &[Member], path: &Path) -> u64 {
    let mut out = BufWriter::new(File::create(path).expect("creating the JSON lines"));
    for m in members {
        serde_json::to_writer(&mut out, m).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.into_inner().unwrap().sync_all().unwrap();
    std::fs::metadata(path).unwrap().len()
}

fn read_catalog(path: &Path, globs: Option<&Patterns>) -> Vec<Member> {
    let catalog = Catalog::open(path).expect("opening the catalog");
    match globs {
        Some(g) => catalog.matching(g).map(Result::unwrap).collect(),
        None => catalog.members().map(Result::unwrap).collect(),
    }
}

fn read_json(path: &Path, globs: Option<&Patterns>) -> Vec<Member> {
    BufReader::with_capacity(1 << 16, File::open(path).unwrap())
        .lines()
        .map(|line| serde_json::from_str::<Member>(&line.unwrap()).unwrap())
        .filter(|m| globs.is_none_or(|g| g.chooses(m.path.as_bytes())))
        .collect()
}

type Writer = fn(&[Member], &Path) -> u64;
type Reader = fn(&Path, Option<&Patterns>) -> Vec<Member>;

/// Seconds `f` took, and its result.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let out = f();
    (started.elapsed().as_secs_f64(), out)
}

fn main() {
    let runs: usize = env_number("TAPEBUF_BENCH_RUNS", "5");
    let base = env_or("TAPEBUF_BENCH_DIR", "/dev/shm");
    let members = home_tree();
    let n = members.len();
    let path_bytes: usize = members.iter().map(|m| m.path.len()).sum();
    let globs = build(&[GLOB.to_string()]).unwrap();
    let peers: [(&str, Writer, Reader); 2] = [
        ("catalog", write_catalog, read_catalog),
        ("json lines", write_json, read_json),
    ];
    let files: Vec<_> = (0..peers.len())
        .map(|i| Path::new(&base).join(format!("tapebuf-bench-catalog-{}-{i}", std::process::id())))
        .collect();
    let mut bytes = [0u64; 2];
    let mut times = vec![
        [Vec::new(), Vec::new(), Vec::new()],
        [Vec::new(), Vec::new(), Vec::new()],
    ];
    for run in 0..runs {
        for k in 0..peers.len() {
            let i = (run + k) % peers.len();
            let (_, write, read) = peers[i];
            let (w, b) = timed(|| write(&members, &files[i]));
            let (all_s, all) = timed(|| read(&files[i], None));
            let (glob_s, chosen) = timed(|| read(&files[i], Some(&globs)));
            if run == 0 {
                assert!(all == members, "{} read back other members", peers[i].0);
                assert_eq!(chosen.len(), GLOB_CHOOSES, "{}", peers[i].0);
                assert!(chosen.iter().all(|m| m.path.lossy().contains("/module_0")));
            }
            bytes[i] = b;
            for (t, s) in times[i].iter_mut().zip([w, all_s, glob_s]) {
                t.push(s);
            }
        }
    }
    for f in &files {
        std::fs::remove_file(f).expect("removing the benchmark file");
    }
    report(
        n,
        path_bytes,
        runs,
        &base,
        &peers.map(|p| p.0),
        &bytes,
        &times,
    );
}

fn report(
    n: usize,
    path_bytes: usize,
    runs: usize,
    base: &str,
    names: &[&str; 2],
    bytes: &[u64; 2],
    times: &[[Vec<f64>; 3]],
) {
    println!(
        "# {n} members, paths {:.1} bytes on average, under {base}, {runs} runs each; medians",
        path_bytes as f64 / n as f64
    );
    println!("# glob {GLOB} chooses {GLOB_CHOOSES}");
    println!(
        "{:<11} {:>10} {:>9} {:>11} {:>10} {:>8} {:>12}",
        "format", "B/member", "write s", "list all s", "glob s", "M/s", "list ratio"
    );
    let med: Vec<[f64; 3]> = times
        .iter()
        .map(|t| [0, 1, 2].map(|j| median(t[j].clone())))
        .collect();
    for (i, name) in names.iter().enumerate() {
        let [w, all, glob] = med[i];
        println!(
            "{:<11} {:>10.1} {:>9.3} {:>11.3} {:>10.3} {:>8.2} {:>12.2}",
            name,
            bytes[i] as f64 / n as f64,
            w,
            all,
            glob,
            n as f64 / all / 1e6,
            all / med[0][1]
        );
    }
    println!(
        "# catalog lists every member in under a second: {}",
        verdict(med[0][1] < 1.0)
    );
}
