//! tar's wildcards over bytes: what `tar --wildcards` does with a member
//! name pattern (GNU tar 1.34, glibc's `fnmatch` with `FNM_LEADING_DIR`
//! and neither `FNM_PATHNAME` nor `FNM_PERIOD`, in the C locale). Our own
//! matcher, so that the rules are ours to state and test:
//!
//! - `*` matches any run of bytes, `/` and a leading `.` included
//!   (`--wildcards-match-slash`, tar's default for member names);
//! - `?` matches any one byte, `/` included;
//! - `[...]` matches one byte of a set: single bytes, ranges `a-z` (by
//!   byte value; a range written backwards matches nothing), the classes
//!   `[:alpha:]`, `[:digit:]` ... (ASCII, as the C locale has them),
//!   `[=c=]` and `[.c.]` for the one byte `c`; `!` or `^` first negates
//!   it; a `]` first is a member; `\` escapes the byte after it; a `[`
//!   that starts no well-formed `[:name:]` or `[=c=]` is a member. A `[`
//!   with no `]` to close it is a plain `[`; an unknown class, a `[.` not
//!   closed on one byte, a range cut by the pattern's end, or a `\` at
//!   the pattern's end match nothing (glibc's choices, each checked
//!   against GNU tar);
//! - `\c` is the byte `c`;
//! - braces are not special: `{a,b}` is the five bytes it is;
//! - the pattern matches the whole name, or the part of it before a `/`
//!   (a pattern that matches a directory matches what is under it).
//!
//! Matching is iterative, with one saved `*` to go back to (each element
//! but `*` takes one byte, so the last `*` is the only one worth moving):
//! time is at most the pattern's length times the name's, for the whole
//! name and for each part of it before a `/`, whatever the pattern.

/// Whether `pattern` matches `name` or the part of it before some `/`.
pub fn matches(pattern: &[u8], name: &[u8]) -> bool {
    whole(pattern, name)
        || (name.iter().enumerate()).any(|(k, &b)| b == b'/' && whole(pattern, &name[..k]))
}

/// Whether `pattern` matches all of `name`.
fn whole(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    // The element after the last `*`, and where in the name it resumes.
    let mut star: Option<(usize, usize)> = None;
    loop {
        let step = if p == pattern.len() {
            if n == name.len() {
                return true;
            }
            None
        } else {
            one(pattern, p, name.get(n).copied())
        };
        match step {
            Some(Step::Star) => {
                star = Some((p + 1, n));
                p += 1;
            }
            Some(Step::Byte(next)) => {
                p = next;
                n += 1;
            }
            None => match star {
                Some((after, from)) if from < name.len() => {
                    star = Some((after, from + 1));
                    p = after;
                    n = from + 1;
                }
                _ => return false,
            },
        }
    }
}

/// What the pattern element at `p` does with the name's next byte.
enum Step {
    /// A `*`: the element after it is tried at each place in turn.
    Star,
    /// The byte matched; the next element starts here.
    Byte(usize),
}

/// The element at `pattern[p]` against `byte` (None at the name's end).
fn one(pattern: &[u8], p: usize, byte: Option<u8>) -> Option<Step> {
    match pattern[p] {
        b'*' => Some(Step::Star),
        b'?' => byte.map(|_| Step::Byte(p + 1)),
        b'\\' => {
            let escaped = *pattern.get(p + 1)?;
            (byte? == escaped).then_some(Step::Byte(p + 2))
        }
        b'[' => match bracket(pattern, p, byte?) {
            Bracket::Matched(next) => Some(Step::Byte(next)),
            Bracket::Unmatched => None,
            Bracket::Unclosed => (byte? == b'[').then_some(Step::Byte(p + 1)),
        },
        c => (byte? == c).then_some(Step::Byte(p + 1)),
    }
}

/// A bracket expression's verdict on one byte.
enum Bracket {
    /// In the set; the element after the `]` starts here.
    Matched(usize),
    /// Not in the set, or the expression is one that matches nothing.
    Unmatched,
    /// No `]` closes it: the `[` is a plain byte.
    Unclosed,
}

/// The bracket expression starting at `pattern[open]` (a `[`) on `byte`.
fn bracket(pattern: &[u8], open: usize, byte: u8) -> Bracket {
    let mut i = open + 1;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    loop {
        match pattern.get(i) {
            None => return Bracket::Unclosed,
            Some(b']') if !first => break,
            _ => {}
        }
        first = false;
        let Some((member, next)) = item(pattern, i) else {
            return Bracket::Unmatched;
        };
        i = next;
        let is_range = pattern.get(i) == Some(&b'-') && pattern.get(i + 1) != Some(&b']');
        let hit = match member {
            Item::Class(class) => class(byte),
            Item::Byte(lo) if is_range => {
                let Some((hi, next)) = range_end(pattern, i + 1) else {
                    return Bracket::Unmatched;
                };
                i = next;
                (lo..=hi).contains(&byte)
            }
            Item::Byte(b) => b == byte,
        };
        found |= hit;
    }
    if found != negated {
        Bracket::Matched(i + 1)
    } else {
        Bracket::Unmatched
    }
}

/// The end of a range, at `pattern[i]` (after the `-`): a byte, `\c`
/// or `[.c.]`, and where the next member starts; None when the pattern
/// ends there (the range, and the expression, match nothing).
fn range_end(pattern: &[u8], i: usize) -> Option<(u8, usize)> {
    match (*pattern.get(i)?, pattern.get(i + 1)) {
        (b'\\', next) => next.map(|&b| (b, i + 2)),
        (b'[', Some(b'.')) => match named(pattern, i + 2, b'.') {
            Named::Byte(b, next) => Some((b, next)),
            _ => None,
        },
        (b, _) => Some((b, i + 1)),
    }
}

/// One member of a bracket expression.
enum Item {
    Byte(u8),
    Class(fn(u8) -> bool),
}

/// The member at `pattern[i]` and where the next starts; None when it is
/// one that matches nothing (an unknown class, a `\` at the end).
fn item(pattern: &[u8], i: usize) -> Option<(Item, usize)> {
    match (pattern[i], pattern.get(i + 1)) {
        (b'\\', next) => next.map(|&b| (Item::Byte(b), i + 2)),
        (b'[', Some(&kind @ (b':' | b'=' | b'.'))) => match named(pattern, i + 2, kind) {
            Named::Class(class, next) => Some((Item::Class(class), next)),
            Named::Byte(b, next) => Some((Item::Byte(b), next)),
            Named::Unknown => None,
            Named::NotOne => Some((Item::Byte(b'['), i + 1)),
        },
        (b, _) => Some((Item::Byte(b), i + 1)),
    }
}

/// What `[:name:]`, `[=c=]` or `[.c.]` is.
enum Named {
    Class(fn(u8) -> bool, usize),
    Byte(u8, usize),
    /// A class name the C locale does not have, or a collating element
    /// of more than one byte: the expression matches nothing.
    Unknown,
    /// Not closed by `:]` (`=]`, `.]`): the `[` is a plain member.
    NotOne,
}

/// The named member whose text starts at `pattern[from]`, after `[:`,
/// `[=` or `[.` (`kind` is the `:`, `=` or `.`).
fn named(pattern: &[u8], from: usize, kind: u8) -> Named {
    let rest = &pattern[from.min(pattern.len())..];
    let Some(len) = rest.windows(2).position(|w| w == [kind, b']']) else {
        // `[.` unclosed matches nothing; `[:` and `[=` leave a plain `[`.
        return if kind == b'.' {
            Named::Unknown
        } else {
            Named::NotOne
        };
    };
    let text = &rest[..len];
    let next = from + len + 2;
    match (kind, text) {
        (b'=' | b'.', [b]) => Named::Byte(*b, next),
        (b'.', _) => Named::Unknown,
        (b'=', _) => Named::NotOne,
        // glibc reads a class name from the bytes `a` to `y` only.
        _ if !text.iter().all(|b| (b'a'..=b'y').contains(b)) => Named::NotOne,
        _ => match class(text) {
            Some(class) => Named::Class(class, next),
            None => Named::Unknown,
        },
    }
}

/// The C locale's character classes, by name.
fn class(name: &[u8]) -> Option<fn(u8) -> bool> {
    Some(match name {
        b"alnum" => |b: u8| b.is_ascii_alphanumeric(),
        b"alpha" => |b: u8| b.is_ascii_alphabetic(),
        b"blank" => |b: u8| b == b' ' || b == b'\t',
        b"cntrl" => |b: u8| b.is_ascii_control(),
        b"digit" => |b: u8| b.is_ascii_digit(),
        b"graph" => |b: u8| b.is_ascii_graphic(),
        b"lower" => |b: u8| b.is_ascii_lowercase(),
        b"print" => |b: u8| b.is_ascii_graphic() || b == b' ',
        b"punct" => |b: u8| b.is_ascii_punctuation(),
        b"space" => |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b"upper" => |b: u8| b.is_ascii_uppercase(),
        b"xdigit" => |b: u8| b.is_ascii_hexdigit(),
        _ => return None,
    })
}

/// Whether `pattern` has a byte tar's wildcards give a meaning to:
/// `*`, `?` or `[`.
pub fn has_wildcards(pattern: &[u8]) -> bool {
    pattern.iter().any(|b| matches!(b, b'*' | b'?' | b'['))
}

#[cfg(test)]
mod tests {
    use super::matches;

    /// Each (pattern, name, whether it matches), as GNU tar 1.34's
    /// `tar tf A --wildcards PATTERN` chose them.
    const CASES: &[(&str, &str, bool)] = &[
        ("photo{1,2}.jpg", "photo{1,2}.jpg", true),
        ("photo{1,2}.jpg", "photo1.jpg", false),
        ("a*b", "aXb", true),
        ("a*b", "a/x/b", true),
        ("*h", ".h", true),
        ("k?l", "k/l", true),
        ("k[/]l", "k/l/m", true),
        ("d/s*", "d/sub/g", true),
        ("d", "d/f", true),
        ("d", "dx", false),
        ("k//l", "k/l", false),
        ("a[!b]", "ac", true),
        ("a[^b]", "ab", false),
        ("a[]]", "a]", true),
        ("a[!]]", "a]", false),
        ("a[a-]", "a-", true),
        ("a[b-c]", "ac", true),
        ("a[c-b]", "ab", false),
        ("a[c-b]", "ac", false),
        ("a[", "a[", true),
        ("*[", "a[", true),
        ("a\\", "a\\", false),
        ("a[\\]]", "a]", true),
        ("a\\*", "a*", true),
        ("a\\*", "ab", false),
        ("[[:upper:]]", "A", true),
        ("[[:upper:]]", "a", false),
        ("a[[:foo:]]", "ab", false),
        ("a[[.b.]]", "ab", true),
        ("a[[=b=]]", "ab", true),
        ("[[=ab=]]", "a]", true),
        ("[[.ab.]]", "a", false),
        ("[[.a]", "a", false),
        ("[[=a]", "=", true),
        ("[[:z:]]", "z]", true),
        ("[a-[.c.]]", "b", true),
        ("[a-[:alpha:]]", "a]", true),
        ("[[:alpha:]-z]", "-", true),
        ("[a-", "[a-", false),
        ("[/*}-", "[/.}-", false),
        ("[/a", "[/a", true),
        ("?", "k/", true),
        ("?", "kk", false),
        ("*", "", true),
        ("", "", true),
        ("", "x", false),
    ];

    #[test]
    fn patterns_choose_as_gnu_tar_wildcards_chose() {
        for &(pattern, name, expected) in CASES {
            assert_eq!(
                matches(pattern.as_bytes(), name.as_bytes()),
                expected,
                "{pattern:?} on {name:?}"
            );
        }
    }

    #[test]
    fn a_pattern_of_many_stars_takes_time_in_proportion_to_its_length() {
        let pattern = "*a".repeat(200) + "b";
        let name = "a".repeat(5000);
        assert!(!matches(pattern.as_bytes(), name.as_bytes()));
    }
}
