//! Member selection against GNU tar (issue 45 finding 5), differential:
//! a seeded generator makes a tree whose names hold tar's special bytes
//! and braces (`{`, `}`, `,`, `[`, `]`, `*`, `?`, `\`, `!`, `^`, `-`, `.`),
//! archives it with GNU tar (some top-level entries spelled `./`), and
//! makes patterns from the member names: the names themselves (with and
//! without `./` and a trailing `/`), mutated with wildcards, brackets,
//! escapes and braces, and random strings of the same bytes. For each,
//! the members tapebuf chooses must be exactly those GNU tar lists with
//! `tar tf A P`, joined (when the unquoted pattern has `*`, `?` or `[`)
//! by those `tar tf A --wildcards P` lists: the rule tapebuf(1) states.
//! Every pattern is checked through the library's `Patterns`, and every
//! eighth through `tapebuf ls` itself. The seed is fixed
//! (TAPEBUF_SELECT_SEED=N tries another). Bounded: at most `PATTERNS`
//! patterns or `TIME_LIMIT`, whichever comes first, and at least
//! `AT_LEAST` patterns.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use tapebuf::catalog::globs::{build, unquote};
use tapebuf::catalog::wildcard::has_wildcards;

use crate::common;

const SEED: u64 = 0x7461_7065_6275_6634;
const PATTERNS: usize = 800;
const AT_LEAST: usize = 150;
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// The bytes names and patterns are made of.
const BYTES: &[u8] = b"ab1{},[]*?\\!^-. ";

/// splitmix64: the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A name component of 1 to 4 bytes, never `.` or `..`.
    fn component(&mut self) -> String {
        loop {
            let len = 1 + self.below(4);
            let c: String = (0..len)
                .map(|_| BYTES[self.below(BYTES.len())] as char)
                .collect();
            if c != "." && c != ".." && !c.starts_with('-') {
                return c;
            }
        }
    }
}

/// Makes the tree under `root`: its top-level entries.
fn tree(root: &Path, rng: &mut Rng) -> Vec<String> {
    let mut top = Vec::new();
    let mut seen = HashSet::new();
    while top.len() < 14 {
        let name = rng.component();
        if !seen.insert(name.clone()) {
            continue;
        }
        if rng.below(2) == 0 {
            fs::write(root.join(&name), b"f").unwrap();
        } else {
            let dir = root.join(&name);
            fs::create_dir(&dir).unwrap();
            for _ in 0..1 + rng.below(5) {
                let inner = rng.component();
                if rng.below(3) == 0 {
                    let _ = fs::create_dir(dir.join(&inner));
                    let _ = fs::write(dir.join(&inner).join(rng.component()), b"g");
                } else if !dir.join(&inner).exists() {
                    fs::write(dir.join(&inner), b"h").unwrap();
                }
            }
        }
        top.push(name);
    }
    top
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Output {
    common::command(program)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .args(args)
        .output()
        .unwrap()
}

/// The members `tar tf` lists for `pattern`, with `--wildcards` or not.
fn tar_lists(dir: &Path, pattern: &str, wildcards: bool) -> HashSet<Vec<u8>> {
    let mut args = vec!["--quoting-style=literal", "-tf", "a.tar"];
    if wildcards {
        args.push("--wildcards");
    }
    args.extend(["--", pattern]);
    let out = run(dir, "tar", &args);
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Patterns made from the members' names.
fn pattern(members: &[Vec<u8>], rng: &mut Rng) -> String {
    let name = String::from_utf8(members[rng.below(members.len())].clone()).unwrap();
    let mut p: Vec<char> = name.chars().collect();
    match rng.below(6) {
        0 => name,
        1 => match name.strip_prefix("./") {
            Some(rest) => rest.to_string(),
            None => format!("./{name}"),
        },
        2 => format!("{}/", name.trim_end_matches('/')),
        3 => (0..1 + rng.below(6))
            .map(|_| BYTES[rng.below(BYTES.len())] as char)
            .collect(),
        _ => {
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(p.len() + 1);
                let with = rng.pick(&[
                    "*", "?", "[ab]", "[!a]", "[a-c]", "[]]", "\\*", "\\\\", "{a,b}", "[", "\\",
                ]);
                let cut = if at < p.len() && rng.below(2) == 0 {
                    1
                } else {
                    0
                };
                p.splice(at..at + cut, with.chars());
            }
            p.into_iter().collect()
        }
    }
}

/// The tree archived into `dir/a.tar` (every third top-level entry
/// spelled `./`) and backed up with a catalog: the members, as tar lists
/// them.
fn archived(dir: &Path, rng: &mut Rng) -> Vec<Vec<u8>> {
    let root = dir.join("t");
    fs::create_dir(&root).unwrap();
    let top = tree(&root, rng);
    let mut args = vec![
        "--sort=name".to_string(),
        "--no-unquote".into(),
        "-cf".into(),
        "../a.tar".into(),
        "--".into(),
    ];
    for (i, name) in top.iter().enumerate() {
        args.push(if i % 3 == 0 {
            format!("./{name}")
        } else {
            name.clone()
        });
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let made = run(&root, "tar", &args);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let listing = run(dir, "tar", &["--quoting-style=literal", "-tf", "a.tar"]);
    let members: Vec<Vec<u8>> = (listing.stdout.split(|&b| b == b'\n'))
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    assert!(members.len() > 20, "{} members", members.len());
    let out = common::tapebuf()
        .current_dir(dir)
        .args([
            "-i",
            "a.tar",
            "-o",
            "a.copy",
            "--manifest",
            "a.json",
            "--catalog",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    members
}

/// The set, sorted as text, for messages.
fn shown(s: &HashSet<Vec<u8>>) -> Vec<String> {
    let mut v: Vec<String> = s
        .iter()
        .map(|m| String::from_utf8_lossy(m).into())
        .collect();
    v.sort();
    v
}

#[test]
fn members_are_chosen_as_gnu_tar_chooses_them_with_and_without_wildcards() {
    common::needs::tool("tar", "tar");
    let dir = tempfile::tempdir().unwrap();
    let seed = std::env::var("TAPEBUF_SELECT_SEED").map_or(SEED, |s| s.parse().unwrap());
    let mut rng = Rng(seed);
    let members = archived(dir.path(), &mut rng);
    let started = Instant::now();
    let mut checked = 0;
    while checked < PATTERNS && started.elapsed() < TIME_LIMIT {
        let p = pattern(&members, &mut rng);
        if p.is_empty() || p.starts_with('-') || unquote(p.as_bytes()).is_empty() {
            continue;
        }
        let mut expected = tar_lists(dir.path(), &p, false);
        if has_wildcards(&unquote(p.as_bytes())) {
            expected.extend(tar_lists(dir.path(), &p, true));
        }
        let patterns = build(std::slice::from_ref(&p)).unwrap();
        let ours: HashSet<Vec<u8>> = (members.iter())
            .filter(|m| patterns.chooses(m))
            .cloned()
            .collect();
        assert_eq!(
            shown(&ours),
            shown(&expected),
            "pattern {p:?} (seed {seed})"
        );
        if checked % 8 == 0 {
            assert_eq!(shown(&listed(dir.path(), &p)), shown(&expected), "ls {p:?}");
        }
        checked += 1;
    }
    assert!(
        checked >= AT_LEAST,
        "only {checked} patterns in {TIME_LIMIT:?}"
    );
}

/// The paths `tapebuf ls` lists for `pattern` (none when it matches none).
fn listed(dir: &Path, pattern: &str) -> HashSet<Vec<u8>> {
    let out = common::tapebuf()
        .current_dir(dir)
        .args(["ls", "--manifest", "a.json", "--json", "--", pattern])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (json["members"].as_array().unwrap().iter())
        .map(|m| m["path"].as_str().unwrap().as_bytes().to_vec())
        .collect()
}
