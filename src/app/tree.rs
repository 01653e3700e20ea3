//! The whole command tree, for `tapebuf --help`, `tapebuf help CMD`, the
//! shell completions and the man page's check: the buffer's options and
//! every subcommand's, from the one list of subcommands
//! (`subcommands.rs`), which is handed in so that the list can hold
//! `completions`, whose script is made from this tree.

use std::ffi::OsString;

use crate::base::exit::Exit;
use crate::cli::Cli;

/// One subcommand of `tapebuf`, as the tree lists it and `app::main` runs
/// it.
pub struct Subcommand {
    /// The first word that names it (`tapebuf NAME ...`).
    pub name: &'static str,
    /// Its line under "Commands:" in `tapebuf --help`.
    pub about: &'static str,
    /// Its command line.
    pub args: fn() -> clap::Command,
    /// Parses the words after its name and runs it.
    pub main: fn(Vec<OsString>) -> Exit,
}

/// The whole command line: the buffer's options and, under "Commands:",
/// `subcommands`. `app::main` hands `tapebuf NAME ...` to their own
/// parsers before this tree is used; it exists so that `tapebuf --help`
/// lists them, `tapebuf help [CMD]` works, and the shell completions know
/// every word.
pub fn command(subcommands: &[Subcommand]) -> clap::Command {
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
    subcommands
        .iter()
        .fold(Cli::command(), |tree, s| {
            tree.subcommand(sub((s.args)(), s.name, s.about))
        })
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

/// `args`, with a `-h` or `--help` after `tapebuf help` dropped: clap's
/// `help` takes no options and would call the flag an unknown subcommand,
/// though the user asked for help. `tapebuf help --help` becomes `tapebuf
/// help help`, and `tapebuf help CMD --help` is `tapebuf help CMD`.
fn help_flag_dropped(args: &[OsString]) -> Vec<OsString> {
    if args.get(1).is_none_or(|word| word != "help") {
        return args.to_vec();
    }
    let is_flag = |w: &OsString| w == "-h" || w == "--help";
    let mut kept: Vec<OsString> = args.iter().filter(|w| !is_flag(w)).cloned().collect();
    if kept.len() == 2 && kept.len() < args.len() {
        kept.push("help".into());
    }
    kept
}

/// Parses the buffer's command line (not a subcommand's) with the whole
/// `tree`. `tapebuf help [CMD]` comes back as clap's DisplayHelp; a
/// subcommand after options (`tapebuf -q rmt`) is a usage error, since
/// subcommands are recognised only as the first word.
pub fn parse(mut cmd: clap::Command, args: &[OsString]) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    // `-- CMD [ARGS...]`: the producer, every word after the first `--`.
    let (args, producer) = match args.iter().skip(1).position(|w| w == "--") {
        Some(at) => (&args[..=at], args[at + 2..].to_vec()),
        None => (args, Vec::new()),
    };
    let matches = cmd.try_get_matches_from_mut(help_flag_dropped(args))?;
    if let Some(name) = matches.subcommand_name() {
        return Err(cmd.error(
            clap::error::ErrorKind::ArgumentConflict,
            format!("'{name}' must be the first word: tapebuf {name} ..."),
        ));
    }
    let mut cli = Cli::from_arg_matches(&matches)?;
    cli.command = producer;
    // Flattened groups of options have ids too; they are not options.
    let groups: Vec<&str> = cmd.get_groups().map(|g| g.get_id().as_str()).collect();
    cli.given = matches
        .ids()
        .filter(|id| !groups.contains(&id.as_str()))
        .filter(|id| {
            matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
        })
        .map(|id| id.to_string())
        .collect();
    Ok(cli)
}
