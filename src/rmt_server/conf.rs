//! The server's configuration file, `/etc/tapebuf/rmt.conf` by default:
//! one directive per line, `#` comments and blank lines ignored.
//!
//! ```text
//! # Backups of every host go below /srv/backup.
//! allow /srv/backup/**
//! allow /dev/nst0
//! read-only
//! ```
//!
//! Invariant: a file is accepted whole or not at all. Any line that is not
//! a known directive with a valid argument is an error naming the file and
//! the line, so a typo never silently widens or narrows the policy.

use std::io;
use std::path::{Path, PathBuf};

use super::glob::Pattern;
use super::reply::{errno_of, strerror};

/// Where the configuration is read from unless `--config` says otherwise.
pub const DEFAULT_CONFIG: &str = "/etc/tapebuf/rmt.conf";

/// What a configuration file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfFile {
    /// The `allow` patterns, as written (checked).
    pub allow: Vec<String>,
    /// A `read-only` line was present.
    pub read_only: bool,
}

/// Why a configuration file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfError {
    #[error("{}: {}", .path.display(), strerror(errno_of(.source)))]
    Read { path: PathBuf, source: io::Error },
    #[error("{}:{line}: {why}", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        why: String,
    },
}

/// Reads `path`. A missing file is an empty configuration unless
/// `required` (the user named it with `--config`).
pub fn load(path: &Path, required: bool) -> Result<ConfFile, ConfError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, path),
        Err(e) if e.kind() == io::ErrorKind::NotFound && !required => Ok(ConfFile::default()),
        Err(source) => Err(ConfError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Parses the text of the file at `path` (named in errors).
pub fn parse(text: &str, path: &Path) -> Result<ConfFile, ConfError> {
    let mut conf = ConfFile::default();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |why: String| ConfError::Line {
            path: path.to_path_buf(),
            line: index + 1,
            why,
        };
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((word, rest)) => (word, rest.trim()),
            None => (line, ""),
        };
        match word {
            "allow" if rest.is_empty() => {
                return Err(error(
                    "'allow' needs a pattern, as in 'allow /srv/backup/**'".into(),
                ))
            }
            "allow" => {
                Pattern::new(rest).map_err(|why| error(format!("allow {rest}: {why}")))?;
                conf.allow.push(rest.to_string());
            }
            "read-only" if rest.is_empty() => conf.read_only = true,
            "read-only" => return Err(error("'read-only' takes no argument".into())),
            _ => {
                return Err(error(format!(
                    "unknown directive '{word}' (expected 'allow PATTERN' or 'read-only')"
                )))
            }
        }
    }
    Ok(conf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<ConfFile, String> {
        parse(text, Path::new("/etc/tapebuf/rmt.conf")).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_allow_lines_comments_and_read_only() {
        let conf = parsed(
            "# backups\n\n  allow /srv/backup/**  \nallow\t/dev/nst0\n   # indented comment\nread-only\n",
        )
        .unwrap();
        assert_eq!(conf.allow, vec!["/srv/backup/**", "/dev/nst0"]);
        assert!(conf.read_only);
        assert_eq!(parsed("").unwrap(), ConfFile::default());
    }

    #[test]
    fn errors_name_the_file_and_line() {
        assert_eq!(
            parsed("allow /srv/**\npermit /etc/**\n").unwrap_err(),
            "/etc/tapebuf/rmt.conf:2: unknown directive 'permit' \
             (expected 'allow PATTERN' or 'read-only')"
        );
        assert_eq!(
            parsed("\n\nallow srv/**\n").unwrap_err(),
            "/etc/tapebuf/rmt.conf:3: allow srv/**: a pattern must be an absolute path"
        );
        assert!(parsed("allow\n")
            .unwrap_err()
            .starts_with("/etc/tapebuf/rmt.conf:1: "));
        assert!(parsed("read-only yes\n").is_err());
    }

    #[test]
    fn a_missing_file_matters_only_when_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("rmt.conf");
        assert_eq!(load(&missing, false).unwrap(), ConfFile::default());
        let e = load(&missing, true).unwrap_err().to_string();
        assert!(e.contains("No such file or directory"), "{e}");
    }
}
