//! Just enough of a Rust lexer to find module declarations, `use` trees and
//! `crate::`/`super::`/`self::` paths: comments, strings and character
//! literals are blanked first, so that a path in a message or a doc comment
//! is not taken for an import.

use std::collections::BTreeMap;

/// A `mod name;` declaration, with its `#[path]` if it has one.
pub struct ModDecl {
    pub name: String,
    pub path: Option<String>,
}

/// A path named by the code, inside the inline modules `inline`.
pub struct PathUse {
    pub inline: Vec<String>,
    pub path: Vec<String>,
    /// The name a `pub use` makes it visible under.
    pub reexport_as: Option<String>,
}

/// `raw` with comments, string literals and character literals blanked.
pub fn clean(raw: &str) -> String {
    let c: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && at(&c, i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && at(&c, i + 1) == '*' {
            let start = i;
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(&c, i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(&c, i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
            newlines(&c[start..i.min(c.len())], &mut out);
        } else if let Some(len) = raw_string_start(&c, i) {
            let start = i;
            let hashes = len - if c[i] == 'b' { 3 } else { 2 };
            i += len;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')))
            {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
            newlines(&c[start..i.min(c.len())], &mut out);
        } else if c[i] == '"' || (c[i] == 'b' && at(&c, i + 1) == '"' && !ident_char(prev(&c, i))) {
            let start = i;
            i += if c[i] == 'b' { 2 } else { 1 };
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
            newlines(&c[start..i.min(c.len())], &mut out);
        } else if c[i] == '\'' && (at(&c, i + 1) == '\\' || at(&c, i + 2) == '\'') {
            i += 1;
            while i < c.len() && c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn prev(c: &[char], i: usize) -> char {
    if i == 0 {
        ' '
    } else {
        c[i - 1]
    }
}

fn ident_char(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The length of `r"`, `r#"`, `br##"`... starting at `i`, if one does.
fn raw_string_start(c: &[char], i: usize) -> Option<usize> {
    if ident_char(prev(c, i)) {
        return None;
    }
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    (c.get(j) == Some(&'"')).then_some(j + 1 - i)
}

/// The tokens of cleaned code: identifiers, `::` and single punctuation.
fn tokens(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if ident_char(c[i]) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}

/// The out-of-line module declarations of a file (`raw` for the `#[path]`
/// attributes, `code` cleaned).
pub fn mod_files(raw: &str, code: &str) -> Vec<ModDecl> {
    let mut paths = BTreeMap::new();
    let mut pending: Option<String> = None;
    for line in raw.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#[path = \"") {
            pending = rest.split('"').next().map(str::to_string);
        } else if let Some(at) = line.find("mod ").filter(|_| line.ends_with(';')) {
            let name = line[at + 4..].trim_end_matches(';').trim().to_string();
            if let Some(p) = pending.take() {
                paths.insert(name, p);
            }
        } else if !line.starts_with("#[") {
            pending = None;
        }
    }
    let t = tokens(code);
    (0..t.len().saturating_sub(2))
        .filter(|&i| t[i] == "mod" && t[i + 2] == ";" && (i == 0 || t[i - 1] != "::"))
        .map(|i| ModDecl {
            name: t[i + 1].clone(),
            path: paths.get(&t[i + 1]).cloned(),
        })
        .collect()
}

/// Every `use` path and every `crate::`/`super::`/`self::` path in the
/// cleaned code.
pub fn scan(code: &str) -> Vec<PathUse> {
    let t = tokens(code);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if t.get(i + 2).map(String::as_str) == Some("{") => {
                inline.push((t[i + 1].clone(), depth + 1));
            }
            "use" => {
                let public = i > 0
                    && (t[i - 1] == "pub" || (t[i - 1] == ")" && i >= 4 && t[i - 4] == "pub"));
                let mut trees = Vec::new();
                let end = use_tree(&t, i + 1, &[], &mut trees);
                let names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
                for (path, alias) in trees {
                    let reexport_as = if public { alias } else { None };
                    out.push(PathUse {
                        inline: names.clone(),
                        path,
                        reexport_as,
                    });
                }
                i = end;
                continue;
            }
            "crate" | "super" | "self"
                if t.get(i + 1).map(String::as_str) == Some("::")
                    && (i == 0 || t[i - 1] != "::" && t[i - 1] != "$") =>
            {
                let mut path = vec![t[i].clone()];
                let mut j = i + 1;
                while t.get(j).map(String::as_str) == Some("::")
                    && t.get(j + 1).is_some_and(|s| s.chars().all(ident_char))
                {
                    path.push(t[j + 1].clone());
                    j += 2;
                }
                let names = inline.iter().map(|(n, _)| n.clone()).collect();
                out.push(PathUse {
                    inline: names,
                    path,
                    reexport_as: None,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Parses one use tree at `i` under `prefix`, pushing (path, visible name)
/// pairs; returns the index after it (past the `;` at the top level).
fn use_tree(
    t: &[String],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match t.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                while t.get(i).is_some_and(|s| s != "}") {
                    i = use_tree(t, i, &path, out);
                    if t.get(i).map(String::as_str) == Some(",") {
                        i += 1;
                    }
                }
                i += 1;
                break;
            }
            Some("*") => {
                out.push((path.clone(), None));
                i += 1;
                break;
            }
            Some("self") if !path.is_empty() => {
                let alias = alias_at(t, i + 1).or_else(|| path.last().cloned());
                out.push((path.clone(), alias));
                i += 1;
                break;
            }
            Some(s) if s.chars().all(ident_char) => {
                path.push(s.to_string());
                i += 1;
                if t.get(i).map(String::as_str) == Some("::") {
                    i += 1;
                    continue;
                }
                let alias = alias_at(t, i).or_else(|| path.last().cloned());
                out.push((path.clone(), alias));
                break;
            }
            _ => break,
        }
    }
    if t.get(i).map(String::as_str) == Some("as") {
        i += 2;
    }
    if prefix.is_empty() && t.get(i).map(String::as_str) == Some(";") {
        i += 1;
    }
    i
}

fn alias_at(t: &[String], i: usize) -> Option<String> {
    (t.get(i).map(String::as_str) == Some("as"))
        .then(|| t.get(i + 1).cloned())
        .flatten()
}

fn at(c: &[char], i: usize) -> char {
    c.get(i).copied().unwrap_or('\0')
}

/// Keeps the line count of a blanked span.
fn newlines(span: &[char], out: &mut String) {
    out.extend(span.iter().filter(|&&ch| ch == '\n'));
}

/// Every function with a body: its name, first line and length in lines.
pub fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let c: Vec<char> = code.chars().collect();
    let line_at = |i: usize| c[..i].iter().filter(|&&ch| ch == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 < c.len() {
        let word =
            c[i] == 'f' && c[i + 1] == 'n' && c[i + 2].is_whitespace() && !ident_char(prev(&c, i));
        if !word {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        let name: String = c[j..].iter().take_while(|&&ch| ident_char(ch)).collect();
        while j < c.len() && c[j] != '{' && c[j] != ';' {
            j += 1;
        }
        if name.is_empty() || j >= c.len() || c[j] == ';' {
            i = j.max(i + 1);
            continue;
        }
        let mut depth = 0;
        let mut k = j;
        while k < c.len() {
            match c[k] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let (first, last) = (line_at(i), line_at(k.min(c.len() - 1)));
        out.push((name, first, last + 1 - first));
        i += 2;
    }
    out
}
