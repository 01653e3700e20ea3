//! What the loader says and how its change fails. The [`Voice`] names the
//! drive in every line, sends the lines to stderr or to the notices it was
//! given, keeps them off stderr when quiet (a call for the operator is
//! said anyway), and says a repeated line once. A failure is a
//! [`LoaderError`] that names the device; a stop is the run's
//! (`base::signals::stopped`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crossbeam_channel::Receiver;

use crate::base::console::{message, say};
use crate::base::signals::stopped;
use crate::base::sync::lock;
use crate::tape::loader::{LoaderError, LoaderFailure};

/// Where the loader's lines go instead of stderr (and the `-l` file).
pub type Notices = Arc<dyn Fn(&str) + Send + Sync>;

pub struct Voice {
    /// The drive's device, first in every line.
    device: String,
    quiet: bool,
    notices: Option<Notices>,
    /// Lines said once already.
    said: Mutex<HashSet<String>>,
}

impl Voice {
    pub fn new(device: String, quiet: bool, notices: Option<Notices>) -> Voice {
        Voice {
            device,
            quiet,
            notices,
            said: Mutex::new(HashSet::new()),
        }
    }

    /// A failure of this loader's change, `why` in words.
    pub fn fail(&self, why: String) -> LoaderError {
        LoaderError {
            device: self.device.clone(),
            kind: LoaderFailure::Failed(why),
        }
    }

    /// A stop of this loader's change, `when` in words.
    pub fn stop_error(&self, when: String) -> LoaderError {
        LoaderError {
            device: self.device.clone(),
            kind: LoaderFailure::Stopped(when),
        }
    }

    /// Err when the run was stopped, saying `when`.
    pub fn stopped(&self, stop: &Receiver<()>, when: &str) -> Result<(), LoaderError> {
        match stopped(stop) {
            false => Ok(()),
            true => Err(self.stop_error(when.to_string())),
        }
    }

    /// Says `line` (after the device) unless quiet.
    pub fn tell(&self, line: &str) {
        if !self.quiet {
            self.call_out(line);
        }
    }

    /// Says `line` once in this run, unless quiet.
    pub fn tell_once(&self, line: &str) {
        if lock(&self.said).insert(line.to_string()) {
            self.tell(line);
        }
    }

    /// Says `line` (after the device), quiet or not: the operator must act.
    pub fn call_out(&self, line: &str) {
        let line = message!("{}: {line}", self.device);
        match &self.notices {
            Some(notices) => notices(&line),
            None => say(&line),
        }
    }
}
