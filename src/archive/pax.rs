//! pax extended headers: the records of an 'x' (for the next member) or
//! a 'g' (for every member after it), "<len> <key>=<value>\n" each, and
//! the few keys that change where a member is or what it is called. Only
//! those keys are kept; the rest (and GNU.sparse.offset/numbytes, which
//! may repeat) are skipped, so memory is bounded by the header's size.

use super::numbers::decimal;

/// The keys the parser honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    Path,
    LinkPath,
    Size,
    Mtime,
    /// GNU.sparse.name: the real name of a pax sparse file.
    SparseName,
    /// GNU.sparse.realsize (1.0) or GNU.sparse.size (0.0, 0.1).
    SparseSize,
    /// GNU.sparse.major: a 1.0 sparse file (its map leads its data).
    SparseMajor,
}

impl Key {
    fn of(key: &[u8]) -> Option<Key> {
        Some(match key {
            b"path" => Key::Path,
            b"linkpath" => Key::LinkPath,
            b"size" => Key::Size,
            b"mtime" => Key::Mtime,
            b"GNU.sparse.name" => Key::SparseName,
            b"GNU.sparse.realsize" | b"GNU.sparse.size" => Key::SparseSize,
            b"GNU.sparse.major" => Key::SparseMajor,
            _ => return None,
        })
    }
}

/// Honoured keys and their values. An empty value is kept: in an 'x' it
/// cancels a global value.
#[derive(Debug, Clone, Default)]
pub(super) struct Attrs {
    values: Vec<(Key, Vec<u8>)>,
}

impl Attrs {
    /// Reads the records of one extended header into `self`, a later
    /// record replacing an earlier one of the same key.
    pub fn parse(&mut self, data: &[u8]) -> Result<(), String> {
        let mut rest = data;
        while !rest.is_empty() && !rest.iter().all(|&b| b == 0) {
            let (key, value, len) = record(rest)?;
            if let Some(key) = Key::of(key) {
                self.set(key, value.to_vec());
            }
            rest = &rest[len..];
        }
        Ok(())
    }

    fn set(&mut self, key: Key, value: Vec<u8>) {
        self.values.retain(|(k, _)| *k != key);
        self.values.push((key, value));
    }

    /// A global header's records merged in: an empty value removes the
    /// key.
    pub fn merge_global(&mut self, newer: Attrs) {
        for (key, value) in newer.values {
            self.values.retain(|(k, _)| *k != key);
            if !value.is_empty() {
                self.values.push((key, value));
            }
        }
    }

    fn raw(&self, key: Key) -> Option<&[u8]> {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_slice())
    }
}

/// A member's extended values: its own 'x' over the globals.
pub(super) struct Effective<'a> {
    pub local: &'a Attrs,
    pub global: &'a Attrs,
}

impl Effective<'_> {
    /// The value, None when absent or cancelled by an empty local value.
    pub fn get(&self, key: Key) -> Option<&[u8]> {
        match self.local.raw(key) {
            Some([]) => None,
            Some(value) => Some(value),
            None => self.global.raw(key),
        }
    }

    /// Whether the member's own header sets `key` to an empty value. For
    /// `path` and `linkpath` GNU tar takes that as an empty name, bsdtar
    /// as no record at all (the header's field then applies).
    pub fn emptied(&self, key: Key) -> bool {
        self.local.raw(key) == Some(&[][..])
    }

    /// A number, Err when present but not a number.
    pub fn number(&self, key: Key) -> Result<Option<i64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(text) => decimal(text).map(Some).ok_or_else(|| {
                format!(
                    "a pax value that is not a number ({})",
                    String::from_utf8_lossy(text)
                )
            }),
        }
    }

    /// A size: a number that is not negative.
    pub fn size(&self, key: Key) -> Result<Option<u64>, String> {
        match self.number(key)? {
            Some(n) if n < 0 => Err(format!("a negative pax size ({n})")),
            n => Ok(n.map(|n| n as u64)),
        }
    }

    pub fn is_sparse(&self) -> bool {
        self.get(Key::SparseSize).is_some() || self.get(Key::SparseMajor).is_some()
    }
}

/// One record at the start of `rest`: its key, value and whole length.
fn record(rest: &[u8]) -> Result<(&[u8], &[u8], usize), String> {
    let bad = |why: &str| format!("a bad pax record ({why})");
    let space = rest
        .iter()
        .take(21)
        .position(|&b| b == b' ')
        .ok_or_else(|| bad("no length"))?;
    let len = decimal(&rest[..space])
        .filter(|&n| n > 0 && !rest[..space].contains(&b'.') && rest[0] != b'-')
        .ok_or_else(|| bad("no length"))?;
    let len = usize::try_from(len).map_err(|_| bad("too long"))?;
    if len <= space + 1 || len > rest.len() {
        return Err(bad("its length runs past the header"));
    }
    let body = &rest[space + 1..len];
    let (&last, body) = body.split_last().ok_or_else(|| bad("empty"))?;
    if last != b'\n' {
        return Err(bad("no newline at its end"));
    }
    let eq = body
        .iter()
        .position(|&b| b == b'=')
        .ok_or_else(|| bad("no '='"))?;
    Ok((&body[..eq], &body[eq + 1..], len))
}
