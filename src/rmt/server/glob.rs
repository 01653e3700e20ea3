//! Path patterns for the confinement policy: globs on absolute paths.
//!
//! `*` matches any run of characters and `?` one character, both within a
//! single path component; `[a-z0-9]` and `[!...]` (or `[^...]`) match one
//! character of a class; a component that is exactly `**` matches any
//! number of whole components, so `/srv/backup/**` matches everything below
//! `/srv/backup` (but not `/srv/backup` itself) and `/a/**/b` matches
//! `/a/b` and `/a/x/y/b`. Everything else matches itself, byte for byte.
//!
//! Invariant: a [`Pattern`] is absolute and has no `.` or `..` component,
//! and a wildcard never matches a `/`, so a pattern can only match paths
//! inside the directories it names. Paths are matched after
//! canonicalisation (see `resolve.rs`), so patterns should name real
//! directories, not symbolic links.

use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A checked pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`: zero or more components.
    AnyDepth,
    Component(Vec<Token>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    /// `?`
    AnyChar,
    /// `*`
    AnyRun,
    /// `[...]`: ranges of characters, inclusive.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Pattern {
    /// Checks and compiles `text`. The error says what is wrong with it.
    pub fn new(text: &str) -> Result<Pattern, String> {
        if !text.starts_with('/') {
            return Err("a pattern must be an absolute path".into());
        }
        let mut parts = Vec::new();
        for component in text.split('/').filter(|c| !c.is_empty()) {
            match component {
                "." | ".." => {
                    return Err(format!(
                        "a pattern must not contain a '{component}' component"
                    ))
                }
                "**" => parts.push(Part::AnyDepth),
                _ if component.contains("**") => {
                    return Err("'**' must be a whole path component, as in /srv/backup/**".into())
                }
                _ => parts.push(Part::Component(tokens(component)?)),
            }
        }
        // A trailing `**` means something inside: at least one component.
        if parts.last() == Some(&Part::AnyDepth) {
            parts.push(Part::Component(vec![Token::AnyRun]));
        }
        Ok(Pattern {
            text: text.to_string(),
            parts,
        })
    }

    /// True when the absolute, canonical `path` matches.
    pub fn matches(&self, path: &Path) -> bool {
        let bytes = path.as_os_str().as_bytes();
        if !bytes.starts_with(b"/") {
            return false;
        }
        let components: Vec<&[u8]> = bytes
            .split(|&b| b == b'/')
            .filter(|c| !c.is_empty())
            .collect();
        // reach[j]: the parts so far can match the first j components.
        let mut reach = vec![false; components.len() + 1];
        reach[0] = true;
        for part in &self.parts {
            let mut next = vec![false; components.len() + 1];
            match part {
                Part::AnyDepth => {
                    let mut on = false;
                    for j in 0..=components.len() {
                        on |= reach[j];
                        next[j] = on;
                    }
                }
                Part::Component(tokens) => {
                    for j in 0..components.len() {
                        next[j + 1] = reach[j] && component_matches(tokens, components[j]);
                    }
                }
            }
            reach = next;
        }
        reach[components.len()]
    }

    /// Splits the pattern into its leading plain directory names and the
    /// rest: `("/srv/backup", "*.tar")` for `/srv/backup/*.tar`. The last
    /// component always stays in the rest, even when it is plain, since it
    /// may name a file rather than a directory. `None` when the pattern
    /// starts with a wildcard or has a single component.
    pub fn split_literal_dirs(&self) -> Option<(String, String)> {
        let components: Vec<&str> = self.text.split('/').filter(|c| !c.is_empty()).collect();
        let plain = components[..components.len().saturating_sub(1)]
            .iter()
            .take_while(|c| !c.contains(['*', '?', '[']))
            .count();
        if plain == 0 {
            return None;
        }
        let dirs = format!("/{}", components[..plain].join("/"));
        Some((dirs, components[plain..].join("/")))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn tokens(component: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = component.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push(Token::AnyRun),
            '?' => out.push(Token::AnyChar),
            '[' => {
                let negated = chars.next_if(|c| *c == '!' || *c == '^').is_some();
                let mut ranges = Vec::new();
                let mut first = true;
                loop {
                    let Some(lo) = chars.next() else {
                        return Err(format!("unclosed '[' in '{component}'"));
                    };
                    if lo == ']' && !first {
                        break;
                    }
                    first = false;
                    let hi = if chars.peek() == Some(&'-') {
                        chars.next();
                        match chars.next() {
                            Some(']') | None => {
                                return Err(format!("unfinished range in '{component}'"))
                            }
                            Some(hi) if hi < lo => {
                                return Err(format!("reversed range {lo}-{hi} in '{component}'"))
                            }
                            Some(hi) => hi,
                        }
                    } else {
                        lo
                    };
                    ranges.push((lo, hi));
                }
                out.push(Token::Class { negated, ranges });
            }
            _ => {
                let mut buf = [0; 4];
                out.extend(c.encode_utf8(&mut buf).bytes().map(Token::Byte));
            }
        }
    }
    Ok(out)
}

/// The character at the start of `bytes` and its length in bytes; a byte
/// that does not begin valid UTF-8 counts as one character of its own.
fn first_char(bytes: &[u8]) -> (Option<char>, usize) {
    let len = match bytes[0] {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    match bytes.get(..len).map(std::str::from_utf8) {
        Some(Ok(s)) => (s.chars().next(), len),
        _ => (None, 1),
    }
}

/// One token against the start of `name`: the bytes it consumes, if any.
fn step(token: &Token, name: &[u8]) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    match token {
        Token::Byte(b) => (name[0] == *b).then_some(1),
        Token::AnyChar => Some(first_char(name).1),
        Token::Class { negated, ranges } => {
            let (c, len) = first_char(name);
            let inside = c.is_some_and(|c| ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)));
            (inside != *negated).then_some(len)
        }
        Token::AnyRun => unreachable!("handled by component_matches"),
    }
}

/// Matches one component, backtracking only to the last `*` (the
/// classic linear-space wildcard algorithm).
fn component_matches(tokens: &[Token], name: &[u8]) -> bool {
    let (mut t, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if t < tokens.len() {
            if tokens[t] == Token::AnyRun {
                star = Some((t, n));
                t += 1;
                continue;
            }
            if let Some(used) = step(&tokens[t], &name[n..]) {
                t += 1;
                n += used;
                continue;
            }
        } else if n == name.len() {
            return true;
        }
        // Mismatch: let the last `*` take one more character.
        match star {
            Some((st, sn)) if sn < name.len() => {
                let next = sn + first_char(&name[sn..]).1;
                star = Some((st, next));
                t = st + 1;
                n = next;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
