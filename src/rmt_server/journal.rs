//! The log as an rmt session writes it: a warning repeated word for word
//! (a client sending W after W past the end of the tape) is written once,
//! then counted, so a misbehaving client cannot flood the log.
//!
//! Invariant: every warning is either written or counted, and a count is
//! written ("the previous message was repeated N more times") before the
//! next different message, so the log loses no event, only repetition.

use super::log::Log;

/// The log as one session writes it.
pub struct Journal<'a> {
    log: &'a Log,
    last_warning: Option<String>,
    repeats: u64,
}

impl<'a> Journal<'a> {
    pub fn new(log: &'a Log) -> Journal<'a> {
        Journal {
            log,
            last_warning: None,
            repeats: 0,
        }
    }

    pub fn info(&mut self, message: &str) {
        self.flush_repeats();
        self.last_warning = None;
        self.log.info(message);
    }

    pub fn warn(&mut self, message: &str) {
        if self.last_warning.as_deref() == Some(message) {
            self.repeats += 1;
            return;
        }
        self.flush_repeats();
        self.log.warn(message);
        self.last_warning = Some(message.to_string());
    }

    fn flush_repeats(&mut self) {
        if self.repeats > 0 {
            self.log.warn(&format!(
                "the previous message was repeated {} more times",
                self.repeats
            ));
            self.repeats = 0;
        }
    }
}
