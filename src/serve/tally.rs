//! What a service's streams came to: how many were whole and which
//! failed, for its last line and its exit status.

use crate::base::console::{message, say};

/// How a connection ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// It was never a stream: a stranger, a port scan, one too many.
    Ignored,
    Whole,
    /// A stream that failed or was stopped: "stream N (who)".
    Failed(String),
}

/// The ends of a service's connections so far.
#[derive(Debug, Default)]
pub(super) struct Tally {
    whole: u64,
    /// "stream N (who)" of each stream that failed.
    failed: Vec<String>,
    /// Connections that were never a stream (told apart as strangers).
    ignored: u64,
}

impl Tally {
    pub(super) fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Ignored => self.ignored += 1,
            Outcome::Whole => self.whole += 1,
            Outcome::Failed(who) => self.failed.push(who),
        }
    }

    /// Streams ended, whole or not.
    pub(super) fn streams(&self) -> u64 {
        self.whole + self.failed.len() as u64
    }

    /// Connections ended, streams or not.
    pub(super) fn ended(&self) -> u64 {
        self.streams() + self.ignored
    }

    pub(super) fn all_whole(&self) -> bool {
        self.failed.is_empty()
    }

    /// "N streams ended: W whole, F failed" ("1 stream ended" for one).
    pub(super) fn so_far(&self) -> String {
        format!(
            "{} ended: {} whole, {} failed",
            streams(self.streams()),
            self.whole,
            self.failed.len()
        )
    }

    /// The service's last line: said unless -q, and always when a stream
    /// failed, naming each.
    pub(super) fn report(&self, listening: &str, quiet: bool) {
        if self.failed.is_empty() && quiet {
            return;
        }
        let mut line = message!("served {listening}: {}", self.so_far());
        if !self.failed.is_empty() {
            line += &format!(" (FAILED: {})", self.failed.join("; "));
        }
        say(&line);
    }
}

/// "1 stream", "3 streams".
pub(super) fn streams(n: u64) -> String {
    match n {
        1 => "1 stream".to_string(),
        n => format!("{n} streams"),
    }
}
