//! Where a restore finds a cartridge's key: the key given with
//! `--encrypt-key`, or the files of `--key-dir DIR`, whatever they are
//! called, each read as a tape key (`keys::tape_key`) and taken when its
//! fingerprint is the one the cartridge names. A file in DIR that others
//! may read, or that holds no key, is never used; when no key matches,
//! the message says which files were passed over and why.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::keys::tape_key::{KeyPrint, TapeKey};

/// The keys a run has: what the user gave.
#[derive(Debug, Clone, Default)]
pub struct Keying {
    /// `--encrypt-key FILE`: written with, and read where a volume
    /// needs it.
    pub key: Option<Arc<TapeKey>>,
    /// `--encrypt-key`'s FILE, for messages.
    pub key_file: Option<PathBuf>,
    /// `--key-dir DIR`: read with, by fingerprint.
    pub dir: Option<PathBuf>,
}

/// The most files of a key directory looked at.
const MAX_FILES: usize = 10_000;

impl Keying {
    /// True when the user gave no key at all.
    pub fn is_empty(&self) -> bool {
        self.key.is_none() && self.dir.is_none()
    }

    /// The key whose fingerprint is `print`, and where it came from; or,
    /// as a clause, where it was looked for.
    pub fn find(&self, print: KeyPrint) -> Result<(Arc<TapeKey>, String), String> {
        if let Some(key) = self.key.as_ref().filter(|k| k.print() == print) {
            return Ok((key.clone(), self.given()));
        }
        let Some(dir) = &self.dir else {
            return Err(match &self.key {
                Some(_) => format!(
                    "{} holds another key ({})",
                    self.given(),
                    self.key
                        .as_ref()
                        .map(|k| k.print().to_string())
                        .unwrap_or_default()
                ),
                None => "no key was given (--key-dir DIR or --encrypt-key FILE)".into(),
            });
        };
        search(dir, print)
    }

    fn given(&self) -> String {
        match &self.key_file {
            Some(file) => format!("--encrypt-key {}", file.display()),
            None => "--encrypt-key".into(),
        }
    }
}

/// The key in `dir` with fingerprint `print`.
fn search(dir: &Path, print: KeyPrint) -> Result<(Arc<TapeKey>, String), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("--key-dir {}: cannot be read: {e}", dir.display()))?;
    let mut passed_over = Vec::new();
    let mut names: Vec<PathBuf> = entries
        .take(MAX_FILES)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    names.sort();
    for path in names {
        match TapeKey::load(&path) {
            Ok(key) if key.print() == print => {
                return Ok((Arc::new(key), format!("--key-dir {}", path.display())))
            }
            Ok(_) => {}
            Err(e) => passed_over.push(e.to_string()),
        }
    }
    let mut why = format!("it is not in --key-dir {}", dir.display());
    if let Some(first) = passed_over.first() {
        why.push_str(&format!(
            " ({} file{} passed over, the first: {first})",
            passed_over.len(),
            if passed_over.len() == 1 { "" } else { "s" }
        ));
    }
    Err(why)
}
