//! The error that ends a command before or instead of its summary, and the
//! exit status it maps onto (see [`crate::base::exit`]).

use crate::base::errors::ConfigError;
use crate::base::exit::{FAILURE, USAGE};

/// An error that ends the run before or instead of a summary.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line cannot work; exit status 2.
    #[error(transparent)]
    Usage(#[from] ConfigError),
    /// Something failed at run time; exit status 1.
    #[error("{0:#}")]
    Runtime(#[from] anyhow::Error),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => USAGE,
            Error::Runtime(_) => FAILURE,
        }
    }
}
