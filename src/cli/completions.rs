//! The command line of `tapebuf completions`: which shell to write a
//! completion script for. The command itself is in `app/` (its entry in
//! `subcommands.rs`, its script in `completions.rs`); its arguments live
//! here with every other command's.

use clap::Parser;

/// tapebuf completions: print a shell completion script on standard output.
#[derive(Debug, Clone, Parser)]
#[command(name = "tapebuf completions", version, long_about = None)]
#[command(after_help = "\
Load it for the running shell with: source <(tapebuf completions bash). \
To install: bash, /usr/share/bash-completion/completions/tapebuf; zsh, \
a file _tapebuf in a directory of $fpath; fish, \
~/.config/fish/completions/tapebuf.fish. Exit status: 0 success, 2 usage \
error. See tapebuf(1), COMPLETIONS.")]
pub struct CompletionsCli {
    /// The shell to complete for.
    #[arg(value_name = "SHELL", value_enum)]
    pub shell: Shell,
}

/// A shell tapebuf writes completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}
