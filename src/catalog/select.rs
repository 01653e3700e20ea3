//! Choosing members by name, as `tar` chooses them (`globs.rs` has the
//! rules: a name chooses its member and everything under it, a pattern
//! with wildcards also what it matches).
//!
//! Members come in stream order, so a directory's members follow one
//! another: the verdict on the last parent directory is kept (a pattern
//! that chooses a directory chooses everything under it), and most
//! members cost one test.

use std::io;

use crate::archive::Member;

use super::globs::Patterns;
use super::members::Members;
use super::reader::Catalog;

/// The members a set of patterns chooses (`Catalog::matching`).
pub struct Matching<'a> {
    members: Members<'a>,
    patterns: &'a Patterns,
    /// The last parent directory seen, and whether a pattern chose it.
    parent: Vec<u8>,
    parent_chosen: bool,
}

impl Catalog {
    /// The members `patterns` choose, in stream order (see the module's
    /// notes).
    pub fn matching<'a>(&'a self, patterns: &'a Patterns) -> Matching<'a> {
        Matching {
            members: self.members(),
            patterns,
            parent: Vec::new(),
            parent_chosen: false,
        }
    }
}

impl Matching<'_> {
    /// Whether `path` is chosen.
    fn chooses(&mut self, path: &[u8]) -> bool {
        let mut end = path.len();
        while end > 1 && path[end - 1] == b'/' {
            end -= 1;
        }
        let parent = path[..end]
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(&path[..0], |i| &path[..i]);
        if parent != self.parent.as_slice() {
            self.parent_chosen = !parent.is_empty() && self.patterns.chooses(parent);
            self.parent.clear();
            self.parent.extend_from_slice(parent);
        }
        self.parent_chosen || self.patterns.chooses(path)
    }
}

impl Iterator for Matching<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        loop {
            match self.members.next()? {
                Ok(member) if !self.chooses(member.path.as_bytes()) => continue,
                other => return Some(other),
            }
        }
    }
}
