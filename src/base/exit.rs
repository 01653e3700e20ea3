//! Exit statuses are an API: scripts branch on them. This module is the one
//! place that names them, lists them with what they mean ([`STATUSES`];
//! [`every_status`] adds 128 + N for each signal that stops a run), and
//! says how a command asks the process to end. `tapebuf --help` ends with
//! the list made here, and the tests check the help, the man page's EXIT
//! STATUS and the README's table against it, so a status added here cannot
//! be left out of any of them.

use super::signals::{signal_name, STOP_SIGNALS};

/// Everything went through: every output committed every byte read.
pub const SUCCESS: i32 = 0;
/// An I/O failure: the input or an output failed, memory could not be had,
/// or fewer bytes were committed than read.
pub const FAILURE: i32 = 1;
/// The command line is wrong or refused: an unknown option, a bad value, an
/// impossible combination, or an output file that exists without -f.
pub const USAGE: i32 = 2;
/// Every byte was committed, but a drive raised a critical TapeAlert flag
/// (`tape::health::critical`): the data is there, and someone should look
/// at the drive or the cartridge before trusting either again. A run that
/// failed anyway exits with `FAILURE`.
pub const DRIVE_ALERT: i32 = 3;

/// Every status above, with what it means in the words of `tapebuf
/// --help`. A status defined above and missing here fails this module's
/// test.
pub const STATUSES: [(i32, &str); 4] = [
    (SUCCESS, "success"),
    (FAILURE, "I/O failure or data not committed"),
    (USAGE, "usage error"),
    (
        DRIVE_ALERT,
        "a tape drive raised a critical TapeAlert flag (every byte committed)",
    ),
];

/// The status of a process that died of signal `sig`, as the shell shows
/// it (and as the process exits if dying fails).
pub const fn signalled(sig: i32) -> i32 {
    128 + sig
}

/// Every status a tapebuf run can end with: [`STATUSES`], then 128 + N
/// for each signal that stops a run.
pub fn every_status() -> Vec<i32> {
    let own = STATUSES.iter().map(|&(code, _)| code);
    own.chain(STOP_SIGNALS.iter().map(|&sig| signalled(sig)))
        .collect()
}

/// The sentence that lists every status, for the end of `tapebuf --help`:
/// "Exit status: 0 success, ..., 129 SIGHUP, ... (ended by that signal,
/// after the summary)."
pub fn help_sentence() -> String {
    let own = STATUSES
        .iter()
        .map(|(code, meaning)| format!("{code} {meaning}"));
    let signals = STOP_SIGNALS
        .iter()
        .map(|&sig| format!("{} {}", signalled(sig), signal_name(sig)));
    let words: Vec<String> = own.chain(signals).collect();
    format!(
        "Exit status: {} (ended by that signal, after the summary).",
        words.join(", ")
    )
}

/// How the process should end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exit with this status.
    Code(i32),
    /// Die from this signal, after the summary, as the conventional status
    /// for an interrupted program (the shell shows 128 + signal).
    Signal(i32),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of every `pub const NAME: i32 = VALUE;` in this file.
    fn defined_here() -> Vec<(String, i32)> {
        include_str!("exit.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("pub const "))
            .filter_map(|l| {
                let (name, value) = l.split_once(": i32 = ")?;
                Some((name.to_string(), value.trim_end_matches(';').parse().ok()?))
            })
            .collect()
    }

    #[test]
    fn every_status_defined_here_is_listed_with_its_meaning() {
        let defined = defined_here();
        assert_eq!(defined.len(), 4, "{defined:?}");
        for (name, value) in defined {
            assert!(
                STATUSES.iter().any(|&(code, _)| code == value),
                "{name} = {value} is not in STATUSES"
            );
        }
    }

    #[test]
    fn no_two_statuses_are_the_same_number() {
        let mut all = every_status();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count, "{all:?}");
    }

    #[test]
    fn the_help_sentence_names_every_status() {
        let sentence = help_sentence();
        assert_eq!(
            sentence,
            "Exit status: 0 success, 1 I/O failure or data not committed, 2 usage error, \
             3 a tape drive raised a critical TapeAlert flag (every byte committed), \
             129 SIGHUP, 130 SIGINT, 143 SIGTERM (ended by that signal, after the summary)."
        );
        assert_eq!(every_status(), [0, 1, 2, 3, 129, 130, 143]);
    }
}
