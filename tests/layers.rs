//! The crate's layers only import downwards, and no files import each other
//! in a circle. Read from the source's own `use` lines (see
//! `layers/graph.rs`); ARCHITECTURE.md draws the same layers.

mod layers {
    pub mod creation;
    mod drive_wrappers;
    pub mod graph;
    pub mod lexer;
}
use layers::{creation, graph, lexer};

use std::path::{Path, PathBuf};

#[test]
fn no_files_import_each_other_in_a_circle() {
    let graph = graph::Graph::read(Path::new("src/lib.rs"));
    let cycles = graph.cycles();
    let text: Vec<String> = cycles
        .iter()
        .map(|files| {
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "{} import cycles:\n{}",
        cycles.len(),
        text.join("\n\n")
    );
}

/// Every circle between folders of `graph` (read under `root`), at every
/// depth: a folder that imports from another that imports from it, through
/// any files and any folders between.
fn folder_cycles(graph: &graph::Graph, root: &Path) -> Vec<String> {
    (1..graph.depth(root))
        .flat_map(|depth| {
            graph
                .folders(root, depth)
                .cycles()
                .into_iter()
                .map(move |c| {
                    let names: Vec<String> = c.iter().map(|f| f.display().to_string()).collect();
                    format!("depth {depth}: {}", names.join(" "))
                })
        })
        .collect()
}

#[test]
fn no_folders_import_each_other_in_a_circle_at_any_depth() {
    let graph = graph::Graph::read_production(Path::new("src/lib.rs"));
    let cycles = folder_cycles(&graph, Path::new("src"));
    assert!(
        cycles.is_empty(),
        "folders that import each other in a circle:\n{}",
        cycles.join("\n")
    );
}

/// The most lines a source file has, tests and benches included.
const FILE_LINES: usize = 400;
/// The most lines a function has.
const FUNCTION_LINES: usize = 80;

/// Every `.rs` file under the crate's source, test and bench folders.
fn rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = ["src", "tests", "benches"]
        .iter()
        .map(PathBuf::from)
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn no_file_is_longer_than_400_lines() {
    let long: Vec<String> = rust_files()
        .into_iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            (lines > FILE_LINES).then(|| format!("{}: {lines} lines", path.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {FILE_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let mut long = Vec::new();
    for path in rust_files() {
        let code = lexer::clean(&std::fs::read_to_string(&path).unwrap());
        for (name, line, lines) in lexer::functions(&code) {
            if lines > FUNCTION_LINES {
                long.push(format!(
                    "{}:{line}: fn {name}: {lines} lines",
                    path.display()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The layers, bottom first, by path under `src/` (the longest match
/// wins). A file imports only from its own part or from a lower layer;
/// code compiled only for tests is left out, so a test may use a double
/// from above. ARCHITECTURE.md draws the same table. tape/ is split into
/// its own layers, from the SCSI wire up to the test doubles, and the
/// volume policy above them is `volume/`.
const LAYERS: &[(&str, u8)] = &[
    ("base", 0),
    ("keys", 5),
    ("hash.rs", 10),
    ("net", 10),
    ("pace", 10),
    ("archive", 10),
    ("tape/scsi", 10),
    ("tape/drive", 11),
    ("tape/changer", 12),
    ("tape/media.rs", 12),
    ("tape/protection", 12),
    ("tape/encryption", 12),
    ("tape/health", 13),
    ("tape/loader", 14),
    ("volume", 15),
    ("tape/emulated", 16),
    ("tape/mod.rs", 17),
    ("catalog", 20),
    ("rmt", 20),
    ("endpoint", 30),
    ("manifest", 30),
    ("sink", 40),
    ("source", 40),
    ("pipeline", 50),
    ("observe", 60),
    ("cli", 70),
    ("config", 80),
    ("error.rs", 90),
    ("drive_health", 100),
    ("extract", 100),
    ("key_command.rs", 100),
    ("library", 100),
    ("ls", 100),
    ("probe", 100),
    ("rmt_server", 100),
    ("buffer", 100),
    ("serve", 105),
    ("verify", 100),
    ("report", 110),
    ("app", 120),
    ("lib.rs", 130),
    ("main.rs", 130),
];

/// The part of the crate `file` belongs to, and its layer.
fn part_of(file: &Path) -> (&'static str, u8) {
    let relative = file.strip_prefix("src").unwrap_or(file);
    LAYERS
        .iter()
        .filter(|(prefix, _)| relative.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .copied()
        .unwrap_or_else(|| panic!("{}: in no layer; add it to LAYERS", file.display()))
}

#[test]
fn every_import_looks_down_a_layer_or_stays_in_its_part() {
    let graph = graph::Graph::read_production(Path::new("src/lib.rs"));
    let mut upward = Vec::new();
    for (file, targets) in &graph.edges {
        let (part, layer) = part_of(file);
        for target in targets {
            let (other, other_layer) = part_of(target);
            if other != part && other_layer >= layer {
                upward.push(format!(
                    "{} ({part}, layer {layer}) imports {} ({other}, layer {other_layer})",
                    file.display(),
                    target.display()
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that do not look down:\n{}",
        upward.join("\n")
    );
}

/// Writes `files` (path, text) under a fresh directory.
fn crate_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn the_checks_see_a_circle_but_not_a_reexport_or_a_path_in_a_string() {
    let dir = crate_of(&[
        ("lib.rs", "mod a;\nmod b;\npub mod c;\n"),
        (
            "a.rs",
            "use crate::b::B;\n// use crate::c::Thing;\nconst S: &str = \"crate::c::Thing\";\npub struct A;\n",
        ),
        ("b.rs", "pub struct B(crate::a::A);\n"),
        ("c/mod.rs", "mod inner;\nmod other;\npub use inner::Thing;\npub use other::Other;\n"),
        ("c/inner.rs", "pub struct Thing;\n"),
        ("c/other.rs", "use super::Thing;\npub struct Other(Thing);\n"),
    ]);
    let graph = graph::Graph::read(&dir.path().join("lib.rs"));
    let at = |name: &str| dir.path().join(name);
    assert_eq!(graph.cycles(), vec![vec![at("a.rs"), at("b.rs")]]);
    assert_eq!(
        graph.edges[&at("a.rs")].iter().collect::<Vec<_>>(),
        vec![&at("b.rs")]
    );
    assert_eq!(
        graph.edges[&at("c/other.rs")].iter().collect::<Vec<_>>(),
        vec![&at("c/inner.rs")]
    );
}

#[test]
fn the_folder_check_sees_a_circle_through_a_third_folder_but_not_a_test() {
    let dir = crate_of(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a/mod.rs", "mod low;\nmod high;\n"),
        ("a/low.rs", "pub struct Low;\n"),
        ("a/high.rs", "pub struct High(crate::b::B);\n"),
        ("b/mod.rs", "pub struct B(crate::c::inner::C);\n"),
        ("c/mod.rs", "pub mod inner;\n"),
        (
            "c/inner.rs",
            "pub struct C(crate::a::low::Low);\n#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n",
        ),
    ]);
    let graph = graph::Graph::read_production(&dir.path().join("lib.rs"));
    assert_eq!(
        folder_cycles(&graph, dir.path()),
        vec!["depth 1: a b c".to_string()]
    );
    assert!(
        graph.cycles().is_empty(),
        "no file circle: {:?}",
        graph.cycles()
    );
    let without_a_high = crate_of(&[
        ("lib.rs", "mod b;\nmod c;\n"),
        ("b/mod.rs", "pub struct B;\n"),
        (
            "c/mod.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\npub struct C;\n",
        ),
    ]);
    let graph = graph::Graph::read_production(&without_a_high.path().join("lib.rs"));
    assert!(folder_cycles(&graph, without_a_high.path()).is_empty());
    assert!(
        graph.edges.values().all(|t| t.is_empty()),
        "a test's import is not an edge"
    );
}

#[test]
fn a_function_is_measured_from_its_name_to_its_closing_brace() {
    let code = lexer::clean("fn short() {}\n\nfn long() {\n    let s = \"}\";\n    {\n    }\n}\n");
    let found = lexer::functions(&code);
    assert_eq!(
        found,
        vec![("short".to_string(), 1, 1), ("long".to_string(), 3, 5)]
    );
}

/// Every file tapebuf creates, truncates or appends to goes through
/// `src/base/create/` (issue 45 finding 2 and the class it belongs to).
#[test]
fn files_are_created_only_through_base_create() {
    let roots = [PathBuf::from("src/lib.rs"), PathBuf::from("src/main.rs")];
    let mut elsewhere = Vec::new();
    for (file, code) in creation::crate_code(&roots) {
        let name = file.display().to_string();
        let exempt = name.starts_with(creation::MODULE)
            || creation::EXCEPTIONS.iter().any(|(f, _)| *f == name);
        if exempt {
            continue;
        }
        for place in creation::creations(&code) {
            elsewhere.push(format!("{name}:{place}"));
        }
    }
    assert!(
        elsewhere.is_empty(),
        "files created, truncated or appended to other than through {} \
         (use base::create; test code is exempt):\n{}",
        creation::MODULE,
        elsewhere.join("\n")
    );
}

#[test]
fn the_creation_check_sees_a_create_but_not_test_code_or_a_string() {
    let dir = crate_of(&[
        (
            "lib.rs",
            "mod a;\n#[cfg(any(test, feature = \"test-support\"))]\nmod double;\n\
             #[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
        ),
        (
            "a.rs",
            "use std::fs::{self, write};\nfn f() {\n    let _ = std::fs::File::create(\"x\");\n\
             let s = \"File::create\";\n    blk.set_len(3);\n}\n\
             #[cfg(test)]\nmod tests {\n    fn t() { std::fs::write(\"y\", b\"\"); }\n}\n",
        ),
        ("double.rs", "fn d() { std::fs::write(\"z\", b\"\"); }\n"),
        ("a_tests.rs", "fn d() { std::fs::write(\"z\", b\"\"); }\n"),
    ]);
    let code = creation::crate_code(&[dir.path().join("lib.rs")]);
    let found: Vec<(String, Vec<String>)> = code
        .iter()
        .map(|(f, c)| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, creation::creations(c))
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "a.rs".to_string(),
                vec![
                    "1: use std::fs::write".to_string(),
                    "3: File::create".to_string()
                ]
            ),
            ("lib.rs".to_string(), vec![]),
        ]
    );
}

/// Every thread tapebuf starts is started by `src/base/thread.rs`, which
/// gives it the label of the served stream it works for (a reader's line
/// in a service once said nothing of its stream: the class of that bug).
#[test]
fn threads_are_started_only_through_base_thread() {
    let roots = [PathBuf::from("src/lib.rs"), PathBuf::from("src/main.rs")];
    let mut elsewhere = Vec::new();
    for (file, code) in creation::crate_code(&roots) {
        let name = file.display().to_string();
        if name == "src/base/thread.rs" {
            continue;
        }
        for (n, line) in code.lines().enumerate() {
            let direct = line.contains("thread::spawn(") && !line.contains("base::thread::spawn(");
            if line.contains("thread::Builder") || direct {
                elsewhere.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        elsewhere.is_empty(),
        "threads started other than through base::thread::spawn (test code is exempt):\n{}",
        elsewhere.join("\n")
    );
}
