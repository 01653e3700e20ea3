//! The confinement policy: which paths a client may open, and whether it
//! may write.
//!
//! A requested path is resolved first (see `resolve.rs`) and the canonical
//! result must match one allowed pattern, so `..` and symbolic links that
//! point outside are refused; the opener then follows no link at all, so
//! none swapped in after the check leads outside either. Without any pattern from the command line or the
//! configuration file, the default allows tape devices only
//! ([`DEFAULT_PATTERNS`]) and never a plain file.
//!
//! Invariant: [`Policy::admit`] is the only way to a path the opener will
//! open, and it returns the canonical path it judged. The opener reaches
//! that path from [`Policy::root_of`] following no symbolic link at all
//! (`beneath.rs`), so a directory swapped for a link after the check
//! fails the open; what can still change between check and open is only
//! which file sits at the judged path inside the allowed directory.
//!
//! A refusal tells the client nothing it did not send: every path that is
//! outside, cannot be resolved, or leads outside through `..` or a
//! symbolic link gets the same errno (EACCES) and the same message, naming
//! only the path as sent. What it resolved to and why it failed go to the
//! audit log ([`Refusal::detail`]). The real reason is told only when
//! resolving fails on the plain way to an allowed path (no `..`, no
//! symbolic link), where it is a fact about the allowed paths themselves:
//! "No such file or directory" for a missing directory under `/srv/backup`.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::flags::OpenFlags;
use super::glob::Pattern;
use super::reply::{errno_of, strerror};
use super::resolve::resolve;
use crate::base::escape::shown;

/// What the default policy allows: Linux SCSI tape devices (rewinding and
/// non-rewinding, with their mode suffixes), udev's `/dev/tape/` links,
/// and the BSD names.
pub const DEFAULT_PATTERNS: &[&str] = &[
    "/dev/st[0-9]*",
    "/dev/nst[0-9]*",
    "/dev/tape/**",
    "/dev/sa[0-9]*",
    "/dev/nsa[0-9]*",
];

/// Which paths may be opened, and how.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: Rules,
    read_only: bool,
}

#[derive(Debug, Clone)]
enum Rules {
    Any,
    Only {
        patterns: Vec<Pattern>,
        default: bool,
    },
}

/// Why an open is refused: what the client is told (the errno and the
/// reply's whole message) and what only the audit log is told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub errno: i32,
    /// The reply's message, which names only the path as the client sent it.
    pub message: String,
    /// For the log: what the path resolved to, or why it could not be.
    pub detail: String,
}

impl Policy {
    /// Allows exactly the paths matching `patterns` (none at all if the
    /// list is empty). A pattern whose leading directories reach a real
    /// directory through a symbolic link also matches under that real
    /// directory, so `/backup/**` keeps working when `/backup` is a link
    /// to `/srv/backup`. The error names the bad pattern.
    pub fn new<S: AsRef<str>>(patterns: impl IntoIterator<Item = S>) -> Result<Policy, String> {
        let mut compiled = Vec::new();
        for text in patterns {
            let text = text.as_ref();
            let pattern = Pattern::new(text).map_err(|why| format!("{text}: {why}"))?;
            if let Some(real) = under_real_directory(&pattern) {
                compiled.push(real);
            }
            compiled.push(pattern);
        }
        Ok(Policy {
            rules: Rules::Only {
                patterns: compiled,
                default: false,
            },
            read_only: false,
        })
    }

    /// The default: tape devices only ([`DEFAULT_PATTERNS`]).
    pub fn tape_devices() -> Policy {
        let patterns = DEFAULT_PATTERNS
            .iter()
            .map(|p| Pattern::new(p).expect("the default patterns are valid"))
            .collect();
        Policy {
            rules: Rules::Only {
                patterns,
                default: true,
            },
            read_only: false,
        }
    }

    /// Allows every path (still resolved first). For tests and for
    /// in-process use, where there is no remote client to confine.
    pub fn allow_all() -> Policy {
        Policy {
            rules: Rules::Any,
            read_only: false,
        }
    }

    /// The same policy, refusing (or not) every open that could modify
    /// the file and every tape operation that writes.
    pub fn read_only(mut self, on: bool) -> Policy {
        self.read_only = on;
        self
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// True when the canonical path `real` is allowed.
    pub fn allows(&self, real: &Path) -> bool {
        match &self.rules {
            Rules::Any => true,
            Rules::Only { patterns, .. } => patterns.iter().any(|p| p.matches(real)),
        }
    }

    /// The directory the admitted canonical `real` is opened beneath: the
    /// longest literal leading directories of an allowed pattern that
    /// matches it and that it lies under, or `/`. The opener reaches
    /// `real` from there without following any symbolic link.
    pub fn root_of(&self, real: &Path) -> PathBuf {
        let Rules::Only { patterns, .. } = &self.rules else {
            return PathBuf::from("/");
        };
        patterns
            .iter()
            .filter(|p| p.matches(real))
            .filter_map(|p| p.split_literal_dirs().map(|(dirs, _)| PathBuf::from(dirs)))
            .filter(|dirs| real.starts_with(dirs))
            .max_by_key(|dirs| dirs.as_os_str().len())
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    /// Decides an O request: the canonical path to open, or the refusal
    /// to reply with.
    pub fn admit(&self, requested: &Path, flags: OpenFlags) -> Result<PathBuf, Refusal> {
        let asked = shown(requested.as_os_str().as_encoded_bytes());
        let real = match resolve(requested) {
            Ok(real) => real,
            Err(e) => {
                let why = strerror(errno_of(&e));
                let lexical = lexically_absolute(requested);
                if !self.allows(&lexical) {
                    return Err(outside(
                        &asked,
                        format!(
                            "{asked} cannot be resolved ({why}) and is outside the allowed paths"
                        ),
                    ));
                }
                if !fails_on_the_plain_way(requested) {
                    return Err(outside(
                        &asked,
                        format!(
                            "{asked} cannot be resolved ({why}) through '..' or a symbolic link"
                        ),
                    ));
                }
                let message = format!("{why}: {asked}");
                return Err(Refusal {
                    errno: errno_of(&e),
                    detail: message.clone(),
                    message,
                });
            }
        };
        if !self.allows(&real) {
            let shown_real = shown(real.as_os_str().as_encoded_bytes());
            let detail = if shown_real == asked {
                format!("{asked} is outside the allowed paths")
            } else {
                format!("{asked} resolves to {shown_real}, which is outside the allowed paths")
            };
            return Err(outside(&asked, detail));
        }
        if self.read_only && flags.modifies() {
            let message = format!(
                "{}: {asked}: this server is read-only and refuses {flags}",
                strerror(libc::EACCES)
            );
            return Err(Refusal {
                errno: libc::EACCES,
                detail: message.clone(),
                message,
            });
        }
        Ok(real)
    }
}

impl fmt::Display for Policy {
    /// For the log: "allow /srv/backup/**", "tape devices only (default):
    /// /dev/st[0-9]*, ...", with ", read-only" when it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rules {
            Rules::Any => f.write_str("allow everything")?,
            Rules::Only { patterns, default } => {
                let list: Vec<&str> = patterns.iter().map(Pattern::as_str).collect();
                if *default {
                    write!(f, "tape devices only (default): {}", list.join(", "))?;
                } else if list.is_empty() {
                    f.write_str("allow nothing")?;
                } else {
                    write!(f, "allow {}", list.join(", "))?;
                }
            }
        }
        if self.read_only {
            f.write_str(", read-only")?;
        }
        Ok(())
    }
}

/// The one refusal every path outside gets, whatever it is or leads to:
/// the client learns nothing beyond the path it sent.
fn outside(asked: &str, detail: String) -> Refusal {
    Refusal {
        errno: libc::EACCES,
        message: format!(
            "{}: {asked} is outside the allowed paths",
            strerror(libc::EACCES)
        ),
        detail,
    }
}

/// True when resolving `requested` failed on its plain way down from the
/// root: no `..`, and no symbolic link among the components that exist.
/// Then the failure (a missing directory, a file where a directory should
/// be) is about the path as written, which the caller found allowed;
/// otherwise it may be about a place outside, and is not told.
fn fails_on_the_plain_way(requested: &Path) -> bool {
    let absolute = match std::env::current_dir() {
        Ok(here) if requested.is_relative() => here.join(requested),
        Ok(_) => requested.to_path_buf(),
        Err(_) => return false,
    };
    if absolute
        .components()
        .any(|c| matches!(c, Component::ParentDir))
    {
        return false;
    }
    let mut prefix = PathBuf::new();
    for component in absolute.components() {
        prefix.push(component);
        match std::fs::symlink_metadata(&prefix) {
            Err(_) => return true,
            Ok(meta) if meta.file_type().is_symlink() => return false,
            Ok(_) => {}
        }
    }
    // Everything exists as written, yet resolving failed: a race; say
    // nothing.
    false
}

/// `path` made absolute and with `.` and `..` removed by text alone,
/// without asking the filesystem.
fn lexically_absolute(path: &Path) -> PathBuf {
    let mut out = match std::env::current_dir() {
        Ok(here) if path.is_relative() => here,
        _ => PathBuf::from("/"),
    };
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The pattern rewritten under the real directory its leading plain
/// directories lead to, when that differs from what it says.
fn under_real_directory(pattern: &Pattern) -> Option<Pattern> {
    let (dirs, rest) = pattern.split_literal_dirs()?;
    let real = std::fs::canonicalize(&dirs).ok()?;
    let real = real.to_str()?;
    if real == dirs {
        return None;
    }
    Pattern::new(&format!("{}/{rest}", real.trim_end_matches('/'))).ok()
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
