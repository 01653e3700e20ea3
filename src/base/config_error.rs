//! The refusal of a command line: which flag, and why. Lower layers that
//! judge a value the user gave (a device `-o` names, an `--allow` rule) say
//! so with this type, and `config` gathers the refusals into its answer.

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
