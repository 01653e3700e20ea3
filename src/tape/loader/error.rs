//! Why a change through the loader failed, typed so that a caller tells a
//! stop from a failure, and says the reason without the device, without
//! reading the words.

use std::fmt;

/// A change through the loader that failed, on the drive `device`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoaderError {
    /// The drive's device, as the loader's lines name it.
    pub device: String,
    pub kind: LoaderFailure,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoaderFailure {
    /// The run was told to stop; when, in words ("after the drive was
    /// emptied").
    Stopped(String),
    /// The changer, the library's contents or the wait for the operator
    /// failed; why, in words.
    Failed(String),
}

impl LoaderError {
    /// The reason, without the device: "stopped after ...", or why it
    /// failed.
    pub fn why(&self) -> String {
        match &self.kind {
            LoaderFailure::Stopped(when) => format!("stopped {when}"),
            LoaderFailure::Failed(why) => why.clone(),
        }
    }

    /// True when the run was stopped, rather than the change failing.
    pub fn is_stop(&self) -> bool {
        matches!(self.kind, LoaderFailure::Stopped(_))
    }
}

impl fmt::Display for LoaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.device, self.why())
    }
}

impl std::error::Error for LoaderError {}
