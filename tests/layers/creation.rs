//! Finds every place in the crate's own code (test code left out) that
//! creates, truncates, replaces or appends to a file other than through
//! `src/base/create/` (issue 45, "one way to create a file").
//!
//! The crate's module tree is followed from its roots through `mod`
//! declarations. What the crate compiles only for tests is left out as the
//! crate itself gates it: an item under `#[cfg(test)]` or
//! `#[cfg(any(test, feature = "test-support"))]` (the `tests` modules, the
//! `*_tests.rs` files, the emulated drive and changer, pace's simulator),
//! so a test double added next year is found the same way.
//!
//! What counts as creating a file, read from the cleaned tokens:
//! `File::create`, `File::create_new`, `File::options`, `fs::write`,
//! `fs::copy`, `fs::rename`, `fs::hard_link` (also imported by name from
//! `std::fs`), an `OpenOptions` builder's `.create`, `.create_new`,
//! `.truncate` or `.append` in a file that names `OpenOptions`, a
//! `.set_len` on anything but a ring block, and a raw open (`libc::open`,
//! `libc::openat`, `libc::creat`, `SYS_openat2`, nix's `fcntl::open`),
//! which may carry O_CREAT.

use super::lexer;
use std::path::{Path, PathBuf};

/// The one module through which files are made.
pub const MODULE: &str = "src/base/create/";

/// Files allowed a raw open, each with its reason.
pub const EXCEPTIONS: &[(&str, &str)] = &[(
    "src/rmt_server/beneath.rs",
    "the rmt server opens with the flags a remote client sent, beneath an allowed \
     root and following no symlink at any component (openat2 RESOLVE_BENEATH | \
     RESOLVE_NO_SYMLINKS): stricter than base::create, and its own tests hold it",
)];

/// Receivers of `.set_len` that are ring blocks (`base::block::Block`), not files.
const BLOCK_RECEIVERS: &[&str] = &["block", "blk"];

/// Every file of the crate whose roots are `roots`, with its code less
/// the items compiled only for tests.
pub fn crate_code(roots: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo: Vec<PathBuf> = roots.to_vec();
    while let Some(file) = todo.pop() {
        let Ok(raw) = std::fs::read_to_string(&file) else {
            continue;
        };
        let code = without_test_items(&raw, &lexer::clean(&raw));
        for decl in lexer::mod_files(&raw, &code) {
            todo.push(module_file(&file, &decl.name, decl.path.as_deref()));
        }
        out.push((file, code));
    }
    out.sort();
    out
}

/// The file a `mod name;` in `parent` names.
fn module_file(parent: &Path, name: &str, path: Option<&str>) -> PathBuf {
    let dir = parent.parent().unwrap_or(Path::new("."));
    if let Some(p) = path {
        return dir.join(p);
    }
    let stem = parent.file_stem().unwrap_or_default();
    let base = if ["lib", "main", "mod"].iter().any(|s| stem == *s) {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    let flat = base.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        base.join(name).join("mod.rs")
    }
}

/// A `#[cfg(..)]` line that compiles the next item only for tests:
/// `cfg(test)`, or `cfg(any(..))` of `test` and `feature = "test-support"`.
pub fn is_test_gate(raw_line: &str) -> bool {
    let line: String = raw_line.chars().filter(|c| !c.is_whitespace()).collect();
    if line == "#[cfg(test)]" {
        return true;
    }
    let Some(inner) = line
        .strip_prefix("#[cfg(any(")
        .and_then(|l| l.strip_suffix("))]"))
    else {
        return false;
    };
    inner
        .split(',')
        .all(|p| p == "test" || p == "feature=\"test-support\"")
}

/// `code` (cleaned, lines as in `raw`) with every item under a test gate
/// blanked, its lines kept so that line numbers still match.
pub fn without_test_items(raw: &str, code: &str) -> String {
    let raw: Vec<&str> = raw.lines().collect();
    let code: Vec<&str> = code.lines().collect();
    let mut out = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        if !raw.get(i).is_some_and(|l| is_test_gate(l)) {
            out.push(code[i].to_string());
            i += 1;
            continue;
        }
        let end = item_end(&code, i + 1);
        for _ in i..=end.min(code.len() - 1) {
            out.push(String::new());
        }
        i = end + 1;
    }
    out.join("\n")
}

/// The last line of the item that starts at `from` (after more
/// attributes): where its braces close, or its `;` at depth 0.
fn item_end(code: &[&str], from: usize) -> usize {
    let mut depth = 0usize;
    let mut opened = false;
    for (n, line) in code.iter().enumerate().skip(from) {
        if !opened && depth == 0 && line.trim_start().starts_with("#[") {
            continue;
        }
        for ch in line.chars() {
            match ch {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && opened {
                        return n;
                    }
                }
                ';' if depth == 0 && !opened => return n,
                _ => {}
            }
        }
    }
    code.len()
}

/// Identifiers and punctuation with their line numbers (`::` one token).
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let c: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < c.len() {
            if c[i].is_alphanumeric() || c[i] == '_' {
                let start = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push((c[start..i].iter().collect(), n + 1));
            } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
                out.push(("::".into(), n + 1));
                i += 2;
            } else {
                if !c[i].is_whitespace() {
                    out.push((c[i].to_string(), n + 1));
                }
                i += 1;
            }
        }
    }
    out
}

/// The places in `code` that create, truncate or append to a file, as
/// `line: what`.
pub fn creations(code: &str) -> Vec<String> {
    let t = tokens(code);
    let at = |i: usize| t.get(i).map_or("", |(s, _)| s.as_str());
    let builder = t.iter().any(|(s, _)| s == "OpenOptions");
    let mut found = Vec::new();
    for i in 0..t.len() {
        let line = t[i].1;
        let path_call = |owner: &str, names: &[&str]| {
            at(i) == owner && at(i + 1) == "::" && names.contains(&at(i + 2))
        };
        let what = if path_call("File", &["create", "create_new", "options"]) {
            Some(format!("File::{}", at(i + 2)))
        } else if path_call("fs", &["write", "copy", "rename", "hard_link"]) {
            Some(format!("fs::{}", at(i + 2)))
        } else if at(i) == "fs" && at(i + 1) == "::" && at(i + 2) == "{" {
            let group = t[i + 3..].iter().take_while(|(s, _)| s != "}");
            let names: Vec<&str> = group.map(|(s, _)| s.as_str()).collect();
            ["write", "copy", "rename", "hard_link"]
                .iter()
                .find(|n| names.contains(n))
                .map(|n| format!("use std::fs::{n}"))
        } else if path_call("libc", &["open", "openat", "open64", "openat64", "creat"])
            || path_call("fcntl", &["open", "openat"])
        {
            Some(format!("{}::{} (a raw open)", at(i), at(i + 2)))
        } else if at(i) == "SYS_openat2" {
            Some("SYS_openat2 (a raw open)".into())
        } else if at(i) == "." && at(i + 2) == "(" {
            let method = at(i + 1);
            let opts = ["create", "create_new", "truncate", "append"];
            if builder && opts.contains(&method) {
                Some(format!("OpenOptions::{method}"))
            } else if method == "set_len" && !BLOCK_RECEIVERS.contains(&at(i.wrapping_sub(1))) {
                Some(".set_len on a file".into())
            } else {
                None
            }
        } else {
            None
        };
        if let Some(what) = what {
            found.push(format!("{line}: {what}"));
        }
    }
    found
}
