//! The subcommands, listed once: each one's name, the line `tapebuf --help`
//! gives it, its command line and its entry. `app::main` dispatches on
//! this table and the whole tree (`tree.rs`, for `--help`, the man page's
//! check and the completions) is built from it, so a subcommand cannot be
//! reachable without being listed, or the other way round.
//!
//! `tapebuf completions` is run from here: its script is made from the
//! whole tree, which lists it too.

use std::ffi::OsString;

use clap::CommandFactory;

use super::tree::{self, Subcommand};
use crate::base::exit::Exit;
use crate::cli::command::{self, Command};
use crate::cli::completions::CompletionsCli;
use crate::drive_health::DriveHealth;
use crate::extract::Extract;
use crate::key_command::Keys;
use crate::library::Library;
use crate::ls::Ls;
use crate::probe::Probe;
use crate::report::Report;
use crate::rmt_server::RmtServer;
use crate::verify::Verify;

/// Every subcommand, in the order `tapebuf --help` lists them.
pub const SUBCOMMANDS: &[Subcommand] = &[
    entry::<RmtServer>("Serve remote tapes over the rmt protocol (as /etc/rmt, via ssh)"),
    entry::<Report>("Summarise and draw a --stats recording or a probe sweep"),
    entry::<Probe>("Find the best block size for a tape, file or device"),
    entry::<Verify>("Check the tapes or files of a past backup against its manifest"),
    entry::<Extract>(
        "Write an archive of chosen members, read by seeking with the backup's catalog",
    ),
    entry::<Library>(
        "Show a tape library's drives, slots and barcodes, and which /dev/nst is which",
    ),
    entry::<DriveHealth>(
        "Show a tape drive's and its cartridge's health: TapeAlert, errors, MAM, history",
    ),
    entry::<Keys>("Make a key pair for network streams, or show a key's fingerprint"),
    entry::<Ls>("List the members of a backup made with --catalog, with volume and barcode"),
    entry::<Completions>("Print a completion script for bash, zsh or fish"),
];

/// The entry of command `C`, with its line in the list.
const fn entry<C: Command>(about: &'static str) -> Subcommand {
    Subcommand {
        name: C::NAME,
        about,
        args: <C::Args as CommandFactory>::command,
        main: command::main::<C>,
    }
}

/// The whole command line: the buffer's options and every subcommand.
pub fn whole_tree() -> clap::Command {
    tree::command(SUBCOMMANDS)
}

/// `tapebuf completions SHELL`.
pub struct Completions;

impl Command for Completions {
    const NAME: &'static str = "completions";
    type Args = CompletionsCli;

    fn run(cli: CompletionsCli) -> Exit {
        super::completions::print(cli.shell, &mut whole_tree())
    }
}

/// The words after a subcommand's name, and its entry, when `args` (the
/// whole command line) begins with one.
pub fn named_in(args: &[OsString]) -> Option<(&'static Subcommand, Vec<OsString>)> {
    SUBCOMMANDS.iter().find_map(|sub| {
        crate::cli::usage::subcommand_args(args, sub.name).map(|words| (sub, words))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::completions::script;
    use crate::cli::completions::Shell;
    use crate::cli::usage::subcommand_args;

    fn words(list: &[&str]) -> Vec<OsString> {
        list.iter().map(Into::into).collect()
    }

    #[test]
    fn the_whole_tree_is_consistent() {
        whole_tree().debug_assert();
    }

    #[test]
    fn a_negative_number_is_the_value_of_the_flag_before_it() {
        let cli = tree::parse(whole_tree(), &words(&["tapebuf", "-P", "-5", "-p", "-1"])).unwrap();
        assert_eq!(cli.high_watermark.as_deref(), Some("-5"));
        assert_eq!(cli.low_watermark.as_deref(), Some("-1"));
    }

    #[test]
    fn subcommands_are_recognised_only_as_the_first_word() {
        assert_eq!(
            subcommand_args(&words(&["tapebuf", "report", "x"]), "report"),
            Some(words(&["x"]))
        );
        assert_eq!(
            subcommand_args(&words(&["tapebuf", "-o", "report"]), "report"),
            None
        );
        let e = tree::parse(whole_tree(), &words(&["tapebuf", "-q", "rmt"])).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
    }

    #[test]
    fn every_subcommand_has_a_name_of_its_own() {
        let mut names: Vec<_> = SUBCOMMANDS.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), SUBCOMMANDS.len());
        assert!(names.iter().all(|n| !n.is_empty()));
    }

    #[test]
    fn every_subcommand_is_in_the_tree() {
        let tree = whole_tree();
        for sub in SUBCOMMANDS {
            assert!(tree.find_subcommand(sub.name).is_some(), "{}", sub.name);
        }
        assert_eq!(tree.get_subcommands().count(), SUBCOMMANDS.len());
    }

    #[test]
    fn every_shell_gets_a_script_that_names_tapebuf() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let text = String::from_utf8(script(shell, &mut whole_tree())).unwrap();
            assert!(text.contains("tapebuf"), "{shell:?}");
            assert!(text.contains("high-watermark"), "{shell:?}");
        }
    }
}
