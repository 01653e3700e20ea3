//! The whole command tree, for `tapebuf --help`, `tapebuf help CMD`, the
//! shell completions and the man page's check: the buffer's options and
//! every subcommand's.

use crate::cli::completions::CompletionsCli;
use crate::cli::rmt::RmtCli;
use crate::cli::Cli;
use crate::probe::ProbeCli;
use crate::report::ReportCli;
use crate::verify::VerifyCli;

/// The whole command line: the buffer's options and, under "Commands:",
/// the subcommands. `app::main` hands `tapebuf rmt|report|probe|verify|completions
/// ...` to their own parsers before this tree is used; it exists so that
/// `tapebuf --help` lists them, `tapebuf help [CMD]` works, and the shell
/// completions know every word.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    // The short line is for the list; the subcommand's own first line
    // still opens `tapebuf help CMD`, as it opens `tapebuf CMD --help`.
    let sub = |cmd: clap::Command, name: &'static str, about: &'static str| {
        let own = cmd.get_about().cloned().unwrap_or_default();
        cmd.name(name)
            .bin_name(format!("tapebuf {name}"))
            .about(about)
            .long_about(own)
    };
    Cli::command()
        .subcommand(sub(
            RmtCli::command(),
            "rmt",
            "Serve remote tapes over the rmt protocol (as /etc/rmt, via ssh)",
        ))
        .subcommand(sub(
            ReportCli::command(),
            "report",
            "Summarise and draw a --stats recording or a probe sweep",
        ))
        .subcommand(sub(
            ProbeCli::command(),
            "probe",
            "Find the best block size for a tape, file or device",
        ))
        .subcommand(sub(
            VerifyCli::command(),
            "verify",
            "Check the tapes or files of a past backup against its manifest",
        ))
        .subcommand(sub(
            CompletionsCli::command(),
            "completions",
            "Print a completion script for bash, zsh or fish",
        ))
        // A negative number is a value ("-P -5"), so the check that refuses
        // it names the flag, rather than clap calling it an unknown option.
        .mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
}

/// Parses the buffer's command line (not a subcommand's) with [`command`].
/// `tapebuf help [CMD]` comes back as clap's DisplayHelp; a subcommand
/// after options (`tapebuf -q rmt`) is a usage error, since subcommands
/// are recognised only as the first word.
pub fn parse(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args)?;
    if let Some(name) = matches.subcommand_name() {
        return Err(cmd.error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("'{name}' must be the first word: tapebuf {name} ..."),
        ));
    }
    Cli::from_arg_matches(&matches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::usage::subcommand_args;

    fn words(list: &[&str]) -> Vec<std::ffi::OsString> {
        list.iter().map(Into::into).collect()
    }

    #[test]
    fn the_whole_tree_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn a_negative_number_is_the_value_of_the_flag_before_it() {
        let cli = parse(&words(&["tapebuf", "-P", "-5", "-p", "-1"])).unwrap();
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
        let e = parse(&words(&["tapebuf", "-q", "rmt"])).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
    }
}
