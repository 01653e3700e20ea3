//! Why an endpoint could not be opened. `Exists`, `Conflict` and `Refused`
//! are refusals the user can fix on the command line, and end with the
//! usage exit status; `Io` is a failure at run time.

use crate::base::config_error::ConfigError;

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
