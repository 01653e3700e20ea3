//! Choosing members by glob, as `tar` chooses them by name.
//!
//! A member is chosen when a glob matches its path (a trailing `/` left
//! off, as tar stores directories as `dir/`), or matches one of the
//! directories above it: `home/alice` chooses `home/alice` and everything
//! under it, as `tar xf backup.tar home/alice` does (GNU tar's default
//! recursion). Whether `*` crosses a `/` is the `GlobSet`'s own setting:
//! globset's default (it does) is GNU tar's default for extraction
//! (`--wildcards-match-slash`); build the globs with
//! `literal_separator(true)` for `--no-wildcards-match-slash`. Paths are
//! compared as stored: `./home/alice` is not `home/alice`.
//!
//! Members come in stream order, so a directory's members follow one
//! another: the verdict on the last parent directory is kept and most
//! members cost one glob test.

use std::io;

use globset::GlobSet;

use crate::archive::Member;

use super::members::Members;
use super::reader::Catalog;

/// The members a set of globs chooses (`Catalog::matching`).
pub struct Matching<'a> {
    members: Members<'a>,
    globs: &'a GlobSet,
    /// The last parent directory seen, and whether it or a directory above
    /// it matched.
    parent: String,
    parent_chosen: bool,
}

impl Catalog {
    /// The members `globs` choose, in stream order: those whose path, or a
    /// directory above it, a glob matches (see the module's notes).
    pub fn matching<'a>(&'a self, globs: &'a GlobSet) -> Matching<'a> {
        Matching {
            members: self.members(),
            globs,
            parent: String::new(),
            parent_chosen: false,
        }
    }
}

impl Matching<'_> {
    /// Whether `path` is chosen.
    fn chooses(&mut self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        let parent = path.rfind('/').map_or("", |i| &path[..i]);
        if parent != self.parent {
            self.parent_chosen = directory_chosen(self.globs, parent);
            self.parent.clear();
            self.parent.push_str(parent);
        }
        self.parent_chosen || self.globs.is_match(path)
    }
}

/// Whether a glob matches `dir` or a directory above it.
fn directory_chosen(globs: &GlobSet, dir: &str) -> bool {
    let mut dir = dir.trim_end_matches('/');
    while !dir.is_empty() {
        if globs.is_match(dir) {
            return true;
        }
        dir = dir
            .rfind('/')
            .map_or("", |i| dir[..i].trim_end_matches('/'));
    }
    false
}

impl Iterator for Matching<'_> {
    type Item = io::Result<Member>;

    fn next(&mut self) -> Option<io::Result<Member>> {
        loop {
            match self.members.next()? {
                Ok(member) if !self.chooses(&member.path.lossy()) => continue,
                other => return Some(other),
            }
        }
    }
}
