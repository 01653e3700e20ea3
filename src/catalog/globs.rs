//! The globs that choose members (`tapebuf ls`, `tapebuf extract`):
//! built as globset's defaults (`*` matches `/` too, as GNU tar's
//! extraction does) and applied as `Catalog::matching` applies them (a
//! glob on a directory chooses what is under it), and which of them chose
//! nothing, counted only while one has not yet chosen anything. The one
//! tally both commands and the extract plan use.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Builds the set, or says which glob is not one.
pub fn build(patterns: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(|e| format!("'{p}': not a glob: {}", e.kind()))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Which globs chose a member so far.
pub struct GlobTally<'a> {
    globs: &'a GlobSet,
    hit: Vec<bool>,
    left: usize,
    scratch: Vec<usize>,
}

impl<'a> GlobTally<'a> {
    pub fn new(globs: &'a GlobSet) -> GlobTally<'a> {
        GlobTally {
            globs,
            hit: vec![false; globs.len()],
            left: globs.len(),
            scratch: Vec::new(),
        }
    }

    /// A chosen member's path: the globs matching it, or a directory
    /// above it, chose something.
    pub fn count(&mut self, path: &str) {
        let mut at = path.trim_end_matches('/');
        while self.left > 0 && !at.is_empty() {
            self.globs.matches_into(at, &mut self.scratch);
            for &i in &self.scratch {
                if !self.hit[i] {
                    self.hit[i] = true;
                    self.left -= 1;
                }
            }
            at = at.rfind('/').map_or("", |i| at[..i].trim_end_matches('/'));
        }
    }

    /// The indices of the globs that chose nothing.
    pub fn unmatched(&self) -> Vec<usize> {
        (0..self.hit.len()).filter(|&i| !self.hit[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_is_matched_by_a_member_under_the_directory_it_names() {
        let set = build(&["home/alice".into(), "*.tex".into(), "nope/*".into()]).unwrap();
        let mut tally = GlobTally::new(&set);
        tally.count("home/alice/notes/");
        assert_eq!(tally.unmatched(), vec![1, 2]);
        tally.count("home/alice/thesis.tex");
        assert_eq!(tally.unmatched(), vec![2]);
    }

    #[test]
    fn a_bad_glob_is_named() {
        let e = build(&["ok".into(), "a[b".into()]).unwrap_err();
        assert!(e.starts_with("'a[b': not a glob: "), "{e}");
    }
}
