//! A member's name or link target as the archive holds it: bytes, never
//! made into text, so that `x\xfe` and `x\xff` stay two names and a hard
//! link finds exactly its target. Shown to people through [`Name::escaped`],
//! which is lossless and keeps every name on one line; JSON gets
//! [`Name::to_str`] when the bytes are UTF-8 and the bytes otherwise
//! (tapebuf(1), LS).

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// A member's path or link target, as bytes. As serde data it is a string
/// when its bytes are UTF-8, else an array of its bytes.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "Repr", into = "Repr")]
pub struct Name(Vec<u8>);

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Repr {
    Text(String),
    Bytes(Vec<u8>),
}

impl From<Repr> for Name {
    fn from(repr: Repr) -> Name {
        match repr {
            Repr::Text(text) => Name(text.into_bytes()),
            Repr::Bytes(bytes) => Name(bytes),
        }
    }
}

impl From<Name> for Repr {
    fn from(name: Name) -> Repr {
        match String::from_utf8(name.0) {
            Ok(text) => Repr::Text(text),
            Err(e) => Repr::Bytes(e.into_bytes()),
        }
    }
}

impl Name {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Name {
        Name(bytes.into())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    /// The name as text, when its bytes are UTF-8.
    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The name as text with invalid bytes replaced (U+FFFD): only for
    /// matching typed globs, which are text, never for comparing names.
    pub fn lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// The name for a terminal, one line, lossless: GNU tar's
    /// `--quoting-style=escape` (`\\`, `\n`, `\t` and the other C
    /// escapes, any other byte that is not printable as three octal
    /// digits, `\ooo`), keeping printable UTF-8 as it is (as tar does in a
    /// UTF-8 locale) except characters that change how a line is drawn:
    /// C1 controls, bidirectional overrides and isolates, zero-width and
    /// line-separator characters, which are escaped byte by byte like an
    /// invalid byte. `unescape` in the tests reads it back.
    pub fn escaped(&self) -> String {
        let mut out = String::with_capacity(self.0.len());
        for chunk in self.0.utf8_chunks() {
            for c in chunk.valid().chars() {
                escape_char(c, &mut out);
            }
            for &b in chunk.invalid() {
                octal(b, &mut out);
            }
        }
        out
    }
}

fn escape_char(c: char, out: &mut String) {
    let simple = match c {
        '\\' => Some('\\'),
        '\x07' => Some('a'),
        '\x08' => Some('b'),
        '\x0c' => Some('f'),
        '\n' => Some('n'),
        '\r' => Some('r'),
        '\t' => Some('t'),
        '\x0b' => Some('v'),
        _ => None,
    };
    if let Some(letter) = simple {
        out.push('\\');
        out.push(letter);
    } else if c.is_control() || redraws(c) {
        let mut utf8 = [0u8; 4];
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            octal(b, out);
        }
    } else {
        out.push(c);
    }
}

/// Characters that are printable but change how the rest of a line is
/// drawn, or are invisible: bidirectional marks, embeddings, overrides
/// and isolates (a name can make `fdp.exe` read `exe.pdf`), zero-width
/// characters, the line and paragraph separators, the byte-order mark
/// and the soft hyphen.
fn redraws(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{061c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

fn octal(b: u8, out: &mut String) {
    out.push('\\');
    for shift in [6, 3, 0] {
        out.push(char::from(b'0' + ((b >> shift) & 7)));
    }
}

impl Deref for Name {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Name {
    fn from(bytes: Vec<u8>) -> Name {
        Name(bytes)
    }
}

impl From<&[u8]> for Name {
    fn from(bytes: &[u8]) -> Name {
        Name(bytes.to_vec())
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name(text.as_bytes().to_vec())
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name(text.into_bytes())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.0 == other.as_bytes()
    }
}

/// The escaped form (`Name::escaped`).
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.escaped())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.escaped())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // issue 45, minor ls points: control characters, bidi overrides and
    // invalid UTF-8 are escaped, as `LC_ALL=C tar tf --quoting-style=escape`
    // escapes them, and a backslash is doubled so that nothing is
    // ambiguous.
    #[test]
    fn a_name_is_escaped_as_tar_escapes_it_and_keeps_printable_utf8() {
        let name = Name::new(&b"x\xfe\xe2\x80\xaeb\\c\n d\x01\x7f"[..]);
        assert_eq!(name.escaped(), "x\\376\\342\\200\\256b\\\\c\\n d\\001\\177");
        assert_eq!(Name::from("d/\u{e9}t\u{e9}").escaped(), "d/\u{e9}t\u{e9}");
        assert_eq!(
            Name::from("a\u{2067}b\u{200b}\u{85}").escaped(),
            "a\\342\\201\\247b\\342\\200\\213\\302\\205"
        );
    }

    // issue 45 finding 8: two names that differ only in an invalid byte
    // stay two names.
    #[test]
    fn names_that_differ_in_an_invalid_byte_stay_different() {
        let a = Name::new(&b"x\xfe"[..]);
        let b = Name::new(&b"x\xff"[..]);
        assert_ne!(a, b);
        assert_ne!(a.escaped(), b.escaped());
        assert_eq!(a.to_str(), None);
    }

    #[test]
    fn as_serde_data_a_name_is_text_when_it_can_be_and_bytes_otherwise() {
        let text = Name::from("d/\u{e9}");
        let bytes = Name::new(&b"x\xff"[..]);
        assert_eq!(serde_json::to_string(&text).unwrap(), "\"d/\u{e9}\"");
        assert_eq!(serde_json::to_string(&bytes).unwrap(), "[120,255]");
        for name in [text, bytes] {
            let back: Name = serde_json::from_str(&serde_json::to_string(&name).unwrap()).unwrap();
            assert_eq!(back, name);
        }
    }
}
