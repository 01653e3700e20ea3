//! Path patterns for the confinement policy: globs on absolute paths,
//! matched by the globset crate behind a thin layer of our own.
//!
//! `*` matches any run of characters and `?` one character, both within a
//! single path component; `[a-z0-9]` and `[!...]` (or `[^...]`) match one
//! character of a class; a component that is exactly `**` matches any
//! number of whole components, so `/srv/backup/**` matches everything below
//! `/srv/backup` (but not `/srv/backup` itself) and `/a/**/b` matches
//! `/a/b` and `/a/x/y/b`. Everything else matches itself, byte for byte
//! (`\`, `{` and `}` included).
//!
//! Our layer checks what globset does not: a pattern is absolute, has no
//! `.` or `..` component, and uses `**` only as a whole component. It
//! rewrites each class into one that globset reads the same way and that
//! never holds `/`, and hands `{` and `}` over as literals. globset matches
//! bytes, so `?` and a class take one byte, not one character: for a
//! pattern written in ASCII, the path's non-ASCII characters (and stray
//! bytes) are each folded into one byte before matching, which gives the
//! same answer as matching characters.
//!
//! Invariant: a [`Pattern`] is absolute and has no `.` or `..` component,
//! and a wildcard never matches a `/`, so a pattern can only match paths
//! inside the directories it names. Paths are matched after
//! canonicalisation (see `resolve.rs`), so patterns should name real
//! directories, not symbolic links.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// A checked pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    matcher: GlobMatcher,
    /// The pattern is all ASCII, so the path's other characters can be
    /// folded into one byte each.
    ascii: bool,
}

/// What a non-ASCII character of the path becomes before an ASCII pattern
/// is matched: one byte that no ASCII pattern character matches.
const FOLDED: u8 = 0x80;

impl Pattern {
    /// Checks and compiles `text`. The error says what is wrong with it.
    pub fn new(text: &str) -> Result<Pattern, String> {
        if !text.starts_with('/') {
            return Err("a pattern must be an absolute path".into());
        }
        let mut glob = String::new();
        for component in text.split('/').filter(|c| !c.is_empty()) {
            match component {
                "." | ".." => {
                    return Err(format!(
                        "a pattern must not contain a '{component}' component"
                    ))
                }
                _ if component.contains("**") && component != "**" => {
                    return Err("'**' must be a whole path component, as in /srv/backup/**".into())
                }
                _ => {}
            }
            glob.push('/');
            glob.push_str(&for_globset(component)?);
        }
        if glob.is_empty() {
            glob.push('/');
        }
        let matcher = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(false)
            .build()
            .map_err(|e| e.kind().to_string())?
            .compile_matcher();
        Ok(Pattern {
            text: text.to_string(),
            matcher,
            ascii: text.is_ascii(),
        })
    }

    /// True when the absolute, canonical `path` matches.
    pub fn matches(&self, path: &Path) -> bool {
        let bytes = path.as_os_str().as_bytes();
        if !bytes.starts_with(b"/") {
            return false;
        }
        let mut candidate = Vec::with_capacity(bytes.len());
        for component in bytes.split(|&b| b == b'/').filter(|c| !c.is_empty()) {
            candidate.push(b'/');
            if self.ascii {
                fold_non_ascii(component, &mut candidate);
            } else {
                candidate.extend_from_slice(component);
            }
        }
        if candidate.is_empty() {
            // The root has no component; only a pattern without one
            // names it (globset would let `/**` take it).
            return self.text.split('/').all(str::is_empty);
        }
        self.matcher
            .is_match(Path::new(OsStr::from_bytes(&candidate)))
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

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Appends `component` with each non-ASCII character, and each byte that
/// does not begin valid UTF-8, as one [`FOLDED`] byte.
fn fold_non_ascii(component: &[u8], out: &mut Vec<u8>) {
    for chunk in component.utf8_chunks() {
        for c in chunk.valid().chars() {
            out.push(if c.is_ascii() { c as u8 } else { FOLDED });
        }
        out.extend(chunk.invalid().iter().map(|_| FOLDED));
    }
}

/// One component (not `**`) in globset's syntax: classes rewritten by
/// [`class`], braces made literal, everything else as it is.
fn for_globset(component: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = component.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' => out.push_str(&class(&mut chars, component)?),
            '{' | '}' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// Reads a class after its `[` and writes it the way globset reads it:
/// `]` first, `-` first or last, and never a `/` (a negated class gets
/// one added, a range that spans it is cut in two).
fn class(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    component: &str,
) -> Result<String, String> {
    let negated = chars.next_if(|c| *c == '!' || *c == '^').is_some();
    let (mut close, mut dash) = (false, false);
    let mut middle = String::new();
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
                Some(']') | None => return Err(format!("unfinished range in '{component}'")),
                Some(hi) if hi < lo => {
                    return Err(format!("reversed range {lo}-{hi} in '{component}'"))
                }
                Some(hi) => hi,
            }
        } else {
            lo
        };
        close |= (lo..=hi).contains(&']');
        dash |= (lo..=hi).contains(&'-');
        push_range_without(lo, hi, &['-', '/', ']'], &mut middle);
    }
    let mut out = String::from("[");
    if negated {
        out.push('!');
    }
    if close {
        out.push(']');
    } else if dash {
        out.push('-');
    }
    if negated {
        out.push('/');
    }
    out.push_str(&middle);
    if close && dash {
        out.push('-');
    }
    out.push(']');
    Ok(out)
}

/// Writes the range `lo..=hi` less the ASCII characters `cut` (in
/// ascending order) as globset class items.
fn push_range_without(mut lo: char, hi: char, cut: &[char], out: &mut String) {
    for &c in cut {
        if lo <= c && c <= hi {
            if lo < c {
                push_range(lo, char::from(c as u8 - 1), out);
            }
            lo = char::from(c as u8 + 1);
        }
    }
    if lo <= hi {
        push_range(lo, hi, out);
    }
}

fn push_range(lo: char, hi: char, out: &mut String) {
    out.push(lo);
    if lo != hi {
        out.push('-');
        out.push(hi);
    }
}

#[cfg(test)]
#[path = "glob_tests.rs"]
mod tests;
