//! The names and patterns that choose members (`tapebuf ls`, `tapebuf
//! extract`), taken as GNU tar 1.34 takes the names after `tar xf A`:
//!
//! - each is unquoted first, as tar unquotes its command line: `\\` is
//!   `\`, `\n` `\t` `\r` `\a` `\b` `\f` `\v` are those control bytes, `\?`
//!   is DEL, `\NNN` (one to three octal digits) is that byte, and any
//!   other `\c` stays as it is; then trailing `/`s are dropped;
//! - a name chooses a member whose path (its own trailing `/` dropped)
//!   is the name, byte for byte, or starts with it and a `/` (a directory
//!   brings everything under it): tar's default, `--no-wildcards`;
//! - a name with `*`, `?` or `[` in it also chooses what it matches as a
//!   wildcard pattern (`wildcard.rs`; braces are not special), as with
//!   `tar --wildcards`. So an exact member name always chooses its
//!   member, whatever bytes it holds;
//! - nothing else is done to either side: `./x` does not choose `x`, nor
//!   `x` `./x`, and `d//x` is not `d/x`, as in tar.
//!
//! An empty name (tar drops it and lists everything) is refused.
//! `Tally` counts which chose something, only while one has not yet.

use super::wildcard;

/// One name or pattern as typed, and as it is matched.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// Unquoted, trailing `/`s dropped.
    name: Vec<u8>,
    /// Whether it is matched as a wildcard pattern too.
    wild: bool,
}

impl Pattern {
    /// The pattern for `typed`; an empty one is refused.
    pub fn new(typed: &str) -> Result<Pattern, String> {
        let mut name = unquote(typed.as_bytes());
        while name.len() > 1 && name.ends_with(b"/") {
            name.pop();
        }
        if name.is_empty() {
            return Err(format!(
                "'{typed}': an empty name (tar would take it as no name at all, and choose every member)"
            ));
        }
        let wild = wildcard::has_wildcards(&name);
        Ok(Pattern { name, wild })
    }

    /// Whether it chooses the member at `path`.
    pub fn chooses(&self, path: &[u8]) -> bool {
        let path = trimmed(path);
        let literal = path.starts_with(&self.name)
            && (path.len() == self.name.len() || path[self.name.len()] == b'/');
        literal || (self.wild && wildcard::matches(&self.name, path))
    }
}

/// `path` without trailing `/`s, as tar compares a member's name.
fn trimmed(mut path: &[u8]) -> &[u8] {
    while let [rest @ .., b'/'] = path {
        if rest.is_empty() {
            break;
        }
        path = rest;
    }
    path
}

/// Every name and pattern given, in order.
#[derive(Debug, Clone, Default)]
pub struct Patterns {
    list: Vec<Pattern>,
}

impl Patterns {
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether any of them chooses the member at `path`.
    pub fn chooses(&self, path: &[u8]) -> bool {
        self.list.iter().any(|p| p.chooses(path))
    }
}

/// The patterns, or the line saying which one is refused.
pub fn build(typed: &[String]) -> Result<Patterns, String> {
    let list = typed
        .iter()
        .map(|t| Pattern::new(t))
        .collect::<Result<_, _>>()?;
    Ok(Patterns { list })
}

/// A name from the command line as tar unquotes it (see the module's
/// notes).
pub fn unquote(typed: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(typed.len());
    let mut i = 0;
    while i < typed.len() {
        if typed[i] != b'\\' || i + 1 == typed.len() {
            out.push(typed[i]);
            i += 1;
            continue;
        }
        let c = typed[i + 1];
        i += 2;
        let byte = match c {
            b'\\' => b'\\',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'?' => 0x7f,
            b'0'..=b'7' => {
                let mut value = u32::from(c - b'0');
                for _ in 0..2 {
                    match typed.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                value as u8
            }
            other => {
                out.push(b'\\');
                other
            }
        };
        out.push(byte);
    }
    out
}

/// Which patterns chose a member so far.
pub struct Tally<'a> {
    patterns: &'a Patterns,
    hit: Vec<bool>,
    left: usize,
}

impl<'a> Tally<'a> {
    pub fn new(patterns: &'a Patterns) -> Tally<'a> {
        Tally {
            patterns,
            hit: vec![false; patterns.len()],
            left: patterns.len(),
        }
    }

    /// A chosen member's path: the patterns choosing it chose something.
    pub fn count(&mut self, path: &[u8]) {
        if self.left == 0 {
            return;
        }
        for (i, p) in self.patterns.list.iter().enumerate() {
            if !self.hit[i] && p.chooses(path) {
                self.hit[i] = true;
                self.left -= 1;
            }
        }
    }

    /// The indices of the patterns that chose nothing.
    pub fn unmatched(&self) -> Vec<usize> {
        (0..self.hit.len()).filter(|&i| !self.hit[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chooses(typed: &str, path: &str) -> bool {
        Pattern::new(typed).unwrap().chooses(path.as_bytes())
    }

    // issue 45 finding 5: an exact member name with braces or brackets
    // chooses that member; braces never expand.
    #[test]
    fn an_exact_member_name_chooses_its_member_whatever_its_bytes() {
        assert!(chooses("./photo{1,2}.jpg", "./photo{1,2}.jpg"));
        assert!(!chooses("./photo{1,2}.jpg", "./photo1.jpg"));
        let guid = "Users/x/{3F2504E0-4F89-11D3-9A0C-0305E82C3301}";
        assert!(chooses(guid, &format!("{guid}/desktop.ini")));
        assert!(!chooses(
            guid,
            "Users/x/3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        ));
        assert!(chooses("br[1]", "br[1]"));
        assert!(chooses("br[1]", "br1"));
        assert!(chooses("a*b", "a*b"));
    }

    #[test]
    fn a_leading_dot_slash_is_part_of_the_name_as_in_tar() {
        assert!(!chooses("./x", "x"));
        assert!(!chooses("x", "./x"));
        assert!(chooses("*x", "./x"));
        assert!(chooses("x/", "x"));
        assert!(chooses("d", "d/"));
        assert!(!chooses("k/l/*", "k/l/"));
    }

    #[test]
    fn names_are_unquoted_as_tar_unquotes_its_command_line() {
        assert_eq!(unquote(br"q\\z"), br"q\z");
        assert_eq!(unquote(br"q\z"), br"q\z");
        assert_eq!(unquote(br"a\?"), b"a\x7f");
        assert_eq!(unquote(br"\101\0141b"), b"A\x0c1b");
        assert_eq!(unquote(br"a\n\t"), b"a\n\t");
        assert_eq!(unquote(br"a\"), br"a\");
    }

    #[test]
    fn a_pattern_is_counted_when_it_chooses_a_member() {
        let set = build(&["home/alice".into(), "*.tex".into(), "nope/*".into()]).unwrap();
        let mut tally = Tally::new(&set);
        tally.count(b"home/alice/notes/");
        assert_eq!(tally.unmatched(), vec![1, 2]);
        tally.count(b"home/alice/thesis.tex");
        assert_eq!(tally.unmatched(), vec![2]);
    }

    #[test]
    fn an_empty_name_is_refused() {
        let e = build(&["ok".into(), "".into()]).unwrap_err();
        assert!(e.starts_with("'': an empty name"), "{e}");
        assert!(build(&["/".into()]).is_ok());
    }
}
