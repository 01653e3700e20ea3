//! The confinement policy: which paths a client may open, and whether it
//! may write.
//!
//! A requested path is resolved first (see `resolve.rs`) and the canonical
//! result must match one allowed pattern, so `..` and symbolic links
//! cannot lead outside. Without any pattern from the command line or the
//! configuration file, the default allows tape devices only
//! ([`DEFAULT_PATTERNS`]) and never a plain file.
//!
//! Invariant: [`Policy::admit`] is the only way to a path the opener will
//! open, and it returns the canonical path it judged, so the file judged
//! is the file opened (short of a rename race inside an allowed directory).

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::flags::OpenFlags;
use super::glob::Pattern;
use super::reply::{errno_of, shown, strerror};
use super::resolve::resolve;

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

/// Why an open is refused: the errno and the reply's whole message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub errno: i32,
    pub message: String,
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

    /// Decides an O request: the canonical path to open, or the refusal
    /// to reply with.
    pub fn admit(&self, requested: &Path, flags: OpenFlags) -> Result<PathBuf, Refusal> {
        let asked = shown(requested.as_os_str().as_encoded_bytes());
        let real = match resolve(requested) {
            Ok(real) => real,
            // Say why only about paths that could be allowed, so that
            // refused clients cannot probe what exists elsewhere.
            Err(_) if !self.allows(&lexically_absolute(requested)) => {
                return Err(outside(&asked, None));
            }
            Err(e) => {
                return Err(Refusal {
                    errno: errno_of(&e),
                    message: format!("{}: {asked}", strerror(errno_of(&e))),
                })
            }
        };
        if !self.allows(&real) {
            let shown_real = shown(real.as_os_str().as_encoded_bytes());
            let via = (shown_real != asked).then_some(shown_real);
            return Err(outside(&asked, via.as_deref()));
        }
        if self.read_only && flags.modifies() {
            return Err(Refusal {
                errno: libc::EACCES,
                message: format!(
                    "{}: {asked}: this server is read-only and refuses {flags}",
                    strerror(libc::EACCES)
                ),
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

fn outside(asked: &str, real: Option<&str>) -> Refusal {
    let message = match real {
        Some(real) => format!(
            "{}: {asked} resolves to {real}, which is outside the allowed paths",
            strerror(libc::EACCES)
        ),
        None => format!(
            "{}: {asked} is outside the allowed paths",
            strerror(libc::EACCES)
        ),
    };
    Refusal {
        errno: libc::EACCES,
        message,
    }
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
