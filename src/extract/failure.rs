//! How an extract ends badly: a usage error (the command line, the
//! manifest or its catalog, a terminal as the output: exit 2), or a
//! failure while reading or writing, or a glob that matched nothing
//! (exit 1). Each is one line, said once.

use crate::base::exit::{FAILURE, USAGE};

/// Why an extract did not end well, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Exit status 2.
    Usage(String),
    /// Exit status 1.
    Failed(String),
}

impl Failure {
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => USAGE,
            Failure::Failed(_) => FAILURE,
        }
    }

    pub fn line(&self) -> &str {
        match self {
            Failure::Usage(line) | Failure::Failed(line) => line,
        }
    }
}
