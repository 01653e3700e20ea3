//! The errors lower layers give and callers branch on: a refused command
//! line ([`ConfigError`]: which flag, and why) and an endpoint that could
//! not be opened ([`OpenError`]). Lower layers that judge a value the user
//! gave (a device `-o` names, an `--allow` rule) say so with `ConfigError`,
//! and `config` gathers the refusals into its answer. Of `OpenError`,
//! `Exists`, `Conflict` and `Refused` are refusals the user can fix on the
//! command line, and end with the usage exit status; `Io` is a failure at
//! run time. `plain` is an I/O error's text without Rust's "(os error N)"
//! suffix, for the one-line messages.

/// A command line that cannot work. Displayed as `<flag>: <why>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag}: {why}")]
pub struct ConfigError {
    pub flag: String,
    pub why: String,
}

impl ConfigError {
    pub fn new(flag: impl Into<String>, why: impl Into<String>) -> Self {
        ConfigError {
            flag: flag.into(),
            why: why.into(),
        }
    }
}

/// Refuses `flag` unless `ok`: it applies only to `what` ("to -I and -O").
pub fn needs(flag: &str, ok: bool, what: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(flag, format!("only applies {what}")))
    }
}

/// Why an input or an output could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: already exists; use -f/--force to overwrite it or --append to add to it")]
    Exists(String),
    #[error("{0}")]
    Conflict(String),
    /// A flag that does not fit what was found on opening.
    #[error("{0}")]
    Refused(ConfigError),
    #[error("{0:#}")]
    Io(anyhow::Error),
}

/// The error's text without Rust's " (os error N)" suffix.
pub fn plain(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
