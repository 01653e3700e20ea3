//! The senders a receiver allows, by key: lines of `FINGERPRINT NAME`, as
//! `tapebuf key new` prints them, with `#` comments and blank lines, from
//! a file the receiver reads again for every connection (so a key added or
//! removed counts from the next sender on), or `FINGERPRINT[=NAME]` from
//! the command line.
//!
//! A list that cannot be read whole is refused whole, naming the file and
//! line: a receiver never guesses which half of a broken list was meant.
//! One fingerprint under two names is such a break; one name for several
//! keys is not (a host that changes its key keeps its name, and its
//! outputs their names).

use std::path::Path;

use crate::keys::fingerprint::Fingerprint;
use crate::keys::name;

/// The largest list file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Allowed keys, each with the name its sender goes by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<(Fingerprint, String)>,
}

impl AllowList {
    /// The list in `text`, read from `source` (a path, for messages).
    pub fn parse(text: &str, source: &str) -> Result<AllowList, String> {
        let mut list = AllowList::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("{source}, line {}", n + 1);
            let mut words = line.split_whitespace();
            let (print, name) = (words.next().unwrap_or_default(), words.next());
            let Some(name) = name else {
                return Err(format!(
                    "{at}: \"{line}\" has no name after the fingerprint (FINGERPRINT NAME)"
                ));
            };
            if let Some(extra) = words.next() {
                return Err(format!(
                    "{at}: \"{extra}\" after the name; a line is FINGERPRINT NAME"
                ));
            }
            let print = print.parse().map_err(|why| format!("{at}: {why}"))?;
            let name = name::checked(name, &at)?;
            list.add(print, name, &at)?;
        }
        Ok(list)
    }

    /// The list in the file at `path`.
    pub fn read(path: &Path) -> Result<AllowList, String> {
        let shown = path.display().to_string();
        let text = crate::base::path_registry::read_small_text(path, MAX_FILE_BYTES)
            .map_err(|e| format!("{shown}: cannot read the allowed keys: {e}"))?;
        AllowList::parse(&text, &shown)
    }

    /// `FINGERPRINT[=NAME]` as given to flag `flag`; without a name, the
    /// key goes by the start of its fingerprint's digits.
    pub fn entry(text: &str, flag: &str) -> Result<(Fingerprint, String), String> {
        let (print, name) = match text.split_once('=') {
            Some((print, name)) if !name.is_empty() => (print, Some(name)),
            _ => (text, None),
        };
        let print: Fingerprint = print.parse().map_err(|why| format!("{flag}: {why}"))?;
        let name = match name {
            Some(name) => name::checked(name, flag)?,
            None => default_name(&print),
        };
        Ok((print, name))
    }

    /// Adds `print` as `name`; `at` says where it came from.
    pub fn add(&mut self, print: Fingerprint, name: String, at: &str) -> Result<(), String> {
        match self.entries.iter().find(|(p, _)| *p == print) {
            Some((_, known)) if *known != name => Err(format!(
                "{at}: {print} is listed already as {known}, now as {name}"
            )),
            Some(_) => Ok(()),
            None => {
                self.entries.push((print, name));
                Ok(())
            }
        }
    }

    /// The name the sender with key `print` goes by, if it is allowed.
    pub fn name_of(&self, print: &Fingerprint) -> Option<&str> {
        self.entries
            .iter()
            .find(|(p, _)| p == print)
            .map(|(_, name)| name.as_str())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The name of a key given without one: `key-` and its fingerprint's
/// first 8 base64 digits, with `+` and `/` made safe in a path.
pub fn default_name(print: &Fingerprint) -> String {
    let digits: String = print
        .digits()
        .chars()
        .take(8)
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    format!("key-{digits}")
}

#[cfg(test)]
#[path = "allow_list_tests.rs"]
mod tests;
