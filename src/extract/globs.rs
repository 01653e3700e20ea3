//! The globs on the command line: one set that chooses members (as
//! `catalog::Catalog::matching` uses it: a glob matching a member's path
//! or a directory above it), and each glob on its own, to name those that
//! chose nothing.

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::archive::Member;

/// The globs, as a set and one by one.
pub struct Globs {
    pub set: GlobSet,
    each: Vec<(String, GlobMatcher)>,
}

impl Globs {
    /// Parses every glob; the error names the bad one.
    pub fn parse(texts: &[String]) -> Result<Globs, String> {
        let mut builder = GlobSetBuilder::new();
        let mut each = Vec::new();
        for text in texts {
            let glob = Glob::new(text).map_err(|e| format!("'{text}': {e}"))?;
            builder.add(glob.clone());
            each.push((text.clone(), glob.compile_matcher()));
        }
        let set = builder.build().map_err(|e| e.to_string())?;
        Ok(Globs { set, each })
    }

    /// The globs that chose none of `members`.
    pub fn unmatched(&self, members: &[Member]) -> Vec<&str> {
        let chose = |m: &GlobMatcher| members.iter().any(|member| chooses(m, &member.path));
        (self.each.iter())
            .filter(|(_, m)| !chose(m))
            .map(|(text, _)| text.as_str())
            .collect()
    }
}

/// Whether `glob` matches `path` or a directory above it.
fn chooses(glob: &GlobMatcher, path: &str) -> bool {
    let mut path = path.trim_end_matches('/');
    while !path.is_empty() {
        if glob.is_match(path) {
            return true;
        }
        path = path
            .rfind('/')
            .map_or("", |i| path[..i].trim_end_matches('/'));
    }
    false
}
