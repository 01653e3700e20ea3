//! The buffer itself, `tapebuf [OPTIONS]`, as a command: its command line
//! is the whole tree (so that `--help` lists the subcommands), validated
//! into a `Config` and run by `run::run`.

use std::ffi::OsString;

use super::{subcommands, tree};
use crate::base::console::{message, say};
use crate::base::exit::Exit;
use crate::cli::command::Command;
use crate::cli::Cli;
use crate::config::{Config, MachineInfo};
use crate::error::Error;

/// `tapebuf [OPTIONS]`.
pub struct Buffer;

impl Command for Buffer {
    const NAME: &'static str = "";
    type Args = Cli;

    fn invocation() -> String {
        "tapebuf".to_string()
    }

    /// `words` is the whole command line: the buffer has no name of its own.
    fn parse(words: Vec<OsString>) -> Result<Cli, clap::Error> {
        tree::parse(subcommands::whole_tree(), &words)
    }

    fn usage_error(text: &str) -> String {
        message!("{text}")
    }

    fn run(cli: Cli) -> Exit {
        let outcome = Config::from_cli(&cli, MachineInfo::current())
            .map_err(Error::from)
            .and_then(|config| match config.serve {
                Some(_) => crate::serve::run(&config),
                None => crate::buffer::run(&config),
            });
        match outcome {
            Ok(exit) => exit,
            Err(e) => {
                say(&message!("{e}"));
                Exit::Code(e.exit_code())
            }
        }
    }
}
