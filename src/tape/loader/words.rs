//! What the loader says (on stderr, or to the notices it was given, and
//! quiet or not) and how its change fails: a [`LoaderError`] that names the
//! device, and a stop, which is the run's (`base::signals::stopped`).

use crossbeam_channel::Receiver;

use crate::base::console::{message, say};
use crate::base::signals::stopped;
use crate::tape::loader::{Loader, LoaderError, LoaderFailure};

impl Loader {
    /// A failure of this loader's change, `why` in words.
    pub(super) fn fail(&self, why: String) -> LoaderError {
        LoaderError {
            device: self.0.fixed.settings.device.clone(),
            kind: LoaderFailure::Failed(why),
        }
    }

    /// A stop of this loader's change, `when` in words.
    pub(super) fn stop_error(&self, when: String) -> LoaderError {
        LoaderError {
            device: self.0.fixed.settings.device.clone(),
            kind: LoaderFailure::Stopped(when),
        }
    }

    /// Says `line` (after the prefix) on stderr unless quiet.
    pub(super) fn tell(&self, line: &str) {
        if !self.0.fixed.quiet {
            self.call_out(line);
        }
    }

    /// Says `line` (after the prefix), quiet or not: the operator must act.
    pub(super) fn call_out(&self, line: &str) {
        let line = message!("{}: {line}", self.0.fixed.settings.device);
        match &self.0.fixed.notices {
            Some(notices) => notices(&line),
            None => say(&line),
        }
    }

    /// Says `line` once in this run, unless quiet.
    pub(super) fn tell_once(&self, line: &str) {
        if self.state().said.insert(line.to_string()) {
            self.tell(line);
        }
    }

    /// Err when the run was stopped, saying `when`.
    pub(super) fn stopped(&self, stop: &Receiver<()>, when: &str) -> Result<(), LoaderError> {
        match stopped(stop) {
            false => Ok(()),
            true => Err(self.stop_error(when.to_string())),
        }
    }
}
